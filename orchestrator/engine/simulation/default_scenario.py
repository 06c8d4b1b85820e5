"""A default scenario for a catalog: every intent asked alike, values drawn per format, skills as the spec says.

What a new catalog needs to be simulated at once (issue 23): its truths are the spec's own, so a run
of it measures the assistant's dialogue and planning, not what the spec got wrong. An askable element
whose format no value can be generated for is left out of `users.values`: `parse_scenario` then
names it at `users.values.<element>`, where the analyst writes a few values.
"""

from __future__ import annotations

from typing import Any

from ..catalog.spec import CatalogSpec
from .scenario import values_lacking

DEFAULT_NAME = "default"


def default_scenario(spec: CatalogSpec, name: str = DEFAULT_NAME) -> dict[str, Any]:
    """Scenario data (as `scenario_to_data` writes it) for `spec`: all intents weight 1, no skill truths."""
    return {
        "scenario": name,
        "catalog": spec.catalog,
        "description": f"Generated from catalog '{spec.catalog}': every intent alike, skills as the spec says.",
        "users": {"goals": {intent.name: 1.0 for intent in spec.intents}},
    }


def values_needed(spec: CatalogSpec) -> list[str]:
    """The askable elements of `spec` whose values cannot be generated: a scenario must list some."""
    return [e.name for e in values_lacking(spec)]
