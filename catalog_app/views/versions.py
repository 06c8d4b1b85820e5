"""Versions of a catalog: new draft or roll back, readable diffs, promotion (admins), export."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from orchestrator.engine.catalog.diff import diff_catalogs
from orchestrator.engine.catalog.spec_io import MEDIA_TYPES
from orchestrator.engine.errors import ConcertoError, UnknownName

from .. import editing
from .. import forms as studio_forms
from ..access import page_version_context
from ..catalog_files import catalog_file_dump
from ..permissions import Action, check_allowed, is_allowed
from ..promotion import promotion_refusal, promotion_summary
from ..selectors import (
    version_get,
    version_spec,
)
from ..services import version_create_draft
from .common import HtmxHttpRequest, catalog_or_404, htmx_redirect, readable, render_page


@require_GET
@login_required
@vary_on_headers("HX-Request")
def versions_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = versions_context(request, slug)
    return render_page(request, "catalog_app/versions.html", context)


def versions_context(request: HttpRequest, slug: str) -> dict:
    context = page_version_context(request, slug, "versions")
    versions = list(context["versions"])
    context.update(
        is_admin=is_allowed(request.user, context["catalog"].workspace, Action.VERSION_PROMOTE),
        import_form=studio_forms.UploadForm(prefix="import"),
        older_than_promoted={v.pk for v in versions
                             if promotion_refusal(version=v, live=context["newest_promoted"])},
        diff_form=studio_forms.DiffForm(initial={
            "old": versions[1].number if len(versions) > 1 else versions[0].number, "new": versions[0].number}),
    )
    return context


@require_GET
@login_required
def version_diff_fragment(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    catalog = catalog_or_404(request, slug)
    form = studio_forms.DiffForm(request.GET)
    changes, error = [], ""
    if form.is_valid():
        try:
            old = version_get(catalog=catalog, number=form.cleaned_data["old"])
            new = version_get(catalog=catalog, number=form.cleaned_data["new"])
        except UnknownName as exc:
            error = str(exc)
        else:
            changes = diff_catalogs(version_spec(version=old), version_spec(version=new))
    else:
        error = "Choose two versions."
    context = {"changes": changes, "diff_error": error, "diff_form": form, "catalog": catalog}
    status = 200 if not error else 422
    return render(request, "catalog_app/versions.html#diff", context, status=status)


@require_POST
@login_required
def version_draft_view(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    """A new draft from any version: saving a copy, or rolling back to an older one."""
    context = page_version_context(request, slug, "versions", number)
    draft = version_create_draft(version=context["version"], user=request.user)
    messages.success(request, f"Version {draft.number} is a new draft with the content of version {number}.")
    return htmx_redirect(request, reverse("catalog:edit", args=[slug]))


@require_GET
@login_required
def version_promote_confirm_page(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    """Before promoting: what changes from the live version, which plans change, what is wrong."""
    context = page_version_context(request, slug, "versions", number)
    check_allowed(request.user, context["catalog"].workspace, Action.VERSION_PROMOTE)
    if not context["version"].is_draft:
        raise Http404(f"version {number} is not a draft")
    context["summary"] = promotion_summary(version=context["version"])
    return render_page(request, "catalog_app/promote.html", context)


@require_POST
@login_required
def version_promote_view(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    context = page_version_context(request, slug, "versions", number)
    try:  # the service checks the role; its NotAllowed is not a ConcertoError and becomes the 403 page
        version = editing.version_promote_checked(version=context["version"], user=request.user)
    except ConcertoError as exc:
        messages.error(request, readable(f"Version {number} was not promoted: {exc}"))
    else:
        messages.success(request, f"Version {version.number} is promoted: it can no longer change, and "
                                  "assistants can run it (publish or switch them on the Assistants screen).")
    return htmx_redirect(request, reverse("catalog:versions", args=[slug]))


@require_GET
@login_required
def export_view(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "versions")
    fmt = request.GET.get("format", "yaml")
    if fmt not in MEDIA_TYPES:
        raise Http404(f"unknown format '{fmt}' (yaml or json)")
    version = context["version"]
    response = HttpResponse(catalog_file_dump(version=version, fmt=fmt, spec=context["spec"]),
                            content_type=MEDIA_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{slug}-v{version.number}.{fmt}"'
    return response

