"""Property: over generated catalogs and conversations, no skill receives a sensitive value
without a consent recorded before the call."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.engine.catalog.spec import CatalogSpec, Simulation, Skill
from orchestrator.engine.catalog.synthetic import synthetic_catalog
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills
from orchestrator.engine.runtime.turns import PlannerOrchestrator

PLANNERS: dict[tuple[int, str], tuple[CatalogSpec, Planner]] = {}


def catalog(seed: int, privacy: str) -> tuple[CatalogSpec, Planner]:
    key = (seed, privacy)
    if key not in PLANNERS:
        spec = synthetic_catalog(12, seed=seed, intents=3)
        # Some calls fail at random, so that plans change under the conversation's feet.
        skills = tuple(s.model_copy(update={"simulation": Simulation(weights={"ok": 0.7, "failed": 0.3})})
                       for s in spec.skills)
        spec = spec.model_copy(update={"privacy": privacy, "skills": skills})
        PLANNERS[key] = (spec, Planner.for_spec(spec))
    return PLANNERS[key]


class Watching:
    """Forwards calls to the simulator, noting what had been consented to at each call."""

    def __init__(self, spec: CatalogSpec, seed: int):
        self.inner = SimulatedSkills(spec, seed=seed)
        self.state: SessionState | None = None
        self.consents_at_call: list[set[str]] = []

    def call(self, skill: Skill, mode: str, inputs: dict[str, str]):
        assert self.state is not None
        self.consents_at_call.append(set(self.state.authorized))
        return self.inner.call(skill, mode, inputs)


ANSWERS = st.sampled_from(["a value", "I don't know", "yes", "no", "stop", "please get e1", "what did you do?"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 4), privacy=st.sampled_from(["per_skill", "per_element"]),
       opening=st.integers(0, 2), answers=st.lists(ANSWERS, min_size=1, max_size=12), sim_seed=st.integers(0, 99))
def test_no_sensitive_value_reaches_a_skill_without_consent(seed, privacy, opening, answers, sim_seed):
    spec, planner = catalog(seed, privacy)
    skills = Watching(spec, sim_seed)
    bot = PlannerOrchestrator(spec, planner, skills)
    state = SessionState()
    skills.state = state
    bot.turn(state, spec.intents[opening].examples[0])
    for answer in answers:
        bot.turn(state, answer)
    sensitive = {e.name for e in spec.elements if e.sensitive}
    assert len(state.history) == len(skills.consents_at_call)
    for record, consents in zip(state.history, skills.consents_at_call, strict=True):
        for element in record.args:
            if element in sensitive:
                needed = record.skill if privacy == "per_skill" else element
                assert needed in consents, f"{element} went to {record.skill} without consent"
