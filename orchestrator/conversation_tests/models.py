"""Conversation tests: a catalog's end-to-end test cases, their runs, and whether promotion needs them to pass.

A test is a list of user turns, each with the structure the assistant is expected to show in its
answer (the intent started, the elements asked and filled, the consent asked, the skills called,
the goals reached), never its wording: a reworded question does not break a test, a lost step does.

Writes go through `orchestrator.conversation_tests.services`, reads through `.selectors`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from catalog_app.models import Catalog, CatalogVersion
from orchestrator.modes import AssistantMode


class ConversationTest(models.Model):
    catalog = models.ForeignKey(Catalog, on_delete=models.CASCADE, related_name="conversation_tests")
    name = models.CharField(max_length=100)
    mode = models.CharField(max_length=16, choices=AssistantMode.choices, default=AssistantMode.PLANNER)
    # [{"user": text, "expect": {"intents": [...], "asked": [...], "filled": [...], "consent": [...],
    #   "skills": [...], "goals": [...]}}, ...]: the shape `services.turns_checked` accepts.
    turns = models.JSONField(default=list)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("catalog_id", "name")
        constraints = (models.UniqueConstraint(fields=["catalog", "name"], name="conversation_test_unique_name"),)

    def __str__(self) -> str:
        return f"{self.catalog.slug}/{self.name}"


class ConversationTestRun(models.Model):
    """Every test of a catalog run once on one version; `results` holds each test's verdict."""

    version = models.ForeignKey(CatalogVersion, on_delete=models.CASCADE, related_name="conversation_test_runs")
    # [{"test": id, "name": str, "passed": bool, "turn": int | None, "difference": str}, ...]
    results = models.JSONField(default=list)
    passed = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-pk")

    def __str__(self) -> str:
        return f"tests of {self.version}: {self.passed} passed, {self.failed} failed"

    @property
    def ok(self) -> bool:
        return self.failed == 0


class ConversationTestPolicy(models.Model):
    """Whether promoting a version of the catalog needs all its conversation tests to pass (admins set it)."""

    catalog = models.OneToOneField(Catalog, on_delete=models.CASCADE, related_name="conversation_test_policy")
    required = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"{self.catalog.slug}: tests {'required' if self.required else 'optional'}"
