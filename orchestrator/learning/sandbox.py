"""Drafts made with refinements no admin accepted (issue 23): marked, never a base for reviewed drafts, never promoted.

A cold-start campaign an admin ran as a simulation-only sandbox applies the proposals above a
confidence to new drafts at once, to simulate them. Those refinements reach no user:
`sandbox_gate`, registered with `catalog_app.promotion_gates`, refuses to promote a sandbox draft,
and any other version holding one of its changes (a copy of it) until an admin accepted that
refinement in the review queue; the queue builds reviewed drafts on `version_latest_reviewed`.
"""

from __future__ import annotations

from typing import Any

from catalog_app.models import Catalog, CatalogVersion
from catalog_app.selectors import version_list
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.learning.refinements import Op, apply_refinements
from orchestrator.learning.models import Refinement, RefinementStatus, SandboxVersion


def sandbox_mark(*, version: CatalogVersion, source: str, changes: list[dict[str, Any]]) -> SandboxVersion:
    """Mark `version` as a sandbox draft made by `source` with `changes` ([{key, change}])."""
    return SandboxVersion.objects.create(version=version, source=source[:200], changes=changes)


def version_latest_reviewed(*, catalog: Catalog) -> CatalogVersion | None:
    """The newest version that is not a sandbox draft: what an admin's accepted refinements build on."""
    return version_list(catalog=catalog).filter(sandbox__isnull=True).first()


def sandbox_gate(version: CatalogVersion, spec: CatalogSpec) -> list[str]:
    """What `catalog_app.promotion_gates` asks: no refinement an admin did not accept reaches a promoted version."""
    own = SandboxVersion.objects.filter(version=version).first()
    if own is not None:
        return [f"version {version.number} is a sandbox draft of {own.source}: its refinements were accepted "
                "automatically, in simulation only; an admin accepts them in the review queue, which makes a "
                "reviewed draft, and promotes that"]
    accepted = set(Refinement.objects.filter(catalog_id=version.catalog_id, status=RefinementStatus.ACCEPTED)
                   .values_list("key", flat=True))
    unreviewed: list[str] = []
    for sandbox in SandboxVersion.objects.filter(version__catalog_id=version.catalog_id):
        for item in sandbox.changes:
            if item["key"] not in accepted and item["key"] not in unreviewed and _holds(spec, item["change"]):
                unreviewed.append(item["key"])
    if unreviewed:
        return [f"version {version.number} holds refinements a sandbox accepted and no admin did "
                f"({', '.join(unreviewed)}): accept or reject them in the review queue first"]
    return []


def _holds(spec: CatalogSpec, change: dict[str, Any]) -> bool:
    """Whether `spec` already has what `change` makes (it came from the sandbox, or was written the same)."""
    op = change.get("op")
    if op in (Op.ADD_OUTCOME, Op.REMOVE_OUTCOME):  # not idempotent: applying twice is refused, so look
        skill = next((s for s in spec.skills if s.name == change.get("skill")), None)
        if skill is None or change.get("mode") not in skill.mode_names():
            return False
        present = any(o.name == change.get("outcome") for o in skill.mode(change["mode"]).outcomes)
        return present if op == Op.ADD_OUTCOME else not present
    try:
        return apply_refinements(spec, [change]) == spec  # applying it changes nothing: it is there
    except ConcertoError:
        return False
