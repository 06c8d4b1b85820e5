"""A real Celery worker, in its own process, on a real broker, reading the test database."""

import os
import subprocess
import sys
import uuid

import pytest
from celery import Celery
from django.db import connection

from catalog_app.services import catalog_import, workspace_get_or_create_default
from tests.conftest import ROOT, database_url


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)  # committed rows: the worker reads them from its own connection
@pytest.mark.parametrize("broker", ["redis://127.0.0.1:6379/15", "filesystem://"])
def test_a_worker_plans_every_intent_of_a_version(banking_spec, broker):
    if connection.vendor != "postgresql":
        pytest.skip("the worker shares the database through PostgreSQL")
    version = catalog_import(workspace=workspace_get_or_create_default(), spec=banking_spec)
    queue = f"test-{uuid.uuid4().hex[:8]}"  # a fresh queue: no message of an earlier run is picked up
    backend = "redis://127.0.0.1:6379/15"
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": broker,
           "CELERY_RESULT_BACKEND": backend}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-Q", queue,
         "--loglevel", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        client = Celery("test-client", broker=broker, backend=backend)
        if broker.startswith("filesystem://"):
            client.conf.broker_transport_options = _filesystem_options()
        result = client.send_task("catalog_app.tasks.version_check_plans", args=[version.pk], queue=queue)
        report = result.get(timeout=90)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    assert report["apply_loan"]["solved"] is True
    assert report["apply_loan"]["cost"] == 20
    last = report["apply_loan"]["lines"][-1]
    assert last == "loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)"
    assert set(report) == {"apply_loan", "apply_credit_card", "check_card_status"}


def _filesystem_options() -> dict[str, str]:
    from django.conf import settings

    return settings.CELERY_BROKER_TRANSPORT_OPTIONS
