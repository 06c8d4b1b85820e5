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


@pytest.mark.django_db
def test_the_demo_on_other_ports_allows_its_pages():
    """`make demo PORT=8080 WIDGET_DEMO_PORT=8081`: the widget on the demo site must not be refused."""
    from io import StringIO

    from django.core.management import call_command

    from orchestrator.assistants.models import Assistant
    from orchestrator.chat.widget_demo import origin_refused

    call_command("load_demo", "--cold-start", "--ports", "8080,8081", stdout=StringIO())
    for key in ("demo-banking", "demo-banking-thin"):
        origins = Assistant.objects.get(key=key).allowed_origins
        assert {"http://127.0.0.1:8080", "http://127.0.0.1:8081", "http://localhost:8081"} <= set(origins)
    assert origin_refused(key="demo-banking", host="127.0.0.1", port=8081) == ""
    refused = origin_refused(key="demo-banking", host="127.0.0.1", port=9191)
    assert "http://127.0.0.1:9191" in refused and "--ports" in refused
    assert "No assistant 'nosuch'" in origin_refused(key="nosuch", host="127.0.0.1", port=8081)


@pytest.mark.django_db
def test_load_demo_refuses_ports_that_are_not_ports():
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="not a list of ports"):
        call_command("load_demo", "--ports", "80x0")
