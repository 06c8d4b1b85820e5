"""Chat under load: many banking conversations at once over HTTP, through gunicorn, PostgreSQL and Redis.

    python -m bench.load [--users 200] [--conversations 2] [--think 1.0] [--no-kill] [--closed]
    python -m bench --only load

Starts gunicorn with `config/gunicorn.py` (gthread; WEB_CONCURRENCY and GUNICORN_THREADS from the
environment or --workers/--threads) on a PostgreSQL database of its own (`concerto_bench_load`,
dropped, created, migrated, the banking demo loaded with `load_demo`) and Redis as the cache
(CACHE_URL redis://127.0.0.1:6379/13, emptied first). Then `--users` simulated people talk to the
published demo assistant (`demo-banking`) through the widget's public API (POST sessions, POST
messages with a client_id, the demo page's Origin), each running `--conversations` scripted banking
conversations (`bench.turns.BANKING_SCRIPTS`: a loan with consent, card offers, what/how/why, a
bad SSN asked again, stop) one after the other, pausing `--think` seconds (uniform 0.5x-1.5x) before
each message as a person reading the reply would; `--closed` sends the next message at once (the
server's saturation figure). A message whose request fails (no answer, 5xx, 409 busy) is sent again
with the same client_id, as the widget does, at most RESENDS times.

Raised for the bench, explicitly (the server's environment): CONCERTO_CHAT_RATE (per session and
address: every simulated user comes from 127.0.0.1), CONCERTO_CHAT_LEASE_SECONDS=10 (so a turn
killed with its worker frees its session within the run), CONN_MAX_AGE=60.

Two runs by default: `steady`, then `kill`: the same load with one gunicorn worker SIGKILLed when a
third of the expected turns are done; its clients resend with the same client_id. After each run
the database is checked: message positions contiguous and equal to each session's count, trace
positions likewise, no lease left, every share trace with its audit row, no sensitive value readable
in stored messages, traces or audit rows (the sealed state is the only place the values are), and
every session state opens. Prints markdown tables. The load generator runs on the same machine:
its CPU is taken from the server's; so the table also gives the CPU the gunicorn workers and the
generator spent per turn, and the PostgreSQL backends of the bench database (session starts
included; Redis's not), which
other load on a shared machine does not change as much as it changes turns/s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from .common import percentile
from .turns import BANKING_SCRIPTS

ROOT = Path(__file__).resolve().parent.parent
DATABASE = "concerto_bench_load"
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
CACHE_URL = "redis://127.0.0.1:6379/13"
PORT = 8931
ORIGIN = "http://127.0.0.1:8000"  # one of the demo assistant's allowed origins (load_demo)
KEY = "demo-banking"
RESENDS = 30  # per message; with 409's server-side wait of ~3 s this outlasts a 10 s lease
LEASE_SECONDS = 10
API = "/api/v1"
REQUEST_TIMEOUT = 120  # seconds without a status line: the request counts as lost, and is sent again
SERVER_LOG = ROOT / "var" / "bench-load-gunicorn.log"


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)  # seconds, first send to the 200, per message
    starts: list[float] = field(default_factory=list)
    sessions: int = 0
    turns: int = 0
    errors: int = 0  # messages (or session starts) that never got a 200
    resends: int = 0
    statuses: dict[str, int] = field(default_factory=dict)  # why a request was sent again
    sessions_ids: list[str] = field(default_factory=list)

    def note(self, why: str) -> None:
        self.statuses[why] = self.statuses.get(why, 0) + 1


# --- the server -------------------------------------------------------------------------------------


def server_env(workers: int, threads: int, database: str = DATABASE, port: int = PORT) -> dict[str, str]:
    env = dict(os.environ)
    env.update({
        "DATABASE_URL": f"{PG}/{database}",
        "CACHE_URL": CACHE_URL,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": "bench-load-not-secret",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LOG_LEVEL": "WARNING",
        # Raised for the bench (see the module docstring): one address plays every user.
        "CONCERTO_CHAT_RATE": "1000000",
        "CONCERTO_CHAT_LEASE_SECONDS": str(LEASE_SECONDS),
        "CONN_MAX_AGE": "60",
        "WEB_CONCURRENCY": str(workers),
        "GUNICORN_THREADS": str(threads),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
    })
    return env


def prepare_database(env: dict[str, str], database: str = DATABASE) -> None:
    """A fresh database with the migrations and the banking demo; the cache's counters emptied."""
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{database}"')
    for command in (["migrate", "--noinput"], ["load_demo"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
    import redis

    redis.Redis.from_url(CACHE_URL).flushdb()


def start_server(env: dict[str, str]) -> subprocess.Popen:
    SERVER_LOG.parent.mkdir(exist_ok=True)
    with SERVER_LOG.open("a") as log:
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.py",
                                   "config.wsgi:application"], cwd=ROOT, env=env, start_new_session=True,
                                  stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://{env['GUNICORN_BIND']}/health", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited with {server.returncode}")
        time.sleep(0.3)
    stop_server(server)
    raise SystemExit("gunicorn did not answer /health within 60 s")


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def worker_pids(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children")
    return [int(pid) for pid in children.read_text().split()] if children.exists() else []


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of these processes so far (a process gone since counts nothing)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


def postgres_pids() -> list[int]:
    """The PostgreSQL backends serving the bench database (the server's connections)."""
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (DATABASE,)).fetchall()
    return [pid for (pid,) in rows]


def warm(workers: int, threads: int) -> None:
    """Conversations on every worker before the clock starts: imports, models, caches, the planner's
    first run happen once per process. One connection each (no keep-alive) spreads them out."""
    async def one(client: httpx.AsyncClient) -> None:
        session = (await client.post(f"/assistants/{KEY}/sessions")).json()["id"]
        for text in BANKING_SCRIPTS[0]:
            await client.post(f"/sessions/{session}/messages", json={"text": text})

    async def all_of_them() -> None:
        limits = httpx.Limits(max_keepalive_connections=0)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{PORT}/api/v1", headers={"Origin": ORIGIN},
                                     timeout=120, limits=limits) as client:
            await asyncio.gather(*(one(client) for _ in range(workers * min(threads, 4))))

    asyncio.run(all_of_them())


