"""Studio pages of scenarios (login required): write who the users are and how the skills really behave.

- `/catalogs/<slug>/scenarios/`: the catalog's scenarios, with their revisions (each names the catalog
  version it was checked against);
- `/catalogs/<slug>/scenarios/edit/?name=N` (a stored one; `&revision=K` one of its earlier revisions,
  opened to restore: saving it makes it the newest revision), `?generate=1` (the default scenario made
  from the catalog) or neither (a blank one): the form;
- `/catalogs/<slug>/scenarios/save/` (POST): checked by the engine as the API and the command line
  check a scenario; a fault is shown at its field and nothing is saved.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from catalog_app.access import page_version_context, posted_version
from catalog_app.permissions import Action, is_allowed
from catalog_app.selectors import version_spec
from catalog_app.views.common import HtmxHttpRequest, render_page
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.simulation.default_scenario import default_scenario, values_needed
from orchestrator.simulation.models import ScenarioRevision, SimulationScenario
from orchestrator.simulation.scenario_form import form_sections, scenario_from_post
from orchestrator.simulation.selectors import scenario_list
from orchestrator.simulation.services import scenario_save

TEMPLATE = "orchestrator/simulations/scenario_form.html"


@require_GET
@login_required
def scenario_index_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "scenarios")
    scenarios = list(scenario_list(catalog=context["catalog"]).prefetch_related("revisions__version"))
    saved = next((s for s in scenarios if s.name == request.GET.get("saved")), None)
    return render_page(request, "orchestrator/simulations/scenarios.html",
                       {**context, "scenarios": scenarios, "saved": saved})


@require_GET
@login_required
def scenario_edit_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "scenarios")
    spec = version_spec(version=context["version"])
    name = request.GET.get("name", "")
    data: dict[str, Any] = {}
    note = ""
    if name:
        stored = SimulationScenario.objects.filter(catalog=context["catalog"], name=name).first()
        if stored is None:
            raise Http404(f"unknown scenario '{name}'")
        data = stored.data
        if request.GET.get("revision"):
            revision = _revision(stored, request.GET["revision"])
            data = revision.data
            checked = f"checked against version {revision.version.number}" if revision.version else "saved"
            note = (f"Revision {revision.number} of '{name}' ({checked} on {revision.created_at:%Y-%m-%d %H:%M}). "
                    "Saving it makes it the scenario again, as a new revision; the revisions in between are kept.")
    elif request.GET.get("generate"):
        data = default_scenario(spec)
        needed = values_needed(spec)
        note = ("Generated from the catalog: every intent alike, the skills as the spec says. "
                + (f"Give a few values of {', '.join(needed)}: they cannot be generated from their format."
                   if needed else "Save it to simulate at once."))
    return render_page(request, TEMPLATE, {**context, **_form_context(request, context), "note": note,
                                           "sections": form_sections(spec, data)})


@require_POST
@login_required
def scenario_save_view(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "scenarios", posted_version(request))
    spec = version_spec(version=context["version"])
    data, errors = scenario_from_post(spec, request.POST)
    if data is not None:
        try:
            stored = scenario_save(catalog=context["catalog"], data=data, version=context["version"],
                                   user=request.user)
        except ConcertoError as exc:
            errors = {"": [str(issue) for issue in exc.issues]}
        else:
            return redirect(reverse("orchestrator:scenarios", args=[slug])
                            + f"?version={context['version'].number}&saved={stored.name}")
    sections = form_sections(spec, post=request.POST, errors=errors)
    return render(request, TEMPLATE, {**context, **_form_context(request, context), "sections": sections,
                                      "form_errors": errors.get("", []), "note": ""}, status=422)



def _revision(stored: SimulationScenario, number: str) -> ScenarioRevision:
    revision = stored.revisions.filter(number=int(number)).select_related("version").first() \
        if number.isdigit() else None
    if revision is None:
        raise Http404(f"scenario '{stored.name}' has no revision '{number}'")
    return revision


def _form_context(request: HtmxHttpRequest, context: dict[str, Any]) -> dict[str, Any]:
    return {"can_save": is_allowed(request.user, context["catalog"].workspace, Action.SCENARIO_SAVE)}
