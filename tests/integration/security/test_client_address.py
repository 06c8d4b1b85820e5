"""Behind reverse proxies, limits key on the client's address, never on the proxy's.

With TRUSTED_PROXY_COUNT=0 (no proxy) X-Forwarded-For is the client's own words and is ignored;
with N proxies, the entry the outermost trusted proxy wrote is the client.
"""

from __future__ import annotations

import base64

import pytest
from django.test import Client, RequestFactory

from catalog_app.client_ip import client_ip
from tests.integration.conftest import PASSWORD

PROXY = "10.0.0.5"


def _request(forwarded: str | None, remote: str = PROXY):
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


@pytest.mark.parametrize(("proxies", "forwarded", "expected"), [
    (0, "198.51.100.7", PROXY),                    # no proxy deployed: the header is the client's claim
    (1, "198.51.100.7", "198.51.100.7"),
    (1, "6.6.6.6, 198.51.100.7", "198.51.100.7"),  # a forged left entry is passed over
    (2, "6.6.6.6, 198.51.100.7, 10.0.0.9", "198.51.100.7"),
    (2, "198.51.100.7", PROXY),                    # fewer hops than proxies: not a forwarded request
    (1, "not-an-address", PROXY),
    (1, None, PROXY),
    (1, "2001:DB8::1", "2001:db8::1"),
])
def test_the_client_address(settings, proxies, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = proxies
    assert client_ip(_request(forwarded)) == expected


def _basic(client: Client, username: str, password: str, forwarded: str):
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return client.get("/api/v1/catalogs/", HTTP_AUTHORIZATION=f"Basic {token}", REMOTE_ADDR=PROXY,
                      HTTP_X_FORWARDED_FOR=forwarded)


def test_a_lockout_behind_a_proxy_holds_the_guessing_client_only(client, analyst, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _basic(client, analyst.username, "wrong", "203.0.113.66")
    assert _basic(client, analyst.username, PASSWORD, "203.0.113.66").status_code == 429
    # The same proxy forwards the real user from another address: they get in.
    assert _basic(client, analyst.username, PASSWORD, "198.51.100.7").status_code == 200

