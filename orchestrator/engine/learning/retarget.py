"""A scenario carried over to a refined spec: truths about outcomes the spec no longer has are dropped.

When an accepted refinement removes an outcome that never happens (`outcome_never`), the scenario
still says so (`weight: 0`), and the simulator refuses a truth about an outcome the spec lacks.
Dropping such a truth changes nothing the simulated skills do, so the same users and skills can
be simulated against the refined version: the before/after comparison of the cold-start story.
"""

from __future__ import annotations

import copy
from typing import Any

from ..catalog.spec import CatalogSpec


def scenario_retargeted(data: dict[str, Any], spec: CatalogSpec, name: str) -> dict[str, Any]:
    """A copy of scenario `data`, renamed `name`, without never-happening truths of outcomes `spec` lacks."""
    found = copy.deepcopy(data)
    found["scenario"] = name
    found["catalog"] = spec.catalog
    skills = {s.name: s for s in spec.skills}
    for skill_name, truth in (found.get("skills") or {}).items():
        skill = skills.get(skill_name)
        if skill is None:
            continue
        for mode_name, mode_truth in (truth.get("modes") or {}).items():
            if mode_name not in skill.mode_names():
                continue
            declared = {o.name for o in skill.mode(mode_name).outcomes}
            outcomes = mode_truth.get("outcomes") or {}
            for outcome in [o for o, t in outcomes.items() if o not in declared and (t or {}).get("weight", 1) == 0]:
                del outcomes[outcome]
    return found
