"""Reads of catalogs and versions, including the assembly of a version's rows back into a spec."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import QuerySet

from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import UnknownName
from orchestrator.engine.lru import Lru

from .models import (
    Catalog,
    CatalogVersion,
    Element,
    Intent,
    Membership,
    Mode,
    ModeInput,
    Outcome,
    OutcomeOutput,
    Skill,
    VersionStatus,
    Workspace,
)


def workspace_for_user(*, user: object) -> Workspace | None:
    """The workspace a user works in: that of their first membership (None without one)."""
    membership = Membership.objects.filter(user=user).select_related("workspace").order_by("pk").first()
    return membership.workspace if membership else None


def workspace_role(*, user: object, workspace: Workspace) -> str | None:
    """The user's role in `workspace` (None for a non-member)."""
    return Membership.objects.filter(user=user, workspace=workspace).values_list("role", flat=True).first()


def catalog_list(*, workspace: Workspace) -> QuerySet[Catalog]:
    return Catalog.objects.filter(workspace=workspace).order_by("slug")


def catalog_get(*, workspace: Workspace, slug: str) -> Catalog:
    """The catalog named `slug`; UnknownName (listing the workspace's catalogs) if there is none."""
    catalog = Catalog.objects.filter(workspace=workspace, slug=slug).first()
    if catalog is None:
        known = list(catalog_list(workspace=workspace).values_list("slug", flat=True))
        raise UnknownName("catalog", slug, known)
    return catalog


def version_list(*, catalog: Catalog) -> QuerySet[CatalogVersion]:
    return CatalogVersion.objects.filter(catalog=catalog).order_by("-number")


def version_get(*, catalog: Catalog, number: int) -> CatalogVersion:
    version = CatalogVersion.objects.filter(catalog=catalog, number=number).first()
    if version is None:
        known = [str(n) for n in version_list(catalog=catalog).values_list("number", flat=True)]
        raise UnknownName(f"version of catalog '{catalog.slug}'", str(number), known)
    return version


def version_latest(*, catalog: Catalog) -> CatalogVersion | None:
    return version_list(catalog=catalog).first()


def version_live(*, catalog: Catalog) -> CatalogVersion | None:
    """The latest version an enabled assistant runs: what "live" means everywhere in the studio.

    Assistants belong to the orchestrator app, which builds on this one; they are read here
    through the reverse relation of their foreign key (`assistants`), never by an import.
    """
    return _running(catalog).first()


def version_newest_promoted(*, catalog: Catalog) -> CatalogVersion | None:
    """The newest promoted version: what a promotion moves forward from (live or not yet published)."""
    return version_list(catalog=catalog).filter(status=VersionStatus.PROMOTED).order_by("-number").first()


def version_live_pks(*, catalog: Catalog) -> set[int]:
    """Every version an enabled assistant runs (several assistants may run several versions)."""
    return set(_running(catalog).values_list("pk", flat=True))


def _running(catalog: Catalog) -> QuerySet[CatalogVersion]:
    return version_list(catalog=catalog).filter(assistants__enabled=True, assistants__studio_test=False).distinct()


_specs: Lru[CatalogSpec] = Lru(64)


def version_key(*, version: CatalogVersion) -> tuple[int, str, int]:
    """What names a version's content: a draft changes only through `services.version_update`,
    which bumps its revision; the creation time guards against an id reused after a deletion.

    A draft's revision is read from the database, not from `version`, which may be a copy
    from before an edit; a promoted version never changes.
    """
    revision = version.revision
    if version.status != VersionStatus.PROMOTED:
        revision = CatalogVersion.objects.filter(pk=version.pk).values_list("revision", flat=True).first() or 0
    return (version.pk, version.created_at.isoformat(), revision)


def version_spec(*, version: CatalogVersion) -> CatalogSpec:
    """The spec of a version: frozen at promotion, else assembled from the draft's rows.

    Kept per content (`version_key`), so the pages, the API and every chat turn that read a
    version many times build its spec once, and all see the same one.
    """
    def build() -> CatalogSpec:
        # Only on a miss: a caller may have deferred the frozen spec (the chat API does, per message).
        if version.status == VersionStatus.PROMOTED and version.frozen_spec is not None:
            # Validated when it was imported; re-checking against today's rules could make a
            # version that is already live unreadable.
            return CatalogSpec.model_validate(version.frozen_spec)
        return _assemble(CatalogVersion.objects.select_related("catalog").get(pk=version.pk))

    return _specs.get_or_build(version_key(version=version), build)


def version_spec_saved(*, version: CatalogVersion, spec: CatalogSpec) -> None:
    """Keep `spec`, which the rows of draft `version` were just made to hold, as its spec at its
    new revision, once the transaction that wrote them commits. `spec` must have been read
    through the schema (its sequences tuples, as the rows read back): the editor's saves are.

    The editor shows the draft again right after a save: assembling it from its rows there cost
    a third of a second at 1,000 skills. What is kept is the spec as its rows read back
    (`_as_read`); on a rollback nothing is kept, and the revision is not taken.
    """
    key = version_key(version=version)
    kept = _as_read(spec)
    transaction.on_commit(lambda: _specs.put(key, kept))


