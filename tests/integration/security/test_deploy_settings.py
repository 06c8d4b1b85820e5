"""Deployment settings: safe without any variable, and every HTTPS option settable from the environment.

Each case starts a fresh interpreter (settings are read once per process) with only the
variables given, as a container would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PRODUCTION = {
    "SECRET_KEY": "k" * 20 + "-production-secret-from-the-environment-0123456789",
    "ALLOWED_HOSTS": "studio.example.com",
    "SECURE_SSL_REDIRECT": "true",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
    "SECURE_HSTS_PRELOAD": "true",
    "SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO,https",
    "SESSION_COOKIE_SECURE": "true",
    "CSRF_COOKIE_SECURE": "true",
    "CACHE_URL": "redis://127.0.0.1:6379/9",
}


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"),
             "DJANGO_SETTINGS_MODULE": "config.settings", **env}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=clean, capture_output=True, text=True,
                          timeout=120)


def _setting(name: str, env: dict[str, str]) -> str:
    result = _run(f"import django; django.setup(); from django.conf import settings; print(repr(settings.{name}))",
                  env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_debug_is_off_unless_asked_for():
    assert _setting("DEBUG", {}) == "False"
    assert _setting("DEBUG", {"DEBUG": "true"}) == "True"


def test_without_a_secret_key_a_strong_local_one_is_used():
    key = _setting("SECRET_KEY", {}).strip("'")
    assert len(key) >= 50 and not key.startswith("django-insecure")
    assert _setting("SECRET_KEY", {}).strip("'") == key  # the same for every process of this checkout


@pytest.mark.parametrize(("name", "expected"), [
    ("SECURE_SSL_REDIRECT", "True"),
    ("SECURE_HSTS_SECONDS", "31536000"),
    ("SECURE_HSTS_INCLUDE_SUBDOMAINS", "True"),
    ("SECURE_PROXY_SSL_HEADER", "('HTTP_X_FORWARDED_PROTO', 'https')"),
    ("SESSION_COOKIE_SECURE", "True"),
    ("CSRF_COOKIE_SECURE", "True"),
])
def test_https_options_come_from_the_environment(name, expected):
    assert _setting(name, PRODUCTION) == expected


def test_check_deploy_is_clean_with_the_production_variables():
    code = ("import sys; from django.core.management import execute_from_command_line; "
            "execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'])")
    result = _run(code, PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_names_what_is_left_to_set_with_no_variables():
    code = ("from django.core.management import execute_from_command_line; "
            "execute_from_command_line(['manage.py', 'check', '--deploy'])")
    output = _run(code, {}).stderr
    for warning in ("W004", "W008", "W012", "W016", "concerto.W001"):
        assert warning in output
    assert "W009" not in output and "W018" not in output  # the key and DEBUG are safe by default


def _readme_deploy_variables() -> dict[str, str]:
    """The variables of the README's Deploying block, as a newcomer would copy them."""
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Deploying", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    pairs = (line.split("#", 1)[0].strip().split("=", 1) for line in block.splitlines())
    return {name: value for name, value in (p for p in pairs if len(p) == 2)}


def test_the_readme_deploy_variables_make_check_deploy_clean():
    env = _readme_deploy_variables()
    assert env["SECRET_KEY"] == "..." and env["CACHE_URL"].startswith("redis://redis:")
    # A real key, and this machine's Redis for the compose host name.
    env.update(SECRET_KEY=PRODUCTION["SECRET_KEY"], CACHE_URL=PRODUCTION["CACHE_URL"])
    code = ("from django.core.management import execute_from_command_line; "
            "execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'])")
    result = _run(code, env)
    assert result.returncode == 0, result.stderr
