import pytest

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.learning.observations import Conversation, from_trace
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.simulation.driver import simulate_conversation
from orchestrator.engine.simulation.scenario import Scenario, load_scenario
from tests.conftest import ROOT

DEMO = ROOT / "catalog_app" / "demo"


@pytest.fixture(scope="session")
def realistic(banking_spec: CatalogSpec) -> Scenario:
    return load_scenario((DEMO / "banking-scenario.yaml").read_text(), banking_spec)


@pytest.fixture(scope="session")
def banking_planner(banking_spec: CatalogSpec) -> Planner:
    return Planner.for_spec(banking_spec)


@pytest.fixture(scope="session")
def observed(banking_spec: CatalogSpec, banking_planner: Planner, realistic: Scenario) -> list[Conversation]:
    """120 simulated banking conversations (planner orchestrator, the realistic truths), as the learner reads them."""
    runs = [simulate_conversation(banking_spec, banking_planner, realistic, orchestrator="planner", seed=3, index=i)
            for i in range(120)]
    return [from_trace(f"c{c.index}", c.trace, c.transcript, c.state, c.intent) for c in runs]
