"""Errors that happen outside the endpoints' own handlers, answered the way the API answers.

Under /api/ every answer is {"detail", "errors": [...]}: a body over the upload limit (413), a
database that cannot be reached (503 with Retry-After, so clients and load balancers wait and
retry instead of reporting a bug), a JSON body that cannot be read or holds text the database
cannot store (422 naming the field), and whatever else Django answers itself (400, 403, 404, 500).
The studio's pages get the same statuses as plain pages.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from ninja.parser import Parser

from orchestrator.engine.catalog.documents import Unreadable, load_json, text_faults
from orchestrator.engine.errors import Issue

RETRY_AFTER_SECONDS = 30
DATABASE_DOWN = "the database is not reachable; try again shortly"
# Failures of the connection itself, not of a query: the service is unavailable, not wrong.
UNAVAILABLE = (OperationalError, InterfaceError)


class BodyRefused(ValueError):
    """A JSON body that cannot be read or stored; ninja wraps it in a 400, `api_error` unwraps it."""

    def __init__(self, issues: list[Issue]):
        super().__init__("; ".join(str(issue) for issue in issues))
        self.issues = issues


class SafeParser(Parser):
    """ninja's JSON parser held to the nesting and number limits, refusing NUL and lone surrogates."""

    def parse_body(self, request: HttpRequest) -> Any:
        try:
            data = load_json(request.body.decode("utf-8"))
        except UnicodeDecodeError:
            raise BodyRefused([Issue("", "the body is not UTF-8 text")]) from None
        except Unreadable as exc:
            raise BodyRefused([Issue(exc.where, str(exc))]) from None
        issues = [Issue(path, message) for path, message in text_faults(data)]
        if issues:
            raise BodyRefused(issues)
        return data


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def json_error(status: int, detail: str, issues: Iterable[Issue] = ()) -> JsonResponse:
    errors = [{"path": issue.path, "message": issue.message} for issue in issues]
    response = JsonResponse({"detail": detail, "errors": errors}, status=status)
    if status == 503:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def too_big_detail() -> str:
    return f"the request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes"


def unavailable_page(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        return json_error(503, DATABASE_DOWN)
    response = HttpResponse(f"<h1>Service unavailable</h1><p>{DATABASE_DOWN}.</p>", status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


# --- Django's error views (config.urls names them) ---------------------------------------------


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if isinstance(exception, RequestDataTooBig):
        return json_error(413, too_big_detail()) if is_api(request) else HttpResponse(too_big_detail(), status=413)
    if is_api(request):
        return json_error(400, "bad request")
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(403, str(exception) or "forbidden")
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(404, "not found")
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    # Django calls this inside the `except` of the request, so the exception is at hand.
    exception = sys.exc_info()[1]
    if isinstance(exception, UNAVAILABLE):
        return unavailable_page(request)
    if is_api(request):
        return json_error(500, "internal error; it has been logged")
    return defaults.server_error(request)


def body_issues(exception: BaseException | None) -> list[Issue] | None:
    """The issues of a refused body, when `exception` (ninja's 400) was caused by one."""
    cause = exception.__cause__ if exception is not None else None
    return cause.issues if isinstance(cause, BodyRefused) else None


def locked_out(request: HttpRequest, original_response: HttpResponse | None, credentials: Any) -> HttpResponse:
    """django-axes' answer once a user name and address have failed to log in too often (429)."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    detail = f"too many failed logins; try again in {minutes} minutes"
    if is_api(request):
        response: HttpResponse = json_error(429, detail)
    else:
        response = HttpResponse(f"<h1>Too many failed logins</h1><p>Try again in {minutes} minutes.</p>",
                                status=429)
    response["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response
