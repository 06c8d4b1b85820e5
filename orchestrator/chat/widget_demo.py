"""The demo "customer site": a plain page carrying the widget's tag, served from its own origin.

`manage.py run_widget_demo` (and `make demo`, through `run_studio`) serves it, so a newcomer sees
the widget on a page that is not the studio's; the browser tests serve it on a free port.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from django.template.loader import render_to_string

from orchestrator.chat.selectors import assistant_by_key


def widget_tag(*, api: str, key: str, extra: str = "") -> str:
    api = api.rstrip("/")
    return f'<script src="{api}/static/concerto/widget.js" data-assistant="{key}"{extra} async></script>'


def demo_page(*, api: str, key: str, extra: str = "") -> str:
    tag = widget_tag(api=api, key=key, extra=extra)
    return render_to_string("orchestrator/widget_demo.html", {"api": api, "key": key, "tag": tag})


def demo_server(*, host: str, port: int, page: str) -> ThreadingHTTPServer:
    """A server answering `page` at / (and 404 elsewhere); `port` 0 picks a free one."""
    body = page.encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            if self.path.split("?")[0] not in ("/", "/index.html"):
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass  # quiet: the studio's own log is the one to read

    return ThreadingHTTPServer((host, port), Handler)


def serve_in_thread(server: ThreadingHTTPServer) -> threading.Thread:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return thread


def origin_refused(*, key: str, host: str, port: int) -> str:
    """Why the widget on this page would say the chat is unavailable, or "" when the assistant allows it."""
    assistant = assistant_by_key(key=key)
    if assistant is None:
        return f"No assistant '{key}' is published: the widget will say the chat is unavailable (manage.py load_demo)."
    browser_host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    origin = f"http://{browser_host}:{port}"
    if origin in assistant.allowed_origins:
        return ""
    return (f"Assistant '{key}' does not allow {origin}: the widget will say the chat is unavailable. "
            f"Allow it on the assistant's page, or run: python manage.py load_demo --ports STUDIO_PORT,{port}")
