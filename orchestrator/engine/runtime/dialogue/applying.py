"""Applying a message's commands to the session, under the safety invariants.

Whatever a generator returns, `clean` first enforces:
- a question (about the prompt, an explanation, help, "what do you mean?") is answered and the
  prompt asked again; in that turn nothing is granted, refused, chosen or answered;
- a consent or a confirmation is given only by an `Affirm` while it is the pending frame, with no
  hesitation, condition or unclear remainder beside it; a yes and a no together are neither;
- a value is kept only for a known, askable element and only if it fits the element's format;
- a correction replaces the value, clears what was derived from it, and drops a pending consent
  or confirmation, which the replanning asks again with the new value read back.
Commands then run in a fixed order: stop, questions, corrections, the answer to the pending frame,
then new requests and volunteered values. The result is the reason to plan again, or None to wait.
"""

from __future__ import annotations

from collections.abc import Callable

from ...catalog.formats import kind_of, parse_format
from ...catalog.spec import CatalogSpec
from ...planning.compile import action_name
from ...planning.task import ASK
from ..nlu import ambiguous_date, spoken_option, valid_value
from ..replies import Reply
from ..session import GoalFrame, SessionState
from . import goals
from .bounds import within_bounds
from .commands import (
    QUESTIONS,
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
from .executor import ASK_ATTEMPTS, Executor
from .frames import YES_NO, AskFrame, CheckFrame, ChoiceFrame, ConfirmFrame, ConsentFrame, OfferFrame
from .generator import Ambiguous
from .log import TurnLog
from .prompts import Prompts

ANSWERS = (Affirm, Deny, ChooseOption, Hesitate, CannotAnswer)


def clean(spec: CatalogSpec, state: SessionState, commands: list) -> list:
    """The commands the executor will apply: the invariants above, whatever was generated."""
    if any(isinstance(c, Stop) for c in commands):
        return [Stop()]
    questions = [c for c in commands if isinstance(c, QUESTIONS)]
    if questions:
        return questions[:1]  # a question never also answers; two questions: the first is answered
    kept = [c for c in commands if not isinstance(c, (SetSlot, CorrectSlot)) or _fits(spec, c)]
    said = {type(c) for c in kept}
    if Affirm in said and (Deny in said or Hesitate in said or Unclear in said or ChooseOption in said):
        kept = [c for c in kept if not isinstance(c, (Affirm, Deny))] or [Unclear("")]
    if CorrectSlot in said and isinstance(state.pending, YES_NO):
        kept = [c for c in kept if not isinstance(c, (Affirm, Deny))]  # a corrected value is asked about again
    return kept


def _fits(spec: CatalogSpec, command: SetSlot | CorrectSlot) -> bool:
    element = next((e for e in spec.elements if e.name == command.element), None)
    return element is not None and element.askable and valid_value(element, command.value)


class Applier:
    def __init__(self, executor: Executor, prompts: Prompts, said_words: Callable[[str], list[str]]):
        self.executor, self.prompts, self.said_words = executor, prompts, said_words
        self.spec, self.words = executor.spec, executor.words

    def apply(self, state: SessionState, commands: list, log: TurnLog) -> str | None:
        commands = clean(self.spec, state, commands)
        log.commands = list(commands)
        commands, waiting = within_bounds(self.prompts, state, commands, log)
        if waiting:
            return None
        first = commands[0] if commands else Unclear("")
        if isinstance(first, Stop):
            self.executor.stop(state, log)
            return "the user stopped a request"
        if isinstance(first, QUESTIONS):
            self._question(state, first, log)
            return None
        corrected = [c for c in commands if isinstance(c, CorrectSlot)]
        if corrected:
            return self._corrections(state, corrected, log)
        pending = state.pending
        if isinstance(pending, AskFrame):
            return self._answer(state, pending, commands, log)
        if isinstance(pending, ConsentFrame):
            return self._consent(state, pending, commands, log)
        if isinstance(pending, ConfirmFrame):
            return self._confirmation(state, pending, commands, log)
        if isinstance(pending, CheckFrame):
            return self._check(state, pending, commands, log)
        if isinstance(pending, (OfferFrame, ChoiceFrame)):
            said_before = len(log.replies)
            reason = self._offer_or_choice(state, pending, commands, log)
            if reason is not None or state.pending is not None:
                return reason
            commands = [c for c in commands if not isinstance(c, ANSWERS)]
            if not commands and len(log.replies) > said_before:  # "no" to "did you mean": answered, nothing more
                return None
            if isinstance(pending, ChoiceFrame) and all(isinstance(c, (SetSlot, Unclear)) for c in commands):
                # "yes" to "did you mean A, or B?", or a value ("max@example.com"): neither is picked, and
                # nothing else is asked for; the question stays, with the values kept
                given = [c for c in commands if isinstance(c, SetSlot)]
                said = self._noted(state, given) if given else (
                    "Which one?" if len(pending.choices) > 1 else "Sorry, I did not understand that.")
                self._ask_choice(state, pending.choices, log, said=said)
                return None
        return self._open(state, commands, log)

    # --- questions ------------------------------------------------------------------------------
    def _question(self, state: SessionState, command: Command, log: TurnLog) -> None:
        if isinstance(command, Clarify):
            if state.pending is None:
                log.say(Reply("text", self.words.help()))
            else:
                self.prompts.clarify(state, log)
            return
        if isinstance(command, Help):
            log.say(Reply("text", self.words.help()))
        elif isinstance(command, Explain):
            log.say(self.prompts.explain(state, command))
        elif isinstance(command, Recall):
            log.say(self.prompts.recall(state, command.element))
        elif isinstance(command, AskAboutPrompt):
            about = self.prompts.about(state, command.topic)
            if state.pending is None and state.current is None:
                about = f"{about} {self.words.help()}"
            log.say(Reply("text", about))
        self.prompts.repeat(state, log)

    # --- corrections ----------------------------------------------------------------------------
    def _corrections(self, state: SessionState, corrected: list[CorrectSlot], log: TurnLog) -> str:
        for command in corrected:
            self.executor.correct(state, command.element, command.value)
        listed = " and ".join(f"{self.words.element(c.element)} to {c.value}" for c in corrected)
        log.say(Reply("text", f"Updated {listed}."))
        # Whatever was pending is asked again as the new value makes it: a consent, confirmation or check
        # with the new value; a question for another value again (the user must hear it is still open),
        # or not at all when the new value leaves it unneeded.
        state.pending = None
        state.plan = []
        if state.current is None and state.completed:  # "can I have the wiki instead?" after a refusal
            self._again(state, state.completed[-1], log)
        return "the user corrected " + ", ".join(c.element for c in corrected)

    def _again(self, state: SessionState, frame: GoalFrame, log: TurnLog) -> None:
        """The request just finished goes again when the user changes a value it used."""
        if frame.intent is None or goals.reached(self.spec, self.executor.planner, state, frame.goal):
            return
        state.completed.remove(frame)
        self.executor.push(state, frame.intent, log, said=frame.said)

    # --- answers to a question for a value ------------------------------------------------------
    def _answer(self, state: SessionState, frame: AskFrame, commands: list, log: TurnLog) -> str | None:
        element = frame.element
        start = next((c for c in commands if isinstance(c, StartIntent)), None)
        if start is not None and start.intent != goals.goal_key(state):
            state.pending = None
            self.remember(state, [c for c in commands if isinstance(c, SetSlot)])
            self._request(state, start, log)
            return "a request in the middle of another"
        ambiguous = next((c for c in commands if isinstance(c, Ambiguous)), None)
        if ambiguous is not None:  # "no, I need it in a report": another request, asked about; not the answer
            self._ask_choice(state, list(ambiguous.options), log)
            return None
        if any(isinstance(c, CannotAnswer) for c in commands):
            state.pending = None
            state.fail(ASK, element, limit=1)
            log.say(Reply("text", "No problem, let me find another way."))
            return f"the user cannot give {element}"
        own = next((c for c in commands if isinstance(c, SetSlot) and c.element == element), None)
        others = [c for c in commands if isinstance(c, SetSlot) and c.element != element]
        if own is None and others:
            # "I make about 70 grand a year" asked for an SSN: not the answer, but not nothing either
            state.pending = None
            log.say(Reply("text", self._noted(state, others)))
            return "the user gave " + ", ".join(c.element for c in others)
        if own is None and any(isinstance(c, Hesitate) for c in commands):
            self.prompts.repeat(state, log, opening="No problem, take your time.")
            return None
        if own is None:
            return self._misread(state, element, commands, log)
        state.pending = None
        self.remember(state, [own, *others])
        if own.doubt:  # kept, and asked about rather than dropped
            state.pending = CheckFrame(element=element, value=own.value)
            self.prompts.repeat(state, log, opening="I have noted it.")
            return None
        return f"the user gave {element}"

    def _misread(self, state: SessionState, element: str, commands: list, log: TurnLog) -> str | None:
        if state.fail(ASK, element, limit=ASK_ATTEMPTS):
            state.pending = None
            log.say(Reply("text", f"I still could not read {self.words.element(element)}; let me try another way."))
            return f"no valid {element} after {ASK_ATTEMPTS} tries"
        spec_element = self.spec.element(element)
        text = next((c.text for c in commands if isinstance(c, Unclear)), "")
        readings = ambiguous_date(text) if kind_of(spec_element.format) == "date" else None
        if readings:
            why = f"Do you mean {readings[0]} or {readings[1]}? Please write the month as a word."
        elif (fmt := parse_format(spec_element.format)).is_enum:
            options = ", ".join(spoken_option(o) for o in fmt.options)
            why = f"That is not one of the options for {self.words.element(element)} ({options})."
        else:
            why = f"That does not look like {self.words.element(element)}."
        log.say(Reply("question", f"{why} {self.words.question(element)}", element=element))
        return None

    # --- yes/no frames --------------------------------------------------------------------------
    def _consent(self, state: SessionState, frame: ConsentFrame, commands: list, log: TurnLog) -> str | None:
        target = frame.target
        if _only(commands, Affirm):  # the one way a consent is given
            state.pending = None
            state.authorize(target)
            if state.current is not None and frame.skill and frame.readback:  # its values were read back
                state.current.read_back.append(frame.skill)
            return f"consent for {target}"
        if _only(commands, Deny):
            state.pending = None
            state.denied.append(target)
            state.prune("authorize", (target,))  # never ask again in this session
            refused = (self.words.element(target) if self.spec.privacy == "per_element"
                       else f"it with {target.replace('_', ' ')}")
            log.say(Reply("text", f"Understood: I will not share {refused}.", mark="consent_refused"))
            return f"consent refused for {target}"
        start = next((c for c in commands if isinstance(c, StartIntent)), None)
        if start is not None:
            state.pending = None
            self._request(state, start, log)
            return "a request in the middle of another"
        self._not_yet(state, commands, log)
        return None

    def _not_yet(self, state: SessionState, commands: list, log: TurnLog) -> None:
        """Doubt, a condition or anything unclear at a yes/no prompt: nothing given, asked again."""
        if any(isinstance(c, Hesitate) for c in commands):
            opening = "No problem, take your time: nothing happens until you say yes."
        else:
            opening = "Please answer yes or no."
        self.prompts.repeat(state, log, opening=opening)

    def _confirmation(self, state: SessionState, frame: ConfirmFrame, commands: list, log: TurnLog) -> str | None:
        current = state.current
        if _only(commands, Affirm) and current is not None:
            state.pending = None
            if frame.readback:
                current.read_back.append(frame.skill or "")
                return f"the user confirmed the values for {frame.operation}"
            current.agreed.append(frame.operation)
            return f"the user agreed to {frame.operation}"
        if _only(commands, Deny):
            state.pending = None
            skill = self.spec.skill(frame.skill or "")
            operation = frame.operation
            mode = skill.mode(operation.split("-", 1)[1]) if "-" in operation else skill.modes[0]
            for outcome in mode.outcomes:
                state.prune(action_name(operation, outcome.name), tuple(frame.elements))
            log.say(Reply("text", f"All right, I will not use {self.words.skill(skill.name)}."))
            return f"the user refused {operation}"
        self._not_yet(state, commands, log)
        return None

    def _check(self, state: SessionState, frame: CheckFrame, commands: list, log: TurnLog) -> str | None:
        if _only(commands, Affirm):
            state.pending = None
            return f"the user confirmed {frame.element}"
        if _only(commands, Deny):
            state.pending = None
            state.forget(frame.element)
            return f"the user took back {frame.element}"
        self._not_yet(state, commands, log)
        return None

    def _offer_or_choice(self, state: SessionState, frame: OfferFrame | ChoiceFrame, commands: list,
                         log: TurnLog) -> str | None:
        state.pending = None
        chosen = next((c for c in commands if isinstance(c, ChooseOption)), None)
        if isinstance(frame, ChoiceFrame) and chosen is not None:
            self.remember(state, [c for c in commands if isinstance(c, SetSlot)])
            for intent in reversed(chosen.options):  # the first named runs first, the others after it
                self.executor.push(state, intent, log)
            return "the user chose a request"
        if isinstance(frame, OfferFrame) and _only(commands, Affirm):
            self.executor.push(state, frame.intent, log)
            return "the user accepted an offer"
        if _only(commands, Deny):
            if isinstance(frame, ChoiceFrame):
                log.say(Reply("text", f"All right. {self.words.help()}"))
                return None
            log.say(Reply("text", "All right."))
            return "the user declined an offer"
        return None

    # --- nothing pending ------------------------------------------------------------------------
    def _open(self, state: SessionState, commands: list, log: TurnLog) -> str | None:
        given = [c for c in commands if isinstance(c, SetSlot)]
        start = next((c for c in commands if isinstance(c, StartIntent)), None)
        ambiguous = next((c for c in commands if isinstance(c, Ambiguous)), None)
        if start is None and ambiguous is None and not given and (_only(commands, Affirm) or _only(commands, Deny)):
            return self._bare_reply(state, isinstance(commands[0], Affirm), log)
        said = self._noted(state, given) if given else ""
        if start is not None:
            self._request(state, start, log)
            return "a new request"
        state.refused_goal = None
        if ambiguous is not None:
            # "Did you mean to A, or to B?": an unsure match is asked about, never started blindly.
            self._ask_choice(state, list(ambiguous.options), log)
            return None
        if state.current is None:
            # a value alone ("07700 900123") is kept for the next request rather than not understood
            opening = said or "Sorry, I did not understand that."
            log.say(Reply("text", f"{opening} {self.words.help()}", mark=None if said else "not_understood"))
            return None
        return "the user said more"

    def _ask_choice(self, state: SessionState, choices: list[str], log: TurnLog, said: str = "") -> None:
        state.pending = ChoiceFrame(choices=choices)
        question = self.words.choice(choices)
        log.say(Reply("question", f"{said} {question}" if said else question, data={"choices": choices}))

    def _bare_reply(self, state: SessionState, yes: bool, log: TurnLog) -> str | None:
        """ "yes" or "thanks, no" with nothing asked: no request to guess from it."""
        if yes and state.refused_goal and state.current is None:
            return self._reconsider(state, log)
        state.refused_goal = None
        if state.current is not None:
            return "the user said more"
        log.say(Reply("text", f"All right. {self.words.help()}" if yes else "All right."))
        return None

    def _reconsider(self, state: SessionState, log: TurnLog) -> str:
        """ "OK then, go ahead" right after a request ended on a refused consent: the refusals are taken
        back and the request starts again, asking for that consent again."""
        intent = state.refused_goal or ""
        _take_back_refusals(state)
        log.say(Reply("text", "All right, let's try again."))
        self.executor.push(state, intent, log)
        return "the user took back a refusal"

    def _request(self, state: SessionState, start: StartIntent, log: TurnLog) -> None:
        """A request the user makes. Made again after it ended on a refused consent, it asks for that
        consent again: the no answered that time, and asking for the request again says otherwise."""
        if start.intent == state.refused_goal:
            _take_back_refusals(state)
        state.refused_goal = None
        self.executor.push(state, start.intent, log, said=self.said_words(start.said))

    # --- values ---------------------------------------------------------------------------------
    def remember(self, state: SessionState, given: list[SetSlot]) -> None:
        for command in given:
            held = state.memory.get(command.element)
            if held is not None and held.source == "user" and held.value != command.value:
                self.executor.correct(state, command.element, command.value)  # a new value is a correction
            else:
                state.remember(command.element, command.value, "user", goal=goals.goal_key(state))
            if (ASK, command.element) in state.cannot_establish:  # given after all: no longer unfillable
                state.cannot_establish.remove((ASK, command.element))

    def _noted(self, state: SessionState, given: list[SetSlot]) -> str:
        """ "Noted: your yearly income." (and that it replaces what a skill gave), remembering them."""
        said = []
        for command in given:
            before = state.memory.get(command.element)
            text = self.words.element(command.element)
            if before is not None and before.value != command.value:
                text += f" (instead of what {(before.skill or 'a skill').replace('_', ' ')} gave)"
            said.append(text)
        self.remember(state, given)
        return "Noted: " + " and ".join(said) + "."


def _take_back_refusals(state: SessionState) -> None:
    state.pruned = [(action, args) for action, args in state.pruned
                    if not (action == "authorize" and args and args[0] in state.denied)]
    state.denied = []
    state.refused_goal = None


def _only(commands: list, kind: type) -> bool:
    """Is `kind` the answer given, with nothing beside it that holds it back?"""
    answers = [c for c in commands if isinstance(c, (*ANSWERS, Unclear))]
    return bool(answers) and all(isinstance(c, kind) for c in answers)
