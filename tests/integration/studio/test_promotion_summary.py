"""Promotion: a summary to confirm first, no promoting an older draft, the studio's own error pages."""

from __future__ import annotations

import pytest

from catalog_app.editing import intent_removed, skill_updated, version_edit
from catalog_app.models import CatalogVersion
from catalog_app.services import version_create_draft, version_promote

pytestmark = pytest.mark.django_db


def test_promotion_is_confirmed_on_a_summary_of_what_changes(admin_client, banking):
    live = version_promote(version=banking, user=None)
    draft = version_create_draft(version=live, user=None)
    version_edit(version=draft, change=lambda s: skill_updated(s, name="credit_check", cost=30))
    version_edit(version=draft, change=lambda s: intent_removed(s, name="check_card_status"))

    versions = admin_client.get("/catalogs/banking/versions/").content.decode()
    summary = admin_client.get("/catalogs/banking/v2/promote/confirm/")

    assert 'href="/catalogs/banking/v2/promote/confirm/"' in versions  # a link to the summary, not a bare POST
    html = summary.content.decode()
    assert summary.status_code == 200
    assert "Promote v2?" in html and "after v1" in html
    assert "skill credit_check: cost" in html  # the diff from the live version
    assert "Plans that change <span class=\"count\">1</span>" in html
    assert "<code>check_card_status</code>" in html  # its plan goes with the intent
    assert 'action="/catalogs/banking/v2/promote/"' in html and "Promote v2 now" in html
    assert CatalogVersion.objects.get(pk=draft.pk).is_draft  # nothing happens before the confirmation


def test_an_older_draft_cannot_be_promoted_over_the_live_version(admin_client, banking):
    newer = version_create_draft(version=banking, user=None)
    version_promote(version=newer, user=None)

    versions = admin_client.get("/catalogs/banking/versions/").content.decode()
    refused = admin_client.post("/catalogs/banking/v1/promote/", follow=True).content.decode()

    assert "Promote v1" not in versions and "older than the newest promoted version" in versions
    assert "v1 is older than the promoted v2" in refused
    assert CatalogVersion.objects.get(pk=banking.pk).is_draft


def test_an_analyst_refused_sees_the_studio_page_with_a_way_back(logged_in, banking):
    response = logged_in.post("/catalogs/banking/v1/promote/")
    confirm = logged_in.get("/catalogs/banking/v1/promote/confirm/")

    html = response.content.decode()
    assert response.status_code == 403 and confirm.status_code == 403
    assert "You cannot do that here" in html and "only an admin of the workspace can promote" in html.lower()
    assert '<link rel="stylesheet"' in html and 'href="/"' in html  # the studio's layout, a way back


def test_the_editor_of_an_older_draft_says_it_cannot_be_promoted(admin_client, banking):
    version_promote(version=version_create_draft(version=banking, user=None), user=None)

    page = admin_client.get("/catalogs/banking/edit/?version=1").content.decode()

    assert "This draft is older than the promoted version v2" in page
