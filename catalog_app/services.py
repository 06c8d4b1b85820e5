"""Writes of workspaces, catalogs and versions. Each service is one transaction: all or nothing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import connection, models, transaction
from django.db.models import Max
from django.utils import timezone

from orchestrator.engine.catalog import spec as schema
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
        # The spec the rows hold now (read under the lock just taken), to change only what differs.
        before = version_spec(version=version)
        _version_fields_set(version, spec)
        version.revision += 1  # caches of a draft's spec key on (version, revision)
    if note is not None:
        version.note = note
    _clean(version, "", exclude=["catalog", "created_by", "promoted_by"])
    version.save()
    if spec is not None:
        _rows_sync(version, before, spec)
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
    _rows_sync(version, CatalogSpec(catalog=spec.catalog), spec)
    return version


def _version_fields_set(version: CatalogVersion, spec: CatalogSpec) -> None:
    version.title, version.description, version.privacy = spec.title, spec.description, spec.privacy
    version.cost_skill = spec.costs.skill
    version.cost_ask = spec.costs.ask
    version.cost_authorize = spec.costs.authorize


@dataclass
class _Changes:
    """How a list of named things (elements, skills, intents) differs between two specs.

    Names are unique within a version and a row never changes its name (a renamed thing is a
    new row and a gone one), so rows are matched to the spec's things by name.
    """

    new: list[int] = field(default_factory=list)  # indexes in the new list of things with no row yet
    changed: list[int] = field(default_factory=list)  # ... whose content differs (their position may too)
    moved: list[int] = field(default_factory=list)  # ... the same but at another position
    gone: list[str] = field(default_factory=list)  # names of things that are no more


def _changes(before: Sequence[Any], after: Sequence[Any]) -> _Changes:
    old = {item.name: (i, item) for i, item in enumerate(before)}
    changes = _Changes()
    for i, item in enumerate(after):
        if item.name not in old:
            changes.new.append(i)
        elif old[item.name][1] != item:
            changes.changed.append(i)
        elif old[item.name][0] != i:
            changes.moved.append(i)
    names = {item.name for item in after}
    changes.gone = [name for name in old if name not in names]
    return changes


def _rows_sync(version: CatalogVersion, before: CatalogSpec, after: CatalogSpec) -> None:
    """Make the rows of `version`, which hold `before`, hold `after`, positions keeping the authored order.

    Only what differs is written: an edit of one field of a catalog of thousands of skills
    changes one row (a skill's modes, outcomes and links go with it: a changed skill is written
    anew), where rewriting every row took seconds. An import is the same with nothing before.
    """
    elements, skills, intents = (_changes(before.elements, after.elements), _changes(before.skills, after.skills),
                                 _changes(before.intents, after.intents))
    element_pks = dict(version.elements.values_list("name", "pk"))
    skill_pks = dict(version.skills.values_list("name", "pk"))
    intent_pks = dict(version.intents.values_list("name", "pk"))
    element_rows = {i: _element_row(version, i, after.elements[i], element_pks.get(after.elements[i].name))
                    for i in elements.new + elements.changed}
    skill_rows = {i: _skill_row(version, i, after.skills[i]) for i in skills.new + skills.changed}
    intent_rows = {i: _intent_row(version, i, after.intents[i], intent_pks.get(after.intents[i].name))
                   for i in intents.new + intents.changed}
    # Check every row before writing any, so the user gets all the faults at once.
    issues = _issues(element_rows, "elements", ["version", "parent"])
    issues += _issues(skill_rows, "skills", ["version"])
    issues += _issues(intent_rows, "intents", ["version"])
    if issues:
        raise SpecError(issues)

    # Skills first: their inputs and outputs hold the elements (RESTRICT).
    _delete(Skill, [skill_pks[after.skills[i].name] for i in skills.changed]
            + [skill_pks[name] for name in skills.gone])
    _delete(Intent, [intent_pks[name] for name in intents.gone])
    element_pks = _elements_write(version, after, elements, element_rows, element_pks)
    created = [skill_rows[i] for i in skills.new + skills.changed]
    Skill.objects.bulk_create(created)
    _modes_create(created, [after.skills[i] for i in skills.new + skills.changed], element_pks)
    _positions_set(Skill, skill_pks, after.skills, skills.moved)
    Intent.objects.bulk_create([intent_rows[i] for i in intents.new])
    Intent.objects.bulk_update([intent_rows[i] for i in intents.changed], _INTENT_FIELDS)
    _positions_set(Intent, intent_pks, after.intents, intents.moved)


def _elements_write(version: CatalogVersion, after: CatalogSpec, changes: _Changes, rows: dict[int, Element],
                    pks: dict[str, int]) -> dict[str, int]:
    """Write the elements' changes; returns the row id of every element by name."""
    Element.objects.bulk_create([rows[i] for i in changes.new])
    pks = {**pks, **{rows[i].name: rows[i].pk for i in changes.new}}
    # Parents may be declared after their children, so they are linked once all rows exist.
    for i, row in rows.items():
        parent = after.elements[i].parent
        row.parent_id = pks[parent] if parent else None
    Element.objects.bulk_update([rows[i] for i in changes.new if rows[i].parent_id], ["parent"])
    Element.objects.bulk_update([rows[i] for i in changes.changed], [*_ELEMENT_FIELDS, "parent"])
    _positions_set(Element, pks, after.elements, changes.moved)
    gone = [pks.pop(name) for name in changes.gone]
    # Unlinked first: deleted a batch at a time, a parent may go before its children (RESTRICT).
    for batch in _batches(gone):
        Element.objects.filter(pk__in=batch, parent__isnull=False).update(parent=None)
    _delete(Element, gone)
    return pks


