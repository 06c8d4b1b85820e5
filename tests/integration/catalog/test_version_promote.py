from __future__ import annotations

import pytest

from catalog_app.errors import VersionLocked
from catalog_app.models import CatalogVersion, Element, VersionStatus
from catalog_app.selectors import version_latest, version_live, version_spec
from catalog_app.services import catalog_import, version_create_draft, version_promote, version_update
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.spec_io import catalog_to_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def promoted(workspace, banking_spec, user) -> CatalogVersion:
    version = catalog_import(workspace=workspace, spec=banking_spec)
    return version_promote(version=version, user=user, compiled_domain="(define (domain banking))")


def test_promotion_freezes_the_spec(promoted, banking_spec, user):
    promoted.refresh_from_db()

    assert promoted.status == VersionStatus.PROMOTED
    assert promoted.frozen_spec == catalog_to_data(banking_spec)
    assert promoted.compiled_domain == "(define (domain banking))"
    assert (promoted.promoted_by, promoted.promoted_at is not None) == (user, True)
    assert version_spec(version=promoted) == banking_spec
    assert version_live(catalog=promoted.catalog) == promoted


def test_promoted_version_refuses_edits(promoted, every_field_spec, banking_spec):
    with pytest.raises(VersionLocked, match="version 1 of catalog 'banking' is promoted") as caught:
        version_update(version=promoted, note="sneaky")

    assert isinstance(caught.value, ConcertoError)
    with pytest.raises(VersionLocked):
        version_update(version=promoted, spec=banking_spec.model_copy(update={"title": "changed"}))
    promoted.refresh_from_db()
    assert (promoted.note, version_spec(version=promoted)) == ("", banking_spec)


def test_a_stale_draft_instance_cannot_edit_a_promoted_version(workspace, banking_spec, user):
    version = catalog_import(workspace=workspace, spec=banking_spec)
    stale = CatalogVersion.objects.get(pk=version.pk)
    version_promote(version=version, user=user)

    assert stale.status == VersionStatus.DRAFT
    with pytest.raises(VersionLocked):
        version_update(version=stale, note="too late")


def test_promoting_twice_is_refused(promoted, user):
    with pytest.raises(VersionLocked, match="is promoted"):
        version_promote(version=promoted, user=user)


def test_frozen_spec_wins_over_rows(promoted, banking_spec):
    # Rows are not the source of truth after promotion, even if someone bypasses the services.
    Element.objects.filter(version=promoted, name="ssn").update(description="tampered")

    assert version_spec(version=promoted) == banking_spec


def test_new_draft_from_a_promoted_version(promoted, banking_spec, user):
    draft = version_create_draft(version=promoted, user=user)

    assert (draft.number, draft.status, draft.created_by) == (2, VersionStatus.DRAFT, user)
    assert draft.note == "copied from version 1"
    assert version_spec(version=draft) == banking_spec
    assert version_latest(catalog=promoted.catalog) == draft
    assert version_live(catalog=promoted.catalog) == promoted

    version_update(version=draft, spec=banking_spec.model_copy(update={"title": "edited"}))
    assert version_spec(version=promoted).title == banking_spec.title
