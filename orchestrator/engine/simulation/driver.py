"""One simulated conversation: a simulated user talks to an orchestrator whose skills behave as a scenario says.

`simulate_conversation` returns the transcript, the trace, the final state and the figures of the
conversation; all of it is a function of (catalog, scenario, orchestrator, seed, index), timings
aside, so a conversation can be computed again anywhere and give the same result.

The transcript is what the chat API would have stored: a list of
`{"position", "role": "user"|"assistant", "kind", "text", "data"}`, the greeting first, sensitive
values masked by the live transcripts' masker (`orchestrator.engine.runtime.masking`).

The trace is a list of `{"position", "kind", "data"}` events in the live sessions' format
(`data["turn"]` is the position of the user message that caused the event), masked the same way:

- `plan`: `goal`, `lines`, `cost`, `reason`, `discarded` (the plan given up), `unsolvable`;
- `execution`: the live fields (`step`, `skill`, `mode`, `inputs` sent, `args`, `outputs`,
  `outcome`, `planned_outcome`, `explanation`) and, for learning, `available` (every element the
  conversation knew at the call), `sent` (the declared inputs sent), `status` (ok | invalid |
  unfeasible | error), `missing` (inputs the skill really needed and did not get) and `success`
  (ok, and the outputs expected of the planned outcome, if any, were given);
- `share`: `element`, `skill`, `consent`, `step`;
- `user` (simulation only): what the simulated user did: `act` (`slot` with `element`, `filled`
  and `reason`: cannot | refuse | unfillable; `consent` with `given`; `side_question`,
  `digression`, `stopped`, `other_format`, `volunteered`, `typo`, `rephrased`, `gave_up`...).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from ..catalog.spec import CatalogSpec
from ..planning.planner import Planner
from ..runtime.dialogue.goals import reached
from ..runtime.masking import MASK, Scrubber, sensitive_values
from ..runtime.replies import Reply
from ..runtime.s3 import S3Orchestrator
from ..runtime.session import Execution, SessionState
from ..runtime.turns import PlannerOrchestrator, TurnLog
from .scenario import Scenario
from .truth import Call, TruthSkills
from .user import SimulatedUser, Utterance

OrchestratorKind = Literal["planner", "s3"]
Outcome = Literal["success", "gave_up", "stopped", "stalled", "failed"]


class TimedPlanner:
    """The planner, with the time spent in `plan` counted (the orchestrator's planning time)."""

    def __init__(self, planner: Planner):
        self.planner = planner
        self.domain = planner.domain
        self.seconds = 0.0

    def plan(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.planner.plan(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started

    def __getattr__(self, name: str) -> Any:  # landmarks, task, search: as the planner has them
        return getattr(self.planner, name)


@dataclass
class Conversation:
    index: int
    intent: str
    outcome: Outcome
    transcript: list[dict[str, Any]] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)  # the final SessionState, sensitive values masked
    metrics: dict[str, Any] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        return self.outcome == "success"


def conversation_seed(seed: int, index: int, part: str) -> random.Random:
    # A string seed is hashed the same way in every process: conversation `index` of a run is the
    # same whichever worker computes it, and in whichever chunk.
    return random.Random(f"{seed}:{index}:{part}")


def simulate_conversation(spec: CatalogSpec, planner: Planner, scenario: Scenario, *,
                          orchestrator: OrchestratorKind, seed: int, index: int, explore: bool = False) -> Conversation:
    """One conversation; with `explore` (simulation only, never with real users), a skill mode the
    conversation saw rejected is then probed by `experiment` and the probes are added to the trace."""
    user = SimulatedUser(spec, scenario, conversation_seed(seed, index, "user"))
    state = SessionState()
    skills = TruthSkills(spec, scenario, conversation_seed(seed, index, "skills"), context=lambda: state.memory,
                         profile=user.profile)
    timed = TimedPlanner(planner)
    kind = S3Orchestrator if orchestrator == "s3" else PlannerOrchestrator
    bot = kind(spec, timed, skills)  # type: ignore[arg-type]  # duck-typed: it only plans
    recorder = _Recorder(spec, state)
    recorder.assistant(bot.greet())
    goal = spec.intent(user.intent).goal
    utterance: Utterance | None = user.opening()
    outcome: Outcome = "stalled"
    turns, said = 0, 0  # `said`: the user's events already recorded
    while utterance is not None and turns < scenario.users.max_turns:
        turns += 1
        hidden = utterance.act == "answer" and bool(utterance.element) and spec.element(utterance.element).sensitive
        before_calls, events = len(skills.calls), user.events[said:]
        said = len(user.events)
        timed.seconds = 0.0
        started = time.perf_counter()
        recorder.collect_sensitive()
        log = bot.turn(state, utterance.text)
        recorder.collect_sensitive()
        engine_ms = (time.perf_counter() - started) * 1000
        replies = recorder.turn(utterance, hidden, log, skills.calls[before_calls:], events,
                                planner_ms=timed.seconds * 1000, engine_ms=engine_ms)
        satisfied = reached(spec, planner, state, goal)
        if utterance.act == "stop":
            outcome = "stopped"
            break
        utterance = user.respond(replies, satisfied)
        if utterance is None:
            outcome = "success" if satisfied else ("gave_up" if user.events and user.events[-1]["kind"] == "gave_up"
                                                   else "failed")
    if outcome == "stalled" and reached(spec, planner, state, goal):
        outcome = "success"
    recorder.user(user.events[said:], turn=len(recorder.raw) - 1)  # how the user left, if it said so
    if explore:
        rejected = sorted({(c.skill, c.mode) for c in skills.calls if c.status == "invalid"})
        probes = experiment(spec, scenario, user, {k: v.value for k, v in state.memory.items()}, rejected,
                            conversation_seed(seed, index, "probe"), first_step=len(state.history))
        recorder.probes(probes, turn=len(recorder.raw) - 1)
    return recorder.finish(index=index, intent=user.intent, outcome=outcome, turns=turns, user=user)


def execution_event(record: Execution, call: Call, success: bool) -> dict[str, Any]:
    """A call's trace `execution` event: the live fields of its record, and the simulation's own."""
    return {**record.model_dump(mode="json"), "available": list(call.available), "sent": list(call.sent),
            "status": call.status, "missing": list(call.missing), "success": success}


class _Recorder:
    """Builds the masked transcript and trace as the turns go, and the conversation's figures."""

    def __init__(self, spec: CatalogSpec, state: SessionState):
        self.spec, self.state = spec, state
        # role, kind, text, data, hidden, mark (the reply's typed mark, "" for none, as `Message.mark` stores it)
        self.raw: list[tuple[str, str, str, dict[str, Any], bool, str]] = []
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.sensitive: dict[str, None] = {}  # every sensitive value the conversation held, in order
        self.figures: dict[str, Any] = {"questions": 0, "consents": 0, "plans": 0, "replans": 0, "unsolvable": 0,
                                        "skill_calls": {}, "skill_failures": {}, "planner_ms": [], "engine_ms": []}

    def collect_sensitive(self) -> None:
        """Sensitive values known now; a value later forgotten or overwritten was still said."""
        self.sensitive.update(dict.fromkeys(sensitive_values(self.spec, self.state)))

    def assistant(self, replies: list[Reply]) -> list[dict[str, Any]]:
        """Record the replies; their bodies, as the user reads them."""
        bodies = []
        for reply in replies:
            bodies.append(reply.as_dict())
            self.raw.append(("assistant", reply.kind, reply.text, bodies[-1], False, reply.mark or ""))
            self.figures["questions"] += reply.kind == "question" and bool(reply.element)
            self.figures["consents"] += reply.kind == "consent"
        return bodies

    def turn(self, utterance: Utterance, hidden: bool, log: TurnLog, calls: list[Call],
             user_events: list[dict[str, Any]], *, planner_ms: float, engine_ms: float) -> list[dict[str, Any]]:
        """Record one turn; the replies' bodies."""
        position = len(self.raw)
        self.raw.append(("user", "user", utterance.text, {}, hidden, ""))
        bodies = self.assistant(log.replies)
        self.user(user_events, turn=position)
        for plan in log.plans:
            self.events.append(("plan", {"turn": position, **plan.event()}))
            self.figures["plans"] += 1
            self.figures["replans"] += bool(plan.discarded)
            self.figures["unsolvable"] += plan.unsolvable is not None
        for record, call in zip(log.executions, calls, strict=False):
            success = call.status == "ok" and bool(record.outputs or not self._planned_outputs(record))
            self.events.append(("execution", {"turn": position, **execution_event(record, call, success)}))
            calls_by_skill = self.figures["skill_calls"]
            calls_by_skill[record.skill] = calls_by_skill.get(record.skill, 0) + 1
            if not success:
                failures = self.figures["skill_failures"]
                failures[record.skill] = failures.get(record.skill, 0) + 1
        for share in log.shares:
            self.events.append(("share", {"turn": position, **share.event()}))
        self.figures["planner_ms"].append(round(planner_ms, 3))
        self.figures["engine_ms"].append(round(engine_ms, 3))
        return bodies

    def probes(self, probes: list[dict[str, Any]], turn: int) -> None:
        """An experiment's calls: in the trace with `probe: true`, out of the conversation's own figures."""
        self.figures["explored"] = True
        self.figures["probes"] = len(probes)
        for probe in probes:
            self.events.append(("execution", {"turn": turn, **probe}))

    def user(self, events: list[dict[str, Any]], turn: int) -> None:
        """What the user did to say the message at `turn` (it volunteered, asked why, refused...)."""
        for event in events:
            self.events.append(("user", {"turn": turn, "act": event["kind"],
                                         **{k: v for k, v in event.items() if k != "kind"}}))

    def _planned_outputs(self, record: Any) -> tuple[str, ...]:
        mode = self.spec.skill(record.skill).mode(record.mode)
        return next((o.outputs for o in mode.outcomes if o.name == record.planned_outcome), ())

    def finish(self, *, index: int, intent: str, outcome: Outcome, turns: int, user: SimulatedUser) -> Conversation:
        self.collect_sensitive()
        # The live sessions' masker with its guessing layers off: the simulator made every value, so
        # every sensitive one is known.
        scrub = Scrubber.known_only(self.sensitive)
        transcript = []
        for position, (role, kind, text, data, hidden, mark) in enumerate(self.raw):
            shown = scrub.text(text)
            if hidden and shown == text:
                shown = MASK  # an answer to a sensitive question the runtime could not read: hidden whole
            # `mark`: the reply's typed mark beside the line, as a live session's `Message.mark` (the learner
            # reads it, never the wording)
            transcript.append({"position": position, "role": role, "kind": kind, "text": shown,
                               "data": scrub.data(data) if role == "assistant" else {}, "mark": mark})
        trace = [{"position": i, "kind": kind, "data": scrub.data(data)}
                 for i, (kind, data) in enumerate(self.events)]
        user_acts = [e["kind"] for e in user.events]
        metrics = {
            **self.figures, "intent": intent, "outcome": outcome, "success": outcome == "success", "turns": turns,
            "consents_refused": sum(1 for e in user.events if e["kind"] == "consent" and not e["given"]),
            "slots_withheld": sum(1 for e in user.events if e["kind"] == "slot" and not e["filled"]),
            "side_questions": user_acts.count("side_question"), "digressions": user_acts.count("digression"),
        }
        return Conversation(index=index, intent=intent, outcome=outcome, transcript=transcript, trace=trace,
                            state=scrub.data(self.state.model_dump(mode="json")), metrics=metrics)


# --- learning by experimentation (simulation only) ---------------------------------------------------

PROBE_MODES = 2  # rejected modes probed per conversation


def experiment(spec: CatalogSpec, scenario: Scenario, user: SimulatedUser, known: dict[str, str],
               rejected: list[tuple[str, str]], rng: random.Random, first_step: int = 0) -> list[dict[str, Any]]:
    """Probe calls for modes the conversation saw rejected (Gil's EXPO, OLAM's learning goals).

    The experimenter knows only the spec, never the truths: it gathers every element it can (the
    conversation's values, every value the simulated user has and would give, the outputs of skills
    whose declared inputs are then known), calls the rejected mode with all of it, and, when that
    succeeds, calls it again with each extra element held back in turn. A success bounds what the
    mode needs (SAM's safe set); a rejection with one element held back singles it out. Each probe
    is a trace `execution` event with `probe: true`; values are masked (only names are learned from).
    Probes are numbered as steps from `first_step`, after the conversation's own calls.
    """
    memory = dict(known)
    for name, value in user.profile.items():  # asked for, the user gives what it has and will give
        if name not in user.withheld:
            memory.setdefault(name, value)
    skills = TruthSkills(spec, scenario, rng, context=lambda: memory, profile=user.profile)
    probes: list[dict[str, Any]] = []
    targets = rejected[:PROBE_MODES]
    _produce(spec, skills, memory, probes, avoid=set(targets), first_step=first_step)
    for skill_name, mode_name in targets:
        skill = spec.skill(skill_name)
        declared = skill.mode(mode_name).inputs
        if any(x not in memory for x in declared):
            continue  # what the spec itself asks for cannot be had: nothing to learn here
        inputs = {x: memory[x] for x in declared}
        if _probe(skills, skill, mode_name, inputs, probes, first_step) != "ok":
            continue
        full = dict(memory)
        for held in sorted(set(full) - set(declared)):  # leave one out
            memory.clear()
            memory.update({k: v for k, v in full.items() if k != held})
            _probe(skills, skill, mode_name, inputs, probes, first_step)
        memory.clear()
        memory.update(full)
    return probes


def _produce(spec: CatalogSpec, skills: TruthSkills, memory: dict[str, str], probes: list[dict[str, Any]],
             avoid: set[tuple[str, str]], first_step: int) -> None:
    """Call every mode whose declared inputs are known and that may give something not yet known, until none is left."""
    tried: set[tuple[str, str]] = set()
    for _ in range(len(spec.skills) + 1):
        progress = False
        for skill in spec.skills:
            for mode_name, mode in zip(skill.mode_names(), skill.modes, strict=True):
                key = (skill.name, mode_name)
                gives = {x for o in mode.outcomes for x in o.outputs}
                if key in tried or key in avoid or not gives - set(memory) or any(x not in memory for x in mode.inputs):
                    continue
                tried.add(key)
                status = _probe(skills, skill, mode_name, {x: memory[x] for x in mode.inputs}, probes, first_step,
                                keep=memory)
                progress = progress or status == "ok"
        if not progress:
            return


def _probe(skills: TruthSkills, skill: Any, mode: str, inputs: dict[str, str], probes: list[dict[str, Any]],
           first_step: int, keep: dict[str, str] | None = None) -> str:
    """One probe call, added to `probes` as the runtime records a call, values masked; with `keep`, its
    outputs are remembered there."""
    result = skills.call(skill, mode, inputs)
    call = skills.calls[-1]
    if keep is not None and result.status == "ok":
        for name, value in result.outputs.items():
            keep.setdefault(name, value)
    record = Execution(step=first_step + len(probes), skill=skill.name, mode=mode,
                       outcome=result.outcome or result.status, planned_outcome="",
                       inputs=dict.fromkeys(inputs, MASK), outputs=dict.fromkeys(result.outputs, MASK),
                       args=list(inputs), message=result.message if result.status != "ok" else "")
    probes.append({**execution_event(record, call, success=call.status == "ok"), "probe": True})
    return result.status
