"""Published assistants, and what promoting a catalog to the planner orchestrator requires.

Writes go through `orchestrator.assistants.services` and `orchestrator.assistants.promotion`.
"""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from catalog_app.models import Catalog, CatalogVersion, Workspace
from orchestrator.modes import AssistantMode


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
    # `manage.py purge_sessions` drops them (`orchestrator.chat.vault`).
    state_retention_hours = models.PositiveIntegerField(default=24, validators=[MinValueValidator(1)])
    created_at = models.DateTimeField(auto_now_add=True)
    # Publishing: a disabled assistant answers nobody; its sessions and audit stay.
    enabled = models.BooleanField(default=True)
    # The studio's test chat on a draft (one per draft version): never reachable through the
    # public API, the only kind of assistant that may run a version that is not promoted.
    studio_test = models.BooleanField(default=False)

    class Meta:
        ordering = ("key",)

    def __str__(self) -> str:
        return self.key


class PromotionPolicy(models.Model):
    """What promoting a catalog's version to the planner orchestrator requires, beyond compiling and plans."""

    catalog = models.OneToOneField(Catalog, on_delete=models.CASCADE, related_name="promotion_policy")
    # The goal success rate (0..1) a simulation run of the version, with the planner, must reach; None: no run needed.
    simulation_threshold = models.FloatField(null=True, blank=True,
                                             validators=[MinValueValidator(0.0), MaxValueValidator(1.0)])

    def __str__(self) -> str:
        return f"{self.catalog.slug}: threshold {self.simulation_threshold}"
