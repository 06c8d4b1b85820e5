"""What the assistant says: typed replies and the wording built from the catalog's descriptions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from ..catalog.formats import parse_format
from ..catalog.phrases import has_determiner, is_clause, joined, lower_first, the_thing
from ..catalog.sensitivity import Sensitivity, sensitivity
from ..catalog.spec import CatalogSpec, Goal, Intent
from .nlu import spoken_option

ReplyKind = Literal["text", "question", "consent", "result", "resumed", "explanation"]
# What a reply tells about the turn, for whoever reads turns (the analytics page, the learner) without reading
# words: the user's message was not understood; the user refused a consent; the reply takes up an intent (a
# goal frame is pushed: a new request, a pick from "did you mean", an accepted offer, a request taken up again,
# `dialogue.executor.Executor.push`). A frame resumed ("Now, back to ...", kind "resumed") is not a start: its
# intent was started when it was pushed.
ReplyMark = Literal["not_understood", "consent_refused", "started"]


@dataclass(frozen=True)
class Reply:
    kind: ReplyKind
    text: str
    element: str | None = None  # question: the element asked for
    skill: str | None = None  # consent: the skill that would receive the values
    elements: tuple[str, ...] = ()  # consent: the sensitive elements to share
    goal: str | None = None  # resumed / result / offer: the intent
    data: dict[str, Any] = field(default_factory=dict)
    mark: ReplyMark | None = None  # stored beside the reply (`Message.mark`), not part of its API body

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"kind": self.kind, "text": self.text}
        for name in ("element", "skill", "goal"):
            if getattr(self, name) is not None:
                body[name] = getattr(self, name)
        if self.elements:
            body["elements"] = list(self.elements)
        if self.data:
            body["data"] = self.data
        return body


class Wording:
    """Phrases for one catalog: element and skill descriptions, with plain fallbacks."""

    def __init__(self, spec: CatalogSpec, privacy: Sensitivity | None = None):
        self.spec = spec
        self._privacy = privacy  # the compiled domain's, when the caller has it (else derived from the spec once)
        # Which intents the help and the greeting offer: the planner orchestrator offers only those with a
        # plan (set by the orchestrator); by default every intent.
        self.can_offer: Callable[[Intent], bool] = lambda intent: True

    def element(self, name: str) -> str:
        """How a sentence names the element: its label, else its description, else its name."""
        element = self.spec.element(name)
        return lower_first(element.label or element.description or name.replace("_", " "))

    def skill(self, name: str) -> str:
        """`credit check (asks the credit bureau for ...)`: the name, and what it does."""
        description = self.spec.skill(name).description.rstrip(".")
        label = name.replace("_", " ")
        return f"{label} ({description[:1].lower()}{description[1:]})" if description else label

    def skill_label(self, name: str) -> str:
        """The skill's name as the subject of a sentence: "Lookup employee"."""
        label = name.replace("_", " ")
        return label[:1].upper() + label[1:]

    def goal(self, intent: str | None, goal: Goal) -> str:
        if intent is not None:
            found = next((i for i in self.spec.intents if i.name == intent), None)
            if found is not None:
                return found.description or named_request(intent)
        parts = [self.element(x) for x in goal.known] + [ref.replace("_", " ") for ref in goal.done]
        return "get " + " and ".join(parts)

    def question(self, name: str) -> str:
        """The element's own question if the analyst wrote one, else one built to read naturally."""
        element = self.spec.element(name)
        options = [spoken_option(o) for o in parse_format(element.format).options]
        choices = f" ({joined(options, 'or')})" if options else ""
        if element.question:
            if not options or options[0] in element.question:
                return element.question
            asked = element.question
            return asked[:-1] + choices + "?" if asked.endswith("?") else asked + choices
        children = [c.name for c in self.spec.elements if c.parent == name]
        if children:
            choices = f" (for example {joined([self.element(c) for c in children], 'or')})"
        what = self.element(name)
        if is_clause(what):  # "how you pay for the order" is already a question: "How do you pay ...?"
            asked = _inverted(what)
            return f"{asked[:1].upper()}{asked[1:]}{choices}?"
        if children:  # one of several kinds: "Could you give me your document (for example a passport ...)?"
            return f"Could you give me {the_thing(what, owner='your')}{choices}?"
        if not has_determiner(what):
            what = f"the {what}"
        return f"What is {what}{choices}?"

    def list(self, elements: list[str]) -> str:
        return " and ".join(self.element(x) for x in elements) or "your personal data"

    def explain_question(self, name: str) -> str:
        """Another way to put a question, with what an answer looks like."""
        element = self.spec.element(name)
        fmt = parse_format(element.format)
        free = fmt.is_free
        hint = fmt.hint or ("a few words in your own terms" if free else "a value in the usual format")
        return f"I am asking for {self.element(name)}: {hint}. You can also say \"I don't know\" or \"stop\"."

    @cached_property
    def _made_from(self) -> Mapping[str, tuple[str, ...]]:
        return (self._privacy or sensitivity(self.spec)).derived

    def consent(self, skill: str, elements: list[str]) -> str:
        """The consent question; a value computed from sensitive ones says what it was made from."""
        what = " and ".join(self._shared(x) for x in elements) or "your personal data"
        return f"To continue I need to share {what} with {self.skill(skill)}. Is that OK?"

    def _shared(self, name: str) -> str:
        sources = self._made_from.get(name)
        if not sources:
            return self.element(name)
        return f"{self.element(name)} (made from {self.list(list(sources))})"

    def offer(self, intent: Intent) -> str:
        return f"Would you also like to {intent.description or named_request(intent.name)}?"

    def values(self, values: dict[str, str]) -> str:
        text = "; ".join(f"{self.element(x)}: {v}" for x, v in values.items())
        return text[:1].upper() + text[1:] + ("." if text else "")

    def choice(self, intents: list[str]) -> str:
        what = [self._intent_phrase(name) for name in intents]
        if len(what) == 1:
            return f"Do you want to {what[0]}?"
        return f"Did you mean to {', to '.join(what[:-1])}, or to {what[-1]}?"

    def _intent_phrase(self, name: str) -> str:
        intent = next((i for i in self.spec.intents if i.name == name), None)
        return (intent.description if intent and intent.description else named_request(name))

    def help(self) -> str:
        things = [i.description or named_request(i.name) for i in self.spec.intents if self.can_offer(i)]
        if not things:
            return "I have no requests I can help with yet."
        listed = joined(things, "or")
        return f"I can {listed}. What would you like to do?"


