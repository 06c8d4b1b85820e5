"""The S3 orchestrator (Algorithm 2 of the composition paper): Score, Select, Sequence.

Each utterance is broadcast to every skill with a preview; previews give confidences, the
scorer normalises them, the selector keeps the top k above a threshold, the sequencer puts
producers before consumers, and the selected skills run in turn. It keeps no goals and makes no
plans: it is the cold-start mode and the baseline the planner orchestrator is measured against.
It still fills missing inputs by asking, and never shares a sensitive value without consent.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..catalog.spec import CatalogSpec, Mode, Skill
from ..planning.compile import action_name, operation_name
from ..planning.planner import Planner, Step
from ..planning.task import ASK
from .dialogue.applying import Applier, clean
from .dialogue.bounds import within_bounds
from .dialogue.commands import QUESTIONS, SetSlot, Stop
from .dialogue.executor import Executor
from .dialogue.log import TurnLog
from .nlu import tokens
from .replies import Reply
from .session import SessionState
from .skills import SkillInvoker
from .turns import Orchestrator

Preview = Callable[[Skill, str], float]  # a skill's confidence (0..1) that it can handle an utterance


def text_preview(skill: Skill, utterance: str) -> float:
    """The built-in preview: word overlap between the utterance and the skill's preview text."""
    if not skill.preview:
        return 0.0
    said, offered = set(tokens(utterance)), set(tokens(skill.preview))
    if not said or not offered:
        return 0.0
    return len(said & offered) / math.sqrt(len(said) * len(offered))


@dataclass(frozen=True)
class Scored:
    skill: str
    score: float


