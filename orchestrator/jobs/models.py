"""What every background job's row holds: one status vocabulary, who holds it, its heartbeat and progress.

`Job` is abstract: each feature's job model (an analysis, a learning job, a simulation run) adds its
own input and output to these columns, and `orchestrator.jobs.runner` claims, beats, finishes,
cancels and re-queues any of them the same way.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


FINISHED = (JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED)


class Job(models.Model):
    """A unit of background work: queued, taken by one worker at a time, finished once."""

    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(default=timezone.now)  # created, or re-queued by an admin
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Written by the worker while it works: a running job without a recent one has lost its worker.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    done = models.PositiveIntegerField(default=0)  # units of progress (sequences, conversations)
    # Each claim writes a new holder; a worker whose job was taken over (or cancelled) finds its
    # holder gone and writes nothing more.
    holder = models.CharField(max_length=100, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)

    # Columns that can be megabytes (uploads, reports): lists and polls never read them.
    heavy_fields: tuple[str, ...] = ()

    class Meta:
        abstract = True

    @property
    def total(self) -> int:
        """The units of progress the job will do; 0 when it cannot tell."""
        return 0

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else (100 if self.finished else 0)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def silent_seconds(self) -> int | None:
        """Seconds since a running job's last sign of life; None unless it is running and gave one."""
        last = self.heartbeat_at or self.started_at
        if self.status != JobStatus.RUNNING or last is None:
            return None
        return int((timezone.now() - last).total_seconds())

    @property
    def stalled(self) -> bool:
        """Running, but its worker has not written for longer than CONCERTO_JOB_STALE_SECONDS (or ever)."""
        if self.status != JobStatus.RUNNING:
            return False
        silent = self.silent_seconds
        return silent is None or silent > settings.CONCERTO_JOB_STALE_SECONDS

    @property
    def queued_seconds(self) -> int | None:
        """Seconds a queued job has waited for a worker; None unless it is queued."""
        if self.status != JobStatus.QUEUED or self.queued_at is None:
            return None
        return int((timezone.now() - self.queued_at).total_seconds())

    @property
    def unclaimed(self) -> bool:
        """Queued for longer than a worker takes to notice: no worker is serving the queue (or the
        message was lost with the broker's data)."""
        waited = self.queued_seconds
        return waited is not None and waited > settings.CONCERTO_JOB_STALE_SECONDS

    @property
    def requeueable(self) -> bool:
        """A job an admin may put back in the queue: its worker is gone, no worker took it, or it failed."""
        return self.stalled or self.unclaimed or self.status == JobStatus.FAILED

    @property
    def waiting(self) -> str | None:
        """Why a job that is not finished is not moving, in the studio's words (no final stop, so a page
        can add what the reader may do); None when it is moving."""
        if self.unclaimed:
            return (f"Waiting for a worker: queued {self.queued_seconds} seconds ago and no worker has taken it "
                    "(is a worker running on this queue?)")
        if self.stalled:
            silent = self.silent_seconds
            return self.stalled_words("since it was taken" if silent is None else f"for {silent} seconds")
        return None

    def stalled_words(self, since: str) -> str:
        """What `waiting` says of a stalled job; `since` is how long it has been silent."""
        return (f"No sign of life from its worker {since}: the worker has probably stopped. The queue gives the "
                f"job to another worker after its visibility timeout (about {visibility_minutes()} minutes)")


def visibility_minutes() -> int:
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}) or {}
    return max(1, round(int(options.get("visibility_timeout", 3600)) / 60))
