"""What a skill's endpoint may be, judged from its text alone (no network).

The catalog checks use it when a skill is authored, and the HTTP skill runtime uses it again
(with the resolved addresses) before every call, so a bad endpoint is refused at both times.
An endpoint is `sim:` (a simulated skill) or an http(s) URL with a host name or a plain address.
Hosts written in forms that hide where they lead are refused outright: a bare number
(`http://2130706433/`), octal or hexadecimal parts (`http://0x7f.1/`), and IPv6 addresses that
carry an IPv4 one (`[::7f00:1]`, `[::ffff:7f00:1]`, `[64:ff9b::a00:1]`, 6to4, Teredo), which
some networks route to the IPv4 address inside.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_EMBEDDING_V4 = tuple(
    ipaddress.ip_network(net)
    for net in (
        "::/96",  # IPv4-compatible (deprecated, still routed by some stacks)
        "::ffff:0:0/96",  # IPv4-mapped
        "::ffff:0:0:0/96",  # IPv4-translated (SIIT)
        "64:ff9b::/96",  # NAT64, well-known prefix
        "64:ff9b:1::/48",  # NAT64, local-use prefix
        "2002::/16",  # 6to4
        "2001::/32",  # Teredo
    )
)
# Only dotted decimal is an address; anything else made of digits (and hex) would be read by some
# resolvers as an address in disguise.
_DOTTED_QUAD = re.compile(r"\d{1,3}(\.\d{1,3}){3}\Z")
_NUMERIC_LOOKING = re.compile(r"(0x[0-9a-f]*|\d+)(\.(0x[0-9a-f]*|\d+))*\.?\Z")
_HOST_NAME = re.compile(r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?\Z")


def endpoint_refusal(url: str) -> str | None:
    """Why `url` cannot be a skill endpoint, judged from its text; None when it may be one."""
    if url.startswith("sim:"):
        return None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a bad port)
    except ValueError:
        return f"'{url}' is not a well-formed URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"'{url}' is not an http(s) URL (or 'sim:' for a simulated skill)"
    if parts.username is not None or parts.password is not None:
        return "an endpoint URL may not carry a user name or password"
    return host_refusal(parts.hostname)


def host_refusal(host: str) -> str | None:
    """Why `host` (as `urlsplit` gives it, lowercase) is refused whatever it resolves to."""
    literal = ip_literal(host)
    if literal is not None:
        return embedded_v4_refusal(literal)
    if _NUMERIC_LOOKING.match(host):
        return f"host '{host}' is a number, not a dotted address: write the address as a.b.c.d"
    if not _HOST_NAME.match(host):
        return f"host '{host}' is not a valid host name"
    return None


def ip_literal(host: str) -> IPAddress | None:
    """The address `host` spells, if it spells one in the plain form (dotted IPv4, or IPv6)."""
    if ":" not in host and not _DOTTED_QUAD.match(host):
        return None
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def embeds_v4(address: IPAddress) -> bool:
    # `::` and `::1` sit in the IPv4-compatible block but are IPv6's own unspecified and loopback.
    return address.version == 6 and int(address) > 1 and any(address in net for net in _EMBEDDING_V4)


def embedded_v4_refusal(address: IPAddress) -> str | None:
    if embeds_v4(address):
        return f"address {address} carries an IPv4 address inside an IPv6 one; write the IPv4 address"
    return None


def address_refusal(host: str, address: IPAddress) -> str | None:
    """Why a skill may not connect to `address` (that `host` resolved to) without private access."""
    if embeds_v4(address):
        return f"host '{host}' resolves to {address}, an IPv4 address inside an IPv6 one"
    if not address.is_global or address.is_multicast:
        return f"host '{host}' resolves to a non-public address ({address})"
    return None


def host_allowed(host: str, allowed_hosts: list[str] | tuple[str, ...]) -> bool:
    """Is `host` one of `allowed_hosts` (names, `*.example.com`, or `*`)? An empty list allows any."""
    if not allowed_hosts:
        return True
    for pattern in (p.lower() for p in allowed_hosts):
        if pattern == "*" or host == pattern or (pattern.startswith("*.") and host.endswith(pattern[1:])):
            return True
    return False


def policy_refusal(url: str, *, allowed_hosts: list[str] | tuple[str, ...] = (),
                   allow_private: bool = True) -> str | None:
    """Why a deployment's policy refuses `url`, judged without resolving names (for authoring).

    The call-time check (`runtime.skill_http.EndpointPolicy`) also resolves names; here only what
    the text says: the form, the allowed hosts, and an address written in the URL.
    """
    refusal = endpoint_refusal(url)
    if refusal or url.startswith("sim:"):
        return refusal
    host = (urlsplit(url).hostname or "").lower()
    if not host_allowed(host, allowed_hosts):
        return f"host '{host}' is not in the allowed skill hosts"
    literal = ip_literal(host)
    if literal is not None and not allow_private:
        return address_refusal(host, literal)
    return None