class S3Policy:
    """Score, Select, Sequence: a message with nothing pending is broadcast to the skills; the
    selected ones run in turn, each asking for its missing inputs and consent first."""

    decides_intents = False

    def __init__(self, spec: CatalogSpec, executor: Executor, preview: Preview = text_preview, top_k: int = 2,
                 threshold: float = 0.25):
        self.spec, self.executor, self.words = spec, executor, executor.words
        self.preview, self.top_k, self.threshold = preview, top_k, threshold

    def said_words(self, said: str) -> list[str]:
        return []  # no plans, so no way of running a skill to pick

    # --- Score, Select, Sequence -------------------------------------------------------------
    def score(self, utterance: str) -> list[Scored]:
        raw = [(s.name, self.preview(s, utterance)) for s in self.spec.skills if s.preview]
        total = sum(confidence for _, confidence in raw)
        if total <= 0:
            return []
        return sorted((Scored(name, c / total) for name, c in raw if c > 0), key=lambda s: -s.score)

    def select(self, scored: list[Scored]) -> list[str]:
        return [s.skill for s in scored if s.score >= self.threshold][: self.top_k]

    def sequence(self, selected: list[str]) -> list[str]:
        """Producers before consumers; otherwise the selector's order."""
        def feeds(a: str, b: str) -> bool:
            outputs = {x for m in self.spec.skill(a).modes for o in m.outcomes for x in o.outputs}
            return any(x in outputs for m in self.spec.skill(b).modes for x in m.inputs)

        ordered: list[str] = []
        for name in selected:
            position = next((i for i, other in enumerate(ordered) if feeds(name, other)), len(ordered))
            ordered.insert(position, name)
        return ordered

    # --- turns -------------------------------------------------------------------------------
    def respond(self, state: SessionState, text: str, commands: list, log: TurnLog, applier: Applier) -> None:
        if any(isinstance(c, Stop) for c in commands):
            state.pending = None
            state.plan = []
            log.commands = [Stop()]
            log.say(Reply("text", "OK, I stopped."))
            return
        if state.pending is not None or any(isinstance(c, QUESTIONS) for c in commands):
            if applier.apply(state, commands, log) is None:
                return
        else:
            given, _ = within_bounds(applier.prompts, state, clean(self.spec, state, commands), log)
            applier.remember(state, [c for c in given if isinstance(c, SetSlot)])
            scored = self.score(text)
            state.plan = self.sequence(self.select(scored))
            # The selection in the reply's data, read by the learner (`observations._broadcasts`), never its words.
            selection = {"scores": {s.skill: round(s.score, 3) for s in scored}, "selected": list(state.plan)}
            if not state.plan:
                log.say(Reply("text", "Sorry, none of my skills can help with that.", data=selection))
                return
            log.say(Reply("text", "I will use " + ", then ".join(x.replace("_", " ") for x in state.plan) + ".",
                          data=selection))
        self._run(state, log)

    def _run(self, state: SessionState, log: TurnLog) -> None:
        while state.plan and state.pending is None:
            skill = self.spec.skill(state.plan[0])
            mode_name, mode = self._mode(state, skill)
            missing = [x for x in mode.inputs if x not in state.memory]
            askable = [x for x in missing if self.spec.element(x).askable and (ASK, x) not in state.cannot_establish]
            if missing:
                if len(askable) == len(missing):
                    self.executor.ask(state, askable[0], log)
                    return
                state.plan.pop(0)
                log.say(Reply("text", f"I cannot use {skill.name.replace('_', ' ')}: I am missing "
                                      f"{', '.join(self.words.element(x) for x in missing)}."))
                continue
            if not self._consent_ready(state, skill, mode_name, log):
                return
            state.plan.pop(0)
            outcome = mode.outcomes[0]
            step = Step(kind="skill", name=action_name(operation_name(skill.name, mode_name), outcome.name),
                        args=mode.inputs, cost=self.spec.skill_cost(skill), skill=skill.name, mode=mode_name,
                        outcome=outcome.name, outputs=outcome.outputs)
            before = len(state.history)
            self.executor.execute(state, step, log)
            if len(state.history) > before and state.history[-1].outputs:
                record = state.history[-1]
                log.say(Reply("result", f"{self.words.skill(skill.name)}: {self.words.values(record.outputs)}",
                              data={"values": record.outputs}))

    def _mode(self, state: SessionState, skill: Skill) -> tuple[str, Mode]:
        """The mode with the fewest unknown inputs (a mode ready to run wins)."""
        modes = list(zip(skill.mode_names(), skill.modes, strict=True))
        return min(modes, key=lambda pair: sum(x not in state.memory for x in pair[1].inputs))

    def _consent_ready(self, state: SessionState, skill: Skill, mode_name: str, log: TurnLog) -> bool:
        sensitive = [x for x in skill.mode(mode_name).inputs if self.executor.needs_consent(skill.name, mode_name, x)]
        per_skill = self.spec.privacy == "per_skill"
        needed = ([skill.name] if sensitive else []) if per_skill else sensitive
        refused = [t for t in needed if t in state.denied]
        if refused:
            state.plan.pop(0)
            log.say(Reply("text", f"Without your consent I cannot use {skill.name.replace('_', ' ')}."))
            return False
        missing = [t for t in needed if t not in state.authorized]
        if not missing:
            return True
        target = missing[0]
        elements = sensitive if per_skill else [target]
        self.executor.ask_consent(state, target, skill.name, elements, None, log)
        return False


class S3Orchestrator(Orchestrator):
    """The S3 policy with the shared generator and executor (the cold-start mode and the baseline)."""

    def __init__(self, spec: CatalogSpec, planner: Planner, invoker: SkillInvoker, classifier=None,
                 preview: Preview = text_preview, top_k: int = 2, threshold: float = 0.25):
        self._settings = (preview, top_k, threshold)
        super().__init__(spec, planner, invoker, classifier)

    def _policy(self) -> S3Policy:
        preview, top_k, threshold = self._settings
        return S3Policy(self.spec, self.executor, preview, top_k, threshold)

    @property
    def s3(self) -> S3Policy:
        assert isinstance(self.policy, S3Policy)
        return self.policy

    def score(self, utterance: str) -> list[Scored]:
        return self.s3.score(utterance)

    def select(self, scored: list[Scored]) -> list[str]:
        return self.s3.select(scored)

    def sequence(self, selected: list[str]) -> list[str]:
        return self.s3.sequence(selected)

    @property
    def top_k(self) -> int:
        return self.s3.top_k

    @top_k.setter
    def top_k(self, value: int) -> None:
        self.s3.top_k = value
