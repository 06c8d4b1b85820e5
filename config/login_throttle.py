"""django-axes' lockout check, for logins that come over HTTP.

A login without a request (Django's test client, code calling `authenticate` in-process) has no
client address to count failures by; axes would refuse it with an error, so it is left to the
next backend here. Every web login (the studio's form, the admin, HTTP basic auth on the API)
passes its request and is counted.
"""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from django.http import HttpRequest


class LoginThrottleBackend(AxesStandaloneBackend):
    def authenticate(self, request: HttpRequest | None, username: str | None = None, password: str | None = None,
                     **kwargs: Any) -> Any:
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)
