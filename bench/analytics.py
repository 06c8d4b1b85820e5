"""The analytics page's queries at 100,000 stored sessions: each selector, and the whole page.

    python -m bench --only analytics [--analytics-sessions 100000] [--analytics-repeat 3]

Into a throwaway copy of the configured database (PostgreSQL), the demo banking assistant is loaded
and sessions are bulk-created with their transcripts and traces, in the shapes the runtime stores
(a goal reached, a request not understood, a consent refused, "did you mean", a skill failing, a
widget opened and left), over 60 days, two start versions and both orchestrators. Each selector is
timed over every session, one version, and the last 7 days (median of the repeats), then the page
as a logged-in analyst gets it. Target: the page under 2 s at 100,000 sessions.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from datetime import timedelta
from io import StringIO

from .turns import _setup_django

TARGET_SESSIONS, TARGET_SECONDS = 100_000, 2.0
BATCH = 5000

GREETING = ("assistant", "text", "Hello! I can help you apply for a loan or a credit card.", {})
SHAPES: list[list[tuple[str, str, str, dict]]] = [
    [GREETING, ("user", "user", "I'd like to apply for a loan", {}),
     ("assistant", "question", "What is your email address?", {"element": "email"}),
     ("user", "user", "ada@example.com", {}),
     ("assistant", "consent", "May I send your social security number to credit check?", {"skill": "credit_check"}),
     ("user", "user", "yes", {}),
     ("assistant", "result", "Done: apply for a loan.", {"goal": "apply_loan"})],
    [GREETING, ("user", "user", "blorp fizzle", {}),
     ("assistant", "text", "Sorry, I did not understand that. I can help you apply for a loan.", {})],
    [GREETING, ("user", "user", "a loan please", {}),
     ("assistant", "consent", "May I send your social security number to credit check?", {"skill": "credit_check"}),
     ("user", "user", "no", {}),
     ("assistant", "text", "Understood: I will not share it with credit check.", {})],
    [GREETING, ("user", "user", "card", {}),
     ("assistant", "question", "Did you mean to apply for a loan, or to apply for a credit card?",
      {"data": {"choices": ["apply_loan", "apply_credit_card"]}}),  # a message's data is the whole reply
     ("user", "user", "the second", {}),
     ("assistant", "text", "Sure, let's apply for a credit card.", {"goal": "apply_credit_card"}),
     ("assistant", "question", "What is your email address?", {"element": "email"})],
    [GREETING, ("user", "user", "check my card status", {}),
     ("assistant", "question", "What is your card application id?", {"element": "card_application_id"}),
     ("user", "user", "CC-•••• (hidden)", {})],
    [GREETING],
]
# (shape, position) -> the mark the chat service sets on that line from the engine's typed reply
MARKS = {(1, 2): "not_understood", (2, 4): "consent_refused", (3, 4): "started"}
TRACES: list[list[dict]] = [
    [{"skill": "lookup_customer", "outcome": "ok", "planned_outcome": "ok"},
     {"skill": "credit_check", "outcome": "approved", "planned_outcome": "approved"}],
    [], [], [],
    [{"skill": "card_status", "outcome": "error", "planned_outcome": "ok"}],
    [],
]


def _seed(sessions: int) -> object:
    from django.core.management import call_command
    from django.db import connection

    from catalog_app.services import version_create_draft
    from orchestrator.assistants.models import Assistant
    from orchestrator.chat.models import ChatSession, Message, TraceEvent

    call_command("load_demo", stdout=StringIO())
    assistant = Assistant.objects.get(key="demo-banking")
    versions = [assistant.catalog_version_id, version_create_draft(version=assistant.catalog_version, user=None).pk]
    for start in range(0, sessions, BATCH):
        rows, lines, events = [], [], []
        for i in range(start, min(sessions, start + BATCH)):
            shape = i % len(SHAPES)
            session = ChatSession(assistant=assistant, catalog_version_id=versions[i % 2], mode="s3" if i % 3 == 0
                                  else "planner", message_count=len(SHAPES[shape]), trace_count=len(TRACES[shape]))
            rows.append(session)
            lines += [Message(session=session, position=p, role=role, kind=kind, text=text, data=data,
                              turn_ms=(i * 37 + p * 11) % 4000 if role == "user" else None,
                              mark=MARKS.get((shape, p), ""))
                      for p, (role, kind, text, data) in enumerate(SHAPES[shape])]
            events += [TraceEvent(session=session, position=p, kind="execution", data=data)
                       for p, data in enumerate(TRACES[shape])]
        ChatSession.objects.bulk_create(rows, batch_size=BATCH)
        Message.objects.bulk_create(lines, batch_size=BATCH)
        TraceEvent.objects.bulk_create(events, batch_size=BATCH)
    with connection.cursor() as cursor:  # spread the starts over 60 days, then let the planner see the tables
        cursor.execute("UPDATE orchestrator_chatsession SET created_at = now() - "
                       "make_interval(days => abs(hashtext(id::text)) % 60, secs => abs(hashtext(id::text)) % 86400)")
        cursor.execute("ANALYZE")
    return assistant


def _median_ms(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def run(sessions: int, repeat: int) -> None:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone

    from orchestrator.analytics import selectors

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    database = connection.settings_dict
    database["TEST"]["NAME"] = f"{database['NAME']}_bench_analytics"
    original = database["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        started = time.perf_counter()
        assistant = _seed(sessions)
        seeded = time.perf_counter() - started
        from orchestrator.chat.models import Message, TraceEvent

        print(f"Analytics of {sessions:,} sessions ({Message.objects.count():,} messages, "
              f"{TraceEvent.objects.count():,} trace events; seeded in {seeded:.0f} s), median of {repeat} ms:")
        version = assistant.catalog_version
        periods = {"all": selectors.Period(assistant=assistant),
                   "one version": selectors.Period(assistant=assistant, version=version),
                   "last 7 days": selectors.Period(assistant=assistant,
                                                   since=timezone.localdate() - timedelta(days=6))}
        parts = ("summary", "timeline", "unfinished", "not_understood", "choices", "consents", "latency", "report")
        print("| query | " + " | ".join(periods) + " |")
        print("| --- |" + " ---: |" * len(periods))
        for part in parts:
            query = getattr(selectors, f"analytics_{part}")
            cells = [f"{_median_ms(lambda q=query, p=period: q(period=p), repeat):.0f}" for period in periods.values()]
            print(f"| {part} | " + " | ".join(cells) + " |", flush=True)
        client = Client()
        client.force_login(get_user_model().objects.get(username="analyst"))
        url = reverse("orchestrator:analytics", args=[version.catalog.slug, assistant.key])
        page_ms = _median_ms(lambda: client.get(url), repeat)
        met = "met" if page_ms < TARGET_SECONDS * 1000 or sessions != TARGET_SESSIONS else "MISSED"
        print(f"| the page (all) | {page_ms:.0f} | | | target < {TARGET_SECONDS:.0f} s: {met}")
    finally:
        connection.creation.destroy_test_db(original, verbosity=0)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--analytics-sessions", dest="analytics_sessions", type=int, default=TARGET_SESSIONS,
                        help="sessions to seed")
    parser.add_argument("--analytics-repeat", dest="analytics_repeat", type=int, default=3,
                        help="runs of each query")


def main(args: argparse.Namespace) -> None:
    warnings.simplefilter("ignore")
    _setup_django()
    run(args.analytics_sessions, args.analytics_repeat)


if __name__ == "__main__":
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(options)
    main(options.parse_args())
