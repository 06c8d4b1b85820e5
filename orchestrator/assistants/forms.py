"""Forms of the Assistants screen: publish a catalog, switch the version, edit the origins."""

from __future__ import annotations

from typing import Any

from django import forms

from catalog_app.models import CatalogVersion
from orchestrator.modes import AssistantMode


def _origins(text: str) -> list[str]:
    """One origin a line (or comma-separated): how the form takes the list."""
    return [part.strip() for line in text.splitlines() for part in line.split(",") if part.strip()]


class VersionChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: CatalogVersion) -> str:
        return f"v{obj.number}" + (f" · {obj.note}" if obj.note else "")


class PublishForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, help_text="shown to analysts; the catalog's title if empty")
    key = forms.SlugField(max_length=64, required=False,
                          help_text="the publishable key the widget carries; generated if empty")
    mode = forms.ChoiceField(label="Orchestrator", choices=AssistantMode.choices, initial=AssistantMode.PLANNER)
    version = VersionChoiceField(queryset=CatalogVersion.objects.none(), empty_label=None,
                                 help_text="promoted versions only: drafts run in the editor's test chat")
    origins = forms.CharField(label="Allowed origins", required=False, widget=forms.Textarea(attrs={"rows": 2}),
                              help_text="the sites that may embed it, one a line, e.g. https://shop.example.com")

    def __init__(self, *args: Any, versions: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["version"].queryset = versions

    def origin_list(self) -> list[str]:
        return _origins(self.cleaned_data.get("origins", ""))


class OriginsForm(forms.Form):
    origins = forms.CharField(label="Allowed origins", required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def origin_list(self) -> list[str]:
        return _origins(self.cleaned_data.get("origins", ""))
