"""Shared fixtures. Django tests run on the database named by DATABASE_URL (PostgreSQL in CI)."""

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from celery import Celery

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import load_catalog

ROOT = Path(__file__).resolve().parent.parent
BANKING_YAML = ROOT / "catalog_app" / "demo" / "banking.yaml"


@pytest.fixture(scope="session")
def banking_spec() -> CatalogSpec:
    return load_catalog(BANKING_YAML.read_text())


def database_url() -> str:
    """The URL of the database the tests run on, for a subprocess (a worker, a command) to share."""
    from django.db import connection

    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def celery_worker(broker: str, backend: str) -> Iterator[tuple[Celery, str]]:
    """A real worker process on `broker`, reading the test database, and a client to send it tasks.

    Yields the client and a fresh queue name, so no message of an earlier run is picked up.
    Skips the test off PostgreSQL: the worker shares the database through its own connection.
    """
    from django.conf import settings
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the worker shares the database through PostgreSQL")
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": broker,
           "CELERY_RESULT_BACKEND": backend}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-Q", queue, "--loglevel", "warning"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        # Not the current app: tasks the code under test queues must still find the project's app.
        client = Celery("test-client", broker=broker, backend=backend, set_as_current=False)
        if broker.startswith("filesystem://"):
            client.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
        yield client, queue
    finally:
        worker.terminate()
        worker.wait(timeout=30)
