"""CPU and queries per chat turn, in process: the server's side of `bench.load`, with no concurrency.

    python -m bench.turn_cost [--turns 300] [--profile 30] [--database concerto_bench_turn_cost]

Every message goes through Django's WSGI handler (all middleware, the API, the services), as
gunicorn calls it, with the widget's request (the demo page's Origin, JSON, a client_id), on a
PostgreSQL database of its own (`BENCH_PG`, default postgres://postgres@127.0.0.1:5432; dropped,
created, migrated, the banking demo loaded) with the cache as configured (CACHE_URL; locmem when
unset). After one warm conversation per script, the banking scripts (`bench.turns.BANKING_SCRIPTS`)
run in turn until `--turns` messages are sent; the figures are the process's CPU time
(`time.process_time`, the client side included, which is a few dictionaries) and the queries per
message (session starts excluded). `--profile N` prints cProfile's top functions by own time
and by cumulative time. PostgreSQL's own CPU is not counted here (see `bench.load`).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from .turns import BANKING_SCRIPTS

ROOT = Path(__file__).resolve().parent.parent
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
ORIGIN = "http://127.0.0.1:8000"  # one of the demo assistant's allowed origins (load_demo)
KEY = "demo-banking"


def prepare(database: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{database}"')
    for command in (["migrate", "--noinput"], ["load_demo"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)


class Caller:
    """POSTs through the WSGI handler with the fewest moving parts on the client's side."""

    def __init__(self) -> None:
        from django.core.handlers.wsgi import WSGIHandler

        self.handler = WSGIHandler()

    def post(self, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        data = json.dumps(body).encode() if body is not None else b""
        environ = {
            "REQUEST_METHOD": "POST", "PATH_INFO": f"/api/v1{path}", "SCRIPT_NAME": "", "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "127.0.0.1:8000", "HTTP_ORIGIN": ORIGIN,
            "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(data)),
            "wsgi.input": io.BytesIO(data), "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr,
            "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False, "wsgi.version": (1, 0),
        }
        status: list[str] = []
        chunks = self.handler(environ, lambda s, headers, exc_info=None: status.append(s))
        payload = b"".join(chunks)
        if hasattr(chunks, "close"):
            chunks.close()
        if not status[0].startswith("2"):
            raise SystemExit(f"POST {path}: {status[0]} {payload[:300]!r}")
        return json.loads(payload)


def conversations(caller: Caller, count: int, counter: Any = None) -> tuple[int, int]:
    """`count` messages over the scripts in turn (session starts not counted): (messages, queries)."""
    sent = queries = 0
    script = 0
    while sent < count:
        opened = caller.post(f"/assistants/{KEY}/sessions", None)
        for text in BANKING_SCRIPTS[script % len(BANKING_SCRIPTS)]:
            if sent >= count:
                break
            before = len(counter) if counter is not None else 0  # a CaptureQueriesContext
            caller.post(f"/sessions/{opened['id']}/messages", {"text": text, "client_id": uuid.uuid4().hex})
            queries += (len(counter) - before) if counter is not None else 0
            sent += 1
        script += 1
    return sent, queries


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--profile", type=int, default=0, help="print the top N functions (cProfile)")
    parser.add_argument("--database", default="concerto_bench_turn_cost")
    parser.add_argument("--reuse", action="store_true", help="keep the database as it is (no drop, migrate, demo)")
    args = parser.parse_args(argv)

    os.environ["DATABASE_URL"] = f"{PG}/{args.database}"
    os.environ.update({"DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "false", "LOG_LEVEL": "WARNING",
                       "ALLOWED_HOSTS": "127.0.0.1,localhost", "CONCERTO_CHAT_RATE": "1000000",
                       "CONN_MAX_AGE": "60"})
    os.environ.setdefault("SECRET_KEY", "bench-turn-cost-not-secret")
    if not args.reuse:
        prepare(args.database)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from orchestrator.apps import warm_up_in_server

    warm_up_in_server()
    caller = Caller()
    conversations(caller, sum(len(s) for s in BANKING_SCRIPTS))  # warm: every script once
    with CaptureQueriesContext(connection) as captured:
        sent, queries = conversations(caller, min(args.turns, 60), captured)
    started, cpu = time.perf_counter(), time.process_time()
    sent, _ = conversations(caller, args.turns)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - started
    print(f"| turns | CPU ms/turn | wall ms/turn | queries/turn |\n|---|---|---|---|\n"
          f"| {sent} | {cpu / sent * 1000:.2f} | {wall / sent * 1000:.2f} | {queries / min(args.turns, 60):.2f} |")
    if args.profile:
        profiler = cProfile.Profile(time.process_time)  # CPU, not the waits on PostgreSQL
        profiler.enable()
        conversations(caller, args.turns)
        profiler.disable()
        for order in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(args.profile)
            print(out.getvalue())


if __name__ == "__main__":
    main()
