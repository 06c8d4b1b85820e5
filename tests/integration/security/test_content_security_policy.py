"""Every page carries a Content-Security-Policy that allows no inline or foreign script, and the pages keep working."""

from __future__ import annotations

import re

import pytest

SCRIPT = re.compile(rb"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S)


def _policy(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


def _inline_scripts(html: bytes) -> list[bytes]:
    """Scripts that would run and are not loaded from a file (JSON data islands do not run)."""
    return [m["body"] for m in SCRIPT.finditer(html)
            if b"src=" not in m["attrs"] and b"application/json" not in m["attrs"] and m["body"].strip()]


@pytest.mark.parametrize("path", ["/", "/catalogs/banking/edit/", "/catalogs/banking/versions/", "/validation/",
                                  "/sessions/"])
def test_studio_pages_have_a_policy_and_no_inline_script(logged_in, banking, path):
    response = logged_in.get(path)
    assert response.status_code == 200
    policy = _policy(response)
    assert policy["script-src"] == ["'self'"] and policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'self'"]
    assert _inline_scripts(response.content) == []


def test_the_editor_script_is_a_static_file(logged_in, banking):
    html = logged_in.get("/catalogs/banking/edit/").content
    assert b'src="/static/js/editor.js"' in html


def test_the_api_docs_load_swagger_from_our_static_files(client):
    response = client.get("/api/v1/docs")
    assert response.status_code == 200
    html = response.content
    assert b"cdn" not in html.lower()
    sources = re.findall(rb'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith(b"/static/") for s in sources), sources
    assert _inline_scripts(html) == []
    assert client.get(sources[-1].decode()).status_code == 200  # whitenoise serves it


def test_the_login_page_has_the_policy(client):
    response = client.get("/accounts/login/")
    assert "script-src 'self'" in response["Content-Security-Policy"]
