"""Trajectory analysis: offline batches of recorded tool calls, each analysed by a job.

Writes go through `orchestrator.validation.services`.
"""

from __future__ import annotations

from django.db import models

from catalog_app.models import CatalogVersion, Workspace
from orchestrator.jobs.models import Job


class TrajectoryAnalysis(Job):
    """One batch of recorded sequences, analysed by a Celery job; the report is kept with it.

    The input is stored as uploaded (decoded JSON) so that a redelivered job recomputes the very
    same report: the job is idempotent and writes the report once, at the end.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="trajectory_analyses")
    # The catalog whose skills are the tools; null when the batch brings its own tool specs.
    version = models.ForeignKey(
        CatalogVersion, null=True, blank=True, on_delete=models.CASCADE, related_name="trajectory_analyses"
    )
    name = models.CharField(max_length=200, blank=True)
    samples = models.JSONField()
    tools = models.JSONField(null=True, blank=True)
    total = models.PositiveIntegerField(default=0)
    report = models.JSONField(null=True, blank=True)
    # The report's figures without its per-sequence part: what lists and polls show, so that they
    # never read a report of 10,000 sequences.
    figures = models.JSONField(null=True, blank=True)

    heavy_fields = ("samples", "tools", "report")

    class Meta:
        ordering = ("-created_at", "-pk")
        verbose_name_plural = "trajectory analyses"

    def __str__(self) -> str:
        return f"analysis {self.pk} ({self.status})"
