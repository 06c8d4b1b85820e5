"""The address a request came from, for login lockouts and the chat's rate limits.

Without proxies it is REMOTE_ADDR. Behind TRUSTED_PROXY_COUNT proxies that each append the
address they saw to X-Forwarded-For, the client is the entry that many places from the right:
entries further left were written by the client and prove nothing. Counting a proxy too few
would key every limit on the proxy (one user's failures lock out everyone); too many lets a
client choose its own address, so the count is set by whoever deploys the proxies.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies <= 0:
        return remote
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    if len(hops) < proxies:
        return remote  # came past fewer proxies than deployed: a direct request, not a forwarded one
    candidate = hops[-proxies]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return remote
