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
