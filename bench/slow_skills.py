"""Slow skills against the web threads: does an unrelated conversation still get its answer?

`python -m bench.slow_skills [--calls 60] [--seconds 20] [--workers 3 --threads 8]`, needs
PostgreSQL on 127.0.0.1:5432. Starts gunicorn with `config/gunicorn.py` on a database of its own
(`concerto_bench_slow`: migrated, `load_demo`, and a weather assistant whose forecast skill is a
local HTTP server that answers after `--seconds`). Then `--calls` weather conversations reach the
slow skill at once, and, one a second from then, five banking conversations (simulated skills
only) each send a message: their latency is the figure, beside the same message's latency with
no slow call running (every process warmed first). Also printed: how the slow turns were answered
(200, or 503 "busy" with Retry-After) and the most skill calls in flight at once.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
DATABASE = "concerto_bench_slow"
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
PORT = 8933
PROBES = 5  # unrelated turns timed alone, and again during the slow calls (one a second)
WEATHER = """
catalog: weather
elements:
  - {name: city, description: your city}
  - {name: forecast, askable: false, description: the forecast}
skills:
  - name: forecaster
    description: Asks the weather service for the forecast
    endpoint: "ENDPOINT"
    modes:
      - inputs: [city]
        outcomes: [{name: found, outputs: [forecast]}]
intents:
  - name: get_forecast
    description: get the forecast
    examples: [what's the weather, weather forecast please]
    goal: {known: [forecast]}
"""
SETUP = textwrap.dedent("""
    from catalog_app.models import Workspace
    from catalog_app.services import catalog_import, version_promote
    from orchestrator.assistants.services import assistant_create
    from orchestrator.engine.catalog.spec_io import load_catalog
    import sys
    workspace = Workspace.objects.order_by("pk").first()
    spec = load_catalog(sys.stdin.read())
    version = version_promote(version=catalog_import(workspace=workspace, spec=spec), user=None)
    assistant_create(workspace=workspace, version=version, key="weather-slow")
""")


class SlowSkill(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, seconds: float) -> None:
        super().__init__(("127.0.0.1", 0), SlowHandler)
        self.seconds, self.lock, self.in_flight, self.most = seconds, threading.Lock(), 0, 0


class SlowHandler(BaseHTTPRequestHandler):
    server: SlowSkill

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.in_flight += 1
            self.server.most = max(self.server.most, self.server.in_flight)
        time.sleep(self.server.seconds)
        with self.server.lock:
            self.server.in_flight -= 1
        answer = json.dumps({"outcome": "found", "outputs": {"forecast": f"sunny in {body['inputs']['city']}"}})
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer.encode())
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's signature
        pass


def prepare(env: dict[str, str], endpoint: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DATABASE}"')
    for command in (["migrate", "--noinput"], ["load_demo"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "manage.py", "shell", "-c", SETUP], cwd=ROOT, env=env, check=True,
                   input=WEATHER.replace("ENDPOINT", endpoint), text=True, stdout=subprocess.DEVNULL)


def start(env: dict[str, str]) -> subprocess.Popen:
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{PORT}/health", timeout=2)
            return server
        except httpx.HTTPError:
            time.sleep(0.3)
    server.kill()
    raise SystemExit("gunicorn did not answer within 60 s")


def run(args: argparse.Namespace) -> None:
    skill = SlowSkill(args.seconds)
    threading.Thread(target=skill.serve_forever, daemon=True).start()
    env = {**os.environ, "DATABASE_URL": f"{PG}/{DATABASE}", "DEBUG": "false", "SECRET_KEY": "bench-slow-not-secret",
           "ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "ERROR", "CONCERTO_CHAT_RATE": "1000000",
           "CONCERTO_SKILL_ALLOW_PRIVATE": "true", "CONCERTO_SKILL_TIMEOUT": str(args.seconds + 10),
           "WEB_CONCURRENCY": str(args.workers), "GUNICORN_THREADS": str(args.threads),
           "GUNICORN_BIND": f"127.0.0.1:{PORT}", "NLU_WARM_UP": "true"}
    prepare(env, f"http://127.0.0.1:{skill.server_address[1]}/forecast")
    server = start(env)
    base = f"http://127.0.0.1:{PORT}/api/v1"
    try:
        def session(key: str, first: str) -> str:
            # A connection of its own: gunicorn's processes share the sessions, and each gets warmed.
            with httpx.Client(base_url=base, timeout=120) as http:
                session_id = http.post(f"/assistants/{key}/sessions").json()["id"]
                http.post(f"/sessions/{session_id}/messages", json={"text": first}).raise_for_status()
                return session_id

        def timed(session_id: str, text: str) -> tuple[int, float, str]:
            with httpx.Client(base_url=base, timeout=args.seconds * 4) as own:
                began = time.perf_counter()
                answer = own.post(f"/sessions/{session_id}/messages", json={"text": text})
                return answer.status_code, time.perf_counter() - began, answer.headers.get("Retry-After", "")

        weather = [session("weather-slow", "what's the weather") for _ in range(args.calls)]
        banking = [session("demo-banking", "I'd like to apply for a loan") for _ in range(2 * PROBES)]
        alone = [timed(session_id, "ada@example.com")[1] for session_id in banking[:PROBES]]
        with ThreadPoolExecutor(args.calls) as pool:
            slow = [pool.submit(timed, session_id, "Paris") for session_id in weather]
            during = []
            for session_id in banking[PROBES:]:
                time.sleep(1)
                during.append(timed(session_id, "ada@example.com"))
            results = [future.result() for future in slow]
    finally:
        server.terminate()
        server.wait(timeout=30)
        skill.shutdown()
    counts: dict[str, int] = {}
    for code, _, retry in results:
        label = f"{code}" + (f" (Retry-After {retry})" if retry else "")
        counts[label] = counts.get(label, 0) + 1
    refused = sorted(seconds for code, seconds, _ in results if code == 503)
    told = f"{refused[len(refused) // 2] * 1000:.0f}" if refused else "-"
    statuses = "/".join(sorted({str(code) for code, _, _ in during}))
    waits = [seconds for _, seconds, _ in during]
    print(f"\nSlow skills: gunicorn {args.workers} x {args.threads} threads, {args.calls} turns calling a "
          f"{args.seconds:g} s skill at once, and unrelated banking turns\n")
    print("| unrelated turn alone ms (median) | unrelated turns during the slow calls ms: median, max (status) "
          "| slow turns answered | median ms to a 503 | most skill calls in flight |")
    print("| ---: | ---: | --- | ---: | ---: |")
    answered = ", ".join(f"{n} x {label}" for label, n in sorted(counts.items()))
    print(f"| {statistics.median(alone) * 1000:.0f} | {statistics.median(waits) * 1000:.0f}, {max(waits) * 1000:.0f} "
          f"({statuses}) | {answered} | {told} | {skill.most} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    run(parser.parse_args(argv))


if __name__ == "__main__":
    main()
