"""Learning: refinements mined from traces, reviewed by admins, and the jobs that learn them.

Writes go through `orchestrator.learning.services`, reads through `orchestrator.learning.selectors`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from catalog_app.models import Catalog, CatalogVersion
from orchestrator.jobs.models import Job
from orchestrator.simulation.models import SimulationRun


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


class LearningJob(Job):
    """One "learn from these conversations" request, run by a Celery worker; the page polls its status.

    Imported trajectories are stored as uploaded (decoded JSON), so a redelivered job reads the same
    input; proposing again refreshes the pending refinements it made, so a job run twice queues each once.
    The learner reports no progress: a thread keeps the heartbeat while it works.
    """

    catalog = models.ForeignKey(Catalog, on_delete=models.CASCADE, related_name="learning_jobs")
    run = models.ForeignKey(SimulationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    sessions = models.BooleanField(default=False)
    trajectories = models.JSONField(null=True, blank=True)
    trajectories_name = models.CharField(max_length=200, blank=True)
    proposed = models.PositiveIntegerField(default=0)

    heavy_fields = ("trajectories",)

    class Meta:
        ordering = ("-created_at", "-pk")

    def __str__(self) -> str:
        return f"learning job {self.pk} of {self.catalog.slug} ({self.status})"


class SandboxVersion(models.Model):
    """A draft made with refinements no admin accepted (a cold-start campaign's simulation-only sandbox).

    The promotion gate (`learning.sandbox.sandbox_gate`) refuses it, and any version holding one of its
    `changes` ([{key, change}]) until an admin accepts that refinement; reviewed drafts are never built on it.
    """

    version = models.OneToOneField(CatalogVersion, on_delete=models.CASCADE, related_name="sandbox")
    source = models.CharField(max_length=200)  # who made it: "cold-start campaign 3"
    changes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"sandbox {self.version} ({self.source})"
