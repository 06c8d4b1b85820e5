"""What promoting a draft would change, shown to the admin before they confirm.

The diff from the newest promoted version, the intents whose plan changes (or that gain or lose one), and the
lint errors of the draft; and `promotion_refusal`, why a draft cannot be promoted at all (a draft
older than the newest promoted version would silently roll the assistant back).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from orchestrator.engine.catalog.diff import diff_catalogs
from orchestrator.engine.catalog.lint import lint_catalog
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import ConcertoError

from .models import CatalogVersion
from .planning import spec_planner
from .selectors import version_newest_promoted, version_spec


@dataclass
class PlanChange:
    intent: str
    before: list[str] | None  # None: no plan (or no such intent) in the newest promoted version
    after: list[str] | None


@dataclass
class PromotionSummary:
    version: CatalogVersion
    live: CatalogVersion | None
    changes: list[str] = field(default_factory=list)
    plans: list[PlanChange] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # lint errors: promotion is refused while there are any
    refusal: str = ""


def _plan_lines(spec: CatalogSpec) -> dict[str, list[str] | None]:
    try:
        planner = spec_planner(spec)
    except ConcertoError:
        return {t.name: None for t in spec.intents}
    found = {t.name: planner.plan(t.goal) for t in spec.intents}
    return {name: (result.lines if result.solved else None) for name, result in found.items()}


def promotion_refusal(*, version: CatalogVersion, live: CatalogVersion | None) -> str:
    if live is not None and live.number > version.number:
        return (f"v{version.number} is older than the promoted v{live.number}: promoting it would roll the assistant "
                f"back. To roll back on purpose, make a new draft from v{version.number} and promote that.")
    return ""


def promotion_summary(*, version: CatalogVersion) -> PromotionSummary:
    live = version_newest_promoted(catalog=version.catalog)
    spec = version_spec(version=version)
    summary = PromotionSummary(version, live, refusal=promotion_refusal(version=version, live=live))
    summary.errors = [item.message for item in lint_catalog(spec) if item.severity == "error"]
    after = _plan_lines(spec)
    if live is None:
        summary.changes = [f"first promotion: {len(spec.skills)} skills, {len(spec.intents)} intents"]
        before: dict[str, list[str] | None] = {}
    else:
        live_spec = version_spec(version=live)
        summary.changes = [str(change) for change in diff_catalogs(live_spec, spec)]
        before = _plan_lines(live_spec)
    for name in dict.fromkeys([*after, *before]):
        if before.get(name) != after.get(name):
            summary.plans.append(PlanChange(name, before.get(name), after.get(name)))
    return summary
