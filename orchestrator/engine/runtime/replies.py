"""What the assistant says: typed replies and the wording built from the catalog's descriptions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..catalog.spec import CatalogSpec, Goal, Intent

ReplyKind = Literal["text", "question", "consent", "result", "resumed", "explanation"]


@dataclass(frozen=True)
class Reply:
    kind: ReplyKind
    text: str
    element: str | None = None  # question: the element asked for
    skill: str | None = None  # consent: the skill that would receive the values
    elements: tuple[str, ...] = ()  # consent: the sensitive elements to share
    goal: str | None = None  # resumed / result / offer: the intent
    data: dict[str, Any] = field(default_factory=dict)

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

    def __init__(self, spec: CatalogSpec):
        self.spec = spec

    def element(self, name: str) -> str:
        element = self.spec.element(name)
        return element.description or name.replace("_", " ")

    def skill(self, name: str) -> str:
        """`credit check (asks the credit bureau for ...)`: the name, and what it does."""
        description = self.spec.skill(name).description.rstrip(".")
        label = name.replace("_", " ")
        return f"{label} ({description[:1].lower()}{description[1:]})" if description else label

    def goal(self, intent: str | None, goal: Goal) -> str:
        if intent is not None:
            found = next((i for i in self.spec.intents if i.name == intent), None)
            if found is not None:
                return found.description or intent.replace("_", " ")
        parts = [self.element(x) for x in goal.known] + [ref.replace("_", " ") for ref in goal.done]
        return "get " + " and ".join(parts)

    def question(self, name: str) -> str:
        children = [c.name for c in self.spec.elements if c.parent == name]
        if children:
            kinds = ", ".join(self.element(c) for c in children)
            return f"Could you give me {self.element(name)} (for example {kinds})?"
        return f"What is {self.element(name)}?"

    def list(self, elements: list[str]) -> str:
        return " and ".join(self.element(x) for x in elements) or "your personal data"

    def explain_question(self, name: str) -> str:
        """Another way to put a question, with what an answer looks like."""
        element = self.spec.element(name)
        fmt = element.format or "text"
        hints = {"email": "an email address such as name@example.com", "money": "an amount such as 25,000 dollars",
                 "number": "a number", "date": "a date such as 2024-05-31", "phone": "a phone number"}
        if fmt.startswith("enum:"):
            hint = "one of: " + ", ".join(o.strip() for o in fmt.removeprefix("enum:").split("|") if o.strip())
        else:
            hint = hints.get(fmt, "a few words in your own terms" if fmt == "text" else "a value in the usual format")
        return f"I am asking for {self.element(name)}: {hint}. You can also say \"I don't know\" or \"stop\"."

    def consent(self, skill: str, elements: list[str]) -> str:
        what = self.list(elements)
        return f"To continue I need to share {what} with {self.skill(skill)}. Is that OK?"

    def offer(self, intent: Intent) -> str:
        return f"Would you also like to {intent.description or intent.name.replace('_', ' ')}?"

    def values(self, values: dict[str, str]) -> str:
        text = "; ".join(f"{self.element(x)}: {v}" for x, v in values.items())
        return text[:1].upper() + text[1:] + ("." if text else "")

    def choice(self, intents: list[str]) -> str:
        what = [self._intent_phrase(name) for name in intents]
        if len(what) == 1:
            return f"Do you want to {what[0]}?"
        return f"Did you mean to {what[0]}, or to {what[1]}?"

    def _intent_phrase(self, name: str) -> str:
        intent = next((i for i in self.spec.intents if i.name == name), None)
        return (intent.description if intent and intent.description else name.replace("_", " "))

    def help(self) -> str:
        things = [i.description or i.name.replace("_", " ") for i in self.spec.intents]
        if not things:
            return "I have no requests I can help with yet."
        listed = ", ".join(things[:-1]) + (" or " if len(things) > 1 else "") + things[-1]
        return f"I can {listed}. What would you like to do?"
