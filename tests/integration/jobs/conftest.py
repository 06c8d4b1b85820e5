"""Fixtures of the job runner's tests: an admin, the banking demo's stored scenario, and a job queue that is down."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import yaml

from orchestrator.simulation.models import SimulationScenario
from orchestrator.simulation.services import scenario_save
from tests.conftest import ROOT

# Nothing listens on port 1: connecting is refused at once, as when Redis is stopped.
UNREACHABLE = "redis://127.0.0.1:1/0"


@pytest.fixture
def realistic(banking) -> SimulationScenario:
    data = yaml.safe_load((ROOT / "catalog_app" / "demo" / "banking-scenario.yaml").read_text())
    return scenario_save(catalog=banking.catalog, data=data)


def _forget_connections(app) -> None:
    # Only forgotten, not closed: kombu keeps each URL's pool in a registry, and the next test on the
    # real broker takes it from there.
    app._pool = None
    app.amqp._producer_pool = None
    app._backend_cache = None
    app._local.__dict__.pop("backend", None)


@pytest.fixture
def queue_down() -> Iterator[str]:
    """The project's Celery app pointed at a broker and a result store that refuse connections (Redis down)."""
    from config import celery_app

    conf = celery_app.conf
    saved = (conf.broker_url, conf.broker_transport_options, conf.result_backend)
    _forget_connections(celery_app)
    conf.broker_url, conf.broker_transport_options = UNREACHABLE, {}
    conf.result_backend = UNREACHABLE.replace("/0", "/1")
    try:
        yield UNREACHABLE
    finally:
        _forget_connections(celery_app)
        conf.broker_url, conf.broker_transport_options, conf.result_backend = saved
