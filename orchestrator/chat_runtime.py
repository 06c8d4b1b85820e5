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

from catalog_app.models import CatalogVersion, VersionStatus
from catalog_app.selectors import version_spec
from orchestrator.engine.planner import Planner
from orchestrator.engine.runtime import PlannerOrchestrator
from orchestrator.engine.s3 import S3Orchestrator
from orchestrator.engine.skill_http import EndpointPolicy, HttpSkills
from orchestrator.engine.skills import Invokers, SimulatedSkills
from orchestrator.engine.spec import CatalogSpec
from orchestrator.planning import spec_planner

from .models import Assistant, AssistantMode

PROMOTED_SPECS = 32  # promoted specs kept in memory; a draft is read each turn since it may change

_specs: OrderedDict[int, tuple[CatalogSpec, Planner | None]] = OrderedDict()
_http: dict[tuple, HttpSkills] = {}
_lock = threading.Lock()


def assistant_spec(version: CatalogVersion) -> CatalogSpec:
    """The spec an assistant runs: a promoted version never changes, so it is read once."""
    if version.status != VersionStatus.PROMOTED:
        return version_spec(version=version)
    with _lock:
        cached = _specs.get(version.pk)
        if cached is not None:
            _specs.move_to_end(version.pk)
            return cached[0]
    spec = version_spec(version=version)
    with _lock:
        _specs.setdefault(version.pk, (spec, None))
        while len(_specs) > PROMOTED_SPECS:
            _specs.popitem(last=False)
    return spec


def assistant_planner(version: CatalogVersion, spec: CatalogSpec) -> Planner:
    """The planner of `spec`; for a promoted version kept beside its spec.

    `spec_planner` finds a planner by hashing the whole spec, which costs milliseconds a turn
    for a big catalog; a promoted version cannot change, so its planner is found by its id.
    """
    if version.status != VersionStatus.PROMOTED:
        return spec_planner(spec)
    with _lock:
        cached = _specs.get(version.pk)
        if cached is not None and cached[1] is not None:
            return cached[1]
    planner = spec_planner(spec)
    with _lock:
        _specs[version.pk] = (spec, planner)
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
