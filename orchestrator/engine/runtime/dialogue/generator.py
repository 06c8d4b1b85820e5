"""From a message and its context to typed commands: the default generator, built from the
catalog's words and formats (nlu.py), yes/no reading (polarity.py) and control acts (acts.py).

It reads, never writes: the session is seen through `Context` and nothing in it changes here. A
deployment may plug in another generator (a language model behind an endpoint) through the
`CommandGenerator` protocol; the executor's safety rules hold whatever a generator returns.

Order of reading, so that a question is never also an answer: stop; explanation and help
requests; corrections; then the answer to what is pending (a value, a yes or no, a choice); then a
new request and the values it volunteers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Protocol

from ...catalog.formats import is_free_text, kind_of
from ...catalog.spec import CatalogSpec, Element
from ..acts import cannot_answer, control_act, recalled_words
from ..intents import IntentDecision
from ..nlu import (
    CLAUSE,
    TOKEN,
    _phrases,
    answer_value,
    date_span,
    element_words,
    extract_value,
    extract_values,
    mentioned_element,
    said_words,
    tokens,
)
from ..polarity import declines
from ..session import SessionState
from ..text import normalise, singular
from . import reading
from .commands import (
    Affirm,
    AskAboutPrompt,
    CannotAnswer,
    ChooseOption,
    Clarify,
    Command,
    CorrectSlot,
    Deny,
    Explain,
    Help,
    Hesitate,
    Recall,
    SetSlot,
    StartIntent,
    Stop,
    Unclear,
)
from .frames import YES_NO, AskFrame, CheckFrame, ChoiceFrame, ConfirmFrame, ConsentFrame, OfferFrame


@dataclass(frozen=True)
class Ambiguous:
    """A request that fits two intents about as well ("did you mean A or B?" follows)."""

    options: tuple[str, ...]


@dataclass
class Context:
    """What a generator may read: the catalog, the session, and how to read intents."""

    spec: CatalogSpec
    state: SessionState
    decide: Callable[[str], IntentDecision]
    rank: Callable[[str], list[tuple[str, float]]]  # intents by score, best first, above the floor only
    needed: Callable[[str], Collection[str]]  # the inputs a plan for an intent uses

    @property
    def current(self) -> str | None:
        return self.state.current.intent if self.state.current else None


class CommandGenerator(Protocol):
    def commands(self, text: str, context: Context) -> list[Command | Ambiguous]: ...


# Request openings that take back an answer to a free-text question ("no, I need it published").
TAKE_BACK = ("no ", "no,", "nope", "actually", "not that", "wait", "sorry, i", "i meant", "instead")
# After "submit", "send": a thing named means a request ("submit the loan request"), not a yes.
OBJECT_DETERMINERS = frozenset("my your the his her their our".split())


class RuleCommandGenerator:
    """The default generator: rules over the catalog's names, formats and examples."""

    def commands(self, text: str, context: Context) -> list[Command | Ambiguous]:
        act = control_act(text)
        if act == "stop":
            return [Stop()]
        asked = self._questions(text, act, context)
        if asked:
            return asked
        pending = context.state.pending
        if isinstance(pending, AskFrame):
            return self._answer(text, act, pending, context)
        corrections = self.corrections(text, context)
        if corrections:
            return list(corrections)
        if isinstance(pending, YES_NO):
            return self._yes_no(text, act, pending, context)
        if isinstance(pending, ChoiceFrame):
            if reading.WH_START.match(normalise(text)) and mentioned_element(text, context.spec) is not None:
                # "where do I find my council tax reference?": about a value, not a pick of what uses it
                return [AskAboutPrompt("general", text)]
            chosen = self._choice(text, act, pending, context)
            if chosen:
                return chosen
        return self._open(text, act, context)

    # --- questions to the assistant ------------------------------------------------------------
    def _questions(self, text: str, act: str | None, context: Context) -> list[Command]:
        kind = reading.explanation_kind(text) or (act if act in ("what", "how", "why") else None)
        if kind is not None:
            element = mentioned_element(text, context.spec) if kind != "what" else None
            return [Explain(kind, element, text)]  # type: ignore[arg-type]
        if act == "help":
            return [Help()]
        if act == "clarify":
            return [Clarify()] if context.state.pending is not None else [Help()]
        words = recalled_words(text)
        name = mentioned_element(words, context.spec) if words else None
        if name is not None and (name in context.state.memory or _asking(context.state, name)):
            return [Recall(name)]
        return []

    # --- an answer to a question for a value -----------------------------------------------------
    def _answer(self, text: str, act: str | None, frame: AskFrame, context: Context) -> list[Command | Ambiguous]:
        element = context.spec.element(frame.element)
        free = is_free_text(element.format)
        if reading.asks_the_assistant(text) if free else reading.is_question(text):
            return self._question_or_request(text, context, asked=frame.element)
        corrections = self.corrections(text, context, asked=frame.element)
        if corrections:
            return list(corrections)
        opening = text.lower().lstrip()
        if free and opening.startswith(TAKE_BACK):
            decision = context.decide(text)
            if other := _other_request(text, context, decision):
                return [StartIntent(other, text)]
            # "no, I need it published in a report": another request, not sure which; never the answer
            # ("no power when I press the button" is the answer: a "no" without a pause takes nothing back)
            offered = tuple(a for a in decision.alternatives if a != context.current)
            if decision.kind == "ambiguous" and offered and not opening.startswith("no "):
                return [Ambiguous(offered)]
        if not free and extract_value(element, text) is None and (other := _other_request(text, context)):
            return [StartIntent(other, text), *self.volunteered(text, other, context)]
        other = None if free else _named_instead(text, element, context)
        if other is not None:  # "my income is 90k" asked for the loan amount: the income, not the answer
            return [SetSlot(other[0], other[1])]
        span = date_span(context.spec, text, frame.element, skip=context.state.memory) \
            if kind_of(element.format) == "date" else {}
        value = span.get(frame.element) or (answer_value(context.spec, element, text) if act != "no" or not free
                                             else None)
        cannot = cannot_answer(text, whole=free)
        unsure = cannot or (not free and reading.hesitates(text))
        if value is None and not cannot and act != "no" and unsure:
            return [Hesitate(text)]  # "oh wait ...", "let me check": the question stays, no misread counted
        if value is None and (unsure or act == "no"):
            return [CannotAnswer(frame.element)]
        if value is None:
            given = self.volunteered(text, context.current, context, asked=frame.element, correcting=True)
            return given or [Unclear(text)]
        commands: list[Command | Ambiguous] = [SetSlot(frame.element, value, doubt=unsure)]
        if not free:  # a formatted answer may carry other values; a free-text one is all one value
            skip = set(context.state.memory) | {frame.element} | set(span)
            commands += [SetSlot(n, v) for n, v in span.items() if n != frame.element]
            commands += [SetSlot(n, v) for n, v in extract_values(context.spec, text, skip=skip, asked=frame.element,
                                                                  asked_value=value).items()]
        return commands

    def _question_or_request(self, text: str, context: Context, asked: str | None = None) -> list[Command | Ambiguous]:
        topic = reading.prompt_topic(text)
        if topic != "general":  # "will you send the code to them?" asks about the prompt, whatever it matches
            return [AskAboutPrompt(topic, text)]  # type: ignore[arg-type]
        if asked is not None and mentioned_element(text, context.spec) == asked:
            # "where do I find the reservation number?" asked for it: about the question, whatever request
            # the words match (a request that uses the number, such as cancelling, is not one the user made)
            return [AskAboutPrompt("general", text)]
        return _request_or(text, context, AskAboutPrompt("general", text))  # "can I order a headset instead?"

    # --- a yes or a no --------------------------------------------------------------------------
    def _yes_no(self, text: str, act: str | None, frame: object, context: Context) -> list[Command | Ambiguous]:
        plain = text
        if isinstance(frame, (ConsentFrame, ConfirmFrame)) and frame.skill:
            # "go ahead and share my social security number": the shared value named; "ok, publish it":
            # a yes followed by the pending action's own verb
            named = _named_as_it(text, frame, context.spec)
            restated = reading.restating(named, *_action_verbs(context.spec, frame.skill))
            plain, act = (restated, control_act(restated)) if restated is not None else (text, None)
        if reading.is_question(text):
            return self._question_or_request(text, context)
        if act == "yes" and reading.asks_back(text):
            return [Unclear(text)]  # "yes?", "ok?": asked back, not said; only a yes said gives consent
        if act is None and declines(text) and not reading.hesitates(text):
            # "no, I'll pay when I collect it": a no, whatever its reason says; "no, I need a loan": that request
            return _request_or(text, context, Deny())
        if reading.hesitates(text) or reading.conditional(text):
            return [Hesitate(text)]
        permits = isinstance(frame, ConsentFrame) and reading.grants_permission(text)
        if act == "yes" and not self._bare_reply(plain) and not permits:
            # "submit the loan request" at "would you also like a card?": a request with an approving verb
            decision = context.decide(text)
            if (other := _other_request(text, context, decision)) is not None:
                return [StartIntent(other, text)]
            if isinstance(frame, OfferFrame) and decision.kind != "none":
                return [Unclear(text)]
        if act == "yes":
            return [Affirm()]
        if act == "no":
            return [Deny()]
        if isinstance(frame, CheckFrame):
            value = extract_value(context.spec.element(frame.element), text, whole_answer=True)
            if value is not None:
                return [CorrectSlot(frame.element, value)]
        return _request_or(text, context, Unclear(text))

    # --- "did you mean A or B?" -----------------------------------------------------------------
    def _choice(self, text: str, act: str | None, frame: ChoiceFrame, context: Context) -> list[Command]:
        choices = frame.choices
        if reading.says_both(text) and len(choices) == 2:
            return [ChooseOption(tuple(choices))]
        if reading.says_neither(text) or act == "no":
            return [Deny()]
        if act == "yes" and len(choices) == 1:
            return [ChooseOption((choices[0],))]
        lowered = text.lower()
        picked = [c for c, place in zip(choices, ("first", "second", "third"), strict=False) if place in lowered]
        if picked:
            return [ChooseOption((picked[0],))]
        ranked = context.rank(text)
        # Naming one of the choices picks it, with any value it names ("a lamp then"); another request
        # ("no, a loan") is handled as such.
        if ranked and ranked[0][0] in choices:
            return [ChooseOption((ranked[0][0],)), *self.volunteered(text, ranked[0][0], context)]
        return []

    # --- nothing pending ------------------------------------------------------------------------
    def _open(self, text: str, act: str | None, context: Context) -> list[Command | Ambiguous]:
        decision = context.decide(text)
        intent = decision.intent if decision.kind == "intent" else None
        if act in ("yes", "no") and intent is None and self._bare_reply(text):
            return [Affirm() if act == "yes" else Deny()]
        # a new request's values replace those of an earlier one ("the crm then")
        given = self.volunteered(text, intent or context.current, context, replacing=intent is not None)
        if intent is not None:
            return [StartIntent(intent, text), *given]
        if decision.kind == "ambiguous" and context.current not in decision.alternatives:
            # Values given with an unsure request do not settle it: they are kept, the request is asked about.
            return [*given, Ambiguous(tuple(decision.alternatives))]
        if reading.is_question(text) and context.current is not None and not given:
            return [AskAboutPrompt("general", text)]
        return given or [Unclear(text)]

    @staticmethod
    def _bare_reply(text: str) -> bool:
        """A yes or no that is only that: "submit the loan request" or "has my card been approved?"
        are requests that happen to hold an approving verb."""
        if reading.is_question(text):
            return False
        return not (set(TOKEN.findall(text.lower())) & OBJECT_DETERMINERS)

    # --- values ---------------------------------------------------------------------------------
    def volunteered(self, text: str, intent: str | None, context: Context, asked: str | None = None,
                    correcting: bool = False, replacing: bool = False) -> list[Command]:
        """Values `text` gives unasked. When `correcting`, a value replaces one a skill found; when
        `replacing` (a new request), any value held."""
        state = context.state
        needed = (lambda: context.needed(intent)) if intent is not None else None
        keep = {n for n, r in state.memory.items() if r.source == "user"} if correcting else set(state.memory)
        if replacing:
            keep = set()
        given = extract_values(context.spec, text, skip=keep, asked=asked, needed=needed)
        return [SetSlot(name, value) for name, value in given.items()]

    def corrections(self, text: str, context: Context, asked: str | None = None) -> tuple[CorrectSlot, ...]:
        """ "Actually make it 12 grand instead of 15": the held value each new one replaces.

        The element is the one the clause names; else the one holding the value replaced ("instead of
        15"); else the value the user gave last that the new one fits (never one a skill found, which the
        user has not said). Never the element `asked` about: a correction there is just the answer.
        """
        state = context.state
        if not reading.corrects(text) or not state.memory:
            return ()
        old = reading.old_value_phrase(text)
        new_text = text.replace(old, " ") if old else text
        said = set(tokens(text))
        must_name = reading.corrects_only_what_it_names(text)
        for loose in (False, True):  # a bare "12" only when nothing with its unit fits
            candidates = []
            for name, held in state.memory.items():
                element = context.spec.element(name)
                if name == asked or not element.askable or is_free_text(element.format):
                    continue
                if loose and kind_of(element.format) == "date":
                    continue
                value = extract_value(element, new_text, whole_answer=loose)
                if value is None or value == held.value:
                    continue
                named = bool(said & element_words(element))
                was_old = bool(old) and extract_value(element, old, whole_answer=True) == held.value
                if not (named or was_old or held.source == "user") or (must_name and not named):
                    continue  # "make it 12000" corrects what the user said, not a value a skill found unsaid
                candidates.append(((named, was_old, held.source == "user", held.seq), name, value))
            if candidates:
                (named, was_old, _, _), name, value = max(candidates)
                other = _other_request(text, context) if not (named or was_old) else None
                if other is not None and name not in context.needed(other):
                    # "I'll book a table instead, for 2": a request that does not use the takeaway's portions,
                    # not a correction by recency ("what about the crm instead?" still corrects the system)
                    return ()
                return (CorrectSlot(name, value),)
        return ()


