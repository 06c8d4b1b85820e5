"""Cold-start campaigns: rounds of simulate -> learn -> (review, or sandbox auto-accept) -> new draft.

Writes go through `orchestrator.cold_start.services`, reads through `orchestrator.cold_start.selectors`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from catalog_app.models import Catalog, CatalogVersion
from orchestrator.jobs.models import Job
from orchestrator.modes import AssistantMode
from orchestrator.simulation.models import SimulationRun


class CampaignMode(models.TextChoices):
    REVIEW = "review", "Show the proposals to an admin in the review queue"
    SANDBOX = "sandbox", "Simulation-only sandbox: auto-accept proposals above a confidence"


class CampaignState(models.TextChoices):
    RUNNING = "running", "Running a round"
    REVIEW = "review", "Waiting for an admin's review"
    FINISHED = "finished", "Finished"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class ColdStartCampaign(models.Model):
    """Rounds run on a catalog until its planner success stops improving or reaches the promotion threshold.

    The scenario is copied in, so every round simulates the same users and the same truths. In
    sandbox mode the drafts it makes carry refinements no admin accepted: they are `SandboxVersion`s,
    which the promotion gate refuses (`learning.sandbox`).
    """

    catalog = models.ForeignKey(Catalog, on_delete=models.CASCADE, related_name="cold_start_campaigns")
    start_version = models.ForeignKey(CatalogVersion, on_delete=models.CASCADE, related_name="+")
    scenario_name = models.CharField(max_length=200)
    scenario_data = models.JSONField()
    mode = models.CharField(max_length=16, choices=CampaignMode.choices, default=CampaignMode.REVIEW)
    confidence = models.FloatField(null=True, blank=True)  # sandbox: auto-accept at or above it
    first_orchestrator = models.CharField(max_length=16, choices=AssistantMode.choices, default=AssistantMode.S3)
    conversations = models.PositiveIntegerField()
    seed = models.PositiveIntegerField(default=0)
    max_rounds = models.PositiveIntegerField(default=3)
    threshold = models.FloatField(null=True, blank=True)  # the promotion policy's, when the campaign started
    reference = models.CharField(max_length=100, blank=True)  # a hand-written catalog to compare with
    reference_run = models.ForeignKey(SimulationRun, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+")
    state = models.CharField(max_length=16, choices=CampaignState.choices, default=CampaignState.RUNNING)
    stop_reason = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    heavy_fields = ("scenario_data",)

    class Meta:
        ordering = ("-created_at", "-pk")

    def __str__(self) -> str:
        return f"cold-start campaign {self.pk} of {self.catalog.slug} ({self.state})"


class ColdStartRound(Job):
    """One round, run as a job: simulate `version`, then (unless the campaign stops) learn from the run."""

    campaign = models.ForeignKey(ColdStartCampaign, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    version = models.ForeignKey(CatalogVersion, on_delete=models.CASCADE, related_name="+")
    orchestrator = models.CharField(max_length=16, choices=AssistantMode.choices)
    run = models.ForeignKey(SimulationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    success_rate = models.FloatField(null=True, blank=True)
    proposed = models.PositiveIntegerField(default=0)
    refinements = models.JSONField(default=list, blank=True)  # [{id, key, kind, confidence, summary, auto}]
    draft = models.ForeignKey(CatalogVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ("campaign_id", "number")
        constraints = (models.UniqueConstraint(fields=["campaign", "number"], name="cold_start_round_unique"),)

    def __str__(self) -> str:
        return f"round {self.number} of campaign {self.campaign_id} ({self.status})"

    @property
    def total(self) -> int:
        return self.campaign.conversations