def _positions_set(model: type[models.Model], pks: dict[str, int], items: Sequence[Any], moved: list[int]) -> None:
    model.objects.bulk_update([model(pk=pks[items[i].name], position=i) for i in moved], ["position"])


def _delete(model: type[models.Model], pks: list[int]) -> None:
    for batch in _batches(pks):
        model.objects.filter(pk__in=batch).delete()


def _batches(pks: list[int]) -> Iterator[list[int]]:
    """`pks` in lists short enough for one IN clause on every database (SQLite counts its parameters)."""
    size = connection.features.max_query_params or max(len(pks), 1)
    for start in range(0, len(pks), size):
        yield pks[start:start + size]


_ELEMENT_FIELDS = ["position", "description", "sensitive", "askable", "format", "question", "label"]
_INTENT_FIELDS = ["position", "description", "examples", "goal_known", "goal_done", "extensions"]


def _element_row(version: CatalogVersion, i: int, e: schema.Element, pk: int | None) -> Element:
    return Element(pk=pk, version=version, position=i, name=e.name, description=e.description,
                   sensitive=e.sensitive, askable=e.askable, format=e.format or "", question=e.question or "",
                   label=e.label or "")


def _skill_row(version: CatalogVersion, i: int, s: schema.Skill) -> Skill:
    return Skill(
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


def _intent_row(version: CatalogVersion, i: int, t: schema.Intent, pk: int | None) -> Intent:
    return Intent(pk=pk, version=version, position=i, name=t.name, description=t.description,
                  examples=list(t.examples), goal_known=list(t.goal.known), goal_done=list(t.goal.done),
                  extensions=list(t.extensions))


def _modes_create(skills: list[Skill], specs: list[schema.Skill], element_pks: dict[str, int]) -> None:
    modes = [
        (Mode(skill=row, position=k, name=m.name or "", effects=m.effects or ""), m)
        for row, s in zip(skills, specs, strict=True)
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
        ModeInput(mode=mode, element_id=element_pks[name], position=j)
        for mode, m in modes
        for j, name in enumerate(m.inputs)
    )
    OutcomeOutput.objects.bulk_create(
        OutcomeOutput(outcome=outcome, element_id=element_pks[name], position=j)
        for outcome, o in outcomes
        for j, name in enumerate(o.outputs)
    )


def _issues(rows: dict[int, models.Model], path: str, exclude: list[str]) -> list[Issue]:
    issues: list[Issue] = []
    for i, row in sorted(rows.items()):
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
