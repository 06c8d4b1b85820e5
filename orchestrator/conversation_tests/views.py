"""Studio pages of conversation tests (login required; any member saves, edits and runs; admins set the gate).

- `/catalogs/<slug>/tests/?version=N`: the catalog's tests, "run all on vN" and the latest run's
  table (pass/fail and the first difference);
- `/catalogs/<slug>/tests/<id>/`: the edit form (one row per turn), delete;
- `/catalogs/<slug>/tests/save/`: the test chat's "Save as test" (an htmx fragment in its panel);
- `/catalogs/<slug>/tests/gate/?version=N`: the promotion page's fragment (loaded by URL, as the
  editor loads the test chat: the learning feature does not import this one) with the latest run
  and the admins' "require the tests to pass" switch (`/catalogs/<slug>/tests/policy/`).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from catalog_app.access import page_version_context, page_workspace
from catalog_app.permissions import Action, is_allowed
from catalog_app.selectors import catalog_get
from orchestrator.chat.selectors import session_get
from orchestrator.engine.errors import ConcertoError, UnknownName

from .checks import EXPECTATIONS
from .forms import turn_rows, turns_from_post
from .models import ConversationTest
from .selectors import conversation_test_get, conversation_test_list, policy_required, run_latest
from .services import (
    conversation_test_delete,
    conversation_test_from_session,
    conversation_test_update,
    conversation_tests_policy_set,
    conversation_tests_run,
)

TEMPLATE = "orchestrator/conversation_tests/tests.html"


def _version_number(request: HttpRequest) -> int | None:
    text = request.POST.get("version", "") or request.GET.get("version", "")
    return int(text) if text.isdigit() else None


def _page(slug: str, number: int) -> str:
    return f"{reverse('orchestrator:conversation_tests', args=[slug])}?version={number}"


def _back(request: HttpRequest, default: str) -> str:
    """Where a form of the promotion fragment returns: the page it was shown on (the planner's
    Promotion page or a version's promotion summary), if that is a page of this site."""
    back = request.POST.get("back", "")
    if back and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()},
                                                require_https=request.is_secure()):
        return back
    return default


@require_GET
@login_required
def tests_page(request: HttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "tests")
    return render(request, TEMPLATE, {
        **context, "tests": conversation_test_list(catalog=context["catalog"]),
        "run": run_latest(version=context["version"]),
        "required": policy_required(catalog=context["catalog"])})


@require_POST
@login_required
def tests_run_view(request: HttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "tests", _version_number(request))
    run = conversation_tests_run(version=context["version"], user=request.user)
    messages.info(request, f"{run.passed} passed, {run.failed} failed on v{context['version'].number}.")
    return redirect(_back(request, _page(slug, context["version"].number)))


def _test(context: dict, pk: int) -> ConversationTest:
    found = conversation_test_get(catalog=context["catalog"], pk=pk)
    if found is None:
        raise Http404(f"catalog '{context['catalog'].slug}' has no conversation test {pk}")
    return found


@require_http_methods(["GET", "POST"])
@login_required
def conversation_test_page(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    context = page_version_context(request, slug, "tests", _version_number(request))
    test = _test(context, pk)
    problem, turns = "", test.turns
    if request.method == "POST":
        turns = turns_from_post(request.POST)
        try:
            conversation_test_update(test=test, user=request.user, name=request.POST.get("name", test.name),
                                     mode=request.POST.get("mode", test.mode), turns=turns)
        except ConcertoError as exc:
            problem = f"{exc.path}: {exc}" if exc.path else str(exc)
        else:
            messages.success(request, f"Saved test '{test.name}'.")
            return redirect(_page(slug, context["version"].number))
    return render(request, "orchestrator/conversation_tests/edit.html", {
        **context, "test": test, "rows": turn_rows(turns), "problem": problem, "expectations": EXPECTATIONS})


@require_POST
@login_required
def conversation_test_delete_view(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    context = page_version_context(request, slug, "tests", _version_number(request))
    test = _test(context, pk)
    conversation_test_delete(test=test, user=request.user)
    messages.success(request, f"Deleted test '{test.name}'.")
    return redirect(_page(slug, context["version"].number))


@require_POST
@login_required
def conversation_test_save_view(request: HttpRequest, slug: str) -> HttpResponse:
    """The test chat's "Save as test": the panel's session becomes a test; a fragment says so."""
    workspace = page_workspace(request)
    try:  # another workspace's catalog does not exist for the caller, as on every page of a catalog
        catalog = catalog_get(workspace=workspace, slug=slug)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
    session_id = request.POST.get("session", "")
    session = session_get(session_id=session_id, workspace=workspace) if session_id else None
    if session is not None and (not session.is_test or session.assistant.catalog_version.catalog_id != catalog.pk):
        raise Http404(f"unknown test session '{session_id}'")
    try:
        if session is None:
            raise ConcertoError("say something in the test chat first: the conversation is empty")
        test = conversation_test_from_session(session=session, name=request.POST.get("name", ""), user=request.user)
    except ConcertoError as exc:
        return render(request, TEMPLATE + "#save-result", {"problem": str(exc)})
    return render(request, TEMPLATE + "#save-result", {"test": test, "catalog": test.catalog,
                                                        "version": session.assistant.catalog_version})


@require_GET
@login_required
def tests_gate_fragment(request: HttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "promotion")
    catalog = context["catalog"]
    return render(request, TEMPLATE + "#gate", {
        **context, "tests": conversation_test_list(catalog=catalog), "run": run_latest(version=context["version"]),
        "required": policy_required(catalog=catalog),
        "is_admin": is_allowed(request.user, catalog.workspace, Action.CONVERSATION_TEST_GATE),
        "back": request.headers.get("HX-Current-URL", "")})


@require_POST
@login_required
def tests_policy_view(request: HttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "promotion", _version_number(request))
    # An analyst's refusal is a NotAllowed, a PermissionDenied: Django's 403 page.
    conversation_tests_policy_set(catalog=context["catalog"], required=request.POST.get("required") == "on",
                                  user=request.user)
    return redirect(_back(request, f"{reverse('orchestrator:promotion', args=[slug])}"
                                   f"?version={context['version'].number}"))
