"""Checks other apps add to a version's promotion, without this app importing them.

The orchestrator registers its simulation gate here from its AppConfig.ready(): promotion asks
every registered gate, and a gate answers the problems that block the version (none: it may go).
"""

from __future__ import annotations

from collections.abc import Callable

from orchestrator.engine.catalog.spec import CatalogSpec

from .models import CatalogVersion

Gate = Callable[[CatalogVersion, CatalogSpec], list[str]]
_gates: dict[str, Gate] = {}


def gate_register(name: str, gate: Gate) -> None:
    """Add (or replace) the gate called `name`."""
    _gates[name] = gate


def gate_problems(*, version: CatalogVersion, spec: CatalogSpec) -> list[str]:
    """What every registered gate says blocks promoting `version`."""
    return [problem for gate in _gates.values() for problem in gate(version, spec)]
