"""What every job's studio page does the same way: answer a re-queue, and say why a start did not happen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse

from orchestrator.jobs.runner import NotRequeueable, QueueUnavailable


def requeue_from_page(request: HttpRequest, requeue: Callable[[], Any], done: str) -> None:
    """Run a re-queue for a page; the outcome as a message (a member who is not an admin gets the 403 page:
    NotAllowed is Django's PermissionDenied)."""
    try:
        requeue()
    except (NotRequeueable, QueueUnavailable) as exc:
        messages.error(request, str(exc)[:1].upper() + str(exc)[1:])
    else:
        messages.success(request, done)


def queue_down(response: HttpResponse) -> HttpResponse:
    """A page that could not start its job: 503 with Retry-After, as the API answers."""
    response.status_code = 503
    response["Retry-After"] = str(QueueUnavailable.retry_after)
    return response
