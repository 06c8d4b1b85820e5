"""The README's first command runs on the embedded default (SQLite), not on PostgreSQL as the
rest of the suite does: the demo must migrate, load and hold a conversation there too.

In a child process with its own SQLite file, as `make demo` runs it (a chat turn is the part most
likely to use something only PostgreSQL has).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _manage(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=600, check=False)


def test_the_demo_holds_a_conversation_on_sqlite(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "NLU_WARM_UP": "false"}
    for step in (("migrate", "--noinput", "-v0"), ("load_demo",)):
        done = _manage(env, *step)
        assert done.returncode == 0, done.stderr[-2000:]

    chat = _manage(env, "chat", "banking",
                   stdin="I'd like to apply for a loan\nada@example.com\n123-45-6789\nyes\n$20,000\nyes\n")

    assert chat.returncode == 0, chat.stderr[-2000:]
    assert "Traceback" not in chat.stderr
    assert "What is your email address?" in chat.stdout
    assert "[consent]" in chat.stdout


# Two threads each read, then write, in a transaction at once: with SQLite's default (deferred)
# transactions the second one's write cannot take the lock the first holds and fails at once with
# "database is locked", whatever the busy timeout; the embedded default's settings make it wait.
CONCURRENT_WRITERS = """
import threading, django
django.setup()
from django.db import connection, transaction
from catalog_app.models import Workspace

with connection.cursor() as cursor:
    cursor.execute("PRAGMA journal_mode")
    print("journal", cursor.fetchone()[0])
print("mode", connection.transaction_mode)
failures, first_read, second_read = [], threading.Event(), threading.Event()

def writer(index):
    try:
        if index:
            first_read.wait(timeout=10)
        with transaction.atomic():
            list(Workspace.objects.all())  # a read first: a deferred transaction takes no write lock here
            (second_read if index else first_read).set()
            if not index:
                second_read.wait(timeout=2)  # the other has read too (or waits for our lock: go on)
            Workspace.objects.create(name=f"w{index}", slug=f"w{index}")
            threading.Event().wait(0.3)  # hold the write lock a moment
    except Exception as exc:
        failures.append(repr(exc))
    finally:
        connection.close()

threads = [threading.Thread(target=writer, args=(i,)) for i in range(2)]
for t in threads: t.start()
for t in threads: t.join()
print("failures", failures)
print("workspaces", Workspace.objects.filter(slug__in=["w0", "w1"]).count())
"""


def test_two_writers_at_once_wait_for_each_other_on_sqlite(tmp_path):
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "NLU_WARM_UP": "false",
           "DJANGO_SETTINGS_MODULE": "config.settings"}
    assert _manage(env, "migrate", "--noinput", "-v0").returncode == 0
    done = subprocess.run([sys.executable, "-c", CONCURRENT_WRITERS], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert lines["failures"] == "[]" and lines["workspaces"] == "2"
    assert lines["journal"] == "wal" and lines["mode"] == "IMMEDIATE"
