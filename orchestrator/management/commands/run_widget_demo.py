"""Serve the demo customer site with the chat widget on it, on another port than the studio.

    python manage.py run_widget_demo [--port 8001] [--host 127.0.0.1] [--api http://127.0.0.1:8000]
                                     [--key demo-banking]

The page's origin (http://HOST:PORT) must be among the assistant's allowed origins: `load_demo`
allows http://127.0.0.1:8001 and http://localhost:8001 for `demo-banking` (`load_demo --ports
8080,8081` for other ports); the command says so when the assistant does not allow the page.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from orchestrator.chat.widget_demo import demo_page, demo_server, origin_refused


class Command(BaseCommand):
    help = "Serve a plain 'customer site' page that embeds the chat widget, from its own origin."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8001)
        parser.add_argument("--api", default="http://127.0.0.1:8000", help="the studio serving the API and widget.js")
        parser.add_argument("--key", default="demo-banking", help="the assistant's publishable key")

    def handle(self, *args: Any, host: str, port: int, api: str, key: str, **options: Any) -> None:
        server = demo_server(host=host, port=port, page=demo_page(api=api, key=key))
        self.stdout.write(f"Demo customer site at http://{host}:{server.server_port}/ "
                          f"(assistant '{key}' from {api}; Ctrl-C stops it).")
        refused = origin_refused(key=key, host=host, port=server.server_port)
        if refused:
            self.stderr.write(refused)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
