"""The form that starts a simulation run from the studio."""

from __future__ import annotations

from typing import Any

from django import forms

from orchestrator.modes import AssistantMode
from orchestrator.simulation.services import MAX_CONVERSATIONS


class SimulationStartForm(forms.Form):
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    scenario = forms.ChoiceField(help_text="the simulated users, and how the skills really behave")
    orchestrator = forms.ChoiceField(choices=AssistantMode.choices, initial=AssistantMode.PLANNER)
    conversations = forms.IntegerField(min_value=1, max_value=MAX_CONVERSATIONS, initial=200)
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=0,
                              help_text="the same seed replays the same conversations")
    explore = forms.BooleanField(required=False, label="Experiment",
                                 help_text="after each conversation, try again the skills that refused a call, "
                                           "with more of the known values, so learning sees what they need "
                                           "(simulation only)")

    def __init__(self, *args: Any, scenarios: list[str], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["scenario"].choices = [(name, name) for name in scenarios]
