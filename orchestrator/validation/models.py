"""Trajectory analysis: offline batches of recorded tool calls, each analysed by a job.

Writes go through `orchestrator.validation.services`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from catalog_app.models import CatalogVersion, Workspace


class AnalysisStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class TrajectoryAnalysis(models.Model):
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
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Written by the worker with its progress: a running job without a recent one has lost its worker
    # (`orchestrator.validation.analysis_jobs`).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=AnalysisStatus.choices, default=AnalysisStatus.QUEUED)
    samples = models.JSONField()
    tools = models.JSONField(null=True, blank=True)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    report = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ("-created_at", "-pk")
        verbose_name_plural = "trajectory analyses"

    def __str__(self) -> str:
        return f"analysis {self.pk} ({self.status})"

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else (100 if self.finished else 0)

    @property
    def finished(self) -> bool:
        return self.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED)

    @property
    def silent_seconds(self) -> int | None:
        """Seconds since a running job's last sign of life; None unless it is running and gave one."""
        from django.utils import timezone

        last = self.heartbeat_at or self.started_at
        if self.status != AnalysisStatus.RUNNING or last is None:
            return None
        return int((timezone.now() - last).total_seconds())

    @property
    def stalled(self) -> bool:
        """Running, but its worker has not written for longer than CONCERTO_JOB_STALE_SECONDS (or ever)."""
        if self.status != AnalysisStatus.RUNNING:
            return False
        silent = self.silent_seconds
        return silent is None or silent > settings.CONCERTO_JOB_STALE_SECONDS
