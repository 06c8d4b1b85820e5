"""Writes of workspaces, catalogs and versions. Each service is one transaction: all or nothing."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models, transaction
from django.db.models import Max
from django.utils import timezone

from orchestrator.engine.catalog.checks import validate_catalog
from orchestrator.engine.catalog.endpoints import policy_refusal
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import catalog_to_data
from orchestrator.engine.errors import Issue, SpecError
from orchestrator.engine.planning.compile import compile_catalog
from orchestrator.engine.planning.pddl import domain_text

from .errors import VersionLocked
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
from .selectors import version_spec

DEFAULT_WORKSPACE = "default"

# Model fields whose name differs from the spec field they hold, for error paths.
_SPEC_FIELD = {
    "slug": "catalog",
    "cost_skill": "costs.skill",
    "cost_ask": "costs.ask",
    "cost_authorize": "costs.authorize",
    "goal_known": "goal.known",
    "goal_done": "goal.done",
}


# --- workspaces and users ---------------------------------------------------------------------


@transaction.atomic
def workspace_get_or_create_default() -> Workspace:
    """The workspace that command-line tools and the demo use."""
    workspace, _ = Workspace.objects.get_or_create(slug=DEFAULT_WORKSPACE, defaults={"name": "Default"})
    return workspace


@transaction.atomic
def user_create(*, username: str, password: str, weak_password_allowed: bool = False) -> AbstractBaseUser:
    """A studio user with no instance rights: what they may do comes from their workspace roles.

    Being a workspace admin never makes a user staff or superuser; the Django admin is for the
    instance's operators (`createsuperuser`). Passwords go through the configured validators,
    except for the demo's well-known logins (`weak_password_allowed`, used by `load_demo` only).
    """
    user = get_user_model()(username=username)
    if not weak_password_allowed:
        password_validation.validate_password(password, user)
    user.set_password(password)
    user.full_clean()
    user.save()
    return user


@transaction.atomic
def membership_set(*, workspace: Workspace, user: AbstractBaseUser, role: str) -> Membership:
    """Give `user` the `role` in `workspace`, creating the membership if needed."""
    membership = Membership.objects.filter(workspace=workspace, user=user).first()
    membership = membership or Membership(workspace=workspace, user=user)
    membership.role = role
    membership.full_clean()
    membership.save()
    return membership


# --- catalogs and versions --------------------------------------------------------------------


@transaction.atomic
def catalog_import(
    *, workspace: Workspace, spec: CatalogSpec, user: AbstractBaseUser | None = None, note: str = ""
) -> CatalogVersion:
    """Store `spec` as a new draft: version 1 of a new catalog, else the catalog's next version."""
    _check_spec(spec)
    catalog = Catalog.objects.filter(workspace=workspace, slug=spec.catalog).first()
    if catalog is None:
        catalog = Catalog(workspace=workspace, slug=spec.catalog)
    catalog.title, catalog.description = spec.title, spec.description
    _clean(catalog, "", exclude=["workspace"])
    catalog.save()
    return _version_create(catalog=catalog, spec=spec, user=user, note=note)


@transaction.atomic
def version_create_draft(*, version: CatalogVersion, user: AbstractBaseUser | None) -> CatalogVersion:
    """A new draft, numbered next, with the content of `version` (of any status)."""
    spec = version_spec(version=version)
    return _version_create(
        catalog=version.catalog, spec=spec, user=user, note=f"copied from version {version.number}"
    )


@transaction.atomic
def version_update(
    *, version: CatalogVersion, spec: CatalogSpec | None = None, note: str | None = None
) -> CatalogVersion:
    """Replace a draft's content with `spec` and/or its note; a promoted version is refused."""
    version = version_check_editable(version=version)
    if spec is not None:
        _check_spec(spec)
        if spec.catalog != version.catalog.slug:
            raise SpecError(
                [Issue("catalog", f"this is a version of '{version.catalog.slug}', not of '{spec.catalog}'")]
            )
        # Skills first: their inputs and outputs hold the elements (RESTRICT).
        version.skills.all().delete()
        version.intents.all().delete()
        version.elements.all().delete()
        _version_fields_set(version, spec)
        version.revision += 1  # caches of a draft's spec key on (version, revision)
    if note is not None:
        version.note = note
    _clean(version, "", exclude=["catalog", "created_by", "promoted_by"])
    version.save()
    if spec is not None:
        _rows_create(version, spec)
    return version


