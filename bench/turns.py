"""Chat turn latency: the work of one message, skill latency aside (all skills are simulated).

    python -m bench.turns [--repeat 5] [--skills 200] [--conversations 10]

Every turn goes through `orchestrator.chat.services.message_post`, as the API calls it: lease
the session, load the state, NLU, planning (Fast Downward), bookkeeping, masking, saving the
state, transcript, trace and audit rows. The database is a throwaway copy of the configured one
(`DATABASE_URL`, else SQLite in a temporary file), created and dropped by the benchmark.

Rows: the banking demo as a draft (its spec read from the rows every turn, as the studio's test
chat runs it) and promoted (the frozen spec, as a live assistant runs it), and a generated
catalog of `--skills` skills, promoted. `engine` is the time inside the orchestrator's `turn`;
the rest of a turn is the Django side. Targets: banking p95 <= 50 ms, 200 skills p95 <= 150 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .common import BANKING, p95

BANKING_SCRIPTS = [
    # The loan, start to end, then declining the credit card offered.
    ["I'd like to apply for a loan", "ada@example.com", "my ssn is 123-45-6789", "yes", "$20,000", "yes", "no"],
    # No email: the account number instead; then what/how/why.
    ["I need a loan", "I don't know my email", "12345678", "123-45-6789", "yes", "$5,000", "yes",
     "what did you do?", "how did you get my credit score?", "no"],
    # A credit card in the middle of the loan, then the loan resumes.
    ["I'd like to apply for a loan", "ada@example.com", "actually, I want a credit card first", "gold please",
     "yes", "123-45-6789", "yes", "$12,000", "yes"],
    # An unreadable document, a good one, and a consent refused.
    ["I want a loan", "I don't know my email", "I don't have it", "passport-blurry.jpg", "passport-sharp.jpg",
     "no"],
    # Values given up front; a bad format asked again; stop.
    ["I'd like a loan of $30,000, my email is ada@example.com", "my ssn is 12", "123-45-6789", "stop",
     "what is the status of my card application", "CC-104233"],
]
MAX_TURNS = 12  # per generated conversation: enough to reach a goal of the synthetic catalogs

# A conversation: fixed lines, or a function that picks the next line from the last replies.
Script = list[str] | Callable[[list[dict]], str | None]


@dataclass
class Row:
    name: str
    skills: int
    turns: int
    median_ms: float
    p95_ms: float
    max_ms: float
    engine_median_ms: float
    engine_p95_ms: float


def _setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    root = str(Path(__file__).resolve().parent.parent)
    if root not in sys.path:
        sys.path.insert(0, root)
    import django

    django.setup()


class Timer:
    """Wraps each turn's orchestrator to time the engine's share of the turn."""

    def __init__(self) -> None:
        self.engine: list[float] = []

    def install(self) -> None:
        from orchestrator.chat import services as chat_services

        real = chat_services.runtime_for

        def timed_runtime(assistant: Any, *, seed: int) -> Any:
            runtime = real(assistant, seed=seed)
            turn = runtime.bot.turn

            def timed(state: Any, text: str) -> Any:
                started = time.perf_counter()
                try:
                    return turn(state, text)
                finally:
                    self.engine.append((time.perf_counter() - started) * 1000)

            runtime.bot.turn = timed
            return runtime

        chat_services.runtime_for = timed_runtime


def _converse(assistant: Any, script: Script) -> list[float]:
    """One conversation; the wall time of each message_post, in ms."""
    from orchestrator.chat.services import message_post, session_create

    session, replies = session_create(assistant=assistant)
    times = []
    for index in range(MAX_TURNS if callable(script) else len(script)):
        text = script(replies) if callable(script) else script[index]
        if text is None:
            break
        started = time.perf_counter()
        replies = message_post(session_id=session.pk, text=text)
        times.append((time.perf_counter() - started) * 1000)
    return times


def _answerer(rng: random.Random, opening: str) -> Callable[[list[dict]], str | None]:
    """A user of a generated catalog: asks `opening`, answers every question, agrees to every share."""
    said = False

    def next_text(replies: list[dict]) -> str | None:
        nonlocal said
        if not said:
            said = True
            return opening
        last = replies[-1] if replies else {}
        if last.get("kind") == "consent":
            return "yes"
        if last.get("kind") == "question" and last.get("element"):
            return f"value {rng.randrange(10_000)}"
        return None  # a result, an offer or a dead end: the conversation is over

    return next_text


@dataclass
class Subject:
    name: str
    assistant: Any
    skills: int
    scripts: list[Script]  # the first one only warms the caches (planner, grounding, binaries)


def _measure(subject: Subject, timer: Timer) -> Row:
    _converse(subject.assistant, subject.scripts[0])
    timer.engine.clear()
    times = [t for script in subject.scripts[1:] for t in _converse(subject.assistant, script)]
    return Row(subject.name, subject.skills, len(times), statistics.median(times), p95(times), max(times),
               statistics.median(timer.engine), p95(timer.engine))


def _subjects(repeat: int, skills: int, conversations: int) -> list[Subject]:
    from catalog_app.services import (
        catalog_import,
        version_create_draft,
        version_promote,
        workspace_get_or_create_default,
    )
    from orchestrator.assistants.services import assistant_create, studio_test_assistant
    from orchestrator.engine.catalog.spec_io import load_catalog
    from orchestrator.engine.catalog.synthetic import synthetic_catalog

    workspace = workspace_get_or_create_default()
    banking_spec = load_catalog(BANKING.read_text())
    draft = catalog_import(workspace=workspace, spec=banking_spec)
    live = version_promote(version=version_create_draft(version=draft, user=None), user=None)
    generated = synthetic_catalog(skills, seed=1)
    big = version_promote(version=catalog_import(workspace=workspace, spec=generated), user=None)

    banking_scripts: list[Script] = [BANKING_SCRIPTS[0], *BANKING_SCRIPTS * repeat]
    rng = random.Random(skills)
    openings = [intent.examples[0] for intent in generated.intents]
    generated_scripts: list[Script] = [_answerer(rng, openings[k % len(openings)]) for k in range(conversations + 1)]
    return [
        Subject("banking (draft)", studio_test_assistant(version=draft),
                len(banking_spec.skills), banking_scripts),
        Subject("banking (promoted)", assistant_create(workspace=workspace, version=live, key="bench-live"),
                len(banking_spec.skills), banking_scripts),
        Subject(f"synthetic-{skills} (promoted)", assistant_create(workspace=workspace, version=big, key="bench-big"),
                skills, generated_scripts),
    ]


def run(repeat: int, skills: int, conversations: int) -> list[Row]:
    from django.db import connection

    database = connection.settings_dict
    if connection.vendor == "sqlite":
        # A file, not the in-memory test default: writes cost what they cost in the studio.
        database["TEST"]["NAME"] = str(Path(tempfile.mkdtemp(prefix="concerto-bench-")) / "bench.sqlite3")
    else:
        database["TEST"]["NAME"] = f"{database['NAME']}_bench_turns"
    original = database["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        timer = Timer()
        timer.install()
        return [_measure(subject, timer) for subject in _subjects(repeat, skills, conversations)]
    finally:
        connection.creation.destroy_test_db(original, verbosity=0)


def print_table(rows: list[Row], vendor: str) -> None:
    print(f"Chat turn latency through message_post on {vendor} (skills simulated, so no skill latency):")
    print("| catalog | skills | turns | median ms | p95 ms | max ms | engine median ms | engine p95 ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(f"| {row.name} | {row.skills} | {row.turns} | {row.median_ms:.1f} | {row.p95_ms:.1f} "
              f"| {row.max_ms:.1f} | {row.engine_median_ms:.1f} | {row.engine_p95_ms:.1f} |", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each scripted banking conversation")
    parser.add_argument("--skills", type=int, default=200, help="size of the generated catalog")
    parser.add_argument("--conversations", type=int, default=20, help="conversations with the generated catalog")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    _setup_django()
    from django.db import connection

    rows = run(args.repeat, args.skills, args.conversations)
    print_table(rows, connection.vendor)


if __name__ == "__main__":
    main()
