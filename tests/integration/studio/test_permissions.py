"""Who may do what: analysts author, admins also promote; other workspaces do not exist."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from catalog_app.models import CatalogVersion

pytestmark = pytest.mark.django_db

PAGES = ["/catalogs/banking/edit/", "/catalogs/banking/graph/", "/catalogs/banking/versions/",
         "/catalogs/banking/tools/", "/catalogs/banking/preview/", "/catalogs/banking/export/",
         "/catalogs/banking/diff/?old=1&new=1"]


def test_an_analyst_cannot_promote(logged_in, banking):
    page = logged_in.get("/catalogs/banking/versions/").content.decode()
    response = logged_in.post("/catalogs/banking/v1/promote/")

    assert "Only an admin of the workspace can promote." in page and "Promote v1" not in page
    assert response.status_code == 403
    banking.refresh_from_db()
    assert banking.is_draft


def test_an_admin_promotes_and_the_version_freezes(admin_client, banking):
    page = admin_client.get("/catalogs/banking/versions/").content.decode()
    response = admin_client.post("/catalogs/banking/v1/promote/")

    assert "Promote v1" in page
    assert (response.status_code, response["Location"]) == (302, "/catalogs/banking/versions/")
    banking.refresh_from_db()
    assert not banking.is_draft and banking.compiled_domain
    after = admin_client.get("/catalogs/banking/versions/")
    assert "it can no longer change" in after.content.decode()


def test_promoting_an_unplannable_draft_is_refused_with_the_reason(admin_client, banking):
    admin_client.post("/catalogs/banking/v1/skills/credit_check/modes/0/outcomes/0/", {
        "outcome-credit_check-0-0-name": "scored", "outcome-credit_check-0-0-outputs": ""})

    response = admin_client.post("/catalogs/banking/v1/promote/", follow=True)

    assert "Version 1 was not promoted" in response.content.decode()
    assert CatalogVersion.objects.get(pk=banking.pk).is_draft


@pytest.mark.parametrize("url", PAGES)
def test_another_workspace_gets_404(outsider, banking, url):
    assert outsider.get(url).status_code == 404


@pytest.mark.parametrize(
    "url",
    ["/catalogs/banking/v1/elements/add/", "/catalogs/banking/v1/promote/", "/catalogs/banking/v1/draft/",
     "/catalogs/banking/v1/elements/ssn/delete/"],
)
def test_another_workspace_cannot_write(outsider, banking, url):
    assert outsider.post(url, {"new-element-name": "x"}).status_code == 404
    assert CatalogVersion.objects.filter(catalog=banking.catalog).count() == 1


@pytest.mark.parametrize("url", [*PAGES, "/catalogs/banking/v1/elements/add/"])
def test_anonymous_users_log_in_first(client, banking, url):
    response = client.get(url) if "/v1/" not in url else client.post(url)

    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_password_change(analyst):
    client = Client()
    client.login(username="ana", password="secret-pass-1")

    form = client.get(reverse("password_change"))
    wrong = client.post(reverse("password_change"), {"old_password": "nope", "new_password1": "x",
                                                     "new_password2": "x"})
    done = client.post(reverse("password_change"), {"old_password": "secret-pass-1",
                                                    "new_password1": "a-much-better-pass-7",
                                                    "new_password2": "a-much-better-pass-7"}, follow=True)

    assert "Change your password" in form.content.decode()
    assert wrong.status_code == 200 and "Your old password was entered incorrectly" in wrong.content.decode()
    assert "Password changed" in done.content.decode()
    assert Client().login(username="ana", password="a-much-better-pass-7")
