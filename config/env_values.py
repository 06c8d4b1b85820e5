"""Values the settings make from the environment: the local secret key, the proxy SSL header (no Django)."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path


def local_secret_key(path: Path) -> str:
    """The key kept at `path`, made (random, 50+ characters, readable by the owner only) on first use."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(50)
    try:
        # O_EXCL: two processes starting together agree on whichever key was written first.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):  # the other process may not have written it yet
            key = path.read_text().strip()
            if key:
                return key
            time.sleep(0.02)
        raise
    with os.fdopen(fd, "w") as file:
        file.write(key)
    return key


def proxy_ssl_header(parts: list[str]) -> tuple[str, str] | None:
    """`HTTP_X_FORWARDED_PROTO,https` as the pair Django wants; None when unset."""
    if not parts:
        return None
    if len(parts) != 2:
        raise ValueError("SECURE_PROXY_SSL_HEADER is a header and a value: HTTP_X_FORWARDED_PROTO,https")
    return parts[0], parts[1]
