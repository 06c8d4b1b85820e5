"""Building the engine's orchestrator for an assistant: its spec, planner, skill invokers.

The engine is pure; this module picks its parts from the database and the settings. What is
expensive and does not change is kept per process: the planner (by spec content, in
`orchestrator.planning`), the spec of a promoted version (immutable), and the HTTP client.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from django.conf import settings

from catalog_app.models import CatalogVersion
from catalog_app.selectors import version_spec
from orchestrator.engine.planner import Planner
from orchestrator.engine.runtime import PlannerOrchestrator
from orchestrator.engine.s3 import S3Orchestrator
from orchestrator.engine.skill_http import EndpointPolicy, HttpSkills
from orchestrator.engine.skills import Invokers, SimulatedSkills
from orchestrator.engine.spec import CatalogSpec
from orchestrator.planning import spec_planner

from .models import Assistant, AssistantMode

SPECS_KEPT = 32  # version contents (spec and planner) kept in memory

_specs: OrderedDict[tuple[int, str, int], tuple[CatalogSpec, Planner | None]] = OrderedDict()
_http: dict[tuple, HttpSkills] = {}
_lock = threading.Lock()


def _key(version: CatalogVersion) -> tuple[int, str, int]:
    # A promoted version never changes; a draft changes only through `version_update`, which
    # bumps its revision. The creation time guards against an id reused after a deletion
    # (SQLite hands out the highest id again).
    return (version.pk, version.created_at.isoformat(), version.revision)


def assistant_spec(version: CatalogVersion) -> CatalogSpec:
    """The spec an assistant runs, read from the database once per version content."""
    key = _key(version)
    with _lock:
        cached = _specs.get(key)
        if cached is not None:
            _specs.move_to_end(key)
            return cached[0]
    spec = version_spec(version=version)
    with _lock:
        _specs.setdefault(key, (spec, None))
        while len(_specs) > SPECS_KEPT:
            _specs.popitem(last=False)
    return spec


def assistant_planner(version: CatalogVersion, spec: CatalogSpec) -> Planner:
    """The planner of `spec`, kept beside it.

    `spec_planner` finds a planner by hashing the whole spec, which costs milliseconds a turn
    for a big catalog; here it is found by the version's content key instead.
    """
    key = _key(version)
    with _lock:
        cached = _specs.get(key)
        if cached is not None and cached[1] is not None:
            return cached[1]
    planner = spec_planner(spec)
    with _lock:
        _specs[key] = (spec, planner)
    return planner


def http_skills() -> HttpSkills:
    """One HTTP client per policy: it pools connections, and building one (TLS set-up) is slow."""
    key = (tuple(settings.CONCERTO_SKILL_HOSTS), bool(settings.CONCERTO_SKILL_ALLOW_PRIVATE),
           float(settings.CONCERTO_SKILL_TIMEOUT))
    with _lock:
        client = _http.get(key)
        if client is None:
            policy = EndpointPolicy(allowed_hosts=list(key[0]), allow_private=key[1])
            client = _http[key] = HttpSkills(policy, timeout=key[2])
        return client


@dataclass
class Runtime:
    spec: CatalogSpec
    bot: PlannerOrchestrator


def runtime_for(assistant: Assistant, *, seed: int) -> Runtime:
    """The orchestrator of one turn of one of `assistant`'s sessions.

    Simulated skills draw their outcomes from `seed`. The runtime is rebuilt for every turn (the
    session state is what persists), so the caller derives the seed from the session and the
    turn: a replayed conversation draws the same outcomes, and turns do not repeat one draw.
    """
    spec = assistant_spec(assistant.catalog_version)
    planner = assistant_planner(assistant.catalog_version, spec)
    invoker = Invokers(SimulatedSkills(spec, seed=seed), http_skills())
    kind = S3Orchestrator if assistant.mode == AssistantMode.S3 else PlannerOrchestrator
    return Runtime(spec=spec, bot=kind(spec, planner, invoker))
