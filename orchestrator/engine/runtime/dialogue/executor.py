"""The executor: the one place that acts. It asks, asks for consent (reading back what will be
sent), calls skills, keeps the goal stack and records history. Policies tell it what to do next;
`applying.py` feeds it the commands of a message.

Guards that hold whatever a policy or a generator asks for:
- a sensitive value reaches a skill only under a consent recorded before the call (`consented`),
  and so does a value computed from one when the skill changes the world (`catalog/sensitivity.py`);
- a consent prompt reads back the values the call will take, so that a correction can land there;
- a corrected value clears what skills derived from it, and any consent it was shared under.
"""

from __future__ import annotations

import logging

from ...catalog.formats import parse_format
from ...catalog.spec import CatalogSpec
from ...planning.compile import action_name, operation_name
from ...planning.planner import Planner, Step, Unsolvable
from ...planning.task import ASK
from ..replies import Reply, Wording
from ..session import Execution, GoalFrame, SessionState
from ..skills import SkillInvoker, SkillResult
from . import goals
from .frames import AskFrame, ConfirmFrame, ConsentFrame, OfferFrame
from .log import PlanRecord, Share, TurnLog

log_calls = logging.getLogger("concerto.skills")

ASK_ATTEMPTS = 3  # answers that do not fit the format before the slot counts as unfillable


