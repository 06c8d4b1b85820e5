"""The Celery app: `celery -A config worker`. Settings come from Django's, prefixed CELERY_."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("concerto")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