def _as_read(spec: CatalogSpec) -> CatalogSpec:
    """`spec` as `_assemble` reads it back: an empty question, label or mode name is stored blank, read as none."""

    def element(e: schema.Element) -> schema.Element:
        blank = {k: None for k in ("format", "question", "label") if getattr(e, k) == ""}
        return e.model_copy(update=blank) if blank else e

    def skill(s: schema.Skill) -> schema.Skill:
        if all(m.name != "" for m in s.modes):
            return s
        return s.model_copy(update={"modes": tuple(m.model_copy(update={"name": m.name or None}) for m in s.modes)})

    return spec.model_copy(update={"elements": tuple(element(e) for e in spec.elements),
                                   "skills": tuple(skill(s) for s in spec.skills)})


def _assemble(version: CatalogVersion) -> CatalogSpec:
    """The exact inverse of `services._rows_create`: rows in position order back to a spec.

    Each table is read in one query that selects its rows by the version they belong to (a join
    up to `version_id`), and the rows are grouped by parent here. A prefetch would instead send
    the ids of every parent back to the database: PostgreSQL takes that, but Django 5.2 writes a
    prefetch through a foreign key as one OR term per id on SQLite, whose expression depth stops
    at 1,000, so a catalog whose skills take more than about 1,000 elements as inputs could
    not be read there. Reading by version costs the same seven queries at any size, on every
    database, and sends no list of ids at all.
    """
    elements = list(version.elements.all())
    name = {row.pk: row.name for row in elements}
    # Each row as (its parent's id, what the spec needs of it), in (parent, position) order as
    # the models' orderings say; plain tuples, as thousands of model instances would cost more.
    modes = _grouped(Mode.objects.filter(skill__version=version).values_list("skill_id", "pk", "name", "effects"))
    outcomes = _grouped(Outcome.objects.filter(mode__skill__version=version).values_list("mode_id", "pk", "name"))
    inputs = _grouped(ModeInput.objects.filter(mode__skill__version=version).values_list("mode_id", "element_id"))
    outputs = _grouped(
        OutcomeOutput.objects.filter(outcome__mode__skill__version=version).values_list("outcome_id", "element_id")
    )

    def mode_spec(pk: int, mode_name: str, effects: str) -> schema.Mode:
        return schema.Mode(
            name=mode_name or None,
            effects=effects or None,
            inputs=tuple(name[e] for (e,) in inputs.get(pk, ())),
            outcomes=tuple(
                schema.Outcome(name=outcome_name, outputs=tuple(name[e] for (e,) in outputs.get(outcome, ())))
                for outcome, outcome_name in outcomes.get(pk, ())
            ),
        )

    return CatalogSpec(
        catalog=version.catalog.slug,
        title=version.title,
        description=version.description,
        privacy=version.privacy,
        costs=schema.Costs(skill=version.cost_skill, ask=version.cost_ask, authorize=version.cost_authorize),
        elements=tuple(_element_spec(e, name.get(e.parent_id)) for e in elements),
        skills=tuple(
            _skill_spec(s, tuple(mode_spec(*m) for m in modes.get(s.pk, ()))) for s in version.skills.all()
        ),
        intents=tuple(_intent_spec(i) for i in version.intents.all()),
    )


def _grouped(rows: Iterable[tuple[Any, ...]]) -> dict[int, list[tuple[Any, ...]]]:
    """Rows whose first value is their parent's id -> the rest of each row, by parent, in the order they came."""
    groups: dict[int, list[tuple[Any, ...]]] = {}
    for parent, *rest in rows:
        groups.setdefault(parent, []).append(tuple(rest))
    return groups


def _element_spec(row: Element, parent: str | None) -> schema.Element:
    return schema.Element(
        name=row.name,
        description=row.description,
        parent=parent,
        sensitive=row.sensitive,
        askable=row.askable,
        format=row.format or None,
        question=row.question or None,
        label=row.label or None,
    )


def _skill_spec(row: Skill, modes: tuple[schema.Mode, ...]) -> schema.Skill:
    return schema.Skill(
        name=row.name,
        description=row.description,
        endpoint=row.endpoint,
        max_retries=row.max_retries,
        cost=row.cost,
        preview=row.preview,
        simulation=schema.Simulation.model_validate_json(row.simulation) if row.simulation else None,
        http=schema.HttpBinding.model_validate_json(row.http) if row.http else None,
        effects=row.effects or "none",
        modes=modes,
    )


def _intent_spec(row: Intent) -> schema.Intent:
    return schema.Intent(
        name=row.name,
        description=row.description,
        examples=tuple(row.examples),
        goal=schema.Goal(known=tuple(row.goal_known), done=tuple(row.goal_done)),
        extensions=tuple(row.extensions),
    )