# --- the users --------------------------------------------------------------------------------------


class Wire:
    """One keep-alive HTTP/1.1 connection per user, a request at a time, as a browser tab keeps.

    httpx's async pool, with a connection per user, cost the generator about as much CPU per turn
    as the server spent answering it (its pool is scanned on every request); on a 2-core machine
    that is CPU taken from the server. This is the few lines a JSON POST needs.
    """

    def __init__(self) -> None:
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: dict[str, Any] | None) -> tuple[int, dict[str, str], bytes]:
        data = json.dumps(body).encode() if body is not None else b""
        head = (f"POST {API}{path} HTTP/1.1\r\nHost: 127.0.0.1:{PORT}\r\nOrigin: {ORIGIN}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n").encode()
        try:
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", PORT)
            assert self.reader is not None
            self.writer.write(head + data)
            await self.writer.drain()
            status_line = await asyncio.wait_for(self.reader.readline(), REQUEST_TIMEOUT)
            if not status_line:
                raise ConnectionResetError("the server closed the connection")
            headers: dict[str, str] = {}
            while (line := await self.reader.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            payload = await self.reader.readexactly(int(headers["content-length"]))
        except BaseException:
            self.close()
            raise
        if headers.get("connection", "").lower() == "close":
            self.close()
        return int(status_line.split()[1]), headers, payload

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


class User:
    def __init__(self, tally: Tally, rng: random.Random, think: float):
        self.wire, self.tally, self.rng, self.think = Wire(), tally, rng, think

    async def pause(self) -> None:
        if self.think:
            await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))

    async def call(self, path: str, body: dict[str, Any] | None) -> dict[str, Any] | None:
        """POST until a 2xx (the same body each time: a message keeps its client_id); None if never."""
        for attempt in range(RESENDS + 1):
            if attempt:
                self.tally.resends += 1
            try:
                status, headers, payload = await self.wire.post(path, body)
            except (TimeoutError, OSError, asyncio.IncompleteReadError, KeyError, ValueError) as exc:
                self.tally.note(type(exc).__name__)  # no (whole) answer: the widget sends again
                await asyncio.sleep(0.5)
                continue
            if status < 300:
                return json.loads(payload)
            self.tally.note(str(status))
            if status not in (409, 429) and status < 500:
                return None  # a 4xx the script caused: sending again would not help
            # 409: the server already waited ~3 s for the session before answering.
            await asyncio.sleep(0.2 if status == 409 else float(headers.get("retry-after", "0.5")))
        return None

    async def converse(self, script: list[str]) -> None:
        started = time.monotonic()
        opened = await self.call(f"/assistants/{KEY}/sessions", None)
        if opened is None:
            self.tally.errors += 1
            return
        self.tally.starts.append(time.monotonic() - started)
        self.tally.sessions += 1
        self.tally.sessions_ids.append(opened["id"])
        for text in script:
            await self.pause()
            started = time.monotonic()
            body = {"text": text, "client_id": uuid.uuid4().hex}
            answer = await self.call(f"/sessions/{opened['id']}/messages", body)
            if answer is None:
                self.tally.errors += 1
                break  # the conversation cannot go on sensibly without its reply
            self.tally.latencies.append(time.monotonic() - started)
            self.tally.turns += 1
        self.wire.close()


