"""Data of the orchestrator app, one section per feature.

Writes go through the services of each section (for trajectory analysis:
`orchestrator.validation_services`).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from catalog_app.models import Catalog, CatalogVersion, Workspace

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
    # Publishing (issue 14): a disabled assistant answers nobody; its sessions and audit stay.
    enabled = models.BooleanField(default=True)
    # The studio's test chat on a draft (one per draft version): never reachable through the
    # public API, the only kind of assistant that may run a version that is not promoted.
    studio_test = models.BooleanField(default=False)

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
    # The message whose turn is running holds the lease until it writes its turn (or it lapses):
    # the turn runs outside any transaction, so this, not a row lock, keeps turns one at a time.
    lease_token = models.UUIDField(null=True, blank=True, editable=False)
    lease_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ("-updated_at",)

    def __str__(self) -> str:
        return f"session {self.id} of {self.assistant_id}"

    @property
    def is_test(self) -> bool:
        """A session of the studio's test chat (on a draft), not of a published assistant."""
        return self.assistant.studio_test


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
    # The widget's id of a user message (issue 14): a resend with the same id runs no second turn.
    client_id = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ("session_id", "position")
        constraints = (
            models.UniqueConstraint(fields=["session", "position"], name="message_unique_position"),
            models.UniqueConstraint(fields=["session", "client_id"], condition=~models.Q(client_id=""),
                                    name="message_unique_client_id"),
        )

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


# --- simulations: simulated conversations at scale (issue 12) ------------------------------------
# Writes go through `orchestrator.simulation_services`, reads through `orchestrator.simulation_selectors`.


class SimulationScenario(models.Model):
    """A scenario stored by name for a catalog: its simulated users and its skills' true behaviour."""

    catalog = models.ForeignKey(Catalog, on_delete=models.CASCADE, related_name="scenarios")
    name = models.SlugField(max_length=100)
    description = models.TextField(blank=True)
    data = models.JSONField()  # as `engine.simulation.scenario.scenario_to_data` writes it
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("catalog_id", "name")
        constraints = (models.UniqueConstraint(fields=["catalog", "name"], name="scenario_unique_name"),)

    def __str__(self) -> str:
        return f"{self.catalog.slug}/{self.name}"


class SimulationStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class SimulationRun(models.Model):
    """N simulated conversations of a catalog version under a scenario, computed in chunks by workers.

    The scenario is copied into the run, so a run can be computed again (and read) after its stored
    scenario changed. Conversation i depends only on (version, scenario, orchestrator, seed, i).
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="simulation_runs")
    version = models.ForeignKey(CatalogVersion, on_delete=models.CASCADE, related_name="simulation_runs")
    scenario = models.ForeignKey(SimulationScenario, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="runs")
    scenario_name = models.CharField(max_length=200)
    scenario_data = models.JSONField()
    differences = models.JSONField(default=list)  # the scenario's truths against the spec: the answer key
    orchestrator = models.CharField(max_length=16, choices=AssistantMode.choices, default=AssistantMode.PLANNER)
    conversations = models.PositiveIntegerField()
    seed = models.PositiveIntegerField(default=0)
    chunk_size = models.PositiveIntegerField(default=25)
    status = models.CharField(max_length=16, choices=SimulationStatus.choices, default=SimulationStatus.QUEUED)
    done = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    summary = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ("-created_at", "-pk")

    def __str__(self) -> str:
        return f"simulation {self.pk} ({self.status})"

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.conversations) if self.conversations else 100

    @property
    def finished(self) -> bool:
        return self.status in (SimulationStatus.DONE, SimulationStatus.FAILED, SimulationStatus.CANCELLED)


class SimulatedConversation(models.Model):
    """One simulated conversation: its masked transcript and trace (the live format), state and figures."""

    run = models.ForeignKey(SimulationRun, on_delete=models.CASCADE, related_name="results")
    index = models.PositiveIntegerField()
    intent = models.CharField(max_length=64)
    outcome = models.CharField(max_length=16)  # success | gave_up | stopped | stalled | failed
    success = models.BooleanField()
    turns = models.PositiveIntegerField()
    metrics = models.JSONField()
    transcript = models.JSONField()
    trace = models.JSONField()
    state = models.JSONField()  # the final session state, sensitive values masked
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("run_id", "index")
        # What makes a redelivered chunk harmless: conversation i of a run is stored once.
        constraints = (models.UniqueConstraint(fields=["run", "index"], name="simulated_conversation_unique"),)

    def __str__(self) -> str:
        return f"run {self.run_id} #{self.index}"


# --- learning: refinements mined from traces, reviewed by admins (issue 13) ------------------------
# Writes go through `orchestrator.learning_services`, reads through `orchestrator.learning_selectors`.


class RefinementStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class Refinement(models.Model):
    """A change to a catalog's spec the learner proposes, with its evidence; applied only when an admin accepts it.

    `change` is the engine's change (`engine.learning.refinements`), by name; `effects` the plan of
    every intent before and after it, against the version it was learned on.
    """

    catalog = models.ForeignKey(Catalog, on_delete=models.CASCADE, related_name="refinements")
    version = models.ForeignKey(CatalogVersion, on_delete=models.CASCADE, related_name="refinements")
    run = models.ForeignKey(SimulationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="refinements")
    source = models.CharField(max_length=40)  # "run", "sessions", "trajectories", or several joined by "+"
    kind = models.CharField(max_length=32)
    key = models.CharField(max_length=300)
    subject = models.CharField(max_length=100)  # the skill, element or intent the queue groups it under
    change = models.JSONField()
    summary = models.TextField()
    evidence = models.JSONField(default=dict, blank=True)
    confidence = models.FloatField()
    effects = models.JSONField(default=list, blank=True)
    breaks = models.BooleanField(default=False)  # it would leave an intent without a plan
    status = models.CharField(max_length=16, choices=RefinementStatus.choices, default=RefinementStatus.PENDING)
    edited = models.BooleanField(default=False)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    draft = models.ForeignKey(CatalogVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("subject", "kind", "key")
        # Learning again refreshes a pending refinement instead of queueing it twice.
        constraints = (models.UniqueConstraint(fields=["catalog", "key"], condition=models.Q(status="pending"),
                                               name="refinement_pending_unique"),)

    def __str__(self) -> str:
        return f"{self.catalog.slug}: {self.key} ({self.status})"


class LearningJob(models.Model):
    """One "learn from these conversations" request, run by a Celery worker; the page polls its status.

    Imported trajectories are stored as uploaded (decoded JSON), so a redelivered job reads the same
    input; proposing again refreshes the pending refinements it made, so a job run twice queues each once.
    """

    catalog = models.ForeignKey(Catalog, on_delete=models.CASCADE, related_name="learning_jobs")
    run = models.ForeignKey(SimulationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    sessions = models.BooleanField(default=False)
    trajectories = models.JSONField(null=True, blank=True)
    trajectories_name = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=16, choices=SimulationStatus.choices, default=SimulationStatus.QUEUED)
    proposed = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-pk")

    def __str__(self) -> str:
        return f"learning job {self.pk} of {self.catalog.slug} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (SimulationStatus.DONE, SimulationStatus.FAILED, SimulationStatus.CANCELLED)


class PromotionPolicy(models.Model):
    """What promoting a catalog's version to the planner orchestrator requires, beyond compiling and plans."""

    catalog = models.OneToOneField(Catalog, on_delete=models.CASCADE, related_name="promotion_policy")
    # The goal success rate (0..1) a simulation run of the version, with the planner, must reach; None: no run needed.
    simulation_threshold = models.FloatField(null=True, blank=True,
                                             validators=[MinValueValidator(0.0), MaxValueValidator(1.0)])

    def __str__(self) -> str:
        return f"{self.catalog.slug}: threshold {self.simulation_threshold}"
