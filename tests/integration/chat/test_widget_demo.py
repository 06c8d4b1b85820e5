"""`run_widget_demo`'s page: a plain customer site carrying the widget's one tag."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from orchestrator.chat.widget_demo import demo_page, demo_server, serve_in_thread


def test_the_demo_site_serves_the_tag_on_its_own_port():
    page = demo_page(api="http://127.0.0.1:8000/", key="demo-banking")
    server = demo_server(host="127.0.0.1", port=0, page=page)
    serve_in_thread(server)
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        with urllib.request.urlopen(f"{base}/") as answer:
            body = answer.read().decode()
        tag = '<script src="http://127.0.0.1:8000/static/concerto/widget.js" data-assistant="demo-banking" async>'
        assert tag in body  # the tag itself, not only its escaped copy shown on the page
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{base}/other")
        assert missing.value.code == 404
    finally:
        server.shutdown()
        server.server_close()