async def load(users: int, conversations: int, think: float, ramp: float, seed: int,
               kill_after: int | None, master: int) -> tuple[Tally, float, list[int]]:
    tally = Tally()
    killed: list[int] = []

    async def person(number: int) -> None:
        rng = random.Random(seed * 100_003 + number)
        await asyncio.sleep(ramp * number / users)
        for k in range(conversations):
            # A new conversation, a new page: a new connection.
            await User(tally, rng, think).converse(BANKING_SCRIPTS[(number + k) % len(BANKING_SCRIPTS)])

    async def killer() -> None:
        while tally.turns < (kill_after or 0):
            await asyncio.sleep(0.05)
        pids = worker_pids(master)
        if pids:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    started = time.monotonic()
    tasks = [asyncio.create_task(person(n)) for n in range(users)]
    if kill_after is not None:
        tasks.append(asyncio.create_task(killer()))
    await asyncio.gather(*tasks)
    return tally, time.monotonic() - started, killed


# --- the database afterwards --------------------------------------------------------------------------


def check_database(session_ids: list[str], answered: int) -> list[tuple[str, int, str]]:
    """(check, sessions or rows looked at, problems found or 'ok') for the sessions of one run."""
    from django.db.models import Count

    from orchestrator.chat.models import ChatSession, Message, ShareAudit, TraceEvent, TraceKind
    from orchestrator.chat.runtime import runtime_for
    from orchestrator.chat.vault import state_open
    from orchestrator.engine.runtime.masking import Scrubber, sensitive_values

    sessions = list(ChatSession.objects.filter(pk__in=session_ids).select_related("assistant"))
    gaps, traces_bad, leased, unopened, leaks = [], [], [], [], []
    holding = 0  # sessions that know a sensitive value, so the leak check had something to look for
    audit_missing = 0
    shares = 0
    spec = None
    for session in sessions:
        positions = list(Message.objects.filter(session=session).order_by("position")
                         .values_list("position", flat=True))
        if positions != list(range(session.message_count)):
            gaps.append(str(session.pk))
        trace = list(TraceEvent.objects.filter(session=session).order_by("position").values_list("position", flat=True))
        if trace != list(range(session.trace_count)):
            traces_bad.append(str(session.pk))
        if session.lease_token is not None:
            leased.append(str(session.pk))
        share_keys = [(e["element"], e["skill"], e["step"]) for e in
                      TraceEvent.objects.filter(session=session, kind=TraceKind.SHARE).values_list("data", flat=True)]
        audited = list(ShareAudit.objects.filter(session=session).values_list("element", "skill", "step"))
        shares += len(share_keys)
        audit_missing += sum(1 for key in share_keys if key not in audited) + abs(len(share_keys) - len(audited))
        try:
            state = state_open(session.state, session_id=session.pk)
        except Exception:  # noqa: BLE001 - counted
            unopened.append(str(session.pk))
            continue
        spec = spec or runtime_for(session.assistant, seed=0).spec
        values = sensitive_values(spec, state)
        if not values:
            continue
        holding += 1
        stored = [text for text, data in Message.objects.filter(session=session).values_list("text", "data")
                  for text in (text, str(data))]
        stored += [str(data) for data in TraceEvent.objects.filter(session=session).values_list("data", flat=True)]
        stored += [" ".join(map(str, row)) for row in audited]
        known = Scrubber.known_only(values)
        if any(known.text(text) != text for text in stored):
            leaks.append(str(session.pk))
    duplicated = (Message.objects.filter(session__in=sessions).values("session", "position")
                  .annotate(n=Count("id")).filter(n__gt=1).count())
    # Resent messages (same client_id) ran once: one stored user message per answered message.
    asked = Message.objects.filter(session__in=sessions, role="user").count()

    def verdict(found: list[str] | int) -> str:
        if isinstance(found, int):
            return "ok" if not found else f"{found} problems"
        return "ok" if not found else f"{len(found)} sessions, e.g. {found[0]}"

    return [
        ("message positions contiguous, = message_count", len(sessions), verdict(gaps)),
        ("no position written twice", len(sessions), verdict(duplicated)),
        ("user messages stored = messages answered (no turn run twice or lost)", answered,
         "ok" if asked == answered else f"{asked} stored"),
        ("trace positions contiguous, = trace_count", len(sessions), verdict(traces_bad)),
        ("no lease left behind", len(sessions), verdict(leased)),
        ("every share trace has its audit row", shares, verdict(audit_missing)),
        ("state opens (sealed, readable)", len(sessions), verdict(unopened)),
        ("no sensitive value readable in messages/trace/audit (sessions holding one)", holding, verdict(leaks)),
    ]


