"""Reads of publishing: a catalog's assistants and the versions they may run."""

from __future__ import annotations

from django.db.models import QuerySet

from catalog_app.models import Catalog, CatalogVersion, VersionStatus, Workspace
from orchestrator.assistants.models import Assistant


def assistant_list(*, workspace: Workspace) -> QuerySet[Assistant]:
    """Every assistant of the workspace, the studio's test assistants included."""
    return Assistant.objects.filter(workspace=workspace).select_related("catalog_version__catalog").order_by("key")


def assistant_list_for_catalog(*, catalog: Catalog) -> QuerySet[Assistant]:
    """The published assistants of `catalog` (the studio's test assistants are not published)."""
    return (Assistant.objects.filter(catalog_version__catalog=catalog, studio_test=False)
            .select_related("catalog_version__catalog").order_by("key"))


def version_promoted_list(*, catalog: Catalog) -> QuerySet[CatalogVersion]:
    """The versions an assistant may run, newest first."""
    return catalog.versions.filter(status=VersionStatus.PROMOTED).order_by("-number")


def version_promoted_latest(*, catalog: Catalog) -> CatalogVersion | None:
    return version_promoted_list(catalog=catalog).first()


def assistant_list_live_on(*, version: CatalogVersion) -> QuerySet[Assistant]:
    """The enabled, published assistants that run `version` (what "live" means on the studio's pages)."""
    return Assistant.objects.filter(catalog_version=version, studio_test=False, enabled=True).order_by("key")