@transaction.atomic
def version_promote(*, version: CatalogVersion, user: AbstractBaseUser | None) -> CatalogVersion:
    """Freeze a draft, with its compiled domain, into an immutable version that assistants may run."""
    version = version_check_editable(version=version)
    spec = version_spec(version=version)
    version.frozen_spec = catalog_to_data(spec)
    version.compiled_domain = domain_text(compile_catalog(spec))
    version.status = VersionStatus.PROMOTED
    version.promoted_by = user
    version.promoted_at = timezone.now()
    version.full_clean(exclude=["catalog", "created_by", "promoted_by"])
    version.save()
    return version


def version_check_editable(*, version: CatalogVersion) -> CatalogVersion:
    """The version, re-read and row-locked, if it is a draft; VersionLocked otherwise.

    Call inside the transaction of any service that changes a version or its rows: the lock
    keeps a concurrent promotion from slipping between the check and the change.
    """
    locked = CatalogVersion.objects.select_for_update().select_related("catalog").get(pk=version.pk)
    if locked.status != VersionStatus.DRAFT:
        raise VersionLocked(locked.catalog.slug, locked.number, locked.status)
    return locked


# --- rows from a spec -------------------------------------------------------------------------


def _check_spec(spec: CatalogSpec) -> None:
    # A spec built in code has not been through parse_catalog; its references must hold
    # before they become foreign keys.
    issues = validate_catalog(spec) + _endpoint_issues(spec)
    if issues:
        raise SpecError(issues)


def _endpoint_issues(spec: CatalogSpec) -> list[Issue]:
    """Skill endpoints this deployment's policy refuses, told when authored rather than at the first call.

    Names are not resolved here (that is the call-time check's job, which also pins the address).
    """
    issues = []
    for s, skill in enumerate(spec.skills):
        refusal = policy_refusal(skill.endpoint, allowed_hosts=list(settings.CONCERTO_SKILL_HOSTS),
                                 allow_private=bool(settings.CONCERTO_SKILL_ALLOW_PRIVATE))
        if refusal:
            issues.append(Issue(f"skills[{s}].endpoint", refusal))
    return issues


def _version_create(
    *, catalog: Catalog, spec: CatalogSpec, user: AbstractBaseUser | None, note: str
) -> CatalogVersion:
    # Locking the catalog serialises concurrent imports, so numbers come out 1, 2, 3...
    Catalog.objects.select_for_update().filter(pk=catalog.pk).first()
    latest = catalog.versions.aggregate(latest=Max("number"))["latest"] or 0
    version = CatalogVersion(catalog=catalog, number=latest + 1, created_by=user, note=note)
    _version_fields_set(version, spec)
    _clean(version, "", exclude=["catalog", "created_by", "promoted_by"])
    version.save()
    _rows_create(version, spec)
    return version


def _version_fields_set(version: CatalogVersion, spec: CatalogSpec) -> None:
    version.title, version.description, version.privacy = spec.title, spec.description, spec.privacy
    version.cost_skill = spec.costs.skill
    version.cost_ask = spec.costs.ask
    version.cost_authorize = spec.costs.authorize


