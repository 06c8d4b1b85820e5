"""One user utterance in, the assistant's replies out (section 3 of the paper).

Each turn: a command generator reads the message in its context and returns typed commands
(`dialogue/generator.py`); a policy decides what happens next from the state and the commands
(`dialogue/planner_policy.py`, or S3 in `s3.py`); the executor applies the commands under the
safety invariants (`dialogue/applying.py`) and acts: asks, asks for consent, calls skills, records
history (`dialogue/executor.py`). The state carries everything learned: values with provenance,
failure counts and `cannot_establish` facts, pruned groundings, consents, the pending frame.
"""

from __future__ import annotations

from typing import Protocol

from ..catalog.spec import CatalogSpec
from ..planning.planner import Planner
from .dialogue import goals
from .dialogue.applying import Applier
from .dialogue.commands import Command
from .dialogue.executor import ASK_ATTEMPTS, Executor
from .dialogue.generator import CommandGenerator, Context, RuleCommandGenerator
from .dialogue.log import PlanRecord, Share, TurnLog
from .dialogue.planner_policy import MAX_STEPS, PlannerPolicy
from .dialogue.prompts import Prompts
from .intents import IntentDecision, IntentMatcher
from .nlu import IntentClassifier
from .replies import Reply, Wording
from .session import SessionState
from .skills import SkillInvoker

__all__ = ["ASK_ATTEMPTS", "MAX_STEPS", "Orchestrator", "PlanRecord", "PlannerOrchestrator", "Share", "TurnLog"]


class Policy(Protocol):
    decides_intents: bool  # False: every message is a broadcast to the skills (S3), no intents read

    def respond(self, state: SessionState, text: str, commands: list, log: TurnLog, applier: Applier) -> None: ...

    def said_words(self, said: str) -> list[str]: ...


class Orchestrator:
    """A generator, a policy and the executor, for one catalog. Build it with `PlannerOrchestrator`
    or `S3Orchestrator` (s3.py); a deployment may pass its own `generator`."""

    def __init__(self, spec: CatalogSpec, planner: Planner, invoker: SkillInvoker,
                 classifier: IntentClassifier | None = None, generator: CommandGenerator | None = None):
        self.spec = spec
        self.planner = planner
        self.invoker = invoker
        self.generator: CommandGenerator = generator or RuleCommandGenerator()
        self.executor = Executor(spec, planner, invoker)
        self.words: Wording = self.executor.words  # one wording: the greeting and every help say the same
        self.prompts = Prompts(spec, planner, self.words)
        self.policy: Policy = self._policy()
        if self.policy.decides_intents:  # the planner starts only intents with a plan: it offers only those
            self.words.can_offer = lambda intent: planner.can_plan(intent.goal)
        self.applier = Applier(self.executor, self.prompts, self.policy.said_words)
        self._classifier = classifier
        self._matcher: IntentMatcher | None = None
        self._needed: dict[str, set[str]] = {}

    def _policy(self) -> Policy:
        return PlannerPolicy(self.spec, self.planner, self.executor)

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

    # --- entry points ---------------------------------------------------------------------------
    def greet(self) -> list[Reply]:
        return [Reply("text", f"Hello! {self.words.help()}")]

    def turn(self, state: SessionState, text: str) -> TurnLog:
        log = TurnLog()
        commands = self.understand(state, text)
        self.policy.respond(state, text, commands, log, self.applier)
        return log

    def understand(self, state: SessionState, text: str) -> list[Command]:
        """The commands `text` makes in the session as it stands (nothing changes)."""
        return self.generator.commands(text, self.context(state))  # type: ignore[return-value]

    def context(self, state: SessionState) -> Context:
        return Context(spec=self.spec, state=state, decide=self._decide, rank=self._rank, needed=self._inputs_for)

    def _decide(self, text: str) -> IntentDecision:
        return self.matcher.decide(text) if self.policy.decides_intents else IntentDecision("none")

    def _rank(self, text: str) -> list[tuple[str, float]]:
        if not self.policy.decides_intents:
            return []
        floor = self.matcher.calibration.floor
        return [(g.intent, g.score) for g in self.matcher.rank(text) if g.score >= floor]

    def _inputs_for(self, intent: str) -> set[str]:
        if intent not in self._needed:
            self._needed[intent] = goals.inputs_for(self.spec, self.planner, intent)
        return self._needed[intent]


class PlannerOrchestrator(Orchestrator):
    """The planner policy: advance the goal on top of the stack by planning after each message."""
