"""Every write of the studio, tried by every kind of caller: what each role may do, it does; what it may not, it
cannot, and the database is left as it was (issue 24: the Assistants page let an analyst disable the live
assistant, rotate its key, allow https://evil.example and publish, which the API refused).

The routes are not listed by hand: the walk reads Django's URL resolver (the studio's pages and the one
NinjaAPI mounted in it) and tries POST, PUT, PATCH and DELETE on each. A route and method that answers
anything but 405 must be classified below, by the `Action` it performs (whose least role comes from
`catalog_app.permissions.MINIMUM_ROLE`), or as a read, the widget's public chat, or the caller's own
account; a new route fails `test_every_write_route_is_classified` until it is.

Each attempt runs in a savepoint that is rolled back, so attempts do not see each other's writes, and
"nothing changed" is checked inside it, before the rollback.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone

from catalog_app.models import Catalog, Role, Workspace
from catalog_app.permissions import MINIMUM_ROLE, OPERATOR, Action
from catalog_app.selectors import version_latest
from catalog_app.services import membership_set, user_create, version_create_draft, version_promote
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.services import assistant_create
from orchestrator.assistants.views import ACTIONS as ASSISTANT_ACTIONS
from orchestrator.chat.services import session_create
from orchestrator.chat.studio_services import studio_message_post
from orchestrator.cold_start.models import CampaignState, ColdStartCampaign, ColdStartRound
from orchestrator.conversation_tests.checks import EXPECTATIONS
from orchestrator.conversation_tests.services import conversation_test_create
from orchestrator.jobs.models import JobStatus
from orchestrator.learning.models import LearningJob, Refinement
from orchestrator.modes import AssistantMode
from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.services import run_create
from orchestrator.validation.models import TrajectoryAnalysis

pytestmark = pytest.mark.django_db

METHODS = ("POST", "PUT", "PATCH", "DELETE")
SKIPPED_PREFIXES = ("admin/",)  # Django's admin site: staff only, by Django's own permissions, not the studio's

READ = "read"  # a POST that computes an answer and stores nothing
WIDGET = "widget"  # the chat widget's public endpoints: no login, the assistant's key and origin instead
ACCOUNT = "account"  # Django's login, logout and password forms: the caller's own account
DOCS = "docs"  # the API's description, the same for everyone, whatever the method
ANY = "*"  # every method (Django's form views take PUT as POST; ninja's docs answer any method)

DEMO_KEY = "demo-banking"
SCENARIO = yaml.safe_load((Path(settings.BASE_DIR) / "catalog_app" / "demo" / "banking-scenario.yaml").read_text())
OUTSIDER = "otto"
LOAN = "I'd like to apply for a loan"


@dataclass(frozen=True)
class Case:
    """How to try one write: what it is, and a request an admin would send for real."""

    kind: Action | str
    kwargs: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] | None = None
    writes: bool = False  # the admin's request changes the database: proof that the refusals are about the role


def _json(data: dict[str, Any]) -> dict[str, Any]:
    return {"__json__": data}


# (route pattern, method) -> what it is. The route patterns are Django's, as the resolver prints them.
CATALOG_EDITS = [
    "elements/add/", "elements/<str:name>/", "elements/<str:name>/delete/", "skills/add/", "skills/<str:name>/",
    "skills/<str:name>/delete/", "skills/<str:skill>/modes/add/", "skills/<str:skill>/modes/<int:mode>/",
    "skills/<str:skill>/modes/<int:index>/delete/", "skills/<str:skill>/modes/<int:mode>/outcomes/add/",
    "skills/<str:skill>/modes/<int:mode>/outcomes/<int:outcome>/",
    "skills/<str:skill>/modes/<int:mode>/outcomes/<int:index>/delete/", "intents/add/", "intents/<str:name>/",
    "intents/<str:name>/delete/", "settings/", "undo/", "redo/",
]
VERSION = "catalogs/<slug:slug>/v<int:number>/"

COLD_START_FORM = {"version": "1", "scenario": "realistic", "conversations": "1", "max_rounds": "1", "seed": "0",
                   "first_orchestrator": "s3", "mode": "review"}

CASES: dict[tuple[str, str], Case] = {
    **{(VERSION + route, "POST"): Case(Action.CATALOG_EDIT) for route in CATALOG_EDITS},
    ("catalogs/new/", "POST"): Case(Action.CATALOG_CREATE),
    ("catalogs/import/", "POST"): Case(Action.CATALOG_CREATE),
    ("catalogs/<slug:slug>/tools/", "POST"): Case(Action.CATALOG_EDIT),
    (VERSION + "draft/", "POST"): Case(Action.CATALOG_EDIT),
    (VERSION + "promote/", "POST"): Case(Action.VERSION_PROMOTE, writes=True),
    ("catalogs/<slug:slug>/preview/", "POST"): Case(READ),
    ("catalogs/<slug:slug>/try-intent/", "POST"): Case(READ),
    ("catalogs/<slug:slug>/validate/", "POST"): Case(READ),
    ("catalogs/<slug:slug>/test-chat/messages/", "POST"): Case(Action.TEST_CHAT),
    ("validation/analyses/", "POST"): Case(Action.ANALYSIS_RUN),
    ("validation/analyses/<int:pk>/requeue/", "POST"): Case(Action.JOB_REQUEUE, {"pk": "stalled"}, writes=True),
    ("validation/analyses/<int:pk>/cancel/", "POST"): Case(Action.ANALYSIS_RUN, {"pk": "stalled"}, writes=True),
    ("catalogs/<slug:slug>/simulations/start/", "POST"): Case(Action.SIMULATION_RUN),
    ("simulations/<int:pk>/cancel/", "POST"): Case(Action.SIMULATION_RUN, {"pk": "run"}, writes=True),
    ("simulations/<int:pk>/requeue/", "POST"): Case(Action.JOB_REQUEUE, {"pk": "failed_run"}, writes=True),
    ("catalogs/<slug:slug>/scenarios/save/", "POST"): Case(
        Action.SCENARIO_SAVE, data={"version": "1", "scenario": "walked"}, writes=True),
    ("catalogs/<slug:slug>/cold-start/start/", "POST"): Case(Action.COLD_START_RUN, data=COLD_START_FORM, writes=True),
    ("catalogs/<slug:slug>/cold-start/start/", "POST sandbox"): Case(
        Action.COLD_START_SANDBOX, data={**COLD_START_FORM, "mode": "sandbox", "confidence": "0.9"}, writes=True),
    ("cold-start/<int:pk>/continue/", "POST"): Case(Action.COLD_START_RUN, {"pk": "campaign"}, writes=True),
    ("cold-start/<int:pk>/cancel/", "POST"): Case(Action.COLD_START_RUN, {"pk": "campaign"}, writes=True),
    ("catalogs/<slug:slug>/review/learn/", "POST"): Case(Action.REFINEMENT_LEARN),
    ("catalogs/<slug:slug>/review/jobs/<int:pk>/requeue/", "POST"): Case(
        Action.JOB_REQUEUE, {"pk": "failed_job"}, writes=True),
    ("catalogs/<slug:slug>/review/jobs/<int:pk>/cancel/", "POST"): Case(
        Action.REFINEMENT_LEARN, {"pk": "learning_job"}, writes=True),
    ("catalogs/<slug:slug>/review/decide/", "POST"): Case(
        Action.REFINEMENT_DECIDE, data={"action": "reject", "ids": ["refinement"]}, writes=True),
    ("catalogs/<slug:slug>/promotion/threshold/", "POST"): Case(
        Action.PROMOTION_THRESHOLD, data={"threshold": "50"}, writes=True),
    ("catalogs/<slug:slug>/promotion/switch/", "POST"): Case(
        Action.PLANNER_SWITCH, data={"assistant": "bank-s3", "version": "1"}, writes=True),
    ("catalogs/<slug:slug>/assistants/publish/", "POST"): Case(
        Action.ASSISTANT_PUBLISH, data={"name": "Mine", "key": "mine", "mode": "planner", "version": "promoted_pk",
                                        "origins": "https://evil.example"}, writes=True),
    ("catalogs/<slug:slug>/tests/run/", "POST"): Case(Action.CONVERSATION_TEST_RUN, data={"version": "1"}, writes=True),
    ("catalogs/<slug:slug>/tests/save/", "POST"): Case(
        Action.CONVERSATION_TEST_SAVE, data={"session": "test_session", "name": "walked"}, writes=True),
    ("catalogs/<slug:slug>/tests/<int:pk>/", "POST"): Case(
        Action.CONVERSATION_TEST_SAVE, {"pk": "conversation_test"}, {
            "name": "renamed", "mode": "planner", "rows": "1", "turn-0-user": LOAN,
            **{f"turn-0-{key}": "*" for key in EXPECTATIONS}, "turn-0-intents": "apply_loan"}, writes=True),
    ("catalogs/<slug:slug>/tests/<int:pk>/delete/", "POST"): Case(
        Action.CONVERSATION_TEST_SAVE, {"pk": "conversation_test"}, writes=True),
    ("catalogs/<slug:slug>/tests/policy/", "POST"): Case(
        Action.CONVERSATION_TEST_GATE, data={"required": "on"}, writes=True),
    ("catalogs/<slug:slug>/analytics/<slug:key>/examples/", "POST"): Case(
        Action.ANALYTICS_EXAMPLE, data={"text": "can I borrow some money", "intent": "apply_loan"}, writes=True),
    # One case per action of the Assistants screen's action URL (their names come from the view).
    **{("catalogs/<slug:slug>/assistants/<slug:key>/<str:action>/", f"POST {name}"): case for name, case in {
        "version": Case(Action.ASSISTANT_SWITCH_VERSION, {"action": "version"}, {"version": "2"}, writes=True),
        "disable": Case(Action.ASSISTANT_ENABLE, {"action": "disable"}, writes=True),
        "enable": Case(Action.ASSISTANT_ENABLE, {"action": "enable", "key": "bank-off"}, writes=True),
        "rotate": Case(Action.ASSISTANT_ROTATE_KEY, {"action": "rotate"}, writes=True),
        "origins": Case(Action.ASSISTANT_ORIGINS, {"action": "origins"}, {"origins": "https://evil.example"},
                        writes=True),
    }.items()},
    # The API.
    ("api/v1/catalogs/import", "POST"): Case(Action.CATALOG_CREATE),
    ("api/v1/catalogs/<slug>/plan", "POST"): Case(READ, data=_json({"intent": "apply_loan"})),
    ("api/v1/catalogs/<slug>/simulations", "POST"): Case(
        Action.SIMULATION_RUN, data=_json({"scenario": "realistic", "conversations": 1})),
    ("api/v1/catalogs/<slug>/simulations/<run_id>/cancel", "POST"): Case(
        Action.SIMULATION_RUN, {"run_id": "run"}, writes=True),
    ("api/v1/catalogs/<slug>/simulations/<run_id>/requeue", "POST"): Case(
        Action.JOB_REQUEUE, {"run_id": "failed_run"}, writes=True),
    ("api/v1/catalogs/<slug>/scenarios/<name>", "PUT"): Case(
        Action.SCENARIO_SAVE, {"name": SCENARIO["scenario"]}, _json(SCENARIO)),
    ("api/v1/catalogs/<slug>/cold-start", "POST"): Case(
        Action.COLD_START_RUN, data=_json({"scenario": "realistic", "conversations": 1}), writes=True),
    ("api/v1/catalogs/<slug>/cold-start", "POST sandbox"): Case(
        Action.COLD_START_SANDBOX, data=_json({"scenario": "realistic", "conversations": 1, "mode": "sandbox",
                                               "confidence": 0.9}), writes=True),
    ("api/v1/catalogs/<slug>/cold-start/<campaign_id>/continue", "POST"): Case(Action.COLD_START_RUN, writes=True),
    ("api/v1/catalogs/<slug>/cold-start/<campaign_id>/cancel", "POST"): Case(Action.COLD_START_RUN, writes=True),
    ("api/v1/catalogs/<slug>/refinements/learn", "POST"): Case(Action.REFINEMENT_LEARN, data=_json({"run": "run"})),
    ("api/v1/catalogs/<slug>/refinements/jobs", "POST"): Case(Action.REFINEMENT_LEARN, data=_json({"run": "run"})),
    ("api/v1/catalogs/<slug>/refinements/jobs/<job_id>/cancel", "POST"): Case(
        Action.REFINEMENT_LEARN, {"job_id": "learning_job"}, writes=True),
    ("api/v1/catalogs/<slug>/refinements/jobs/<job_id>/requeue", "POST"): Case(
        Action.JOB_REQUEUE, {"job_id": "failed_job"}, writes=True),
    ("api/v1/catalogs/<slug>/refinements/accept", "POST"): Case(
        Action.REFINEMENT_DECIDE, data=_json({"ids": ["refinement"]})),
    ("api/v1/catalogs/<slug>/refinements/reject", "POST"): Case(
        Action.REFINEMENT_DECIDE, data=_json({"ids": ["refinement"]}), writes=True),
    ("api/v1/validation/plans", "POST"): Case(READ),
    ("api/v1/validation/trajectories", "POST"): Case(READ),
    ("api/v1/validation/analyses", "POST"): Case(Action.ANALYSIS_RUN),
    ("api/v1/validation/analyses/<analysis_id>/requeue", "POST"): Case(Action.JOB_REQUEUE, writes=True),
    ("api/v1/validation/analyses/<analysis_id>/cancel", "POST"): Case(Action.ANALYSIS_RUN, writes=True),
    ("api/v1/catalogs/<slug>/conversation-tests", "POST"): Case(
        Action.CONVERSATION_TEST_SAVE, data=_json({"name": "walked", "turns": [
            {"user": LOAN, "expect": {"intents": ["apply_loan"]}}]}), writes=True),
    ("api/v1/catalogs/<slug>/conversation-tests/from-session", "POST"): Case(
        Action.CONVERSATION_TEST_SAVE, data=_json({"session": "test_session", "name": "walked"}), writes=True),
    ("api/v1/catalogs/<slug>/conversation-tests/runs", "POST"): Case(
        Action.CONVERSATION_TEST_RUN, data=_json({"version": 1}), writes=True),
    ("api/v1/catalogs/<slug>/conversation-tests/<test_id>", "PUT"): Case(
        Action.CONVERSATION_TEST_SAVE, data=_json({"name": "renamed"}), writes=True),
    ("api/v1/catalogs/<slug>/conversation-tests/<test_id>", "DELETE"): Case(Action.CONVERSATION_TEST_SAVE, writes=True),
    ("api/v1/catalogs/<slug>/conversation-tests/policy", "PUT"): Case(
        Action.CONVERSATION_TEST_GATE, data=_json({"required": True}), writes=True),
    ("api/v1/assistants", "POST"): Case(
        Action.ASSISTANT_PUBLISH, data=_json({"catalog": "banking", "key": "mine",
                                              "allowed_origins": ["https://evil.example"]}), writes=True),
    ("api/v1/assistants/<key>", "PATCH"): Case(
        Action.ASSISTANT_ENABLE, data=_json({"enabled": False}), writes=True),
    ("api/v1/assistants/<key>", "PATCH origins"): Case(
        Action.ASSISTANT_ORIGINS, data=_json({"allowed_origins": ["https://evil.example"]}), writes=True),
    ("api/v1/assistants/<key>", "PATCH version"): Case(
        Action.ASSISTANT_SWITCH_VERSION, data=_json({"version": 2}), writes=True),
    ("api/v1/assistants/<key>", "PATCH orchestrator"): Case(
        Action.ASSISTANT_UPDATE, data=_json({"orchestrator": "s3", "name": "Renamed"}), writes=True),
    ("api/v1/assistants/<key>/rotate-key", "POST"): Case(Action.ASSISTANT_ROTATE_KEY, writes=True),
    ("api/v1/assistants/<key>/sessions", "POST"): Case(WIDGET),
    ("api/v1/sessions/<session_id>/messages", "POST"): Case(WIDGET),
    ("api/v1/sessions/<session_id>/end", "POST"): Case(WIDGET),
    ("accounts/login/", ANY): Case(ACCOUNT),
    ("accounts/logout/", "POST"): Case(ACCOUNT),
    ("accounts/password_change/", ANY): Case(ACCOUNT),
    ("accounts/password_reset/", ANY): Case(ACCOUNT),
    ("accounts/reset/<uidb64>/<token>/", ANY): Case(ACCOUNT),
    ("api/v1/openapi.json", ANY): Case(DOCS),
    ("api/v1/docs", ANY): Case(DOCS),
    ("api/v1/", ANY): Case(DOCS),  # no page of its own: 404
    ("api/docs", ANY): Case(DOCS),  # a redirect to api/v1/docs
}


# --- the world the walk runs in ----------------------------------------------------------------------------


@dataclass
class World:
    values: dict[str, Any]  # what a placeholder in a case's kwargs or data stands for
    clients: dict[str, tuple[Client, dict[str, str]]]  # role -> a logged-in page client, its API auth headers
    baseline: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # every attempt is rolled back to it


def _basic(username: str, password: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()}


def _client(username: str | None) -> Client:
    client = Client()
    if username is not None:
        client.force_login(get_user_model().objects.get(username=username))
    return client


@pytest.fixture
def world(db) -> Iterator[World]:
    """The banking demo (v1 promoted, v2 promoted, v3 a draft), its assistants, a simulation and a failed one, a
    stalled analysis, a queued and a failed learning job, a pending refinement, a test-chat conversation and a
    saved conversation test; and an admin of another workspace."""
    cache.clear()  # login throttling and rate limits
    call_command("load_demo", stdout=StringIO())
    workspace = Workspace.objects.get(memberships__user__username="analyst")
    banking = Catalog.objects.get(workspace=workspace, slug="banking")
    v1 = banking.versions.get(number=1)
    v2 = version_promote(version=version_latest(catalog=banking), user=None)
    draft = version_create_draft(version=v2, user=None)
    assistant_create(workspace=workspace, version=v1, key="bank-s3", mode=AssistantMode.S3)
    off = assistant_create(workspace=workspace, version=v1, key="bank-off")
    Assistant.objects.filter(pk=off.pk).update(enabled=False)
    run = run_create(workspace=workspace, version=v1, scenario="realistic", conversations=2, enqueue=False)
    stale = timezone.now() - timedelta(hours=2)
    stalled = TrajectoryAnalysis.objects.create(workspace=workspace, version=v1, samples=[], total=1,
                                                status=JobStatus.RUNNING, started_at=stale, heartbeat_at=stale)
    failed_run = run_create(workspace=workspace, version=v1, scenario="realistic", conversations=2, enqueue=False)
    SimulationRun.objects.filter(pk=failed_run.pk).update(status=JobStatus.FAILED, error="the worker failed")
    learning_job = LearningJob.objects.create(catalog=banking, run=run)
    failed_job = LearningJob.objects.create(catalog=banking, run=run, status=JobStatus.FAILED, error="it failed")
    test_session, _ = studio_message_post(session=None, version=v1, mode="planner", text=LOAN)
    conversation_test = conversation_test_create(catalog=banking, name="loan", mode="planner", user=OPERATOR,
                                                 turns=[{"user": LOAN, "expect": {"intents": ["apply_loan"]}}])
    refinement = Refinement.objects.create(catalog=banking, version=v1, source="run", kind="drop_outcome",
                                           key="k", subject="credit_check", summary="s", confidence=0.5,
                                           change={"op": "drop_outcome"})
    session, _ = session_create(assistant=Assistant.objects.get(key=DEMO_KEY))
    campaign = ColdStartCampaign.objects.create(catalog=banking, start_version=v1, scenario_name="realistic",
                                                scenario_data=SCENARIO, conversations=2, state=CampaignState.REVIEW)
    ColdStartRound.objects.create(campaign=campaign, number=1, version=v1, orchestrator="s3", status=JobStatus.DONE)
    other = Workspace.objects.create(name="Other", slug="other")
    membership_set(workspace=other, user=user_create(username=OUTSIDER, password="otto-pass-1"), role=Role.ADMIN)
    values = {"number": draft.number, "promoted_pk": v2.pk, "run": run.pk, "stalled": stalled.pk,
              "refinement": refinement.pk, "session_id": session.pk, "failed_run": failed_run.pk,
              "learning_job": learning_job.pk, "failed_job": failed_job.pk, "test_session": str(test_session.pk),
              "conversation_test": conversation_test.pk, "campaign": campaign.pk}
    passwords = {"analyst": "analyst", "admin": "admin", OUTSIDER: "otto-pass-1"}
    clients = {"anonymous": (_client(None), {})}
    clients |= {role: (_client(name), _basic(name, passwords[name]))
                for role, name in (("analyst", "analyst"), ("admin", "admin"), ("outsider", OUTSIDER))}
    yield World(values, clients, snapshot())
    cache.clear()


# --- the routes ----------------------------------------------------------------------------------------------


def _routes(patterns: list[Any], prefix: str = "") -> Iterator[str]:
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield prefix + str(entry.pattern)


def studio_routes() -> list[str]:
    found = dict.fromkeys(r for r in _routes(get_resolver().url_patterns) if not r.startswith(SKIPPED_PREFIXES))
    return list(found)  # the API's paths appear once per operation; once is enough


SAMPLES = {"slug": "banking", "key": DEMO_KEY, "name": "email", "skill": "credit_check", "mode": 0, "index": 0,
           "outcome": 0, "kind": "elements", "pk": "run", "run_id": "run", "analysis_id": "stalled",
           "job_id": "learning_job", "test_id": "conversation_test", "session_id": "session_id", "number": "number",
           "action": "disable", "uidb64": "x", "token": "x", "campaign_id": "campaign"}


def _url(route: str, kwargs: dict[str, Any], values: dict[str, Any]) -> str:
    def sample(match: re.Match[str]) -> str:
        name = match.group(2)
        value = kwargs.get(name, SAMPLES[name])
        return str(values.get(value, value) if isinstance(value, str) else value)

    return "/" + re.sub(r"<(?:(\w+):)?(\w+)>", sample, route)


def _resolve(data: Any, values: dict[str, Any]) -> Any:
    if isinstance(data, dict):
        return {k: _resolve(v, values) for k, v in data.items()}
    if isinstance(data, list):
        return [_resolve(v, values) for v in data]
    return values.get(data, data) if isinstance(data, str) else data


def _send(client: Client, auth: dict[str, str], method: str, url: str, data: Any) -> Any:
    call = getattr(client, method.split()[0].lower())
    headers = auth if url.startswith("/api/") else {}
    if isinstance(data, dict) and "__json__" in data:
        return call(url, data["__json__"], content_type="application/json", **headers)
    if method.startswith("POST"):
        return call(url, data or {}, **headers)
    return call(url, **headers)


# --- the database before and after -----------------------------------------------------------------------


def snapshot() -> dict[str, list[dict[str, Any]]]:
    """Every row of the studio's own tables (and the users), as values."""
    models = [*apps.get_app_config("catalog_app").get_models(), *apps.get_app_config("orchestrator").get_models(),
              get_user_model()]
    return {m._meta.label: list(m.objects.order_by("pk").values()) for m in models}


