"""Gated promotion to the planner orchestrator: compiled, every intent plannable, and a simulation that proves it.

When a catalog's `PromotionPolicy` sets a simulation threshold, a version is promoted only once a
finished simulation run of that very version, with the planner orchestrator, reached that goal
success rate; the gate is registered with `catalog_app.promotion_gates`, so every promotion path
(page, API, command) asks it. An assistant moves from S3 to the planner only through
`assistant_promote_to_planner`, which promotes (or takes the promoted) version through that gate;
every other path that would give a published assistant the planner (creating one in planner mode,
changing its mode, moving a planner assistant to another version) asks `planner_gate` the same question,
and every registered gate (conversation tests) with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from catalog_app.editing import EditRefused, version_promote_checked
from catalog_app.models import Catalog, CatalogVersion, VersionStatus
from catalog_app.permissions import Action, check_allowed
from catalog_app.planning import version_planner
from catalog_app.promotion_gates import gate_problems
from catalog_app.selectors import version_spec
from orchestrator.assistants.models import Assistant, PromotionPolicy
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.planning.compile import compile_catalog
from orchestrator.jobs.models import JobStatus
from orchestrator.modes import AssistantMode
from orchestrator.simulation.models import SimulationRun


@dataclass
class PromotionReport:
    version: CatalogVersion
    compiles: bool
    compile_error: str = ""
    unplannable: list[str] = field(default_factory=list)
    threshold: float | None = None
    run: SimulationRun | None = None  # the latest finished planner run of this version
    success_rate: float | None = None

    @property
    def meets_threshold(self) -> bool:
        return self.threshold is None or (self.success_rate is not None and self.success_rate >= self.threshold)

    @property
    def problems(self) -> list[str]:
        found = []
        if not self.compiles:
            found.append(f"the catalog does not compile: {self.compile_error}")
        if self.unplannable:
            found.append(f"no plan for {', '.join(self.unplannable)}")
        if not self.meets_threshold:
            if self.run is None:
                found.append(f"a finished simulation run of version {self.version.number} with the planner "
                             f"orchestrator must reach {self.threshold:.0%} goal success; there is none")
            else:
                found.append(f"simulation {self.run.pk} of version {self.version.number} reached "
                             f"{self.success_rate:.0%} goal success; the catalog asks for {self.threshold:.0%}")
        return found

    @property
    def ready(self) -> bool:
        return not self.problems


def policy_threshold(*, catalog: Catalog) -> float | None:
    policy = PromotionPolicy.objects.filter(catalog=catalog).first()
    return policy.simulation_threshold if policy else None


@transaction.atomic
def policy_set(*, catalog: Catalog, threshold: float | None, user: AbstractBaseUser) -> PromotionPolicy:
    check_allowed(user, catalog.workspace, Action.PROMOTION_THRESHOLD)
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise ConcertoError("the threshold is a success rate from 0 to 1", path="simulation_threshold")
    policy, _ = PromotionPolicy.objects.get_or_create(catalog=catalog)
    policy.simulation_threshold = threshold
    policy.full_clean(exclude=["catalog"])
    policy.save()
    return policy


def latest_planner_run(*, version: CatalogVersion) -> SimulationRun | None:
    return (SimulationRun.objects.filter(version=version, orchestrator=AssistantMode.PLANNER,
                                         status=JobStatus.DONE).order_by("-finished_at", "-pk").first())


def promotion_report(*, version: CatalogVersion, spec: CatalogSpec | None = None) -> PromotionReport:
    spec = spec or version_spec(version=version)
    report = PromotionReport(version=version, compiles=True, threshold=policy_threshold(catalog=version.catalog))
    try:
        compile_catalog(spec)
        planner = version_planner(version=version)
        report.unplannable = [i.name for i in spec.intents if not planner.plan(i.goal).solved]
    except ConcertoError as exc:
        report.compiles, report.compile_error = False, str(exc)
    run = latest_planner_run(version=version)
    if run is not None and run.summary:
        report.run, report.success_rate = run, float(run.summary.get("success_rate", 0.0))
    return report


def simulation_gate(version: CatalogVersion, spec: CatalogSpec) -> list[str]:
    """The gate `catalog_app.promotion_gates` asks: the threshold's simulation, when the catalog sets one."""
    report = promotion_report(version=version, spec=spec)
    return [p for p in report.problems if "simulation" in p]


def planner_gate(*, version: CatalogVersion) -> None:
    """EditRefused unless `version` may run a published assistant with the planner: what promotion to it requires."""
    spec = version_spec(version=version)
    problems = promotion_report(version=version, spec=spec).problems
    # The registered gates (conversation tests, ...) guard this path as they guard promotion; the
    # simulation gate repeats the report's threshold problem, so each problem is said once.
    problems += [p for p in gate_problems(version=version, spec=spec) if p not in problems]
    if problems:
        raise EditRefused(f"version {version.number} of '{version.catalog.slug}' cannot run the planner: "
                          + " ".join(problems) + " (an admin promotes it to the planner on its Promotion page)")


@transaction.atomic
def assistant_promote_to_planner(*, assistant: Assistant, version: CatalogVersion,
                                 user: AbstractBaseUser) -> Assistant:
    """Promote `version` (if it is a draft) through every gate, then run `assistant` on it with the planner."""
    if version.catalog_id != assistant.catalog_version.catalog_id:
        raise ConcertoError(f"the assistant runs catalog '{assistant.catalog_version.catalog.slug}', "
                            f"not '{version.catalog.slug}'")
    check_allowed(user, version.catalog.workspace, Action.PLANNER_SWITCH)
    if version.status == VersionStatus.DRAFT:
        version = version_promote_checked(version=version, user=user)
    else:
        planner_gate(version=version)
    assistant.catalog_version, assistant.mode = version, AssistantMode.PLANNER
    assistant.full_clean(exclude=["workspace", "catalog_version"])
    assistant.save(update_fields=["catalog_version", "mode"])
    return assistant
