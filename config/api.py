"""The one NinjaAPI of the project, mounted at /api/v1/. Each app adds its Router here.

Every error answer has the same shape, {"detail": str, "errors": [{"path", "message"}]}, so a
client shows one kind of message whatever went wrong.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import HttpError, ValidationError

from catalog_app.api import router as catalog_router
from orchestrator.engine.errors import ConcertoError, Issue, SpecError
from orchestrator.jobs.runner import QueueUnavailable

from .errors import DATABASE_DOWN, RETRY_AFTER_SECONDS, UNAVAILABLE, SafeParser, body_issues, too_big_detail

api = NinjaAPI(title="Concerto API", version="1", urls_namespace="api", docs_url="/docs", parser=SafeParser())

api.add_router("/catalogs", catalog_router)
api.add_router("/catalogs", "orchestrator.simulation.api.router")  # /catalogs/{slug}/simulations
api.add_router("/catalogs", "orchestrator.learning.api.router")  # /catalogs/{slug}/refinements
api.add_router("/catalogs", "orchestrator.conversation_tests.api.router")  # /catalogs/{slug}/conversation-tests
api.add_router("/catalogs", "orchestrator.cold_start.api.router")  # /catalogs/{slug}/cold-start
api.add_router("/validation", "orchestrator.validation.api.router")
api.add_router("", "orchestrator.chat.api.router")  # the chat widget: /assistants/..., /sessions/...
api.add_router("/assistants", "orchestrator.assistants.api.router")  # publishing (admins)


def _error(request: HttpRequest, status: int, detail: str, issues: Iterable[Issue] = ()) -> HttpResponse:
    errors = [{"path": issue.path, "message": issue.message} for issue in issues]
    return api.create_response(request, {"detail": detail, "errors": errors}, status=status)


def _request_path(loc: Iterable[int | str]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


@api.exception_handler(ValidationError)
def _invalid_request(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    issues = []
    for error in exc.errors:
        loc = list(error.get("loc", ()))
        # ninja puts the body parameter's own name second (body.payload.intent); the client
        # never sees that name, so the path drops it.
        if len(loc) > 1 and loc[0] == "body":
            del loc[1]
        issues.append(Issue(_request_path(loc), error.get("msg", "invalid value")))
    return _error(request, 422, "invalid request", issues)


@api.exception_handler(ConcertoError)
def _user_error(request: HttpRequest, exc: ConcertoError) -> HttpResponse:
    if isinstance(exc, SpecError):
        count = len(exc.issues)
        return _error(request, 422, f"the catalog has {count} problem{'s' if count != 1 else ''}", exc.issues)
    return _error(request, 422, str(exc), exc.issues)


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    issues = body_issues(exc)
    if issues is not None:  # ninja's "cannot parse request body", caused by our parser's refusal
        return _error(request, 422, "the request body cannot be read", issues)
    return _error(request, exc.status_code, str(exc))


@api.exception_handler(PermissionDenied)
def _not_allowed(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    # catalog_app.permissions.NotAllowed, raised by the services for a role that may not write
    return _error(request, 403, str(exc) or "forbidden")


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _error(request, 404, str(exc) or "not found")


@api.exception_handler(RequestDataTooBig)
def _too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return _error(request, 413, too_big_detail())


def _unavailable(request: HttpRequest, exc: Exception) -> HttpResponse:
    response = _error(request, 503, DATABASE_DOWN)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


for _kind in UNAVAILABLE:
    api.add_exception_handler(_kind, _unavailable)


@api.exception_handler(QueueUnavailable)
def _queue_down(request: HttpRequest, exc: QueueUnavailable) -> HttpResponse:
    # A job that could not be handed to a worker was not started (its row is gone or failed).
    response = _error(request, 503, str(exc))
    response["Retry-After"] = str(exc.retry_after)
    return response