class Executor:
    def __init__(self, spec: CatalogSpec, planner: Planner, invoker: SkillInvoker):
        self.spec = spec
        self.planner = planner
        self.invoker = invoker
        self.privacy = planner.domain.privacy  # which values need consent at which calls
        self.words = Wording(spec, self.privacy)
        self.spec_elements = frozenset(e.name for e in spec.elements)

    # --- asking ---------------------------------------------------------------------------------
    def ask(self, state: SessionState, element: str, log: TurnLog) -> None:
        state.pending = AskFrame(element=element)
        log.say(Reply("question", self.words.question(element), element=element))

    def ask_consent(self, state: SessionState, target: str, skill: str, elements: list[str],
                    step: Step | None, log: TurnLog) -> None:
        readback = self.readback(state, step) if step is not None else {}
        state.pending = ConsentFrame(target=target, skill=skill, elements=elements, readback=readback)
        log.say(self.consent_reply(state.pending))

    def consent_reply(self, frame: ConsentFrame, opening: str = "") -> Reply:
        skill = frame.skill or frame.target
        said = self.readback_text(frame.readback)
        text = " ".join(x for x in (opening, said, self.words.consent(skill, frame.elements)) if x)
        return Reply("consent", text, skill=skill, elements=tuple(frame.elements))

    def readback(self, state: SessionState, step: Step) -> dict[str, str]:
        """The values a call will take that the user gave and may still correct (sensitive ones are
        named in the consent, never repeated)."""
        values = {}
        for arg in step.args:
            held = state.memory.get(arg)
            if held is not None and held.source == "user" and not self.spec.element(arg).sensitive:
                values[arg] = held.value
        return values

    def readback_text(self, values: dict[str, str]) -> str:
        if not values:
            return ""
        listed = "; ".join(f"{self.words.element(x)}: {v}" for x, v in values.items())
        return f"I will use {listed}."

    def ask_confirmation(self, state: SessionState, frame: GoalFrame, step: Step, log: TurnLog) -> None:
        """A world-changing call the request did not name (another route to the goal): ask first."""
        operation = operation_name(step.skill or "", step.mode or "")
        state.pending = ConfirmFrame(operation=operation, skill=step.skill, elements=list(step.args))
        goal = self.words.goal(frame.intent, frame.goal)
        log.say(Reply("question", f"To {goal}, I would now have to use {self.words.skill(step.skill or '')}, "
                                  f"which changes things on your behalf. Shall I go ahead?",
                      skill=step.skill, data={"confirm": operation}))

    def ask_readback(self, state: SessionState, step: Step, values: dict[str, str], log: TurnLog) -> None:
        """Before a world-changing call: the values it will take, so that a correction can land here."""
        operation = operation_name(step.skill or "", step.mode or "")
        state.pending = ConfirmFrame(operation=operation, skill=step.skill, elements=list(step.args), readback=True,
                                     values=values)
        log.say(self.readback_reply(state.pending))

    def readback_reply(self, frame: ConfirmFrame) -> Reply:
        what = self.words.skill(frame.skill or "")
        return Reply("question", f"{self.readback_text(frame.values)} Shall I go ahead with {what}?",
                     skill=frame.skill, data={"confirm": frame.operation, "readback": dict(frame.values)})

    def offer(self, state: SessionState, intent: str, log: TurnLog) -> None:
        state.pending = OfferFrame(intent=intent)
        log.say(Reply("question", self.words.offer(self.spec.intent(intent)), goal=intent))

    # --- goals ----------------------------------------------------------------------------------
    def push(self, state: SessionState, intent: str, log: TurnLog, said: list[str] | None = None) -> None:
        current = state.current
        if current is not None and current.intent == intent:
            return
        spec_intent = self.spec.intent(intent)
        state.push(GoalFrame(intent=intent, goal=spec_intent.goal, said=said or []))
        _forgive_misreads(state)
        what = self.words.goal(intent, spec_intent.goal)
        if current is not None:
            before = self.words.goal(current.intent, current.goal)
            log.say(Reply("text", f"Sure, let's {what} first; then we will get back to {before}.", goal=intent,
                          mark="started"))
        else:
            log.say(Reply("text", f"Sure, let's {what}.", goal=intent, mark="started"))
        state.plan = []

    def stop(self, state: SessionState, log: TurnLog) -> None:
        state.pending = None
        frame = state.pop()
        if frame is None:
            log.say(Reply("text", "There is nothing to stop."))
            return
        log.say(Reply("text", f"OK, I stopped: {self.words.goal(frame.intent, frame.goal)}.", goal=frame.intent))
        state.plan = []
        self.resume(state, log)

    def resume(self, state: SessionState, log: TurnLog) -> None:
        frame = state.current
        if frame is not None:
            log.say(Reply("resumed", f"Now, back to {self.words.goal(frame.intent, frame.goal)}.", goal=frame.intent))

    def record_plan(self, state: SessionState, frame: GoalFrame, lines: list[str], cost: int,
                    reason: str, log: TurnLog) -> None:
        previous = state.plan
        if previous and previous[1:] == lines:  # the old plan goes on: its first step was done
            state.plan = lines
            return
        goal = self.words.goal(frame.intent, frame.goal)
        log.plans.append(PlanRecord(goal=goal, lines=tuple(lines), cost=cost, reason=reason,
                                    discarded=tuple(previous)))
        state.plan = lines

    def give_up(self, state: SessionState, frame: GoalFrame, result: Unsolvable, log: TurnLog, reason: str) -> None:
        goal = self.words.goal(frame.intent, frame.goal)
        log.plans.append(PlanRecord(goal=goal, lines=(), cost=None, reason=reason, discarded=tuple(state.plan),
                                    unsolvable=result.message))
        state.pop()
        state.plan = []
        if state.denied:
            state.refused_goal = frame.intent
            refused = " and ".join(x.replace("_", " ") for x in state.denied)
            why = f"without your consent to share data with {refused}, I have no other way"
        else:
            missing = " or ".join(self.words.element(b.element) for b in result.blockers) or "what it needs"
            why = f"I have no way to get {missing}"
        log.say(Reply("text", f"Sorry, I cannot {goal}: {why}.", goal=frame.intent,
                      data={"reason": result.message}))
        self.resume(state, log)

    # --- values ---------------------------------------------------------------------------------
    def correct(self, state: SessionState, element: str, value: str) -> None:
        """Replace a value; forget what skills derived from the old one, the calls that used it, and
        any consent it was shared under, so the planner goes that way again with the new value."""
        stale = self._derived(state, element)
        for name in stale:
            state.forget(name)
        touched = {element, *stale}
        used = [r for r in state.history if touched & set(r.args)]
        for record in used:
            operation = operation_name(record.skill, record.mode)
            if operation in state.done:
                state.done.remove(operation)
            state.done_for = [(op, g) for op, g in state.done_for if op != operation]
        receivers = {r.skill for r in used}
        state.authorized = [t for t in state.authorized if t not in touched and t not in receivers]
        state.cannot_establish = [(op, x) for op, x in state.cannot_establish if x not in touched]
        state.failures = {k: n for k, n in state.failures.items() if k.rsplit(" ", 1)[-1] not in touched}
        state.remember(element, value, "user", goal=goals.goal_key(state))
        if state.current is not None:
            state.current.read_back = []  # a stale yes never carries over: the new values are read back again

    def _derived(self, state: SessionState, element: str) -> set[str]:
        found: set[str] = set()
        todo = [element]
        while todo:
            for name in state.derived.get(todo.pop(), []):
                if name not in found and name in state.memory and state.memory[name].source == "skill":
                    found.add(name)
                    todo.append(name)
        return found

    # --- calling skills -------------------------------------------------------------------------
    def execute(self, state: SessionState, step: Step, log: TurnLog) -> str:
        skill = self.spec.skill(step.skill)
        mode = skill.mode(step.mode)
        inputs = {declared: state.memory[arg].value for declared, arg in zip(mode.inputs, step.args, strict=True)}
        shares = self.consented(state, step)
        if shares is None:  # the planner guarantees consent; this guard keeps a bug from leaking data
            state.prune(step.name, step.args)
            return f"{step.skill} lacked consent"
        number = len(state.history)
        result = self.invoker.call(skill, step.mode, inputs)
        log.shares.extend(Share(element=x, skill=skill.name, consent=c, step=number) for x, c in shares)
        operation = operation_name(skill.name, step.mode)
        record = Execution(step=number, skill=skill.name, mode=step.mode, outcome=result.outcome or result.status,
                           planned_outcome=step.outcome, inputs=inputs, outputs=result.outputs,
                           args=list(step.args), explanation=result.explanation,
                           message=result.message if result.status in ("error", "invalid") else "")
        state.history.append(record)
        log.executions.append(record)
        if result.status == "invalid":
            for outcome in mode.outcomes:
                state.prune(action_name(operation, outcome.name), step.args)
            what = self.words.skill(skill.name)
            log.say(Reply("text", f"{what[:1].upper()}{what[1:]} could not take those values; trying another way."))
            return f"{skill.name} rejected its inputs"
        if result.status == "unfeasible":
            return self._unfeasible(state, result, log)
        if result.status == "ok":
            state.mark_done(operation, goals.goal_key(state))
        self._keep_outputs(state, step, result, number, log)
        missing = [x for x in step.outputs if x not in result.outputs]
        for name in missing:
            state.fail(operation, name, limit=skill.max_retries)
        if missing and not result.outputs:  # gave nothing: a rejected loan still gave its decision
            self._after_failure(state, step, result, log)
        if result.outcome != step.outcome or missing:
            return f"{skill.name} ended {result.outcome or result.status}, not {step.outcome}"
        return f"{skill.name} ended {step.outcome} as planned"

    def _keep_outputs(self, state: SessionState, step: Step, result: SkillResult, number: int, log: TurnLog) -> None:
        skill = step.skill or ""
        for name, value in result.outputs.items():
            given = state.memory.get(name)
            if given is not None and given.source == "user" and given.value != value:
                # The user's word wins over a lookup; say so rather than change it silently.
                what = self.words.element(name)
                log.say(Reply("text", f"{self.words.skill_label(skill)} gave {value} for {what}; "
                                      f"I kept the one you gave me ({given.value})."))
                continue
            state.remember(name, value, "skill", skill=skill, step=number, goal=goals.goal_key(state))
            for arg in step.args:  # what a correction of an input must clear
                derived = state.derived.setdefault(arg, [])
                if name not in derived:
                    derived.append(name)

    def needs_consent(self, skill: str, mode: str, element: str) -> bool:
        return self.privacy.needs_consent(element, self.spec.skill(skill).changes_world(mode))

    def consented(self, state: SessionState, step: Step) -> list[tuple[str, str]] | None:
        """The (element, consent) pairs of the sensitive values a call sends; None if one lacks consent."""
        shares = []
        for arg in step.args:
            if not self.needs_consent(step.skill or "", step.mode or "", arg):
                continue
            consent = step.skill if self.spec.privacy == "per_skill" else arg
            if consent not in state.authorized:
                return None
            shares.append((arg, consent or ""))
        return shares

    def _after_failure(self, state: SessionState, step: Step, result: SkillResult, log: TurnLog) -> None:
        """A call that did not give what was planned: say so, and doubt the values the user gave it."""
        what = self.words.skill(step.skill or "")
        if result.status == "error":
            # Transport and guard errors ("host ... resolves to a non-public address") describe our
            # network, not the user's request: they go to the log and the trace, the user hears less.
            log_calls.warning("skill %s failed: %s", step.skill, result.message)
            detail = "the service could not be reached"
        else:
            detail = result.message or (result.outcome or result.status).replace("_", " ")
        user_given = [arg for arg in step.args if state.memory.get(arg) and state.memory[arg].source == "user"]
        if user_given and len(user_given) == len(step.args):
            for arg in user_given:  # e.g. an unreadable document: ask for another rather than retry it
                state.forget(arg)
        log.say(Reply("text", f"{what[:1].upper()}{what[1:]} did not work out ({detail})."))

    def _unfeasible(self, state: SessionState, result: SkillResult, log: TurnLog) -> str:
        element = result.element or ""
        if element in state.memory and state.memory[element].source == "user":
            state.forget(element)
        state.fail(ASK, element, limit=ASK_ATTEMPTS)
        reason = f" ({result.message})" if result.message else ""
        hint = parse_format(self.spec.element(element).format).hint if element in self.spec_elements else None
        accepted = f" It has to be {hint}." if hint else ""
        log.say(Reply("text", f"That {self.words.element(element)} cannot work{reason}; let's try another value."
                              f"{accepted}"))
        return f"{element} was unfeasible"


def _forgive_misreads(state: SessionState) -> None:
    """A new request gives every element whose answers were misread three times another chance
    (before, such an element stayed unfillable for the rest of the session)."""
    for key, count in list(state.failures.items()):
        operation, _, element = key.partition(" ")
        if operation == ASK and count >= ASK_ATTEMPTS:
            del state.failures[key]
            if (ASK, element) in state.cannot_establish:
                state.cannot_establish.remove((ASK, element))
