"""The studio's intent tester: which intent a phrase would start, with what score and why, as the chat
decides, beside the thresholds fitted on this catalog."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from catalog_app.access import page_version_context
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.runtime.intents import IntentMatcher

MAX_PHRASE = 500
WAIT = 2.0  # seconds the tester waits for a large catalog's thresholds before answering with others


def intent_trial(*, spec: CatalogSpec, phrase: str) -> dict[str, Any]:
    """The chat's decision on `phrase` for `spec` with its reason, every intent's score, best first, and the
    catalog's thresholds (refuse, start, lead) with what they were fitted on."""
    phrase = phrase.strip()[:MAX_PHRASE]
    if not phrase or not spec.intents:
        return {"phrase": phrase, "decision": None, "rows": []}
    # Fitted once per catalog content, shared with the chat; the thresholds of a large catalog just edited
    # are fitted aside, and the answer says which ones it used meanwhile.
    matcher = IntentMatcher(spec, wait=WAIT)
    decision = matcher.decide(phrase)
    described = {i.name: i.description for i in spec.intents}
    closest = matcher.closest(phrase)
    rows = [{"intent": g.intent, "description": described.get(g.intent, ""), "score": round(g.score, 2),
             "percent": round(g.score * 100), "closest": _source(closest.get(g.intent))}
            for g in decision.ranked]
    return {"phrase": phrase, "decision": decision, "rows": rows, "calibration": matcher.calibration,
            "provisional": matcher.provisional}


def _source(closest: tuple[str, float, bool] | None) -> tuple[str, str] | None:
    """The phrase a score rests on and where it comes from, so that analysts see whether it is one of
    their examples or only the catalog's descriptions."""
    if closest is None:
        return None
    phrase, _, example = closest
    return phrase, "an example" if example else "the catalog's descriptions"


@require_GET
@login_required
def intent_try_fragment(request: HttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "edit")
    context.update(intent_trial(spec=context["spec"], phrase=request.GET.get("phrase", "")))
    return render(request, "catalog_app/intent_try.html", context)
