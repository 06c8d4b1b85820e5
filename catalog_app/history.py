"""A draft's editing history: every state the studio's edits made, for undo, redo and conflicts.

`history_record` is called by `editing.version_edit` in the edit's transaction: it keeps the
state before the edit (when the history has none yet) and the state after, and drops the redo
states beyond the current one, as an editor does when a new edit follows an undo. `draft_undo` and
`draft_redo` write an older or newer state back through `services.version_update`, so the
revision still moves forward and every cache keyed on it stays right.

A form carries the revision it was built from; `draft_changes_since` is what changed in the draft
since then, in the diff's words, so a save that lost a race can say so.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from orchestrator.engine.catalog.diff import diff_catalogs
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import catalog_to_data, parse_catalog
from orchestrator.engine.errors import ConcertoError

from .models import CatalogVersion, DraftState
from .selectors import version_spec, version_spec_saved
from .services import version_check_editable, version_update

HISTORY_LIMIT = 100  # states kept per draft, the oldest going first: a state is the whole spec


class NothingToUndo(ConcertoError):
    """No earlier (or later, for a redo) state of the draft in its history."""


def _state(version: CatalogVersion) -> DraftState | None:
    # Without its spec (megabytes of JSON at thousands of skills): the callers want its place and label.
    return version.history.filter(revision=version.revision).defer("spec").first()


def history_record(*, version: CatalogVersion, before: CatalogSpec, after: CatalogVersion, spec: CatalogSpec,
                   label: str, user: AbstractBaseUser | None) -> None:
    """Remember the state an edit made (and the one it started from); redo steps past it are dropped."""
    current = _state(version)
    if current is None:  # the first edit of this history, or after a change made elsewhere (an import)
        last = version.history.order_by("-seq").first()
        current = DraftState.objects.create(version=after, seq=(last.seq + 1) if last else 0,
                                            revision=version.revision, revisions=[version.revision],
                                            spec=catalog_to_data(before), label="")
    version.history.filter(seq__gt=current.seq).delete()
    version.history.filter(pk=current.pk).update(revision=None)
    DraftState.objects.create(version=after, seq=current.seq + 1, revision=after.revision,
                              revisions=[after.revision], spec=catalog_to_data(spec), label=label[:300],
                              user=user if user is not None and user.is_authenticated else None)
    stale = version.history.order_by("-seq").values_list("seq", flat=True)[HISTORY_LIMIT:HISTORY_LIMIT + 1]
    if stale:
        version.history.filter(seq__lte=stale[0]).delete()


def _move(version: CatalogVersion, step: int, user: AbstractBaseUser | None) -> tuple[CatalogVersion, str]:
    version = version_check_editable(version=version)
    current = _state(version)
    target = version.history.filter(seq=current.seq + step).first() if current else None
    if target is None:
        raise NothingToUndo("nothing to undo" if step < 0 else "nothing to redo")
    # What is undone is the edit that made the current state; what is redone, the one that made the next.
    label = current.label if step < 0 else target.label
    spec = parse_catalog(target.spec)
    updated = version_update(version=version, spec=spec)
    version_spec_saved(version=updated, spec=spec)
    version.history.filter(pk=current.pk).update(revision=None)
    target.revision = updated.revision
    target.revisions = [*target.revisions, updated.revision]
    target.save(update_fields=["revision", "revisions"])
    return updated, label


@transaction.atomic
def draft_undo(*, version: CatalogVersion, user: AbstractBaseUser | None = None) -> tuple[CatalogVersion, str]:
    """Put the draft back as it was before its last edit; returns it and what that edit did."""
    return _move(version, -1, user)


@transaction.atomic
def draft_redo(*, version: CatalogVersion, user: AbstractBaseUser | None = None) -> tuple[CatalogVersion, str]:
    """Make again the edit the last undo took back."""
    return _move(version, +1, user)


def draft_steps(*, version: CatalogVersion) -> tuple[str, str]:
    """What an undo and a redo would take back or make again ("" when there is nothing)."""
    current = _state(version)
    if current is None:
        return "", ""
    earlier = version.history.filter(seq=current.seq - 1).exists()
    later = version.history.filter(seq=current.seq + 1).defer("spec").first()
    return (current.label or "the last edit") if earlier else "", (later.label or "an edit") if later else ""


def draft_changes_since(*, version: CatalogVersion, revision: int) -> list[str] | None:
    """What changed in the draft since a form saw it at `revision`; None when the history does not know."""
    # The states' revisions alone first: a state of a large catalog is megabytes of JSON.
    pk = next((s.pk for s in version.history.only("pk", "revisions") if revision in s.revisions), None)
    if pk is None:
        return None
    seen = DraftState.objects.get(pk=pk)
    return [str(change) for change in diff_catalogs(parse_catalog(seen.spec), version_spec(version=version))]
