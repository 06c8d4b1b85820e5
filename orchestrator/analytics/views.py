"""The analytics page of a published assistant (login required, own workspace only), and its one action.

GET filters by start version and days (`?version=N&since=YYYY-MM-DD&until=YYYY-MM-DD`); a bad filter
value is a message on the page, not an error. The "add as an example" form POSTs a request that was
not understood and redirects back (the page works without JavaScript).
"""

from __future__ import annotations

from datetime import date
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from catalog_app.access import page_version_context, page_workspace
from catalog_app.models import Catalog, CatalogVersion
from catalog_app.selectors import catalog_get, version_spec
from orchestrator.analytics.charts import analytics_charts
from orchestrator.analytics.selectors import Period, analytics_report, analytics_versions
from orchestrator.analytics.services import example_propose
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.selectors import assistant_list_for_catalog
from orchestrator.engine.errors import ConcertoError, UnknownName

TEMPLATE = "orchestrator/analytics/assistant.html"
FILTERS = ("version", "since", "until")


def _assistant(catalog: Catalog, key: str) -> Assistant:
    assistant = assistant_list_for_catalog(catalog=catalog).filter(key=key).first()
    if assistant is None:
        raise Http404(f"catalog '{catalog.slug}' has no assistant '{key}'")
    return assistant


def _day(request: HttpRequest, name: str, problems: list[str]) -> date | None:
    raw = request.GET.get(name, "").strip()
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        problems.append(f"'{raw}' is not a date (YYYY-MM-DD); the {name} filter is left out")
        return None


def _period(request: HttpRequest, assistant: Assistant, versions: list[CatalogVersion],
            problems: list[str]) -> Period:
    asked = request.GET.get("version", "").strip()
    version = next((v for v in versions if str(v.number) == asked), None)
    if asked and version is None:
        problems.append(f"no conversation started on version '{asked}'; all versions are shown")
    since, until = _day(request, "since", problems), _day(request, "until", problems)
    if since and until and since > until:
        problems.append("the first day is after the last; the days are swapped")
        since, until = until, since
    return Period(assistant=assistant, version=version, since=since, until=until)


@require_GET
@login_required
def analytics_page(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    # The catalog header shows the catalog's latest version: `?version` here filters conversations.
    catalog = _catalog(request, slug)
    context = page_version_context(request, slug, "assistants", number=catalog.versions.order_by("-number")
                                   .values_list("number", flat=True).first())
    assistant = _assistant(catalog, key)
    versions = analytics_versions(assistant=assistant)
    problems: list[str] = []
    period = _period(request, assistant, versions, problems)
    report = analytics_report(period=period)
    context.update(assistant=assistant, ran_versions=versions, report=report, problems=problems,
                   charts=analytics_charts(report), intents=[i.name for i in
                                                            version_spec(version=assistant.catalog_version).intents])
    return render(request, TEMPLATE, context)


@require_POST
@login_required
def analytics_example_view(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    catalog = _catalog(request, slug)
    assistant = _assistant(catalog, key)
    text, intent = request.POST.get("text", ""), request.POST.get("intent", "")
    try:
        refinement = example_propose(assistant=assistant, intent=intent, text=text, user=request.user)
    except ConcertoError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"'{refinement.change['value']}' is queued as an example of "
                                  f"{intent}: an admin accepts or rejects it in the review queue.")
    back = reverse("orchestrator:analytics", args=[catalog.slug, assistant.key])
    kept = {name: request.POST[name] for name in FILTERS if request.POST.get(name)}
    return redirect(f"{back}?{urlencode(kept)}" if kept else back)


def _catalog(request: HttpRequest, slug: str) -> Catalog:
    try:
        return catalog_get(workspace=page_workspace(request), slug=slug)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
