from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from catalog_app.models import Role, Workspace
from catalog_app.services import catalog_import, membership_set, user_create, version_promote
from orchestrator.assistants.services import assistant_create

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def _text(response) -> str:
    """The page's visible text, tags dropped and whitespace folded, for assertions on wording."""
    html = re.sub(r"<(script|style)\b.*?</\1>", "", response.content.decode(), flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.mark.parametrize(
    "url", ["/", "/catalogs/banking/", "/catalogs/banking/pddl/", "/catalogs/banking/plans/"]
)
def test_pages_need_a_login(client, banking, url):
    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={url}"


def test_login_page_logs_in(client, analyst):
    assert client.get(reverse("login")).status_code == 200

    response = client.post(reverse("login"), {"username": "ana", "password": "secret-pass-1"})

    assert (response.status_code, response["Location"]) == (302, "/")


def test_logout_is_a_post_form(studio, banking):
    page = studio.get("/").content.decode()

    assert f'action="{reverse("logout")}"' in page
    assert studio.post(reverse("logout")).status_code == 302
    assert studio.get("/").status_code == 302


def test_list_shows_banking(studio, banking):
    response = studio.get("/")

    assert response.status_code == 200
    text = _text(response)
    assert "Banking assistant" in text and "banking" in text
    assert "v1 Draft" in text and "not live" in text
    assert 'href="/catalogs/banking/"' in response.content.decode()
    assert 'src="/static/vendor/htmx.min.js"' in response.content.decode()


def test_detail_shows_the_tree_skills_and_intents(studio, banking):
    response = studio.get("/catalogs/banking/")

    assert response.status_code == 200
    html = response.content.decode()
    # passport sits in the list nested under document.
    document = html.index('<code class="element">document</code>')
    nested = html.index("<ul>", document)
    assert nested < html.index('<code class="element">passport</code>') < html.index("</ul>", nested)
    text = _text(response)
    assert "ssn sensitive" in text
    assert "credit_score sensitive not askable number" in text
    assert "email → found : name, address, account_number, income not_found : nothing" in text
    assert "apply name, address, income, card_type → submitted : card_application_id, card_status" in text
    assert "Goal: know loan_status" in text and "“I need a loan”" in text
    assert "Then offer: apply_credit_card" in text


def test_detail_of_a_given_version(studio, banking, banking_spec, workspace):
    promoted = version_promote(version=banking, user=None)
    assistant_create(workspace=workspace, version=promoted, key="banking-live")  # live: an assistant runs it
    catalog_import(workspace=workspace, spec=banking_spec.model_copy(update={"title": "Banking, revised"}))

    latest = _text(studio.get("/catalogs/banking/"))
    first = _text(studio.get("/catalogs/banking/?version=1"))

    assert "Banking, revised" in latest
    assert "Banking assistant" in first and "v1 · Promoted · live" in first
    assert studio.get("/catalogs/banking/?version=9").status_code == 404
    assert studio.get("/catalogs/banking/?version=x").status_code == 404


def test_htmx_version_switch_returns_the_page_fragment(studio, banking):
    response = studio.get("/catalogs/banking/?version=1", **HTMX)

    html = response.content.decode()
    assert html.lstrip().startswith('<div id="catalog-page">')
    assert "<html" not in html and "site-header" not in html
    assert "passport" in html
    assert "HX-Request" in response["Vary"]


def test_pddl_page_shows_the_domain_and_intents(studio, banking):
    response = studio.get("/catalogs/banking/pddl/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "(:action credit_check-m1-scored" in html
    assert '<option value="apply_loan">apply_loan</option>' in html
    assert 'hx-target="#problem"' in html
    assert "Choose an intent to see the problem" in html


def test_pddl_problem_fragment(studio, banking):
    response = studio.get("/catalogs/banking/pddl/", {"intent": "apply_loan"}, HTTP_HX_TARGET="problem", **HTMX)

    html = response.content.decode()
    assert html.lstrip().startswith('<div id="problem"')
    assert "(:goal (and (known loan_status)))" in html
    assert "(:action" not in html and "<html" not in html


def test_pddl_page_with_intent_without_htmx_is_the_whole_page(studio, banking):
    html = studio.get("/catalogs/banking/pddl/", {"intent": "apply_loan"}).content.decode()

    assert "<html" in html
    assert "(:goal (and (known loan_status)))" in html
    assert '<option value="apply_loan" selected>' in html


def test_pddl_unknown_intent_is_404(studio, banking):
    assert studio.get("/catalogs/banking/pddl/", {"intent": "buy_yacht"}).status_code == 404


def test_plans_page_shows_each_plan(studio, banking):
    response = studio.get("/catalogs/banking/plans/")

    assert response.status_code == 200
    text = _text(response)
    assert "apply_loan — apply for a loan plan found cost 20 · 8 steps" in text  # the editor's words too
    assert "credit_score = credit_check(ssn) +1" in text
    assert "loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)" in text
    assert "check_card_status" in text and "ask(card_application_id)" in text
    html = response.content.decode()
    assert html.count('<ol class="plan-lines">') == 3
    assert "Ask consent to share ssn with credit_check" in text  # each step in words too
    assert "cost 20 = 3 skill calls × 1 + 3 questions to the user × 5" in text


def test_plans_page_explains_an_unsolvable_intent(studio, workspace, banking_spec):
    # Without ocr_document nothing can give the ssn, which the user cannot be asked for either.
    elements = tuple(
        e.model_copy(update={"askable": False}) if e.name == "ssn" else e for e in banking_spec.elements
    )
    skills = tuple(s for s in banking_spec.skills if s.name != "ocr_document")
    catalog_import(workspace=workspace, spec=banking_spec.model_copy(update={"elements": elements, "skills": skills}))

    text = _text(studio.get("/catalogs/banking/plans/"))

    assert "apply_loan — apply for a loan no plan" in text
    assert "nothing can establish ssn" in text
    assert "Nothing can establish ssn :" in text


def test_other_workspace_catalog_is_404(banking):
    other = Workspace.objects.create(name="Other", slug="other")
    stranger = user_create(username="stranger", password="secret-pass-2")
    membership_set(workspace=other, user=stranger, role=Role.ANALYST)
    client = Client()
    client.force_login(stranger)

    assert "banking" not in _text(client.get("/"))
    for url in ("/catalogs/banking/", "/catalogs/banking/pddl/", "/catalogs/banking/plans/"):
        assert client.get(url).status_code == 404


def test_user_without_workspace_is_403(db):
    client = Client()
    client.force_login(user_create(username="loner", password="secret-pass-3"))

    assert client.get("/").status_code == 403


def test_pages_only_answer_get(studio, banking):
    assert studio.post("/catalogs/banking/").status_code == 405
