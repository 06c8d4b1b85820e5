"""Celery tasks: each only calls a service or selector (the worker is another front door)."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from catalog_app.models import CatalogVersion
from catalog_app.planning import version_plans


@shared_task(acks_late=True)
def version_check_plans(version_id: int) -> dict[str, dict[str, Any]]:
    """Plan every intent of a version: the check a promotion needs. Idempotent: it only reads."""
    version = CatalogVersion.objects.get(pk=version_id)
    report: dict[str, dict[str, Any]] = {}
    for intent, result in version_plans(version=version).items():
        if result.solved:
            report[intent] = {"solved": True, "cost": result.cost, "lines": result.lines}
        else:
            report[intent] = {"solved": False, "message": result.message}
    return report
