from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = ("Start the studio: the web server, a Celery worker and the widget's demo customer site "
            "(stopped together).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--no-worker", action="store_true", help="run the web server alone")
        parser.add_argument("--widget-demo-port", type=int, default=8001,
                            help="port of the demo customer site with the chat widget (0: none)")

    def handle(self, *args: Any, addrport: str, no_worker: bool, widget_demo_port: int, **options: Any) -> None:
        children: list[subprocess.Popen] = []
        if not no_worker:
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "warning",
                 "--concurrency", "2"]
            )
            children.append(worker)
            self.stdout.write(f"Celery worker started (pid {worker.pid}).")
        if widget_demo_port:
            # A subprocess, not an import: the demo page belongs to the orchestrator app.
            host = addrport.rpartition(":")[0] or "127.0.0.1"  # bound like the studio
            manage = str(settings.BASE_DIR / "manage.py")
            demo = subprocess.Popen([sys.executable, manage, "run_widget_demo", "--host", host,
                                     "--port", str(widget_demo_port), "--api", f"http://{self._api(addrport)}"])
            children.append(demo)
            self.stdout.write(f"Widget demo customer site on port {widget_demo_port} (http://127.0.0.1:{widget_demo_port}/).")
        # A plain `kill` must stop the worker too, not leave it orphaned.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        self.stdout.write(f"Studio at http://{addrport}/ (Ctrl-C stops everything).")
        try:
            # No autoreloader: it would fork a second server process the worker does not know of.
            call_command("runserver", addrport, use_reloader=False)
        finally:
            for child in children:
                child.terminate()
            for child in children:
                child.wait(timeout=20)

    @staticmethod
    def _api(addrport: str) -> str:
        """host:port of the studio as a browser reaches it (`8000` alone, or 0.0.0.0, mean 127.0.0.1)."""
        host, _, port = addrport.rpartition(":")
        return f"{host if host and host != '0.0.0.0' else '127.0.0.1'}:{port}"
