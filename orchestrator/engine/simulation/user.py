"""A simulated user: a goal, what it can and cannot give, and the ways people say things.

It sees only what a chat client sees, the replies as the API gives them (`kind`, `text`,
`element`, `skill`, `goal`...), and answers with text: the same turn contract as a person at the
widget. All its choices come from its own seeded random generator, so a seed replays a user.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ..catalog.formats import is_free_text, kind_of
from ..catalog.spec import CatalogSpec, Element
from .scenario import Scenario
from .values import generate, other_format, typo

OPENINGS = ("{u}", "Hi! {u}", "Hello, {u}, please.", "Good morning. {u}", "hey there, {u}", "{u} if possible")
ANSWERS = ("{v}", "It's {v}", "my {label} is {v}", "sure, {v}", "{v}, thanks")
FREE_ANSWERS = ("{v}",)  # free text is taken whole: no words around it
CANNOT = ("I don't know my {label}", "Sorry, I don't have that", "no idea, sorry", "I can't find it")
REFUSE = ("No, I would rather not say", "No, I don't want to give that")
YES = ("yes", "Yes, that's fine", "ok, go ahead", "sure")
NO_CONSENT = ("No, I don't want to share that", "no")
ACCEPT = ("yes please", "sure, why not")
DECLINE = ("no thanks", "No, that's all")
SIDE = ("Why do you need my {label}?", "why do you need that?")
STOP = ("stop", "never mind", "cancel")
VOLUNTEER = ("My {label} is {v}.", "my {label} is {v}")

WAITING = ("question", "consent")


@dataclass(frozen=True)
class Utterance:
    text: str
    act: str  # open | answer | cannot | refuse | consent_yes | consent_no | offer_yes | offer_no | side | stop | ...
    element: str | None = None  # the element an answer is about


@dataclass
class SimulatedUser:
    spec: CatalogSpec
    scenario: Scenario
    rng: random.Random
    intent: str = ""
    profile: dict[str, str] = field(default_factory=dict)  # element -> value it can give
    withheld: dict[str, str] = field(default_factory=dict)  # element -> "cannot" | "refuse" | "unfillable"
    events: list[dict[str, Any]] = field(default_factory=list)  # what the user did, for the trace
    rephrased: int = 0
    asked_why: set[str] = field(default_factory=set)
    odd_answers: dict[str, int] = field(default_factory=dict)
    given: dict[str, list[str]] = field(default_factory=dict)  # element -> values given, in order
    digressed: bool = False

    def __post_init__(self) -> None:
        users = self.scenario.users
        goals = users.goals or {i.name: 1.0 for i in self.spec.intents}
        names = [n for n, w in goals.items() if w > 0]
        self.intent = self.rng.choices(names, weights=[goals[n] for n in names])[0]
        for element in self.spec.elements:
            if not element.askable:
                continue
            pool = users.values.get(element.name)
            self.profile[element.name] = self.rng.choice(pool) if pool else generate(element, self.rng)
            if element.name in self.scenario.unfillable:
                self.withheld[element.name] = "unfillable"
            elif self.rng.random() < users.cannot.get(element.name, 0.0):
                self.withheld[element.name] = "cannot"
            elif self.rng.random() < users.refuse.get(element.name, 0.0):
                self.withheld[element.name] = "refuse"

    # --- what it says -------------------------------------------------------------------------------
    def opening(self) -> Utterance:
        text = self._request(self.intent)
        volunteer = [x for x in self._spottable() if x not in self.withheld]
        if volunteer and self.rng.random() < self.scenario.users.phrasing.volunteer:
            chosen = self.rng.sample(volunteer, k=min(len(volunteer), self.rng.randint(1, 2)))
            for name in chosen:
                text += " " + self.rng.choice(VOLUNTEER).format(label=self._label(name), v=self.profile[name])
                self._event("volunteered", element=name)
        return Utterance(text, "open")

    def respond(self, replies: list[dict[str, Any]], satisfied: bool) -> Utterance | None:
        """The next thing the user says after `replies`, or None when it leaves the conversation."""
        # The assistant waits for an answer exactly when its last reply is a question or a consent prompt.
        waiting = replies[-1] if replies and replies[-1]["kind"] in WAITING else None
        if waiting is None:
            return self._nothing_pending(replies, satisfied)
        if waiting["kind"] == "consent" or "readback" in (waiting.get("data") or {}):
            return self._consent(waiting)  # a read-back before a world-changing call is agreed like a consent
        if waiting.get("element"):
            return self._answer(waiting["element"])
        return self._offer()

    def _nothing_pending(self, replies: list[dict[str, Any]], satisfied: bool) -> Utterance | None:
        if satisfied:
            return None
        if any(r.get("goal") == self.intent and r.get("data", {}).get("reason") for r in replies):
            self._event("gave_up", reason="the assistant cannot do it")
            return None  # the assistant said it cannot: the user leaves
        if self.rephrased >= 2:
            self._event("gave_up", reason="not understood")
            return None
        self.rephrased += 1
        self._event("rephrased")
        return Utterance(self._request(self.intent, fresh=True), "rephrase")

    def _answer(self, element: str) -> Utterance:
        behaviour = self.scenario.users.behaviour
        label = self._label(element)
        if self.rng.random() < behaviour.stop:
            self._event("stopped", element=element)
            return Utterance(self.rng.choice(STOP), "stop", element)
        if element not in self.asked_why and self.rng.random() < behaviour.side_question:
            self.asked_why.add(element)
            self._event("side_question", element=element)
            return Utterance(self.rng.choice(SIDE).format(label=label), "side", element)
        if not self.digressed and self.rng.random() < behaviour.digression:
            other = [i.name for i in self.spec.intents if i.name != self.intent]
            if other:
                self.digressed = True
                chosen = self.rng.choice(other)
                self._event("digression", intent=chosen)
                return Utterance("Actually, " + self._example(chosen), "digression")
        known = self._value_for(element)
        if known is None:
            reason = self.withheld.get(element, "cannot")
            self._event("slot", element=element, filled=False, reason=reason)
            lines = REFUSE if reason == "refuse" else CANNOT
            return Utterance(self.rng.choice(lines).format(label=label), "refuse" if reason == "refuse" else "cannot",
                             element)
        name, value = known
        spec_element = self.spec.element(name)
        if self.odd_answers.get(element, 0) == 1:
            self.odd_answers[element] = 2  # asked again after an answer written oddly: written plainly now
        elif value in self.given.get(name, []):
            # Asked again for a value already given plainly: it did not work; another one, if it has one.
            value = self._another(spec_element, self.given[name])
            if value is None:
                self._event("slot", element=element, filled=False, reason="exhausted")
                return Utterance(self.rng.choice(CANNOT).format(label=label), "cannot", element)
            self.profile[name] = value
        self.given.setdefault(name, []).append(value)
        tries = self.odd_answers.get(element, 0)
        written = value
        if tries == 0 and self.rng.random() < self.scenario.users.phrasing.other_format:
            written = other_format(spec_element, value, self.rng) or value
            if written != value:
                self.odd_answers[element] = 1
                self._event("other_format", element=element)
        templates = FREE_ANSWERS if is_free_text(spec_element.format) else ANSWERS
        text = self.rng.choice(templates).format(v=written, label=label)
        if self.rng.random() < self.scenario.users.phrasing.typo:
            text = typo(text, self.rng, keep=written)
        self._event("slot", element=element, filled=True, given=name)
        return Utterance(text, "answer", element)

    def _another(self, element: Element, tried: list[str]) -> str | None:
        pool = self.scenario.users.values.get(element.name)
        if pool:
            left = [v for v in pool if v not in tried]
            return self.rng.choice(left) if left else None
        fresh = generate(element, self.rng)
        return None if fresh in tried or len(tried) >= 3 else fresh

    def _consent(self, reply: dict[str, Any]) -> Utterance:
        if self.rng.random() < self.scenario.users.behaviour.refuse_consent:
            self._event("consent", skill=reply.get("skill"), given=False)
            return Utterance(self.rng.choice(NO_CONSENT), "consent_no")
        self._event("consent", skill=reply.get("skill"), given=True)
        return Utterance(self.rng.choice(YES), "consent_yes")

    def _offer(self) -> Utterance:
        if self.rng.random() < self.scenario.users.behaviour.accept_offer:
            self._event("offer", accepted=True)
            return Utterance(self.rng.choice(ACCEPT), "offer_yes")
        self._event("offer", accepted=False)
        return Utterance(self.rng.choice(DECLINE), "offer_no")

    # --- helpers -----------------------------------------------------------------------------------
    def _request(self, intent: str, fresh: bool = False) -> str:
        text = self._example(intent)
        if fresh or self.rng.random() < self.scenario.users.phrasing.paraphrase:
            text = self.rng.choice(OPENINGS).format(u=text)
        if self.rng.random() < self.scenario.users.phrasing.typo:
            text = typo(text, self.rng)
            self._event("typo")
        return text

    def _example(self, intent: str) -> str:
        spec_intent = self.spec.intent(intent)
        examples = spec_intent.examples or (spec_intent.description or intent.replace("_", " "),)
        return self.rng.choice(examples)

    def _value_for(self, element: str) -> tuple[str, str] | None:
        """The value it gives when asked for `element`: its own, or one of a kind below it (a passport)."""
        if element in self.withheld:  # "I don't have a document": no passport either
            return None
        candidates = [element] + [e.name for e in self.spec.elements if self._below(e, element)]
        for name in candidates:
            if name in self.profile and name not in self.withheld:
                return name, self.profile[name]
        return None

    def _below(self, element: Element, ancestor: str) -> bool:
        parent = element.parent
        seen = 0
        while parent is not None and seen < 50:
            if parent == ancestor:
                return True
            parent = next((e.parent for e in self.spec.elements if e.name == parent), None)
            seen += 1
        return False

    def _spottable(self) -> list[str]:
        """Elements whose values can be told apart in free text (an email, an SSN), fit to volunteer."""
        return [e.name for e in self.spec.elements
                if e.askable and not is_free_text(e.format) and kind_of(e.format) != "number"
                and e.name in self.profile]

    def _label(self, name: str) -> str:
        return name.replace("_", " ")

    def _event(self, kind: str, **data: Any) -> None:
        self.events.append({"kind": kind, **data})
