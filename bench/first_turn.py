"""The first chat turn of a fresh web worker: what the first user waits for after a deploy or a restart.

    python -m bench.first_turn [--rounds 3]
    python -m bench --only first_turn

Each round starts gunicorn with `config/gunicorn.py` and one worker on a PostgreSQL database of its
own (`concerto_bench_first_turn`: migrated, the banking demo loaded), waits until the worker answers
`/health` (it is up: from then on the load balancer sends it users), then times, through the widget's
public API, the demo assistant's first session start, its first message, the rest of that
conversation, and a second conversation's first message (what a warm worker costs). Target: the
first message < 300 ms after the worker is up.

Then, each in a fresh Python, what a process pays once: finding Fast Downward's binary (and whether
that imported unified-planning), and loading the NLU model (`intents.warm_up`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import httpx

from .load import KEY, ORIGIN, PG, ROOT, loadavg, prepare_database, server_env, stop_server
from .turns import BANKING_SCRIPTS

DATABASE = "concerto_bench_first_turn"
PORT = 8937
SERVER_LOG = ROOT / "var" / "bench-first-turn-gunicorn.log"

# Each run in a fresh interpreter, as a new worker process would; prints seconds and a note.
ONCE_PER_PROCESS = {
    "find Fast Downward's binary": (
        "import sys, time; from orchestrator.engine.planning.downward import search_binary; "
        "t = time.perf_counter(); search_binary(); s = time.perf_counter() - t; "
        "print(s, 'imported unified-planning' if 'unified_planning' in sys.modules else 'no unified-planning')"),
    "load the NLU model (warm_up)": (
        "from orchestrator.engine.runtime.intents import warm_up; print(warm_up(), '')"),
}


def _start(env: dict[str, str]) -> tuple[subprocess.Popen, float]:
    """gunicorn, and the seconds until its worker answered /health."""
    SERVER_LOG.parent.mkdir(exist_ok=True)
    started = time.perf_counter()
    with SERVER_LOG.open("a") as log:
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py",
                                   "config.wsgi:application"], cwd=ROOT, env=env, start_new_session=True,
                                  stdout=log, stderr=subprocess.STDOUT)
    while time.perf_counter() - started < 120:
        try:
            if httpx.get(f"http://127.0.0.1:{PORT}/health", timeout=5).status_code == 200:
                return server, time.perf_counter() - started
        except httpx.HTTPError:
            pass
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited with {server.returncode} (see {SERVER_LOG})")
        time.sleep(0.02)
    stop_server(server)
    raise SystemExit("gunicorn did not answer /health within 120 s")


def _timed(client: httpx.Client, path: str, body: dict | None = None) -> tuple[float, dict]:
    started = time.perf_counter()
    response = client.post(path, json=body)
    elapsed = (time.perf_counter() - started) * 1000
    response.raise_for_status()
    return elapsed, response.json()


def _round(env: dict[str, str]) -> dict[str, float]:
    server, up = _start(env)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{PORT}/api/v1", headers={"Origin": ORIGIN},
                          timeout=120) as client:
            start_ms, session = _timed(client, f"/assistants/{KEY}/sessions")
            script = BANKING_SCRIPTS[0]
            turns = [_timed(client, f"/sessions/{session['id']}/messages", {"text": text})[0] for text in script]
            _, second = _timed(client, f"/assistants/{KEY}/sessions")
            again_ms, _ = _timed(client, f"/sessions/{second['id']}/messages", {"text": script[0]})
    finally:
        stop_server(server)
    return {"up_s": up, "start_ms": start_ms, "first_ms": turns[0], "rest_ms": statistics.median(turns[1:]),
            "again_ms": again_ms}


def _once_per_process() -> list[tuple[str, float, str]]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    rows = []
    for name, code in ONCE_PER_PROCESS.items():
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True,
                              text=True)
        seconds, _, note = done.stdout.strip().splitlines()[-1].partition(" ")
        rows.append((name, float(seconds), note))
    return rows


def run(rounds: int) -> None:
    env = server_env(1, 8, database=DATABASE, port=PORT)
    env.pop("CACHE_URL")  # a few requests: the per-process cache does (and leaves the load bench's Redis alone)
    print(f"Preparing {DATABASE} (migrate, load_demo) ...", flush=True)
    prepare_database(env, database=DATABASE)
    before = loadavg()
    try:
        results = [_round(env) for _ in range(rounds)]
    finally:
        import psycopg

        with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
    once = _once_per_process()
    after = loadavg()

    print(f"\nFirst turn of a fresh gunicorn worker (1 worker x 8 threads, PostgreSQL), {rounds} rounds, "
          f"median [min-max]; load avg {before} -> {after}")
    print("| start to /health s | first session start ms | first message ms | its next messages, median ms "
          "| a second session's first message ms |")
    print("| ---: | ---: | ---: | ---: | ---: |")

    def cell(key: str, form: str) -> str:
        values = [r[key] for r in results]
        return f"{statistics.median(values):{form}} [{min(values):{form}}-{max(values):{form}}]"

    print(f"| {cell('up_s', '.2f')} | {cell('start_ms', '.0f')} | {cell('first_ms', '.0f')} "
          f"| {cell('rest_ms', '.0f')} | {cell('again_ms', '.0f')} |")
    print("\nOnce per process, each in a fresh Python:")
    print("| step | seconds | note |")
    print("| --- | ---: | --- |")
    for name, seconds, note in once:
        print(f"| {name} | {seconds:.3f} | {note or '-'} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="fresh servers to time")
    run(parser.parse_args(argv).rounds)


if __name__ == "__main__":
    main()
