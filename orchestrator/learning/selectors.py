"""Reads of the review queue: a catalog's refinements, grouped by the skill, element or intent they change."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from django.db.models import Q, QuerySet
from django.urls import reverse

from catalog_app.models import Catalog
from orchestrator.learning.models import LearningJob, Refinement, RefinementStatus


def refinement_list(*, catalog: Catalog, status: str | None = RefinementStatus.PENDING) -> QuerySet[Refinement]:
    rows = Refinement.objects.filter(catalog=catalog).select_related("version", "draft", "decided_by")
    return rows.filter(status=status) if status else rows


def learning_job_get(*, catalog: Catalog, pk: int) -> LearningJob | None:
    """A learning job of `catalog`, for its status: the uploaded trajectories (megabytes, perhaps) are
    left unread, as the progress poll never shows them; `has_trajectories` says whether there were any."""
    return (LearningJob.objects.filter(pk=pk, catalog=catalog).defer("trajectories")
            .annotate(has_trajectories=Q(trajectories__isnull=False)).first())


def refinement_groups(*, catalog: Catalog) -> list[tuple[str, list[Refinement]]]:
    """Pending refinements by subject (skill, element or intent), in the queue's order."""
    rows = list(refinement_list(catalog=catalog))
    return [(subject, list(items)) for subject, items in groupby(rows, key=lambda r: r.subject)]


def evidence_links(refinement: Refinement) -> list[dict[str, Any]]:
    """The example conversations of a refinement, each with its page in the inspector."""
    links = []
    for ident in refinement.evidence.get("conversations", []):
        kind, _, rest = str(ident).partition(":")
        if kind == "run":
            run, _, index = rest.partition(":")
            url = reverse("orchestrator:simulated_conversation", args=[int(run), int(index)])
            links.append({"label": f"run {run} #{index}", "url": url})
        elif kind == "session":
            links.append({"label": f"session {rest[:8]}", "url": reverse("orchestrator:session", args=[rest])})
        else:
            links.append({"label": str(ident), "url": ""})
    return links
