"""Studio forms: what an analyst types, checked field by field, in words a non-planner reads.

Forms check only what a field can know alone (a number is a number, a name is given). Whether
the catalog still holds together afterwards (unknown names, cycles in the type tree) is the
engine's validation, run by `catalog_app.editing` on the changed spec; the view puts those
messages next to the fields they concern.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.conf import settings

from orchestrator.engine.catalog.checks import MAX_NAME
from orchestrator.engine.catalog.formats import parse_format
from orchestrator.engine.catalog.spec import CatalogSpec

from .models import MAX_COST

FORMAT_CHOICES = [
    ("", "Any text"),
    ("email", "Email address"),
    ("number", "Number"),
    ("money", "Amount of money"),
    ("date", "Date"),
    ("phone", "Phone number"),
    ("text", "Free text"),
    ("regex", "Matches a pattern"),
    ("enum", "One of a list"),
]
BOUNDED_KINDS = ("date", "money", "number")  # kinds whose detail says what they accept
PRIVACY_CHOICES = [
    ("per_skill", "Once per skill: the first time a skill needs sensitive values, the user agrees for all of them"),
    ("per_element", "Once per value: the user agrees to share each sensitive value, whichever skill gets it"),
]


class NamesField(forms.CharField):
    """Names separated by commas or spaces: `email, account_number` -> ("email", "account_number")."""

    def __init__(self, **kwargs: Any):
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", 4000)
        super().__init__(**kwargs)
        self.widget.attrs.update({"autocomplete": "off", "spellcheck": "false", "data-names": "true"})

    def to_python(self, value: Any) -> tuple[str, ...]:  # type: ignore[override]
        text = super().to_python(value) or ""
        return tuple(dict.fromkeys(part for part in re.split(r"[\s,]+", text) if part))

    def prepare_value(self, value: Any) -> str:
        if isinstance(value, list | tuple):
            return ", ".join(value)
        return value or ""


class ReferenceField(forms.CharField):
    """The name of one existing thing, found by typing: a search, not a list of every name.

    A dropdown of every element in every element's form grows with the square of the catalog;
    the editor completes the name as it is typed instead (`views.editor._hints`).
    """

    def __init__(self, **kwargs: Any):
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", MAX_NAME)
        super().__init__(**kwargs)
        self.widget.attrs.update({"autocomplete": "off", "spellcheck": "false", "data-reference": "true",
                                  "placeholder": "type to search"})

    def to_python(self, value: Any) -> str:
        return (super().to_python(value) or "").strip()


class LinesField(forms.CharField):
    """One entry per line, blank lines dropped."""

    widget = forms.Textarea(attrs={"rows": 3})

    def to_python(self, value: Any) -> tuple[str, ...]:  # type: ignore[override]
        text = super().to_python(value) or ""
        return tuple(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))

    def prepare_value(self, value: Any) -> str:
        if isinstance(value, list | tuple):
            return "\n".join(value)
        return value or ""


def _name_field(label: str, help_text: str) -> forms.CharField:
    return forms.CharField(max_length=MAX_NAME, label=label, help_text=help_text,
                           widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}))


def _cost_field(label: str, help_text: str = "", required: bool = True) -> forms.IntegerField:
    return forms.IntegerField(min_value=0, max_value=MAX_COST, label=label, help_text=help_text, required=required)


class StudioForm(forms.Form):
    """Every studio form: field errors in plain words, and a list of names for the pickers."""

    required_css_class = "required"
    # Errors come from the server, next to the field and in words; the browser's own bubbles
    # would block the submit before the analyst sees them.
    use_required_attribute = False

    def spec_values(self) -> dict[str, Any]:
        """The cleaned values as the editing functions take them."""
        return dict(self.cleaned_data)


# --- elements -------------------------------------------------------------------------------------


class ElementForm(StudioForm):
    name = _name_field("Name", "Lowercase letters, digits and _, e.g. email or loan_amount.")
    description = forms.CharField(required=False, max_length=500, label="What it is, in the user's words",
                                  help_text="Shown when the assistant asks for it or explains itself.")
    parent = ReferenceField(label="Is a kind of",
                            help_text="Place it in the type tree: a passport is a kind of document. "
                                      "Leave empty for the top of the tree.")
    askable = forms.BooleanField(required=False, initial=True, label="The user can be asked for it")
    sensitive = forms.BooleanField(required=False, label="Sensitive: the user must agree before a skill receives it")
    format_kind = forms.ChoiceField(choices=FORMAT_CHOICES, required=False, label="Value format")
    format_detail = forms.CharField(required=False, max_length=900, label="Pattern or allowed values",
                                    help_text="For a pattern, a regular expression; for a list, values "
                                              "separated by | (standard|gold); for a date, future or past; "
                                              "for an amount or a number, its bounds (1000..50000).")
    question = forms.CharField(required=False, max_length=500, label="The question to ask",
                               help_text="e.g. What size should the pizza be? Empty: built from the description.")
    label = forms.CharField(required=False, max_length=200, label="Its name in a sentence",
                            help_text="e.g. the pizza size, your phone number. Empty: the description.")

    def __init__(self, *args: Any, spec: CatalogSpec, current: str | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.current = current
        self.names = {e.name for e in spec.elements}

    def clean_parent(self) -> str:
        parent = self.cleaned_data.get("parent", "")
        # An element cannot be a kind of itself; the cycles further down are the engine's to refuse.
        if parent and parent == self.current:
            raise forms.ValidationError("An element cannot be a kind of itself.")
        if parent and parent not in self.names:
            raise forms.ValidationError(f"There is no element named {parent}: choose one that exists.")
        return parent

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        kind, detail = data.get("format_kind") or "", (data.get("format_detail") or "").strip()
        if kind in ("regex", "enum") and not detail:
            what = "a pattern" if kind == "regex" else "the allowed values, separated by |"
            self.add_error("format_detail", f"Give {what}.")
        if kind in BOUNDED_KINDS and detail and parse_format(f"{kind}:{detail}").bad:
            what = "future or past" if kind == "date" else "bounds such as 1000..50000 (either may be left out)"
            self.add_error("format_detail", f"For a {kind}, give {what}.")
        return data

    def spec_values(self) -> dict[str, Any]:
        data = self.cleaned_data
        kind, detail = data.get("format_kind") or "", (data.get("format_detail") or "").strip()
        return {
            "name": data["name"].strip(),
            "description": data.get("description", "").strip(),
            "parent": data.get("parent") or None,
            "sensitive": data.get("sensitive", False),
            "askable": data.get("askable", False),
            # a date's future/past and an amount's bounds are kept too (`date:future`, `money:1000..50000`)
            "format": f"{kind}:{detail}" if kind in ("regex", "enum") or (kind in BOUNDED_KINDS and detail)
            else (kind or None),
            "question": (data.get("question") or "").strip() or None,
            "label": (data.get("label") or "").strip() or None,
        }

    @staticmethod
    def initial_for(element: Any) -> dict[str, Any]:
        fmt = element.format or ""
        kind, _, detail = fmt.partition(":")
        return {"name": element.name, "description": element.description, "parent": element.parent or "",
                "askable": element.askable, "sensitive": element.sensitive, "format_kind": kind,
                "format_detail": detail, "question": element.question or "", "label": element.label or ""}


# --- skills ---------------------------------------------------------------------------------------


class SkillForm(StudioForm):
    name = _name_field("Name", "Lowercase letters, digits and _, e.g. credit_check.")
    description = forms.CharField(required=False, max_length=500, label="What it does, for the user",
                                  help_text="Used when the assistant explains what it did.")
    endpoint = forms.CharField(required=False, max_length=2000, initial="sim:", label="Endpoint",
                               help_text="The URL the skill is called at, or sim: for a simulated skill.")
    max_retries = forms.IntegerField(min_value=0, max_value=100, initial=1, label="Retry limit",
                                     help_text="How many failed calls per conversation before the assistant "
                                               "stops counting on this skill.")
    cost = _cost_field("Cost", "Leave empty for the catalog's skill cost. The planner prefers cheaper plans.",
                       required=False)
    changes_world = forms.BooleanField(required=False, label="Changes things (submits, publishes, creates)",
                                       help_text="The assistant asks before calling it off the route a request "
                                                 "named.")

    def spec_values(self) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        data["name"] = data["name"].strip()
        data["endpoint"] = (data.get("endpoint") or "").strip() or "sim:"
        data["effects"] = "world" if data.pop("changes_world", False) else "none"
        return data


class NewSkillForm(SkillForm):
    inputs = NamesField(label="Inputs", help_text="Elements the skill needs, separated by commas. "
                                                  "A new name becomes a new element the user can give.")
    outputs = NamesField(label="Outputs when it succeeds", help_text="Elements it gives back. A new name "
                                                                     "becomes a new element only skills produce.")
    failure = forms.BooleanField(required=False, initial=True, label="Add a failure outcome (recommended)")


class ModeForm(StudioForm):
    name = forms.CharField(required=False, max_length=MAX_NAME, label="Mode name",
                           help_text="Optional; unnamed modes are called m1, m2, ...")
    inputs = NamesField(label="Inputs", help_text="Elements this way of calling the skill needs.")

    def spec_values(self) -> dict[str, Any]:
        return {"name": (self.cleaned_data.get("name") or "").strip() or None, "inputs": self.cleaned_data["inputs"]}


class NewModeForm(ModeForm):
    outputs = NamesField(label="Outputs when it succeeds")
    failure = forms.BooleanField(required=False, initial=True, label="Add a failure outcome (recommended)")

    def spec_values(self) -> dict[str, Any]:
        return {**super().spec_values(), "outputs": self.cleaned_data["outputs"],
                "failure": self.cleaned_data.get("failure", False)}


class OutcomeForm(StudioForm):
    name = _name_field("Outcome", "e.g. found, not_found, approved, failed.")
    outputs = NamesField(label="Outputs", help_text="Elements this outcome gives back (none for a failure).")


# --- intents and settings -------------------------------------------------------------------------


class IntentForm(StudioForm):
    name = _name_field("Name", "Lowercase letters, digits and _, e.g. apply_loan.")
    description = forms.CharField(required=False, max_length=500, label="What the user wants")
    examples = LinesField(required=False, label="Example utterances",
                          help_text="One per line: how users ask for it. More examples, better recognition.")
    goal_known = NamesField(label="Goal: know these elements",
                            help_text="The request is done when these are known.")
    goal_done = NamesField(label="Goal: run these skills",
                           help_text="A skill, or skill.mode for one way of calling it.")
    extensions = NamesField(label="Then offer", help_text="Intents to offer once this one is done.")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if not data.get("goal_known") and not data.get("goal_done") and "goal_known" not in self.errors:
            self.add_error("goal_known", "Say what the request achieves: elements to know, skills to run, or both.")
        return data

    def spec_values(self) -> dict[str, Any]:
        return {**self.cleaned_data, "name": self.cleaned_data["name"].strip(),
                "description": self.cleaned_data.get("description", "").strip()}


class SettingsForm(StudioForm):
    title = forms.CharField(required=False, max_length=200, label="Title")
    description = forms.CharField(required=False, max_length=2000, label="Description",
                                  widget=forms.Textarea(attrs={"rows": 2}))
    privacy = forms.ChoiceField(choices=PRIVACY_CHOICES, widget=forms.RadioSelect, label="Asking for consent")
    cost_skill = _cost_field("Cost of a skill call")
    cost_ask = _cost_field("Cost of asking the user", "Keep it above a skill's cost so the assistant "
                                                      "looks things up rather than asking.")
    cost_authorize = _cost_field("Cost of asking for consent")


# --- catalogs, versions and imports ---------------------------------------------------------------


class NewCatalogForm(StudioForm):
    slug = forms.SlugField(max_length=MAX_NAME, label="Short name",
                           help_text="Lowercase letters, digits, - and _; used in links and files.")
    title = forms.CharField(required=False, max_length=200, label="Title")


class UploadForm(StudioForm):
    """A document given as a file or pasted; one of the two."""

    file = forms.FileField(required=False, label="File")
    text = forms.CharField(required=False, label="Or paste it here",
                           widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}))

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        upload = data.get("file")
        limit = settings.CATALOG_MAX_BYTES
        if upload is not None and upload.size > limit:
            self.add_error("file", f"The file is {upload.size:,} bytes; the limit is {limit:,} bytes "
                                   "(the CATALOG_MAX_BYTES setting).")
        elif upload is None and not (data.get("text") or "").strip():
            self.add_error("file", "Choose a file or paste the document.")
        return data

    def content(self) -> tuple[bytes | str, str]:
        """The document and its file name (for guessing YAML or JSON)."""
        upload = self.cleaned_data.get("file")
        if upload is not None:
            return upload.read(), upload.name
        return self.cleaned_data["text"], ""


class DiffForm(StudioForm):
    old = forms.IntegerField(min_value=1, label="From version")
    new = forms.IntegerField(min_value=1, label="To version")
