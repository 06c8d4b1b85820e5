"""The planner orchestrator: one user utterance in, the assistant's replies out (section 3 of the paper).

Each turn: understand the utterance (answer to a pending question, control act, new request),
then advance the goal on top of the stack: plan from the session's state, ask (and wait), ask
for consent (and wait), or call a skill and plan again from what it gave. The state carries
everything learned: values with provenance, failure counts and `cannot_establish` facts,
pruned groundings, consents.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field

from ..catalog.spec import CatalogSpec, Goal
from ..planning.compile import action_name, goal_operations, operation_name
from ..planning.planner import Plan, Planner, Step, Unsolvable
from ..planning.task import ASK
from .acts import cannot_answer, control_act, recalled_words
from .explain import answer
from .intents import IntentDecision, IntentMatcher
from .nlu import (
    IntentClassifier,
    ambiguous_date,
    answer_value,
    extract_value,
    extract_values,
    mentioned_element,
    tokens,
)
from .replies import Reply, Wording
from .session import Execution, GoalFrame, Pending, SessionState
from .skills import SkillInvoker, SkillResult

log_calls = logging.getLogger("concerto.skills")

ASK_ATTEMPTS = 3  # answers that do not fit the format before the slot counts as unfillable
MAX_STEPS = 50  # skill calls in one turn: a safety net, a plan never needs that many


@dataclass(frozen=True)
class Share:
    """A sensitive value that went to a skill, and the consent that allowed it (the audit log)."""

    element: str
    skill: str
    consent: str  # the authorized skill (per skill) or element (per element)
    step: int


@dataclass(frozen=True)
class PlanRecord:
    goal: str
    lines: tuple[str, ...]
    cost: int | None
    reason: str  # why this plan was made: a new goal, an answer, an outcome that differed...
    discarded: tuple[str, ...] = ()  # the previous plan's remaining lines, if it was given up
    unsolvable: str | None = None


@dataclass
class TurnLog:
    replies: list[Reply] = field(default_factory=list)
    shares: list[Share] = field(default_factory=list)
    plans: list[PlanRecord] = field(default_factory=list)
    executions: list[Execution] = field(default_factory=list)

    def say(self, reply: Reply) -> None:
        self.replies.append(reply)


# Words in many elements' names that pick no way of running a skill over another.
GENERIC_WORDS = frozenset("id number name date code type value new old the your my of m1 m2 m3 m4".split())


def _noted(given: dict[str, str]) -> str:
    """ "Noted: your yearly income." for values the user gave unasked (element -> how a sentence names it)."""
    return "Noted: " + " and ".join(given.values()) + "."


class PlannerOrchestrator:
    def __init__(self, spec: CatalogSpec, planner: Planner, invoker: SkillInvoker,
                 classifier: IntentClassifier | None = None):
        self.spec = spec
        self.planner = planner
        self.invoker = invoker
        self.words = Wording(spec)
        self._classifier = classifier
        self._matcher: IntentMatcher | None = None
        self._intent_names = {i.name for i in spec.intents}

    @property
    def classifier(self) -> IntentClassifier:
        """The fitted intent classifier (kept for callers that used the attribute)."""
        return self.matcher.classifier

    @property
    def matcher(self) -> IntentMatcher:
        """Built on first use: an orchestrator that never classifies (S3) never loads the embeddings."""
        if self._matcher is None:
            self._matcher = IntentMatcher(self.spec, self._classifier)
        return self._matcher

    # --- entry points ------------------------------------------------------------------------
    def greet(self) -> list[Reply]:
        return [Reply("text", f"Hello! {self.words.help()}")]

    def turn(self, state: SessionState, text: str) -> TurnLog:
        log = TurnLog()
        reason = self._understand(state, text, log)
        if reason is not None:
            self._advance(state, log, reason)
        return log

    # --- understanding -----------------------------------------------------------------------
    def _understand(self, state: SessionState, text: str, log: TurnLog) -> str | None:
        """Update the state from the utterance; the reason to plan again, or None to wait."""
        act = control_act(text)
        pending = state.pending
        if self._asks_free_text(pending) and act not in ("stop", "clarify"):
            act = None  # "no power when I press the button" describes the fault: it is the answer
        if act == "stop":
            self._stop(state, log)
            return "the user stopped a request"
        if act == "clarify" and pending is not None:
            self._clarify(state, pending, log)
            return None
        if act in ("what", "how", "why", "help", "clarify"):
            log.say(self._explain(state, act, text))
            self._repeat(state, log)
            return None
        if (recall := self._recall(state, text)) is not None:
            log.say(recall)
            self._repeat(state, log)
            return None
        if pending is not None and pending.kind == "ask":
            return self._answer(state, pending.element or "", text, act, log)
        if pending is not None and pending.kind == "consent":
            return self._consent(state, pending, text, act, log)
        if pending is not None and pending.kind == "confirm":
            return self._confirmation(state, pending, act, log)
        if pending is not None and pending.kind == "choose":
            state.pending = None
            chosen = self._chosen(pending.choices, text, act)
            if chosen is not None:
                self._push(state, chosen, log)
                return "the user chose a request"
            if act == "no":
                log.say(Reply("text", f"All right. {self.words.help()}"))
                return None
        if pending is not None and pending.kind == "extension":
            state.pending = None
            if act == "yes" and pending.intent:
                self._push(state, pending.intent, log)
                return "the user accepted an offer"
            if act == "no":
                log.say(Reply("text", "All right."))
                return "the user declined an offer"
        decision = self._decide(text)
        if act in ("yes", "no") and pending is None and state.current is None and decision.kind != "intent":
            # a bare "yes" or "thanks, no" with nothing asked ("has my card been approved" reads as a
            # yes too, but is a request): no request to guess from it
            if act == "yes" and state.refused_goal:
                return self._reconsider(state, log)
            state.refused_goal = None
            log.say(Reply("text", f"All right. {self.words.help()}" if act == "yes" else "All right."))
            return None
        state.refused_goal = None
        current = state.current.intent if state.current else None
        given = self._volunteered(state, text, decision.intent if decision.kind == "intent" else current)
        if decision.kind == "intent" and decision.intent is not None:
            self._push(state, decision.intent, log, said=text)
            return "a new request"
        if decision.kind == "ambiguous" and current not in decision.alternatives:
            # Values given with an unsure request do not settle it: simulated users who said "I want a
            # credit card, my card application id is CC-000000" wanted a new card, not its status.
            self._offer_choice(state, decision, log)
            return None
        if state.current is None:
            # a value alone ("07700 900123") is kept for the next request rather than not understood
            opening = _noted(given) if given else "Sorry, I did not understand that."
            log.say(Reply("text", f"{opening} {self.words.help()}"))
            return None
        return "the user said more"

    def _reconsider(self, state: SessionState, log: TurnLog) -> str:
        """ "OK then, go ahead" right after a request ended on a refused consent: the refusals are taken
        back and the request starts again, asking for that consent again."""
        intent, state.refused_goal = state.refused_goal or "", None
        state.pruned = [(action, args) for action, args in state.pruned
                        if not (action == "authorize" and args and args[0] in state.denied)]
        state.denied = []
        log.say(Reply("text", "All right, let's try again."))
        self._push(state, intent, log)
        return "the user took back a refusal"

    def _offer_choice(self, state: SessionState, decision: IntentDecision, log: TurnLog) -> None:
        """ "Did you mean to A, or to B?": an unsure match is asked about, never started blindly."""
        choices = list(decision.alternatives)
        state.pending = Pending(kind="choose", choices=choices)
        log.say(Reply("question", self.words.choice(choices), data={"choices": choices}))

    def _chosen(self, choices: list[str], text: str, act: str | None) -> str | None:
        if act == "yes" and len(choices) == 1:
            return choices[0]
        lowered = text.lower()
        for index, word in enumerate(("first", "second")):
            if word in lowered and index < len(choices):
                return choices[index]
        ranked = self.matcher.rank(text)
        # Naming one of the choices picks it; another request ("no, a loan") is handled as such.
        if ranked and ranked[0].intent in choices and ranked[0].score >= self.matcher.calibration.floor:
            return ranked[0].intent
        return None

    def _asks_free_text(self, pending: Pending | None) -> bool:
        if pending is None or pending.kind != "ask" or not pending.element:
            return False
        return self.spec.element(pending.element).format in (None, "text")

    def _clarify(self, state: SessionState, pending: Pending, log: TurnLog) -> None:
        """ "What do you mean?": say what is being asked in other words, then ask again."""
        if pending.kind == "ask" and pending.element:
            log.say(Reply("text", self.words.explain_question(pending.element)))
        elif pending.kind == "consent":
            skill = pending.skill or pending.target or ""
            log.say(Reply("text", f"I need your permission before I send {self.words.list(pending.elements)} to "
                                  f"{self.words.skill(skill)}. Nothing is sent unless you say yes."))
        self._repeat(state, log)

    def _explain(self, state: SessionState, act: str, text: str) -> Reply:
        if act in ("help", "clarify"):
            return Reply("text", self.words.help())
        return answer(self.spec, self.planner, state, act, text)

    def _recall(self, state: SessionState, text: str) -> Reply | None:
        """The answer to "what is my handset?" from memory; None when the question names nothing held
        (then it may well be a request: "what is the status of my claim")."""
        words = recalled_words(text)
        name = mentioned_element(words, self.spec) if words else None
        if name is None:
            return None
        said = self.words.element(name)
        if name not in state.memory:
            asking = state.pending is not None and state.pending.kind == "ask" and state.pending.element == name
            return Reply("explanation", f"I do not have {said} yet: that is what I am asking you for.",
                         element=name) if asking else None
        if self.spec.element(name).sensitive:
            return Reply("explanation", f"I have {said}, but I do not repeat sensitive values.", element=name)
        return Reply("explanation", f"{said[:1].upper()}{said[1:]} is {state.memory[name].value}.", element=name)

    def _repeat(self, state: SessionState, log: TurnLog) -> None:
        """After a side question, ask again what the assistant is waiting for."""
        pending = state.pending
        if pending is None:
            return
        if pending.kind == "ask" and pending.element:
            log.say(Reply("question", self.words.question(pending.element), element=pending.element))
        elif pending.kind == "consent" and pending.target:
            skill = pending.skill or pending.target
            log.say(Reply("consent", self.words.consent(skill, pending.elements),
                          skill=skill, elements=tuple(pending.elements)))
        elif pending.kind == "extension" and pending.intent:
            log.say(Reply("question", self.words.offer(self.spec.intent(pending.intent)), goal=pending.intent))
        elif pending.kind == "confirm" and pending.operation:
            log.say(Reply("question", "Shall I go ahead?", skill=pending.skill, data={"confirm": pending.operation}))
        elif pending.kind == "choose" and pending.choices:
            log.say(Reply("question", self.words.choice(pending.choices), data={"choices": list(pending.choices)}))

    def _decide(self, text: str) -> IntentDecision:
        return self.matcher.decide(text)

    def _intent(self, text: str) -> str | None:
        """The request `text` makes for sure (a digression in the middle of a question), or None."""
        decision = self._decide(text)
        return decision.intent if decision.kind == "intent" else None

    def _volunteered(self, state: SessionState, text: str, intent: str | None, asked: str | None = None,
                     correcting: bool = False) -> dict[str, str]:
        """Remember the values `text` gives unasked; each element given, as a sentence names it. When
        `correcting`, a value the user gives replaces one a skill found, and the sentence says so."""
        needed = (lambda: self._inputs_for(intent)) if intent is not None else None
        keep = {n for n, r in state.memory.items() if r.source == "user"} if correcting else set(state.memory)
        given = extract_values(self.spec, text, skip=keep, asked=asked, needed=needed)
        said = {}
        for name, value in given.items():
            before = state.memory.get(name)
            said[name] = self.words.element(name)
            if before is not None and before.value != value:
                said[name] += f" (instead of what {(before.skill or 'a skill').replace('_', ' ')} gave)"
            state.remember(name, value, "user", goal=self._goal_key(state))
        return said

    def _inputs_for(self, intent: str) -> set[str]:
        """The inputs of the ways of running skills that a plan for `intent` uses, from nothing known."""
        result = self.planner.plan(self.spec.intent(intent).goal)
        if not result.solved:
            return set()
        return {name for step in result.steps if step.kind == "skill"
                for name in self.spec.skill(step.skill).mode(step.mode).inputs}

    @staticmethod
    def _goal_key(state: SessionState) -> str | None:
        return state.current.intent if state.current else None

    def _answer(self, state: SessionState, element: str, text: str, act: str | None, log: TurnLog) -> str | None:
        spec_element = self.spec.element(element)
        free_text = spec_element.format in (None, "text")
        # A free-text answer is the value whatever it says; a formatted one may be a new request instead.
        # (The value is looked for first: most answers are values, and matching intents costs a model call.)
        intent = None if free_text or extract_value(spec_element, text) is not None else self._intent(text)
        if intent is not None and intent != (state.current.intent if state.current else None):
            state.pending = None
            self._push(state, intent, log, said=text)
            self._volunteered(state, text, intent)  # "I need to report that I'm sick since yesterday"
            return "a request in the middle of another"
        if cannot_answer(text, whole=free_text) or act == "no":
            state.pending = None
            state.fail(ASK, element, limit=1)
            log.say(Reply("text", "No problem, let me find another way."))
            return f"the user cannot give {element}"
        value = answer_value(self.spec, spec_element, text)
        if value is None and (given := self._volunteered(state, text, self._goal_key(state), asked=element,
                                                          correcting=True)):
            # "I make about 70 grand a year" asked for an SSN: not the answer, but not nothing either
            state.pending = None
            log.say(Reply("text", _noted(given)))
            return "the user gave " + ", ".join(given)
        if value is None:
            if state.fail(ASK, element, limit=ASK_ATTEMPTS):
                state.pending = None
                log.say(Reply("text", f"I still could not read {self.words.element(element)}; let me try another way."))
                return f"no valid {element} after {ASK_ATTEMPTS} tries"
            readings = ambiguous_date(text) if spec_element.format == "date" else None
            why = (f"Do you mean {readings[0]} or {readings[1]}? Please write the month as a word."
                   if readings else f"That does not look like {self.words.element(element)}.")
            log.say(Reply("question", f"{why} {self.words.question(element)}", element=element))
            return None
        state.pending = None
        state.remember(element, value, "user", goal=self._goal_key(state))
        if not free_text:  # a free-text answer is all one value; a formatted one may carry others
            for name, other in extract_values(self.spec, text, skip=state.memory, asked=element,
                                              asked_value=value).items():
                state.remember(name, other, "user", goal=self._goal_key(state))
        return f"the user gave {element}"

    def _consent(self, state: SessionState, pending: Pending, text: str, act: str | None, log: TurnLog) -> str | None:
        target = pending.target or ""
        if act == "yes":
            state.pending = None
            state.authorize(target)
            return f"consent for {target}"
        if act == "no":
            state.pending = None
            state.denied.append(target)
            state.prune("authorize", (target,))  # never ask again in this session
            log.say(Reply("text", f"Understood: I will not share it with {target.replace('_', ' ')}."))
            return f"consent refused for {target}"
        intent = self._intent(text)
        if intent is not None:
            state.pending = None
            self._push(state, intent, log)
            return "a request in the middle of another"
        skill = pending.skill or target
        log.say(Reply("consent", f"Please answer yes or no. {self.words.consent(skill, pending.elements)}",
                      skill=skill, elements=tuple(pending.elements)))
        return None

    # --- goals -------------------------------------------------------------------------------
    def _push(self, state: SessionState, intent: str, log: TurnLog, said: str = "") -> None:
        current = state.current
        if current is not None and current.intent == intent:
            return
        spec_intent = self.spec.intent(intent)
        state.push(GoalFrame(intent=intent, goal=spec_intent.goal, said=sorted(set(tokens(said)) & self._mode_words)))
        what = self.words.goal(intent, spec_intent.goal)
        if current is not None:
            before = self.words.goal(current.intent, current.goal)
            log.say(Reply("text", f"Sure, let's {what} first; then we will get back to {before}.", goal=intent))
        else:
            log.say(Reply("text", f"Sure, let's {what}.", goal=intent))
        state.plan = []

    def _stop(self, state: SessionState, log: TurnLog) -> None:
        state.pending = None
        frame = state.pop()
        if frame is None:
            log.say(Reply("text", "There is nothing to stop."))
            return
        log.say(Reply("text", f"OK, I stopped: {self.words.goal(frame.intent, frame.goal)}.", goal=frame.intent))
        state.plan = []
        self._resume(state, log)

    def _resume(self, state: SessionState, log: TurnLog) -> None:
        frame = state.current
        if frame is not None:
            log.say(Reply("resumed", f"Now, back to {self.words.goal(frame.intent, frame.goal)}.", goal=frame.intent))

    def _reached(self, state: SessionState, goal: Goal, frame: GoalFrame | None = None) -> bool:
        onto = self.planner.domain.ontology
        memory = set(state.memory) - self._foreign(state, frame)
        done_ops = state.done_by(frame) if frame is not None else set(state.done)
        known = all(any(x in memory for x in onto.subtree(name)) for name in goal.known)
        done = all(any(op in done_ops for op in goal_operations(self.planner.domain, ref)) for ref in goal.done)
        return known and done

    def _targets(self, goal: Goal | None) -> set[str]:
        """The elements a goal asks for, subtypes included."""
        if goal is None:
            return set()
        onto = self.planner.domain.ontology
        return {x for name in goal.known for x in onto.subtree(name)}

    def _foreign(self, state: SessionState, frame: GoalFrame | None) -> set[str]:
        """Values a skill produced for another goal that asked for something else: this goal's own
        targets, or the other goal's, are not reused ("a salary report" never publishes the sales chart)."""
        if frame is None:
            return set()
        mine = self._targets(frame.goal)
        foreign = set()
        for name, item in state.memory.items():
            if item.source != "skill" or item.goal == frame.intent:
                continue
            theirs = self._targets(self.spec.intent(item.goal).goal) if item.goal in self._intent_names else set()
            if name in mine or name in theirs:
                foreign.add(name)
        return foreign

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
            state.pending = Pending(kind="extension", intent=offer)
            log.say(Reply("question", self.words.offer(self.spec.intent(offer)), goal=offer))
        else:
            self._resume(state, log)

    def _extension(self, state: SessionState, frame: GoalFrame) -> str | None:
        if frame.intent is None:
            return None
        active = {f.intent for f in state.goals}
        for name in self.spec.intent(frame.intent).extensions:
            if name not in active and not self._reached(state, self.spec.intent(name).goal):
                return name
        return None

    # --- acting ------------------------------------------------------------------------------
    def _advance(self, state: SessionState, log: TurnLog, reason: str) -> None:
        for _ in range(MAX_STEPS):
            frame = state.current
            if frame is None or state.pending is not None:
                return
            if self._reached(state, frame.goal, frame):
                self._complete(state, log)
                reason = "a goal resumed"
                continue
            result = self.planner.plan(frame.goal, state.planning_state(frame, self._foreign(state, frame)))
            if isinstance(result, Unsolvable):
                self._give_up(state, frame, result, log, reason)
                reason = "a goal resumed"
                continue
            if not frame.planned:
                result = self._named_route(state, frame, result)
            self._record_plan(state, frame, result.lines, result.cost, reason, log)
            if not frame.planned:  # the request's own route: what the user agreed to by asking
                frame.planned = True
                frame.agreed = [operation_name(s.skill, s.mode) for s in result.steps
                                if s.kind == "skill" and s.skill and s.mode
                                and self.spec.skill(s.skill).changes_world(s.mode)]
            unagreed = next((s for s in result.steps if self._needs_confirmation(frame, s)), None)
            if unagreed is not None:  # another route that changes things: ask before collecting for it
                self._ask_confirmation(state, frame, unagreed, log)
                return
            step = result.steps[0]
            if step.kind == "ask":
                element = step.args[0]
                state.pending = Pending(kind="ask", element=element)
                log.say(Reply("question", self.words.question(element), element=element))
                return
            if step.kind == "authorize":
                self._ask_consent(state, step, result.steps, log)
                return
            reason = self._execute(state, step, log)
        log.say(Reply("text", "I have taken many steps without reaching your goal; let me stop here."))

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

    def _record_plan(self, state: SessionState, frame: GoalFrame, lines: list[str], cost: int,
                     reason: str, log: TurnLog) -> None:
        previous = state.plan
        if previous and previous[1:] == lines:  # the old plan goes on: its first step was done
            state.plan = lines
            return
        goal = self.words.goal(frame.intent, frame.goal)
        log.plans.append(PlanRecord(goal=goal, lines=tuple(lines), cost=cost, reason=reason,
                                    discarded=tuple(previous)))
        state.plan = lines

    def _give_up(self, state: SessionState, frame: GoalFrame, result: Unsolvable, log: TurnLog, reason: str) -> None:
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
        self._resume(state, log)

    def _ask_consent(self, state: SessionState, step: Step, plan: tuple[Step, ...], log: TurnLog) -> None:
        target = step.args[0]
        if self.spec.privacy == "per_element":
            elements, skill = [target], next((s.skill for s in plan if s.kind == "skill" and target in s.args), target)
        else:
            use = next((s for s in plan if s.kind == "skill" and s.skill == target), None)
            sensitive = {e.name for e in self.spec.elements if e.sensitive}
            elements = [x for x in (use.args if use else ()) if x in sensitive]
            skill = target
        state.pending = Pending(kind="consent", target=target, skill=skill, elements=elements)
        log.say(Reply("consent", self.words.consent(skill, elements), skill=skill, elements=tuple(elements)))

    def _execute(self, state: SessionState, step: Step, log: TurnLog) -> str:
        skill = self.spec.skill(step.skill)
        mode = skill.mode(step.mode)
        inputs = {declared: state.memory[arg].value for declared, arg in zip(mode.inputs, step.args, strict=True)}
        shares = self._consented_shares(state, step)
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
                           message=result.message if result.status == "error" else "")
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
            state.mark_done(operation, self._goal_key(state))
        for name, value in result.outputs.items():
            given = state.memory.get(name)
            if given is not None and given.source == "user" and given.value != value:
                # The user's word wins over a lookup; say so rather than change it silently.
                what = self.words.element(name)
                log.say(Reply("text", f"{self.words.skill_label(skill.name)} gave {value} for {what}; "
                                      f"I kept the one you gave me ({given.value})."))
                continue
            state.remember(name, value, "skill", skill=skill.name, step=number, goal=self._goal_key(state))
        missing = [x for x in step.outputs if x not in result.outputs]
        for name in missing:
            state.fail(operation, name, limit=skill.max_retries)
        if missing and not result.outputs:  # gave nothing: a rejected loan still gave its decision
            self._after_failure(state, step, result, log)
        if result.outcome != step.outcome or missing:
            return f"{skill.name} ended {result.outcome or result.status}, not {step.outcome}"
        return f"{skill.name} ended {step.outcome} as planned"

    def _needs_confirmation(self, frame: GoalFrame, step: Step) -> bool:
        if step.kind != "skill" or not step.skill or not step.mode:
            return False
        skill = self.spec.skill(step.skill)
        return skill.changes_world(step.mode) and operation_name(skill.name, step.mode) not in frame.agreed

    def _ask_confirmation(self, state: SessionState, frame: GoalFrame, step: Step, log: TurnLog) -> None:
        """A world-changing call the request did not name (another route to the goal): ask first."""
        operation = operation_name(step.skill or "", step.mode or "")
        state.pending = Pending(kind="confirm", operation=operation, skill=step.skill, elements=list(step.args))
        goal = self.words.goal(frame.intent, frame.goal)
        log.say(Reply("question", f"To {goal}, I would now have to use {self.words.skill(step.skill or '')}, "
                                  f"which changes things on your behalf. Shall I go ahead?",
                      skill=step.skill, data={"confirm": operation}))

    def _confirmation(self, state: SessionState, pending: Pending, act: str | None, log: TurnLog) -> str | None:
        frame = state.current
        operation = pending.operation or ""
        if act == "yes" and frame is not None:
            state.pending = None
            frame.agreed.append(operation)
            return f"the user agreed to {operation}"
        if act == "no":
            state.pending = None
            skill = self.spec.skill(pending.skill or "")
            mode = skill.mode(operation.split("-", 1)[1]) if "-" in operation else skill.modes[0]
            for outcome in mode.outcomes:
                state.prune(action_name(operation, outcome.name), tuple(pending.elements))
            log.say(Reply("text", f"All right, I will not use {self.words.skill(skill.name)}."))
            return f"the user refused {operation}"
        log.say(Reply("question", "Please answer yes or no: shall I go ahead?", skill=pending.skill,
                      data={"confirm": operation}))
        return None

    def _consented_shares(self, state: SessionState, step: Step) -> list[tuple[str, str]] | None:
        shares = []
        for arg in step.args:
            if not self.spec.element(arg).sensitive:
                continue
            consent = step.skill if self.spec.privacy == "per_skill" else arg
            if consent not in state.authorized:
                return None
            shares.append((arg, consent))
        return shares

    def _after_failure(self, state: SessionState, step: Step, result: SkillResult, log: TurnLog) -> None:
        """A call that did not give what was planned: say so, and doubt the values the user gave it."""
        what = self.words.skill(step.skill)
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
        log.say(Reply("text", f"That {self.words.element(element)} cannot work{reason}; let's try another value."))
        return f"{element} was unfeasible"
