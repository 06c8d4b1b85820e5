"""Simulations: simulated conversations at scale.

Writes go through `orchestrator.simulation.services`, reads through `orchestrator.simulation.selectors`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from catalog_app.models import Catalog, CatalogVersion, Workspace
from orchestrator.fields import RowsJSONField
from orchestrator.jobs.models import Job, visibility_minutes
from orchestrator.modes import AssistantMode


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


class SimulationRun(Job):
    """N simulated conversations of a catalog version under a scenario, computed in chunks by workers.

    The scenario is copied into the run, so a run can be computed again (and read) after its stored
    scenario changed. Conversation i depends only on (version, scenario, orchestrator, seed, i).
    As a job, the run is claimed by the task that fans it out; its chunks beat its heartbeat as they
    store conversations, so a run whose chunks are held by a stopped worker is seen as stalled.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="simulation_runs")
    version = models.ForeignKey(CatalogVersion, on_delete=models.CASCADE, related_name="simulation_runs")
    scenario = models.ForeignKey(SimulationScenario, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="runs")
    scenario_name = models.CharField(max_length=200)
    scenario_data = models.JSONField()
    # The scenario's truths against the spec, the answer key; none for a scenario that has no truths.
    differences = models.JSONField(default=list, blank=True)
    orchestrator = models.CharField(max_length=16, choices=AssistantMode.choices, default=AssistantMode.PLANNER)
    conversations = models.PositiveIntegerField()
    seed = models.PositiveIntegerField(default=0)
    chunk_size = models.PositiveIntegerField(default=25)
    # Learning by experimentation: after a conversation, the simulated assistant may probe the skills it saw
    # rejected (simulation only, never real users; the summary says so). Cold-start campaigns turn it on.
    explore = models.BooleanField(default=False)
    summary = models.JSONField(null=True, blank=True)

    heavy_fields = ("scenario_data",)

    class Meta:
        ordering = ("-created_at", "-pk")

    def __str__(self) -> str:
        return f"simulation {self.pk} ({self.status})"

    @property
    def total(self) -> int:
        return self.conversations

    def stalled_words(self, since: str) -> str:
        # Chunks also wait behind other runs' chunks in the queue: both reasons are said.
        return (f"No conversation stored {since}: its chunks wait in the queue behind other work, or a worker "
                "that stopped holds them; the queue gives those to another worker after its visibility timeout "
                f"(about {visibility_minutes()} minutes)")

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.conversations) if self.conversations else 100


class SimulatedConversation(models.Model):
    """One simulated conversation: its masked transcript and trace (the live format), state and figures."""

    run = models.ForeignKey(SimulationRun, on_delete=models.CASCADE, related_name="results")
    index = models.PositiveIntegerField()
    intent = models.CharField(max_length=64)
    outcome = models.CharField(max_length=16)  # success | gave_up | stopped | stalled | failed
    success = models.BooleanField()
    turns = models.PositiveIntegerField()
    metrics = RowsJSONField()  # stored in batches: rows, not arrays (see RowsJSONField)
    transcript = RowsJSONField()
    trace = RowsJSONField()
    state = RowsJSONField()  # the final session state, sensitive values masked
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("run_id", "index")
        # What makes a redelivered chunk harmless: conversation i of a run is stored once.
        constraints = (models.UniqueConstraint(fields=["run", "index"], name="simulated_conversation_unique"),)

    def __str__(self) -> str:
        return f"run {self.run_id} #{self.index}"


class ScenarioRevision(models.Model):
    """One saved state of a scenario, with the catalog version it was checked against: scenarios are
    versioned with their catalog, and a run's copy of a scenario can be traced to the revision it came from."""

    scenario = models.ForeignKey(SimulationScenario, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    version = models.ForeignKey(CatalogVersion, null=True, on_delete=models.SET_NULL, related_name="+")
    data = models.JSONField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("scenario_id", "-number")
        constraints = (models.UniqueConstraint(fields=["scenario", "number"], name="scenario_revision_unique"),)

    def __str__(self) -> str:
        return f"{self.scenario} r{self.number}"
