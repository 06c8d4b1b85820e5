"""Building the engine's orchestrator for an assistant: its spec, planner, skill invokers.

The engine is pure; this module picks its parts from the database and the settings. The spec and
the planner are cached per version content by `catalog_app.selectors` and `catalog_app.planning`;
the HTTP clients are kept here, one of each kind per policy.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from django.conf import settings

from catalog_app.planning import version_planner
from catalog_app.selectors import version_spec
from orchestrator.assistants.models import Assistant
from orchestrator.chat.skill_slots import BoundedInvoker
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.runtime.http_adapter import HttpApiSkills
from orchestrator.engine.runtime.s3 import S3Orchestrator
from orchestrator.engine.runtime.skill_http import EndpointPolicy, HttpSkills
from orchestrator.engine.runtime.skills import Invokers, SimulatedSkills
from orchestrator.engine.runtime.turns import Orchestrator, PlannerOrchestrator
from orchestrator.modes import AssistantMode

_clients: dict[tuple, HttpSkills | HttpApiSkills] = {}
_lock = threading.Lock()
Client = TypeVar("Client", HttpSkills, HttpApiSkills)


def _client(kind: type[Client], build: Callable[[EndpointPolicy, float], Client]) -> Client:
    """One client of each kind per SSRF policy and timeout: it pools connections, and building one
    (TLS set-up) is slow."""
    hosts, allow_private = tuple(settings.CONCERTO_SKILL_HOSTS), bool(settings.CONCERTO_SKILL_ALLOW_PRIVATE)
    timeout = float(settings.CONCERTO_SKILL_TIMEOUT)
    key = (kind, hosts, allow_private, timeout)
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = build(EndpointPolicy(allowed_hosts=list(hosts), allow_private=allow_private),
                                           timeout)
        return client  # type: ignore[return-value]


def skill_secret(name: str) -> str | None:
    """A credential of imported API skills, set by an admin as the environment variable
    CONCERTO_SECRET_<NAME> (`billing-key` -> CONCERTO_SECRET_BILLING_KEY); the spec names it only."""
    return os.environ.get("CONCERTO_SECRET_" + re.sub(r"[^A-Za-z0-9]", "_", name).upper()) or None


def http_skills() -> HttpSkills:
    """The caller of skills with an endpoint of their own."""
    return _client(HttpSkills, lambda policy, timeout: HttpSkills(policy, timeout=timeout))


def http_api_skills() -> HttpApiSkills:
    """The caller of skills bound to an HTTP API operation, under the same SSRF policy."""
    return _client(HttpApiSkills, lambda policy, timeout: HttpApiSkills(policy, skill_secret, timeout=timeout))


@dataclass
class Runtime:
    spec: CatalogSpec
    bot: Orchestrator  # the planner or S3 policy behind one executor
    skills: BoundedInvoker  # holds the turn's slot for remote skills (`skill_slots`) until `release`

    def release(self) -> None:
        """The turn is over: its slot for remote skills, if it took one, goes back."""
        self.skills.release()


def runtime_for(assistant: Assistant, *, seed: int) -> Runtime:
    """The orchestrator of one turn of one of `assistant`'s sessions.

    Simulated skills draw their outcomes from `seed`. The runtime is rebuilt for every turn (the
    session state is what persists), so the caller derives the seed from the session and the
    turn: a replayed conversation draws the same outcomes, and turns do not repeat one draw.
    The caller calls `release()` when the turn is over (remote skills are bounded per process).
    """
    spec = version_spec(version=assistant.catalog_version)  # both cached per version content
    planner = version_planner(version=assistant.catalog_version)
    invoker = BoundedInvoker(Invokers(SimulatedSkills(spec, seed=seed), http_skills(), http_api_skills()),
                             assistant=assistant.key)
    kind = S3Orchestrator if assistant.mode == AssistantMode.S3 else PlannerOrchestrator
    return Runtime(spec=spec, bot=kind(spec, planner, invoker), skills=invoker)
