"""Reads of catalogs and versions, including the assembly of a version's rows back into a spec."""

from __future__ import annotations

from django.db.models import QuerySet

from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import UnknownName
from orchestrator.engine.lru import Lru

from .models import Catalog, CatalogVersion, Element, Intent, Membership, Mode, Skill, VersionStatus, Workspace


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


def _assemble(version: CatalogVersion) -> CatalogSpec:
    """The exact inverse of `services._rows_create`: rows in position order back to a spec."""
    return CatalogSpec(
        catalog=version.catalog.slug,
        title=version.title,
        description=version.description,
        privacy=version.privacy,
        costs=schema.Costs(skill=version.cost_skill, ask=version.cost_ask, authorize=version.cost_authorize),
        elements=tuple(_element_spec(e) for e in version.elements.select_related("parent")),
        skills=tuple(
            _skill_spec(s)
            for s in version.skills.prefetch_related(
                "modes__input_links__element", "modes__outcomes__output_links__element"
            )
        ),
        intents=tuple(_intent_spec(i) for i in version.intents.all()),
    )


def _element_spec(row: Element) -> schema.Element:
    return schema.Element(
        name=row.name,
        description=row.description,
        parent=row.parent.name if row.parent else None,
        sensitive=row.sensitive,
        askable=row.askable,
        format=row.format or None,
        question=row.question or None,
        label=row.label or None,
    )


def _skill_spec(row: Skill) -> schema.Skill:
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
        modes=tuple(_mode_spec(m) for m in row.modes.all()),
    )


def _mode_spec(row: Mode) -> schema.Mode:
    return schema.Mode(
        name=row.name or None,
        effects=row.effects or None,
        inputs=tuple(link.element.name for link in row.input_links.all()),
        outcomes=tuple(
            schema.Outcome(name=o.name, outputs=tuple(link.element.name for link in o.output_links.all()))
            for o in row.outcomes.all()
        ),
    )


def _intent_spec(row: Intent) -> schema.Intent:
    return schema.Intent(
        name=row.name,
        description=row.description,
        examples=tuple(row.examples),
        goal=schema.Goal(known=tuple(row.goal_known), done=tuple(row.goal_done)),
        extensions=tuple(row.extensions),
    )
