"""Simulation throughput: conversations per second in process and on 1 or 2 Celery workers.

    python -m bench.simulation [--conversations 200] [--full 1000] [--timed N] [--backends postgres,embedded]

Each backend runs in its own child process on a throwaway database: `postgres` is a copy of the
configured PostgreSQL (`DATABASE_URL`) with Redis at 127.0.0.1:6379/11 as the broker; `embedded`
is the default that needs nothing installed (SQLite in a temporary file, kombu's filesystem
broker). Workers are real `celery worker -P solo` processes; each is warmed with a small run first
(Django start, Fast Downward's first call), and a run is timed from its dispatch to its last
conversation stored (the run's own timestamps). The banking demo, its `realistic` scenario, the
planner orchestrator. A last table says where the time of an in-process run goes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import yaml

from .common import BANKING

ROOT = Path(__file__).resolve().parent.parent
REDIS = "redis://127.0.0.1:6379/11"
SCENARIO = BANKING.parent / "banking-scenario.yaml"


# --- the child: one backend ------------------------------------------------------------------------


def _child(conversations: int, full: int, backend: str, timed: int) -> list[dict[str, Any]]:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import connection

    database = connection.settings_dict
    if connection.vendor == "sqlite":
        database["TEST"]["NAME"] = str(Path(tempfile.mkdtemp(prefix="concerto-bench-")) / "bench.sqlite3")
    else:
        database["TEST"]["NAME"] = f"{database['NAME']}_bench_simulation"
    original = database["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        return _rows(conversations, full, backend, timed)
    finally:
        connection.creation.destroy_test_db(original, verbosity=0)


def _rows(conversations: int, full: int, backend: str, timed: int) -> list[dict[str, Any]]:
    from django.db import connection

    from catalog_app.services import catalog_import, workspace_get_or_create_default
    from orchestrator.engine.catalog.spec_io import load_catalog
    from orchestrator.simulation.services import scenario_save

    workspace = workspace_get_or_create_default()
    version = catalog_import(workspace=workspace, spec=load_catalog(BANKING.read_text()))
    scenario_save(catalog=version.catalog, data=yaml.safe_load(SCENARIO.read_text()))
    db = connection.settings_dict
    url = (f"sqlite:///{db['NAME']}" if connection.vendor == "sqlite"
           else f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}")
    broker = REDIS if backend == "postgres" else "filesystem://"
    rows = [_in_process(workspace, version, conversations, backend)]
    for workers in (1, 2):
        rows.append(_on_workers(workspace, version, conversations, workers, url, broker, backend))
    if full:
        rows.append(_on_workers(workspace, version, full, 2, url, broker, backend))
    if timed:
        rows.append(_where_time_goes(workspace, version, timed, backend))
    return rows


def _run(workspace: Any, version: Any, conversations: int, seed: int) -> Any:
    from orchestrator.simulation.services import run_create

    return run_create(workspace=workspace, version=version, scenario="realistic", conversations=conversations,
                      seed=seed, enqueue=False)


def _row(backend: str, workers: str, run: Any, seconds: float, **extra: Any) -> dict[str, Any]:
    summary = run.summary or {}
    return {"backend": backend, "workers": workers, "conversations": run.conversations, "status": run.status,
            "seconds": round(seconds, 2), "per_second": round(run.conversations / seconds, 1) if seconds else 0,
            "success_rate": summary.get("success_rate"), **extra}


def _in_process(workspace: Any, version: Any, conversations: int, backend: str) -> dict[str, Any]:
    from orchestrator.simulation.services import run_execute

    run_execute(run_id=_run(workspace, version, 10, seed=999).pk)  # warm: Fast Downward's first call
    run = _run(workspace, version, conversations, seed=1)
    started = time.perf_counter()
    run = run_execute(run_id=run.pk)
    return _row(backend, "in process", run, time.perf_counter() - started)


def _on_workers(workspace: Any, version: Any, conversations: int, workers: int, url: str, broker: str,
                backend: str) -> dict[str, Any]:
    from celery import Celery

    from orchestrator.simulation.models import SimulationRun

    queue = f"bench-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "DATABASE_URL": url, "CELERY_BROKER_URL": broker}
    processes = [subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "solo", "-Q", queue, "--loglevel", "error",
         "-n", f"bench{i}-{queue}@%h"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for i in range(workers)]
    client = Celery("bench", broker=broker)
    if broker.startswith("filesystem://"):
        from django.conf import settings

        client.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    try:
        warm = _run(workspace, version, 20 * workers, seed=998)
        warm.chunk_size = 10
        warm.save(update_fields=["chunk_size"])
        _send_and_wait(client, queue, warm.pk)
        run = _run(workspace, version, conversations, seed=1)
        _send_and_wait(client, queue, run.pk)
        run = SimulationRun.objects.get(pk=run.pk)
        seconds = (run.finished_at - run.started_at).total_seconds() if run.finished_at and run.started_at else 0.0
        return _row(backend, str(workers), run, seconds)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=60)


def _send_and_wait(client: Any, queue: str, run_id: int, timeout: float = 1200.0) -> None:
    from orchestrator.simulation.models import SimulationRun

    client.send_task("orchestrator.tasks.simulation_start", args=[run_id], queue=queue)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if SimulationRun.objects.filter(pk=run_id).values_list("finished_at", flat=True).first():
            return
        time.sleep(0.2)
    raise RuntimeError(f"run {run_id} did not finish in {timeout:g} s")


def _where_time_goes(workspace: Any, version: Any, conversations: int, backend: str) -> dict[str, Any]:
    """An in-process run with its parts timed: conversations (planning apart) and database writes."""
    from catalog_app.planning import version_planner
    from orchestrator.simulation import services as services

    spent = {"simulate": 0.0, "store": 0.0}
    simulate, store = services.simulate_conversation, services._store

    def timed_simulate(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return simulate(*args, **kwargs)
        finally:
            spent["simulate"] += time.perf_counter() - started

    def timed_store(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return store(*args, **kwargs)
        finally:
            spent["store"] += time.perf_counter() - started

    planner = version_planner(version=version)
    planner.cache = type(planner.cache)(planner.cache.size)  # cold caches, as a fresh worker has
    planner.searches = type(planner.searches)(planner.searches.size)
    services.simulate_conversation, services._store = timed_simulate, timed_store
    try:
        run = _run(workspace, version, conversations, seed=2)
        started = time.perf_counter()
        run = services.run_execute(run_id=run.pk)
        total = time.perf_counter() - started
    finally:
        services.simulate_conversation, services._store = simulate, store
    planning = sum(sum(m["planner_ms"]) for m in run.results.values_list("metrics", flat=True)) / 1000
    return _row(backend, "in process, timed", run, total, planning_s=round(planning, 2),
                searches=planner.searches.misses, cache_hits=planner.cache.hits,
                conversation_s=round(spent["simulate"], 2), store_s=round(spent["store"], 2))


# --- the parent: tables ----------------------------------------------------------------------------


LABELS = {"postgres": "PostgreSQL + Redis", "embedded": "SQLite + filesystem broker (default)"}


def print_tables(rows: list[dict[str, Any]]) -> None:
    print("| database + broker | workers | conversations | seconds | conversations / s | goal success |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for row in rows:
        if row["workers"] == "in process, timed":
            continue
        rate = f"{100 * row['success_rate']:.1f}%" if row["success_rate"] is not None else row["status"]
        print(f"| {LABELS[row['backend']]} | {row['workers']} | {row['conversations']} | {row['seconds']:.1f} | "
              f"{row['per_second']:.1f} | {rate} |")
    timed = [r for r in rows if r["workers"] == "in process, timed"]
    if timed:
        print()
        print("| database | conversations | total s | Fast Downward searches | plan cache hits | planning s | "
              "rest of the conversations s | database writes s | other s |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for row in timed:
            rest = row["conversation_s"] - row["planning_s"]
            other = row["seconds"] - row["conversation_s"] - row["store_s"]
            print(f"| {LABELS[row['backend']].split(' +')[0]} | {row['conversations']} | {row['seconds']:.1f} | "
                  f"{row['searches']} | {row['cache_hits']} | {row['planning_s']:.1f} | {rest:.1f} | "
                  f"{row['store_s']:.1f} | {other:.1f} |")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.simulation", description=__doc__.split("\n")[0])
    parser.add_argument("--conversations", type=int, default=200, help="per throughput row")
    parser.add_argument("--full", type=int, default=1000, help="the big run on 2 workers (0: skip it)")
    parser.add_argument("--timed", type=int, help="conversations of the in-process run timed part by part "
                        "(default: as many as --full; 0: skip it)")
    parser.add_argument("--backends", default="postgres,embedded")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    timed = args.full if args.timed is None else args.timed
    if args.child:
        print(json.dumps(_child(args.conversations, args.full, args.child, timed)))
        return
    rows: list[dict[str, Any]] = []
    for backend in [b.strip() for b in args.backends.split(",") if b.strip()]:
        env = dict(os.environ)
        if backend == "embedded":
            env.pop("DATABASE_URL", None)
            env.pop("CELERY_BROKER_URL", None)
            env.pop("CELERY_RESULT_BACKEND", None)
        elif not env.get("DATABASE_URL", "").startswith("postgres"):
            print(f"skipping {backend}: set DATABASE_URL=postgres://...", file=sys.stderr)
            continue
        else:
            env["CELERY_BROKER_URL"] = REDIS
        done = subprocess.run([sys.executable, "-m", "bench.simulation", "--child", backend, "--conversations",
                               str(args.conversations), "--full", str(args.full), "--timed", str(timed)],
                              cwd=ROOT, env=env,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"{backend} failed:\n{done.stderr[-3000:]}", file=sys.stderr)
            continue
        rows += json.loads(done.stdout.strip().splitlines()[-1])
    print_tables(rows)


if __name__ == "__main__":
    main()
