"""What every API router of the project shares: authentication, the error shape, goal input.

Both apps' routers import from here (the orchestrator builds on the catalog app, never the
reverse). Every error answer is {"detail": str, "errors": [{"path", "message"}]}, written by the
handlers in `config.api` from a `ConcertoError`'s `issues`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.http import HttpRequest
from ninja import Schema
from ninja.security import HttpBasicAuth
from ninja.security import SessionAuth as NinjaSessionAuth
from pydantic import ConfigDict, Field

from orchestrator.engine.errors import ConcertoError

from .models import CatalogVersion
from .planning import version_planner


class BasicAuth(HttpBasicAuth):
    """HTTP basic auth against Django's users, for scripts."""

    def authenticate(self, request: HttpRequest, username: str, password: str) -> Any:
        user = authenticate(request, username=username, password=password)
        return user if user is not None and user.is_active else None


class SessionAuth(NinjaSessionAuth):
    """Django's session, with CSRF checked only when there is a session to protect.

    ninja checks CSRF before looking at the user, so a script without cookies would get a
    CSRF 403 instead of the 401 that tells it to authenticate.
    """

    def _get_key(self, request: HttpRequest) -> str | None:
        if settings.SESSION_COOKIE_NAME not in request.COOKIES:
            return None
        return super()._get_key(request)


def studio_auth() -> list[Any]:
    """The authentication of every studio endpoint: a browser session, or basic auth for scripts."""
    return [BasicAuth(), SessionAuth()]


class IssueOut(Schema):
    path: str
    message: str


class ErrorOut(Schema):
    detail: str
    errors: list[IssueOut] = []


class GoalIn(Schema):
    model_config = ConfigDict(extra="forbid")

    known: list[str] = []
    done: list[str] = Field(default=[], description="`skill` or `skill.mode` references to have run")


@contextmanager
def at_field(path: str) -> Iterator[None]:
    """Report a user error raised inside the block as a fault of the request field `path`."""
    try:
        yield
    except ConcertoError as exc:
        located = exc.at(path)
        if located is exc:  # a SpecError keeps the paths it has
            raise
        raise located from exc


def check_known(version: CatalogVersion, names: list[str], path: str) -> None:
    """Every name an element of the version's catalog; an error at `path[i]` otherwise."""
    version_planner(version=version).domain.ontology.check_elements(names, path)
