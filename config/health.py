"""`GET /health`: is this web process up and can it reach its database? For compose and load balancers.

Answered by the first middleware, before the host check and the HTTPS redirect: a health probe
calls the container by its own address over plain HTTP, which neither ALLOWED_HOSTS nor
SECURE_SSL_REDIRECT should turn away.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse

from .errors import UNAVAILABLE, json_error

PATH = "/health"


def health(request: HttpRequest) -> HttpResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except UNAVAILABLE:
        return json_error(503, "the database is not reachable")
    return JsonResponse({"status": "ok", "database": "ok"})


class HealthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == PATH and request.method in ("GET", "HEAD"):
            return health(request)
        return self.get_response(request)
