"""Request bodies limited per route, refused (413) before anything reads them.

Django's DATA_UPLOAD_MAX_MEMORY_SIZE is one limit for every route, and it must fit the largest
catalog a studio user imports (25 MB by default), which would let anyone post 25 MB to the chat.
So routes fall in three classes, most specific first:

- the chat the widget talks to (no login) and the studio's test chat: CONCERTO_CHAT_MAX_BODY_BYTES;
- routes that take catalogs, tool documents and trajectory uploads (/catalogs/, /validation/ and
  their API): DATA_UPLOAD_MAX_MEMORY_SIZE, which stays Django's own limit behind this one;
- everything else (login, publishing, the admin): REQUEST_MAX_BYTES.

The size is the declared Content-Length: Django reads no more than that (a chunked body without
one reads as empty), so nothing larger gets through.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from .errors import is_api, json_error

CHAT_ROUTES = re.compile(r"^/(api/v1/(assistants/[^/]+/sessions/?$|sessions/)|catalogs/[^/]+/test-chat/)")
LARGE_ROUTES = ("/api/v1/catalogs/", "/api/v1/validation/", "/catalogs/", "/validation/")


def body_limit(path: str) -> int:
    """The largest body, in bytes, that a request to `path` may carry."""
    if CHAT_ROUTES.match(path):
        return settings.CONCERTO_CHAT_MAX_BODY_BYTES
    if path.startswith(LARGE_ROUTES):
        return settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return settings.REQUEST_MAX_BYTES


def too_big(request: HttpRequest, limit: int) -> HttpResponse:
    detail = f"the request body is larger than {limit:,} bytes"
    if is_api(request):
        return json_error(413, detail)
    return HttpResponse(detail, status=413, content_type="text/plain; charset=utf-8")


class BodyLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0  # Django reads such a body as empty
        limit = body_limit(request.path)
        if declared > limit:
            return too_big(request, limit)
        return self.get_response(request)