# Verbs that open a request's name ("report_broken_device"); a name without one is a topic ("broken_device").
REQUEST_VERBS = frozenset(
    "report check book order reset apply open request cancel change update get add track return pay start publish "
    "run draw make find send submit renew transfer schedule register buy close create delete remove view see "
    "file claim quote move set unlock block replace refund".split())
NOT_COUNTED = frozenset("a an the my your our their his her its this that some any new".split())


def named_request(name: str) -> str:
    """A request named only by its intent's name, in words that read after "let's" or "I can":
    "report_broken_device" -> "report a broken device", "broken_device" -> "deal with a broken device"."""
    words = name.replace("_", " ").split()
    if not words:
        return name
    verb, rest = (words[0], words[1:]) if words[0] in REQUEST_VERBS else ("deal with", words)
    if verb in ("apply", "register") and rest and rest[0] != "for":
        verb += " for"  # "apply_loan": apply for a loan
    plural = rest and rest[-1].endswith("s") and not rest[-1].endswith(("ss", "us", "is"))  # "status" is one
    if rest and rest[0] not in NOT_COUNTED and not plural:
        rest = ["an" if rest[0][:1] in "aeiou" else "a", *rest]
    return " ".join([verb, *rest])


SUBJECTS = ("you", "we", "they", "i")
AUXILIARIES = ("are", "am", "were", "was", "have", "has", "had", "can", "could", "will", "would", "should", "may",
               "must", "do", "did", "does")


def _inverted(clause: str) -> str:
    """ "where you want to go" -> "where do you want to go"; "when you are leaving" -> "when are you
    leaving"; "what the problem is" -> "what is the problem": an embedded question turned into a
    direct one. A wh-word that is the subject ("what went wrong") stays as written."""
    words = clause.split(" ")
    for wh in range(1, min(4, len(words) - 1)):  # "how many bags you need": the subject after 1-3 words
        subject, verb = words[wh], words[wh + 1]
        if subject in SUBJECTS:
            if verb in AUXILIARIES:
                return " ".join([*words[:wh], verb, subject, *words[wh + 2:]])
            return " ".join([*words[:wh], "do", subject, *words[wh + 1:]])
    if len(words) > 2 and words[-1] in ("is", "are"):  # "what the problem is" -> "what is the problem"
        return " ".join([words[0], words[-1], *words[1:-1]])
    return clause
