from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Start the studio: the web server and a Celery worker beside it (stopped together)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--no-worker", action="store_true", help="run the web server alone")

    def handle(self, *args: Any, addrport: str, no_worker: bool, **options: Any) -> None:
        worker = None
        if not no_worker:
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "warning",
                 "--concurrency", "2"]
            )
            self.stdout.write(f"Celery worker started (pid {worker.pid}).")
        # A plain `kill` must stop the worker too, not leave it orphaned.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        self.stdout.write(f"Studio at http://{addrport}/ (Ctrl-C stops both).")
        try:
            # No autoreloader: it would fork a second server process the worker does not know of.
            call_command("runserver", addrport, use_reloader=False)
        finally:
            if worker is not None:
                worker.terminate()
                worker.wait(timeout=20)
