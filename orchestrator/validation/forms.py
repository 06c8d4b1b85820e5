"""Forms of the validation pages: a plan to judge, and a batch of trajectories to analyse."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile

from catalog_app.models import Catalog
from orchestrator.engine.analysis.plan_validation import QUALITIES
from orchestrator.engine.analysis.trajectory_io import DataError, decode_json
from orchestrator.engine.catalog.spec import CatalogSpec

MAX_UPLOAD_BYTES = 5 * 1024 * 1024

QUALITY_HELP = {
    "sound": "every step can run where it stands",
    "valid": "sound, and it reaches the goal",
    "optimal": "valid, and nothing cheaper does",
}


class PlanCheckForm(forms.Form):
    intent = forms.ChoiceField()
    quality = forms.ChoiceField(
        choices=[(q, f"{q} — {QUALITY_HELP[q]}") for q in QUALITIES], initial="optimal", widget=forms.RadioSelect
    )
    known = forms.CharField(required=False, label="Known at the start",
                            help_text="elements whose values are already known, comma-separated")
    plan = forms.CharField(widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false"}), max_length=100_000,
                           help_text="one step per line: outputs = skill(inputs), ask(element), authorize(target)")

    def __init__(self, *args: Any, spec: CatalogSpec, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["intent"].choices = [(i.name, i.name) for i in spec.intents]

    def known_names(self) -> list[str]:
        return [name.strip() for name in self.cleaned_data["known"].split(",") if name.strip()]


class AnalysisUploadForm(forms.Form):
    samples = forms.FileField(label="Recorded sequences (JSON or JSON Lines)",
                              help_text="NESTFUL-style samples, each with an 'output' list of calls")
    catalog = forms.ChoiceField(required=False, label="Check against the catalog")
    tools = forms.FileField(required=False, label="…or these tool specs",
                            help_text="OpenAPI 3, NESTFUL or OpenAI function specs (JSON)")
    name = forms.CharField(required=False, max_length=200)

    def __init__(self, *args: Any, catalogs: list[Catalog], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["catalog"].choices = [("", "— the samples' own tools, or the specs below —")] + [
            (c.slug, c.title or c.slug) for c in catalogs
        ]

    def clean_samples(self) -> Any:
        return json_upload(self.cleaned_data["samples"], "the sequences file")

    def clean_tools(self) -> Any:
        upload = self.cleaned_data.get("tools")
        return None if upload is None else json_upload(upload, "the tool specs file")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("catalog") and data.get("tools") is not None:
            raise forms.ValidationError("choose a catalog or upload tool specs, not both")
        return data


def json_upload(upload: UploadedFile, what: str) -> Any:
    if upload.size > MAX_UPLOAD_BYTES:
        raise forms.ValidationError(f"{what} is {upload.size:,} bytes; the limit is {MAX_UPLOAD_BYTES:,} bytes")
    try:
        return decode_json(upload.read(), what)
    except DataError as exc:
        raise forms.ValidationError(str(exc)) from exc
