"""The form that starts a cold-start campaign from the studio."""

from __future__ import annotations

from typing import Any

from django import forms

from orchestrator.cold_start.models import CampaignMode
from orchestrator.cold_start.services import MAX_CAMPAIGN_CONVERSATIONS, MAX_ROUNDS
from orchestrator.modes import AssistantMode


class CampaignStartForm(forms.Form):
    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    scenario = forms.ChoiceField(help_text="the simulated users, and how the skills really behave")
    conversations = forms.IntegerField(min_value=1, max_value=MAX_CAMPAIGN_CONVERSATIONS, initial=200,
                                       help_text="simulated conversations a round")
    max_rounds = forms.IntegerField(min_value=1, max_value=MAX_ROUNDS, initial=3)
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=11)
    first_orchestrator = forms.ChoiceField(choices=AssistantMode.choices, initial=AssistantMode.S3,
                                           help_text="the first round's; later rounds simulate drafts with the planner")
    reference = forms.ChoiceField(required=False, help_text="a hand-written catalog to plot beside the rounds")
    mode = forms.ChoiceField(choices=CampaignMode.choices, initial=CampaignMode.REVIEW, widget=forms.RadioSelect,
                             help_text="a sandbox's drafts are never promoted: an admin reviews their refinements")
    confidence = forms.FloatField(min_value=0.0, max_value=1.0, required=False, initial=0.9,
                                  help_text="sandbox only: auto-accept proposals at or above it")

    def __init__(self, *args: Any, scenarios: list[str], catalogs: list[str], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["scenario"].choices = [(name, name) for name in scenarios]
        self.fields["reference"].choices = [("", "none")] + [(slug, slug) for slug in catalogs]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("mode") == CampaignMode.SANDBOX and data.get("confidence") is None:
            self.add_error("confidence", "a sandbox campaign needs the confidence to auto-accept at")
        if data.get("mode") == CampaignMode.REVIEW:
            data["confidence"] = None  # an admin decides: no confidence applies
        return data