# --- the runs -----------------------------------------------------------------------------------------


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def run(args: argparse.Namespace) -> None:
    env = server_env(args.workers, args.threads)
    # This process checks the same rows and opens the states: the server's database and key.
    for name in ("DATABASE_URL", "CACHE_URL", "SECRET_KEY", "LOG_LEVEL"):
        os.environ[name] = env[name]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    print(f"Preparing {DATABASE} (migrate, load_demo) ...", flush=True)
    prepare_database(env)
    runs = [("steady", None)] + ([] if args.no_kill else [("kill", 1 / 3)])
    results = []
    for name, kill_share in runs:
        server = start_server(env)
        try:
            warm(args.workers, args.threads)
            expected = args.users * args.conversations * statistics.mean(len(s) for s in BANKING_SCRIPTS)
            kill_after = int(expected * kill_share) if kill_share else None
            before = loadavg()
            cpu_before = {pid: cpu_seconds([pid]) for pid in worker_pids(server.pid)}
            # Backends are per connection (CONN_MAX_AGE keeps them); ones opened during the run count
            # from zero, ones closed during it are lost: an approximation, an undercount if anything.
            pg_before = {pid: cpu_seconds([pid]) for pid in postgres_pids()}
            own_cpu = time.process_time()
            tally, seconds, killed = asyncio.run(load(args.users, args.conversations, 0 if args.closed else args.think,
                                                      args.ramp, args.seed, kill_after, server.pid))
            own_cpu = time.process_time() - own_cpu
            # Workers alive at the end, the respawned one too; a killed one's CPU is lost (an undercount).
            server_cpu = sum(cpu_seconds([pid]) - cpu_before.get(pid, 0.0) for pid in worker_pids(server.pid))
            pg_cpu = sum(cpu_seconds([pid]) - pg_before.get(pid, 0.0) for pid in postgres_pids())
            after = loadavg()
        finally:
            stop_server(server)
        checks = check_database(tally.sessions_ids, tally.turns)
        results.append((name, tally, seconds, killed, before, after, checks, server_cpu, pg_cpu, own_cpu))

    mode = "closed loop (no pause)" if args.closed else f"think {args.think:g} s (uniform 0.5x-1.5x)"
    print(f"\nChat over HTTP: gunicorn gthread {args.workers} workers x {args.threads} threads, PostgreSQL, "
          f"Redis; {args.users} users x {args.conversations} banking conversations, {mode}; "
          f"{os.cpu_count()} cores shared with the load generator")
    print("| run | sessions | turns | errors | resends (why) | turns/s | p50 ms | p95 ms | p99 ms | "
          "session start p95 ms | CPU ms/turn: gunicorn + PostgreSQL + generator | load avg before -> after |")
    print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for name, tally, seconds, killed, before, after, _, server_cpu, pg_cpu, own_cpu in results:
        why = ", ".join(f"{k} x{v}" for k, v in sorted(tally.statuses.items())) or "-"
        label = f"{name} (SIGKILL worker {killed[0]})" if killed else name
        ms = [x * 1000 for x in tally.latencies]

        def per_turn(cpu: float, turns: int = tally.turns) -> str:
            return f"{cpu * 1000 / max(1, turns):.1f}"

        print(f"| {label} | {tally.sessions} | {tally.turns} | {tally.errors} | {tally.resends} ({why}) "
              f"| {tally.turns / seconds:.1f} | {percentile(ms, 0.5):.0f} | {percentile(ms, 0.95):.0f} "
              f"| {percentile(ms, 0.99):.0f} | {percentile([x * 1000 for x in tally.starts], 0.95):.0f} "
              f"| {per_turn(server_cpu)} + {per_turn(pg_cpu)} + {per_turn(own_cpu)} "
              f"| {before} -> {after} |")
    for name, *_, checks, _server, _pg, _own in results:
        print(f"\nDatabase after the {name} run:")
        print("| check | looked at | result |")
        print("| --- | ---: | --- |")
        for check, count, verdict in checks:
            print(f"| {check} | {count} | {verdict} |")
    if not args.keep:
        from django.db import connections

        connections.close_all()
        import psycopg

        with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--users", type=int, default=200, help="people talking at once (load)")
    parser.add_argument("--conversations", type=int, default=2, help="conversations per user, one after the other")
    parser.add_argument("--think", type=float, default=1.0, help="seconds a user reads before answering (mean)")
    parser.add_argument("--closed", action="store_true", help="no pause between messages: saturation")
    parser.add_argument("--ramp", type=float, default=2.0, help="seconds over which the users arrive")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "3")))
    parser.add_argument("--threads", type=int, default=int(os.environ.get("GUNICORN_THREADS", "8")))
    parser.add_argument("--no-kill", action="store_true", help="skip the run that SIGKILLs a worker")
    parser.add_argument("--keep", action="store_true", help="keep the bench database afterwards")
    parser.add_argument("--load-seed", dest="seed", type=int, default=1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    run(parser.parse_args(argv))


if __name__ == "__main__":
    main()
