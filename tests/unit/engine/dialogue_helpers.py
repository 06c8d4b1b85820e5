"""A whole conversation against an orchestrator built from a catalog, for the dialogue tests."""

from __future__ import annotations

from pathlib import Path

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.runtime.replies import Reply
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills
from orchestrator.engine.runtime.turns import PlannerOrchestrator

DIALOGUES = Path(__file__).resolve().parents[3] / "bench" / "data" / "dialogues"
PLANNERS: dict[str, tuple[CatalogSpec, Planner]] = {}


def dialogue_catalog(name: str) -> tuple[CatalogSpec, Planner]:
    """A catalog written for the dialogue tests and bench (bench/data/dialogues/catalogs), with its planner."""
    if name not in PLANNERS:
        path = DIALOGUES / "catalogs" / f"{name}.yaml"
        spec = load_catalog(path.read_text(), filename=path.name)
        PLANNERS[name] = (spec, Planner.for_spec(spec))
    return PLANNERS[name]


class Talk:
    def __init__(self, spec: CatalogSpec, planner: Planner, seed: int = 1):
        self.skills = SimulatedSkills(spec, seed=seed)
        self.bot = PlannerOrchestrator(spec, planner, self.skills)
        self.state = SessionState()
        self.replies: list[Reply] = []
        self.shares: list[tuple[str, str]] = []

    def say(self, *messages: str) -> list[Reply]:
        for message in messages:
            log = self.bot.turn(self.state, message)
            self.replies = log.replies
            self.shares += [(s.element, s.skill) for s in log.shares]
        return self.replies

    @property
    def called(self) -> list[str]:
        return [name for name, _, _ in self.skills.calls]

    def inputs(self, skill: str) -> dict[str, str]:
        return next(inputs for name, _, inputs in reversed(self.skills.calls) if name == skill)

    @property
    def text(self) -> str:
        return " ".join(r.text for r in self.replies)


def talk_on(catalog_yaml: str) -> Talk:
    """A conversation on a small catalog written inline in a test."""
    spec = load_catalog(catalog_yaml, filename="inline.yaml")
    return Talk(spec, Planner.for_spec(spec))
