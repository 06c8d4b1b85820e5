"""The planner policy: after the commands are applied, advance the goal on top of the stack.

Plan from the session's state; the first step decides: ask (and wait), ask for consent (and
wait), confirm a world-changing call the request did not name (and wait), or call a skill and
plan again from what it gave. A reached goal is reported and an extension offered.
"""

from __future__ import annotations

import functools

from ...catalog.spec import CatalogSpec
from ...planning.compile import action_name, operation_name
from ...planning.planner import Plan, Planner, Step, Unsolvable
from ..nlu import tokens
from ..replies import Reply
from ..session import GoalFrame, SessionState
from . import goals
from .applying import Applier
from .executor import Executor
from .log import TurnLog

MAX_STEPS = 50  # skill calls in one turn: a safety net, a plan never needs that many
# Words in many elements' names that pick no way of running a skill over another.
GENERIC_WORDS = frozenset("id number name date code type value new old the your my of m1 m2 m3 m4".split())


class PlannerPolicy:
    decides_intents = True

    def __init__(self, spec: CatalogSpec, planner: Planner, executor: Executor):
        self.spec, self.planner, self.executor = spec, planner, executor
        self.words = executor.words

    def respond(self, state: SessionState, text: str, commands: list, log: TurnLog, applier: Applier) -> None:
        reason = applier.apply(state, commands, log)
        if reason is not None:
            self.advance(state, log, reason)

    def advance(self, state: SessionState, log: TurnLog, reason: str) -> None:
        for _ in range(MAX_STEPS):
            frame = state.current
            if frame is None or state.pending is not None:
                return
            if goals.reached(self.spec, self.planner, state, frame.goal, frame):
                self._complete(state, log)
                reason = "a goal resumed"
                continue
            result = self.planner.plan(frame.goal, state.planning_state(frame, self._foreign(state, frame)))
            if isinstance(result, Unsolvable):
                self.executor.give_up(state, frame, result, log, reason)
                reason = "a goal resumed"
                continue
            if not self._next(state, frame, result, log, reason):
                return
            reason = self.executor.execute(state, result.steps[0], log)
        log.say(Reply("text", "I have taken many steps without reaching your goal; let me stop here."))

    def _next(self, state: SessionState, frame: GoalFrame, result: Plan, log: TurnLog, reason: str) -> bool:
        """Record the plan and ask what its first step needs; True when that step is a call to make now."""
        if not frame.planned:
            result = self._named_route(state, frame, result)
        self.executor.record_plan(state, frame, result.lines, result.cost, reason, log)
        if not frame.planned:  # the request's own route: what the user agreed to by asking
            frame.planned = True
            frame.agreed = [operation_name(s.skill, s.mode) for s in result.steps
                            if s.kind == "skill" and s.skill and s.mode
                            and self.spec.skill(s.skill).changes_world(s.mode)]
        unagreed = next((s for s in result.steps if self._needs_confirmation(frame, s)), None)
        if unagreed is not None:  # another route that changes things: ask before collecting for it
            self.executor.ask_confirmation(state, frame, unagreed, log)
            return False
        step = result.steps[0]
        values = self._to_read_back(state, frame, step)
        if values:  # a world-changing call: its values read back first ("I will use ... Shall I go ahead?")
            self.executor.ask_readback(state, step, values, log)
            return False
        if step.kind == "ask":
            self.executor.ask(state, step.args[0], log)
            return False
        if step.kind == "authorize":
            self._ask_consent(state, step, result.steps, log)
            return False
        return True

    def _ask_consent(self, state: SessionState, step: Step, plan: tuple[Step, ...], log: TurnLog) -> None:
        target = step.args[0]
        if self.spec.privacy == "per_element":
            use = next((s for s in plan if s.kind == "skill" and target in s.args), None)
            elements, skill = [target], use.skill if use and use.skill else target
        else:
            use = next((s for s in plan if s.kind == "skill" and s.skill == target), None)
            elements = [x for x in use.args if self.executor.needs_consent(target, use.mode or "", x)] if use else []
            skill = target
        self.executor.ask_consent(state, target, skill or target, elements, use, log)

    def _to_read_back(self, state: SessionState, frame: GoalFrame, step: Step) -> dict[str, str]:
        if step.kind != "skill" or not step.skill or not step.mode or step.skill in frame.read_back:
            return {}
        if not self.spec.skill(step.skill).changes_world(step.mode):
            return {}
        return self.executor.readback(state, step)

    def _needs_confirmation(self, frame: GoalFrame, step: Step) -> bool:
        if step.kind != "skill" or not step.skill or not step.mode:
            return False
        skill = self.spec.skill(step.skill)
        return skill.changes_world(step.mode) and operation_name(skill.name, step.mode) not in frame.agreed

    def _foreign(self, state: SessionState, frame: GoalFrame | None) -> set[str]:
        return goals.foreign(self.spec, self.planner, state, frame)

    # --- the request's own route ----------------------------------------------------------------
    def _named_route(self, state: SessionState, frame: GoalFrame, result: Plan) -> Plan:
        """The first plan for a request, by the way of running a skill that the request named when
        the cheapest plan runs it another way ("add my son as a driver" adds a driver, though changing
        the address asks less); the cheapest when no plan goes the named way."""
        said = set(frame.said)
        for step in result.steps:
            if step.kind != "skill" or len(self.spec.skill(step.skill).modes) < 2:
                continue
            words = self._words_of_modes(step.skill)
            named = max(words, key=lambda mode: len(words[mode] & said))
            if len(words[named] & said) <= len(words[step.mode] & said):  # the plan's way is named as much
                continue
            operation = operation_name(step.skill, step.mode)
            frame.avoided += [(action_name(operation, outcome.name), tuple(step.args))
                              for outcome in self.spec.skill(step.skill).mode(step.mode).outcomes]
            other = self.planner.plan(frame.goal, state.planning_state(frame, self._foreign(state, frame)))
            if isinstance(other, Unsolvable):
                frame.avoided = []
                return result
            return other
        return result

    def said_words(self, said: str) -> list[str]:
        """The words of a request that pick one way of running a skill over another."""
        return sorted(set(tokens(said)) & self._mode_words)

    @functools.cached_property
    def _mode_words(self) -> set[str]:
        return {w for skill in self.spec.skills if len(skill.modes) > 1
                for words in self._words_of_modes(skill.name).values() for w in words}

    def _words_of_modes(self, skill_name: str) -> dict[str, set[str]]:
        """Each way of running a skill, by the words only it has: its name's and its inputs' names'."""
        skill = self.spec.skill(skill_name)
        words = {}
        for index, mode in enumerate(skill.modes, start=1):
            name = mode.name or f"m{index}"
            words[name] = set(tokens(" ".join([name, *mode.inputs]).replace("_", " "))) - GENERIC_WORDS
        return {name: own - set().union(*(w for other, w in words.items() if other != name))
                for name, own in words.items()}

    # --- a goal reached -------------------------------------------------------------------------
    def _complete(self, state: SessionState, log: TurnLog) -> None:
        frame = state.pop()
        assert frame is not None
        state.completed.append(frame)
        onto = self.planner.domain.ontology
        values = {
            x: state.memory[x].value for name in frame.goal.known for x in onto.subtree(name) if x in state.memory
        }
        last = state.history[-1] if state.history else None
        if last is not None:
            values.update({x: v for x, v in last.outputs.items() if x not in values})
        what = self.words.goal(frame.intent, frame.goal)
        log.say(Reply("result", f"Done: {what}. {self.words.values(values)}".strip(), goal=frame.intent,
                      data={"values": values}))
        state.plan = []
        offer = self._extension(state, frame)
        if offer is not None:
            self.executor.offer(state, offer, log)
        else:
            self.executor.resume(state, log)

    def _extension(self, state: SessionState, frame: GoalFrame) -> str | None:
        if frame.intent is None:
            return None
        active = {f.intent for f in state.goals}
        for name in self.spec.intent(frame.intent).extensions:
            if name not in active and not goals.reached(self.spec, self.planner, state, self.spec.intent(name).goal):
                return name
        return None
