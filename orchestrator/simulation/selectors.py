"""Reads of simulations: runs, their conversations, and a conversation as the session inspector shows it."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from catalog_app.models import Catalog, Workspace
from catalog_app.planning import version_planner
from catalog_app.selectors import version_spec
from orchestrator.engine.errors import UnknownName
from orchestrator.engine.runtime.explain import how_item, how_text, what
from orchestrator.engine.runtime.session import SessionState
from orchestrator.simulation.models import SimulatedConversation, SimulationRun, SimulationScenario


def scenario_list(*, catalog: Catalog) -> QuerySet[SimulationScenario]:
    return SimulationScenario.objects.filter(catalog=catalog)


def run_list(*, workspace: Workspace, catalog: Catalog | None = None) -> QuerySet[SimulationRun]:
    runs = SimulationRun.objects.filter(workspace=workspace).select_related("version__catalog", "created_by")
    if catalog is not None:
        runs = runs.filter(version__catalog=catalog)
    return runs.defer("scenario_data")


def run_get(*, workspace: Workspace, pk: int) -> SimulationRun:
    run = run_list(workspace=workspace).filter(pk=pk).first()
    if run is None:
        raise UnknownName("simulation", str(pk))
    return run


def run_conversations(*, run: SimulationRun, limit: int = 200) -> list[dict[str, Any]]:
    """The first conversations of a run, for the list under the plots (no transcripts read)."""
    return list(run.results.order_by("index").values("index", "intent", "outcome", "success", "turns")[:limit])


def conversation_get(*, run: SimulationRun, index: int) -> SimulatedConversation:
    found = run.results.filter(index=index).first()
    if found is None:
        raise UnknownName("conversation", str(index))
    return found


def conversation_debug(*, conversation: SimulatedConversation) -> dict[str, Any]:
    """A stored conversation in the shape of `chat.selectors.session_debug` (already masked when stored)."""
    run = conversation.run
    state = SessionState.model_validate(conversation.state)
    trace = conversation.trace
    plans = [e["data"] for e in trace if e["kind"] == "plan"]
    return {
        "id": f"{run.pk}-{conversation.index}", "assistant": f"simulation {run.pk}", "mode": run.orchestrator,
        "catalog": run.version.catalog.slug, "version": run.version.number,
        "transcript": conversation.transcript,
        "goals": [{"intent": f.intent, "goal": f.goal.model_dump(mode="json")} for f in state.goals],
        "pending": state.pending.model_dump(mode="json") if state.pending else None,
        "memory": {name: item.model_dump(mode="json") for name, item in state.memory.items()},
        "history": [record.model_dump(mode="json") for record in state.history],
        "plan": list(state.plan),
        "cannot_establish": [list(pair) for pair in state.cannot_establish],
        "pruned": [{"action": action, "args": list(args)} for action, args in state.pruned],
        "authorized": list(state.authorized), "denied": list(state.denied),
        "plans": plans, "plans_discarded": [p for p in plans if p.get("discarded")],
        "executions": [e["data"] for e in trace if e["kind"] == "execution"],
        "shares": [e["data"] for e in trace if e["kind"] == "share"],
        "user": [e["data"] for e in trace if e["kind"] == "user"],
    }


def conversation_explained(*, conversation: SimulatedConversation) -> dict[str, Any]:
    """What the user would be told at the end ("what", and "how" per value), from the masked state."""
    version = conversation.run.version
    spec = version_spec(version=version)
    state = SessionState.model_validate(conversation.state)
    summary = {"kind": "what", **what(spec, version_planner(version=version), state).as_dict()}
    hows = [{"text": how_text(how_item(spec, state, item["element"]))} for item in summary["items"]]
    return {"what": summary, "how": hows}