def changed_tables(before: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The tables whose rows differ from `before`."""
    after = snapshot()
    return [label for label in before if before[label] != after[label]]


@dataclass
class Outcome:
    status: int
    location: str
    body: str
    changed: list[str]


def attempt(world: World, role: str, route: str, method: str, case: Case, *, compare: bool = True) -> Outcome:
    """Send the case's request as `role` in a savepoint rolled back after it; what changed is read before."""
    client, auth = world.clients[role]
    url = _url(route, case.kwargs, world.values)
    with transaction.atomic():
        response = _send(client, auth, method, url, _resolve(case.data, world.values))
        changed = changed_tables(world.baseline) if compare else []
        transaction.set_rollback(True)
    cache.clear()
    return Outcome(response.status_code, response.get("Location", ""), response.content.decode(errors="replace"),
                   changed)


# --- the tests -----------------------------------------------------------------------------------------------


def test_every_write_route_is_classified(world):
    """Probe every route with every writing method as an admin: whatever is not a 405 must be in CASES."""
    client, auth = world.clients["admin"]
    unclassified = []
    for route in studio_routes():
        for method in METHODS:
            if any(key[0] == route and key[1].split()[0] in (method, ANY) for key in CASES):
                continue
            with transaction.atomic():
                response = _send(client, auth, method, _url(route, {}, world.values), None)
                transaction.set_rollback(True)
            if response.status_code != 405:
                unclassified.append(f"{method} /{route} answered {response.status_code}")
    cache.clear()
    assert not unclassified, "classify these in CASES:\n" + "\n".join(unclassified)


def test_every_classified_route_still_exists():
    routes = set(studio_routes())
    assert not [key for key in CASES if key[0] not in routes]


def test_every_action_of_the_assistants_screen_is_walked():
    walked = {key[1].split()[1] for key in CASES if key[0].startswith("catalogs/<slug:slug>/assistants/<slug:key>")}
    assert walked == set(ASSISTANT_ACTIONS)


def test_every_action_of_the_table_is_walked():
    assert {case.kind for case in CASES.values()} >= set(Action)


WRITES = [(route, method, case) for (route, method), case in CASES.items() if isinstance(case.kind, Action)]


def _is_login_redirect(outcome: Outcome) -> bool:
    return outcome.status == 302 and outcome.location.startswith("/accounts/login/")


def refusals(world: World, route: str, method: str, case: Case) -> list[str]:
    """What goes wrong with one write tried by the four callers (nothing, when all is well)."""
    wrong: list[str] = []
    api = route.startswith("api/")
    anonymous = attempt(world, "anonymous", route, method, case)
    if not ((anonymous.status == 401) if api else _is_login_redirect(anonymous)) or anonymous.changed:
        wrong.append(f"anonymous: {anonymous.status} {anonymous.location} changed {anonymous.changed}")

    outsider = attempt(world, "outsider", route, method, case)
    if "<" in route:  # another workspace's catalog, assistant or job does not exist for them
        if outsider.status not in (403, 404) or outsider.changed:
            wrong.append(f"outsider: {outsider.status} changed {outsider.changed}")
    elif outsider.status >= 500:  # they act in their own workspace
        wrong.append(f"outsider: {outsider.status}")

    analyst = attempt(world, "analyst", route, method, case)
    if MINIMUM_ROLE[case.kind] == Role.ADMIN:
        page = ('"errors": []' in analyst.body and "only an admin of the workspace" in analyst.body) if api else \
            "You cannot do that here" in analyst.body  # the API's error shape; the studio's 403 page
        if analyst.status != 403 or analyst.changed or not page:
            wrong.append(f"analyst: {analyst.status} changed {analyst.changed}: {analyst.body[:200]}")
    elif analyst.status in (401, 403) or analyst.status >= 500:
        wrong.append(f"analyst: {analyst.status}: {analyst.body[:200]}")

    admin = attempt(world, "admin", route, method, case, compare=case.writes)
    if admin.status in (401, 403) or admin.status >= 500:
        wrong.append(f"admin: {admin.status}: {admin.body[:200]}")
    elif case.writes and not admin.changed:  # the same request is a real write for an admin
        wrong.append(f"admin: {admin.status}, nothing written: {admin.body[:200]}")
    return [f"{method} /{route}: {text}" for text in wrong]


def test_each_role_gets_what_its_role_allows(world):
    """Anonymous callers log in first, other workspaces see nothing, analysts are refused the admins'
    actions with a 403 and no change, and the same requests are real writes for an admin."""
    wrong = [text for route, method, case in WRITES for text in refusals(world, route, method, case)]
    assert not wrong, "\n".join(wrong)


def test_reads_and_the_widget_store_nothing_for_any_role(world):
    others = [(route, method, case) for (route, method), case in CASES.items() if case.kind == READ]
    for route, method, case in others:
        for role in ("anonymous", "outsider", "analyst", "admin"):
            outcome = attempt(world, role, route, method, case)
            assert outcome.changed == [], (route, role)
            assert outcome.status < 500, (route, role, outcome.status)