def _rows_create(version: CatalogVersion, spec: CatalogSpec) -> None:
    """Every row of `spec` under `version`, positions keeping the authored order."""
    elements = [
        Element(
            version=version,
            position=i,
            name=e.name,
            description=e.description,
            sensitive=e.sensitive,
            askable=e.askable,
            format=e.format or "",
            question=e.question or "",
            label=e.label or "",
        )
        for i, e in enumerate(spec.elements)
    ]
    skills = [
        Skill(
            version=version,
            position=i,
            name=s.name,
            description=s.description,
            endpoint=s.endpoint,
            max_retries=s.max_retries,
            cost=s.cost,
            preview=s.preview,
            simulation=s.simulation.model_dump_json(exclude_defaults=True) if s.simulation else "",
            http=s.http.model_dump_json(exclude_defaults=True) if s.http else "",
            effects=s.effects,
        )
        for i, s in enumerate(spec.skills)
    ]
    intents = [
        Intent(
            version=version,
            position=i,
            name=t.name,
            description=t.description,
            examples=list(t.examples),
            goal_known=list(t.goal.known),
            goal_done=list(t.goal.done),
            extensions=list(t.extensions),
        )
        for i, t in enumerate(spec.intents)
    ]
    # Check every row before writing any, so the user gets all the faults at once.
    issues = _issues(elements, "elements", ["version", "parent"])
    issues += _issues(skills, "skills", ["version"])
    issues += _issues(intents, "intents", ["version"])
    if issues:
        raise SpecError(issues)

    Element.objects.bulk_create(elements)
    by_name = {e.name: e for e in elements}
    # Parents may be declared after their children, so they are linked once all rows exist.
    for row, e in zip(elements, spec.elements, strict=True):
        row.parent = by_name[e.parent] if e.parent else None
    Element.objects.bulk_update([row for row in elements if row.parent], ["parent"])
    Skill.objects.bulk_create(skills)
    _modes_create(skills, spec, by_name)
    Intent.objects.bulk_create(intents)


def _modes_create(skills: list[Skill], spec: CatalogSpec, by_name: dict[str, Element]) -> None:
    modes = [
        (Mode(skill=row, position=k, name=m.name or "", effects=m.effects or ""), m)
        for row, s in zip(skills, spec.skills, strict=True)
        for k, m in enumerate(s.modes)
    ]
    Mode.objects.bulk_create([mode for mode, _ in modes])
    outcomes = [
        (Outcome(mode=mode, position=j, name=o.name), o)
        for mode, m in modes
        for j, o in enumerate(m.outcomes)
    ]
    Outcome.objects.bulk_create([outcome for outcome, _ in outcomes])
    ModeInput.objects.bulk_create(
        ModeInput(mode=mode, element=by_name[name], position=j)
        for mode, m in modes
        for j, name in enumerate(m.inputs)
    )
    OutcomeOutput.objects.bulk_create(
        OutcomeOutput(outcome=outcome, element=by_name[name], position=j)
        for outcome, o in outcomes
        for j, name in enumerate(o.outputs)
    )


def _issues(rows: Iterable[models.Model], path: str, exclude: list[str]) -> list[Issue]:
    issues: list[Issue] = []
    for i, row in enumerate(rows):
        try:
            _clean(row, f"{path}[{i}]", exclude=exclude)
        except SpecError as exc:
            issues += exc.issues
    return issues


def _clean(row: models.Model, path: str, *, exclude: list[str]) -> None:
    """full_clean, with Django's messages turned into spec issues located by spec path.

    Uniqueness and foreign keys are left out: the spec's validation already checked names and
    references, and checking them row by row would cost a query each.
    """
    try:
        row.full_clean(exclude=exclude, validate_unique=False, validate_constraints=False)
    except ValidationError as exc:
        issues = []
        for field, messages in exc.message_dict.items():
            name = "" if field == NON_FIELD_ERRORS else _SPEC_FIELD.get(field, field)
            where = ".".join(part for part in (path, name) if part)
            issues += [Issue(where, message) for message in messages]
        raise SpecError(issues) from None


# --- the studio -------------------------------------------------------------------------------


@transaction.atomic
def catalog_create(
    *, workspace: Workspace, slug: str, title: str = "", user: AbstractBaseUser | None = None
) -> CatalogVersion:
    """A new, empty catalog whose version 1 is a draft to build in the studio."""
    if Catalog.objects.filter(workspace=workspace, slug=slug).exists():
        raise SpecError([Issue("catalog", f"there is already a catalog named '{slug}' in this workspace")])
    return catalog_import(workspace=workspace, spec=CatalogSpec(catalog=slug, title=title), user=user,
                          note="created in the studio")
