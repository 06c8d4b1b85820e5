"""A real Celery worker, in its own process, on a real broker, reading the test database."""

import pytest

from catalog_app.services import catalog_import, workspace_get_or_create_default
from tests.conftest import celery_worker


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)  # committed rows: the worker reads them from its own connection
@pytest.mark.parametrize("broker", ["redis://127.0.0.1:6379/15", "filesystem://"])
def test_a_worker_plans_every_intent_of_a_version(banking_spec, broker):
    version = catalog_import(workspace=workspace_get_or_create_default(), spec=banking_spec)
    with celery_worker(broker, "redis://127.0.0.1:6379/15") as (client, queue):
        report = client.send_task("catalog_app.tasks.version_check_plans", args=[version.pk], queue=queue).get(
            timeout=90)
    assert report["apply_loan"]["solved"] is True
    assert report["apply_loan"]["cost"] == 20
    last = report["apply_loan"]["lines"][-1]
    assert last == "loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)"
    assert set(report) == {"apply_loan", "apply_credit_card", "check_card_status"}
