from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.management.commands.runserver import naiveip_re

from catalog_app.cli import BAD_INPUT


class Command(BaseCommand):
    help = ("Start the studio: the web server, a Celery worker and the widget's demo customer site "
            "(stopped together).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--no-worker", action="store_true", help="run the web server alone")
        parser.add_argument("--widget-demo-port", type=int, default=8001,
                            help="port of the demo customer site with the chat widget (0: none)")

    def handle(self, *args: Any, addrport: str, no_worker: bool, widget_demo_port: int, **options: Any) -> None:
        # Both checked before anything starts: runserver ends the process on a busy port with
        # os._exit, which would leave the worker and the demo site running with no parent to stop them.
        host, port = _address(addrport)
        _check_free(host, port)
        if widget_demo_port:
            _check_free(host, widget_demo_port)
        children: list[subprocess.Popen] = []
        if not no_worker:
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "warning",
                 "--concurrency", "2"]
            )
            children.append(worker)
            self.stdout.write(f"Celery worker started (pid {worker.pid}).")
        shown = f"[{host}]" if ":" in host else host
        if widget_demo_port:
            # A subprocess, not an import: the demo page belongs to the orchestrator app.
            browser_host = "127.0.0.1" if host in ("0.0.0.0", "::") else shown
            manage = str(settings.BASE_DIR / "manage.py")
            demo = subprocess.Popen([sys.executable, manage, "run_widget_demo", "--host", host,
                                     "--port", str(widget_demo_port), "--api", f"http://{browser_host}:{port}"])
            children.append(demo)
            self.stdout.write(f"Widget demo customer site at http://{browser_host}:{widget_demo_port}/.")
        # A plain `kill` must stop the children too, not leave them orphaned.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        self.stdout.write(f"Studio at http://{shown}:{port}/ (Ctrl-C stops everything).")
        try:
            # No autoreloader: it would fork a second server process the worker does not know of.
            call_command("runserver", addrport, use_reloader=False)
        finally:
            for child in children:
                child.terminate()
            for child in children:
                child.wait(timeout=20)


def _address(addrport: str) -> tuple[str, int]:
    """(host, port) from `port`, `host:port` or `[ipv6]:port`, read as runserver reads it."""
    match = re.match(naiveip_re, addrport)
    if match is None:
        raise CommandError(f"'{addrport}' is not a port or an address:port (e.g. 127.0.0.1:8000)", returncode=BAD_INPUT)
    addr, _, _, _, port = match.groups()
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise CommandError(f"'{port}' is not a port number (1-65535)", returncode=BAD_INPUT)
    return (addr or "127.0.0.1").strip("[]"), int(port)


def _check_free(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will bind it
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CommandError(f"cannot serve on {host}:{port}: {exc.strerror or exc} "
                               "(is another studio running? give another port: run_studio 127.0.0.1:8080)",
                               returncode=BAD_INPUT) from None
