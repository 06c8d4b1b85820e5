"""Steps several browser tests take: logging in, and doing a job's work in a thread in place of a worker."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection
from playwright.sync_api import Page


def log_in(page: Page, login_url: str, username: str, password: str) -> None:
    """Open the login page (its `?next=` decides where the studio goes after) and log in."""
    page.goto(login_url)
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def work_in_background(go: threading.Event, work: Callable[[], object]) -> None:
    """Stands in for the Celery worker (its own tests run real ones): `work` in a thread, once `go` is set,
    so that a test sees the job waiting first."""

    def run() -> None:
        try:
            go.wait(timeout=60)
            work()
        finally:
            connection.close()

    threading.Thread(target=run, daemon=True).start()
