"""WSGI entry point: `gunicorn config.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()

# The server says at start-up what a deployment still lacks (a shared cache for the rate limits).
from orchestrator.checks import warn_at_startup  # noqa: E402 (needs the settings loaded above)

warn_at_startup()
