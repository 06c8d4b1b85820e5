"""Data of the orchestrator app, one section per feature.

Writes go through the services of each section (for trajectory analysis:
`orchestrator.validation_services`).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models

from catalog_app.models import CatalogVersion, Workspace

# --- trajectory analysis: offline batches of recorded tool calls (issue 6) ------------------------


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
    # (`orchestrator.analysis_job_services`).
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


# --- live assistants: chat sessions, transcripts, traces and the share audit (issue 3) ------------
# Writes go through `orchestrator.chat_services`, reads through `orchestrator.chat_selectors`.


class AssistantMode(models.TextChoices):
    PLANNER = "planner", "Planner orchestrator"
    S3 = "s3", "S3 orchestrator (score, select, sequence)"


class Assistant(models.Model):
    """A catalog version published to end users under a key the chat widget carries."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="assistants")
    name = models.CharField(max_length=200)
    # PROTECT: a version that conversations ran on keeps their audit trail readable.
    catalog_version = models.ForeignKey(CatalogVersion, on_delete=models.PROTECT, related_name="assistants")
    mode = models.CharField(max_length=16, choices=AssistantMode.choices, default=AssistantMode.PLANNER)
    # Publishable (it is in the page that embeds the widget), so it identifies, never authorizes.
    key = models.SlugField(max_length=64, unique=True)
    allowed_origins = models.JSONField(default=list, blank=True)  # e.g. ["https://shop.example.com"]
    # How long a session's values (its state) are kept after its last message; then
    # `manage.py purge_sessions` drops them (`orchestrator.session_vault`).
    state_retention_hours = models.PositiveIntegerField(default=24, validators=[MinValueValidator(1)])
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("key",)

    def __str__(self) -> str:
        return self.key


class ChatSession(models.Model):
    # A random UUID: the session id is all a widget needs to continue, so it must not be guessable.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    assistant = models.ForeignKey(Assistant, on_delete=models.CASCADE, related_name="sessions")
    # The engine's SessionState, real values included (the runtime needs them): sealed with Fernet,
    # `{"sealed": token}`, or `{"purged": true}` once the retention passed (`session_vault`).
    state = models.JSONField(default=dict)
    # Lines of the transcript and of the trace so far: the next positions, read under the row lock.
    message_count = models.PositiveIntegerField(default=0)
    trace_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-updated_at",)

    def __str__(self) -> str:
        return f"session {self.id} of {self.assistant_id}"


class MessageRole(models.TextChoices):
    USER = "user", "User"
    ASSISTANT = "assistant", "Assistant"


class Message(models.Model):
    """One line of a transcript; sensitive values are masked before it is stored."""

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="messages")
    position = models.PositiveIntegerField()
    role = models.CharField(max_length=16, choices=MessageRole.choices)
    kind = models.CharField(max_length=16)  # a reply kind (text, question, consent, ...) or "user"
    text = models.TextField()
    data = models.JSONField(default=dict, blank=True)  # the reply as the API gave it, masked
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("session_id", "position")
        constraints = (models.UniqueConstraint(fields=["session", "position"], name="message_unique_position"),)

    def __str__(self) -> str:
        return f"{self.session_id} #{self.position} {self.role}"


class TraceKind(models.TextChoices):
    PLAN = "plan", "Plan"
    EXECUTION = "execution", "Execution"
    SHARE = "share", "Share"


class TraceEvent(models.Model):
    """What the orchestrator did in a turn, for the inspector: plans made or given up, skill calls."""

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="trace")
    position = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=TraceKind.choices)
    data = models.JSONField(default=dict)  # masked like the transcript
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("session_id", "position")
        constraints = (models.UniqueConstraint(fields=["session", "position"], name="trace_unique_position"),)

    def __str__(self) -> str:
        return f"{self.session_id} #{self.position} {self.kind}"


class ShareAudit(models.Model):
    """A sensitive value went to a skill, under a consent: the audit log admins read.

    The value itself is never stored; the session (and through it the assistant and workspace)
    says whose it was.
    """

    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="shares")
    assistant = models.ForeignKey(Assistant, on_delete=models.CASCADE, related_name="shares")
    element = models.CharField(max_length=64)
    skill = models.CharField(max_length=64)
    consent = models.CharField(max_length=64)  # the skill (per skill) or element (per element) authorized
    step = models.PositiveIntegerField()  # the skill call in the session's history
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("created_at", "pk")

    def __str__(self) -> str:
        return f"{self.element} -> {self.skill} ({self.session_id})"
