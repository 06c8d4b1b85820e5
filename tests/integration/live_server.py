"""The real web stack for a test: gunicorn with `config/gunicorn.py` on a free 127.0.0.1 port.

It serves the test database (the test must commit its rows: `django_db(transaction=True)`), with
the environment the test gives on top of the defaults. Skipped off PostgreSQL: the server shares
the database through its own connections.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from tests.conftest import ROOT, database_url


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def gunicorn(**environment: str) -> Iterator[str]:
    """A running server and its base URL (http://127.0.0.1:PORT); stopped afterwards."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the server shares the test database through PostgreSQL")
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": "config.settings",
           "DEBUG": "false", "SECRET_KEY": "tests-live-server-not-secret", "ALLOWED_HOSTS": "127.0.0.1",
           "LOG_LEVEL": "WARNING", "WEB_CONCURRENCY": "1", "GUNICORN_BIND": f"127.0.0.1:{port}",
           **environment}
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py",
                                   "config.wsgi:application"], cwd=ROOT, env=env, stdout=log,
                                  stderr=subprocess.STDOUT)
        try:
            _wait_until_up(server, base, log)
            yield base
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _wait_until_up(server: subprocess.Popen, base: str, log) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            log.seek(0)
            raise AssertionError(f"gunicorn exited with {server.returncode}: {log.read().decode()[-2000:]}")
        try:
            httpx.get(f"{base}/health", timeout=5)  # any answer: the server is up (the test judges it)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise AssertionError("gunicorn did not answer /health within 60 s")
