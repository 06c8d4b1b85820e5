"""`python -m bench.limits_over_http URL`: the rate limit and the login lockout, measured against a running server.

Not part of `python -m bench`: it needs a server with the demo loaded, for example
`DATABASE_URL=... CACHE_URL=redis://127.0.0.1:6379/11 gunicorn config.wsgi --workers 3 --bind 127.0.0.1:8917`
then `python -m bench.limits_over_http http://127.0.0.1:8917`. Start the server afresh (and empty
its cache) before each run: the counts it reads are the ones this run makes. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import re
import time
from collections import Counter

import httpx

ORIGIN = "http://127.0.0.1:8000"  # one of the demo assistant's allowed origins


def session_starts(url: str, count: int) -> tuple[dict[int, Counter], float]:
    """The answers per clock minute: the limit counts in fixed one-minute windows."""
    windows: dict[int, Counter] = {}
    started = time.monotonic()
    with httpx.Client() as client:
        for _ in range(count):
            answer = client.post(f"{url}/api/v1/assistants/demo-banking/sessions", headers={"Origin": ORIGIN})
            windows.setdefault(int(time.time() // 60), Counter())[answer.status_code] += 1
    return windows, time.monotonic() - started


def form_logins(url: str, count: int) -> Counter:
    codes: Counter = Counter()
    with httpx.Client() as client:
        for _ in range(count):
            page = client.get(f"{url}/accounts/login/")
            found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
            token = found.group(1) if found else ""
            answer = client.post(f"{url}/accounts/login/",
                                 data={"username": "analyst", "password": "wrong", "csrfmiddlewaretoken": token})
            codes[answer.status_code] += 1
    return codes


def basic_logins(url: str, count: int) -> Counter:
    codes: Counter = Counter()
    with httpx.Client() as client:
        for _ in range(count):
            codes[client.get(f"{url}/api/v1/catalogs/", auth=("admin", "wrong")).status_code] += 1
    return codes


def _codes(codes: Counter) -> str:
    return ", ".join(f"{count} x {status}" for status, count in sorted(codes.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    args = parser.parse_args()
    starts, seconds = session_starts(args.url, 90)
    print("| what | answers |")
    print("| --- | --- |")
    per_minute = "; ".join(f"minute {i}: {_codes(codes)}" for i, codes in enumerate(starts.values(), start=1))
    print(f"| 90 session starts from one address ({seconds:.0f} s; limit 30 a minute) | {per_minute} |")
    print(f"| 40 wrong studio logins | {_codes(form_logins(args.url, 40))} |")
    print(f"| 100 wrong basic-auth calls | {_codes(basic_logins(args.url, 100))} |")


if __name__ == "__main__":
    main()
