"""Reads of conversation tests: a catalog's tests, one test, the latest run on a version."""

from __future__ import annotations

from django.db.models import QuerySet

from catalog_app.models import Catalog, CatalogVersion

from .models import ConversationTest, ConversationTestPolicy, ConversationTestRun


def conversation_test_list(*, catalog: Catalog) -> QuerySet[ConversationTest]:
    return ConversationTest.objects.filter(catalog=catalog).order_by("name")


def conversation_test_get(*, catalog: Catalog, pk: int) -> ConversationTest | None:
    return ConversationTest.objects.filter(catalog=catalog, pk=pk).first()


def run_latest(*, version: CatalogVersion) -> ConversationTestRun | None:
    return ConversationTestRun.objects.filter(version=version).order_by("-created_at", "-pk").first()


def policy_required(*, catalog: Catalog) -> bool:
    return ConversationTestPolicy.objects.filter(catalog=catalog, required=True).exists()
