"""What a request may see: the caller's workspace and the catalog versions in it.

Pages answer 403/404 with Django's exceptions, the API with ninja's HttpError; both apps use
these so that "another workspace's catalog is a 404" holds everywhere the same way.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from ninja.errors import HttpError

from orchestrator.engine.errors import UnknownName

from .models import CatalogVersion, Workspace
from .selectors import (
    catalog_get,
    version_get,
    version_latest,
    version_list,
    version_live,
    version_live_pks,
    version_newest_promoted,
    version_spec,
    workspace_for_user,
)

NOT_A_MEMBER = "you are not a member of any workspace"


def page_workspace(request: HttpRequest) -> Workspace:
    workspace = workspace_for_user(user=request.user)
    if workspace is None:
        raise PermissionDenied(NOT_A_MEMBER)
    return workspace


def posted_version(request: HttpRequest) -> int | None:
    """The version a posted form was drawn for (its `version` field), for `page_version_context`."""
    posted = request.POST.get("version", "")
    return int(posted) if posted.isdigit() else None


def page_version_context(request: HttpRequest, slug: str, tab: str, number: int | None = None) -> dict[str, Any]:
    """The catalog, its versions and the version asked for (`number`, `?version=N`, else the latest)."""
    try:
        catalog = catalog_get(workspace=page_workspace(request), slug=slug)
        if number is None:
            asked = request.GET.get("version", "")
            if asked and not asked.isdigit():
                raise UnknownName(f"version of catalog '{slug}'", asked)
            number = int(asked) if asked else None
        version = version_get(catalog=catalog, number=number) if number is not None else version_latest(catalog=catalog)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
    if version is None:
        raise Http404(f"catalog '{slug}' has no versions")
    return {
        "catalog": catalog,
        "version": version,
        "versions": version_list(catalog=catalog),
        "live": version_live(catalog=catalog),
        "live_pks": version_live_pks(catalog=catalog),
        "newest_promoted": version_newest_promoted(catalog=catalog),
        "spec": version_spec(version=version),
        "tab": tab,
    }


def api_workspace(request: HttpRequest) -> Workspace:
    workspace = workspace_for_user(user=request.auth)  # type: ignore[attr-defined]
    if workspace is None:
        raise HttpError(403, NOT_A_MEMBER)
    return workspace


def api_version(request: HttpRequest, slug: str, number: int | None) -> CatalogVersion:
    """Version `number` of the caller's catalog `slug`, else its latest; 404 when there is none."""
    try:
        catalog = catalog_get(workspace=api_workspace(request), slug=slug)
        found = version_latest(catalog=catalog) if number is None else version_get(catalog=catalog, number=number)
    except UnknownName as exc:
        raise HttpError(404, str(exc)) from exc
    if found is None:
        raise HttpError(404, f"catalog '{slug}' has no versions")
    return found