def _other_request(text: str, context: Context, decision: IntentDecision | None = None) -> str | None:
    """The intent the message clearly starts, when it is not the current one."""
    decision = decision or context.decide(text)
    if decision.kind == "intent" and decision.intent and decision.intent != context.current:
        return decision.intent
    return None


def _request_or(text: str, context: Context, otherwise: Command) -> list[Command | Ambiguous]:
    """The other request the message makes, or `otherwise`."""
    other = _other_request(text, context)
    return [StartIntent(other, text)] if other is not None else [otherwise]


def _asking(state: SessionState, element: str) -> bool:
    return isinstance(state.pending, AskFrame) and state.pending.element == element


SHARING = re.compile(r"\b(?:pass(?:ing)? (?:it )?on|hand(?:ing)? (?:it )?over|forward(?:ing)?|disclos(?:e|ing)"
                     r"|releas(?:e|ing)|provid(?:e|ing)|giv(?:e|ing))\b")


def _action_verbs(spec: CatalogSpec, skill: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The verb a skill is both named and described by ("publish" for publish_salary_report, "Publishes
    the salary report ..."): the words that restate its action. None when name and description differ
    in their first word ("credit_check" / "Asks the credit bureau"): a guess could turn "ask me later"
    into a yes."""
    found = next((s for s in spec.skills if s.name == skill), None)
    if found is None:
        return (), frozenset()
    named = TOKEN.findall(found.name.replace("_", " ").lower())
    described = TOKEN.findall(found.description.lower())
    if not named or not described or singular(described[0]) != named[0]:
        return (), frozenset()
    return (named[0],), frozenset(named + described)


def _named_as_it(text: str, frame: ConsentFrame | ConfirmFrame, spec: CatalogSpec) -> str:
    """The reply with the values and the skill the consent is about said as "it": their names are
    not words of a yes or a no."""
    said = SHARING.sub("share", text.lower())
    names = [p for name in frame.elements for p in _phrases(spec.element(name))]
    names += [" ".join(TOKEN.findall(n.replace("_", " "))) for n in (frame.skill, getattr(frame, "target", None)) if n]
    for phrase in sorted(set(names), key=len, reverse=True):
        said = re.sub(rf"\b(?:my |your |the )?{re.escape(phrase)}\b", "it", said)
    return said


def _named_instead(text: str, element: Element, context: Context) -> tuple[str, str] | None:
    """The other element a formatted answer names, and its value, when the answer does not name the
    element asked: a value goes where its words put it, whatever question is open."""
    said = said_words(text)
    if said & element_words(element) or len(CLAUSE.split(text)) > 1:  # several clauses: `answer_value` splits them
        return None
    kind = kind_of(element.format)
    named = [e for e in context.spec.elements if e.name != element.name and e.askable and kind_of(e.format) == kind
             and said & element_words(e)]
    if len(named) != 1:
        return None
    value = extract_value(named[0], text, whole_answer=True)
    return (named[0].name, value) if value is not None else None
