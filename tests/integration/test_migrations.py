"""The models and the migrations agree: moving models between modules (features) changes no table."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_the_models_need_no_migration_that_is_not_written():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out)
    except SystemExit as exit_:  # --check exits 1 when a migration is missing
        pytest.fail(f"models and migrations differ (exit {exit_.code}):\n{out.getvalue()}")


def test_every_model_keeps_its_table_after_the_features_got_packages():
    from django.apps import apps

    tables = {model.__name__: model._meta.db_table for model in apps.get_app_config("orchestrator").get_models()}
    assert tables["ChatSession"] == "orchestrator_chatsession"
    assert tables["TrajectoryAnalysis"] == "orchestrator_trajectoryanalysis"
    assert all(table.startswith("orchestrator_") for table in tables.values())
    # 12 after the regrouping, conversation tests' test, run and policy, and cold start's campaign, round,
    # sandbox version and scenario revision
    assert len(tables) == 19
