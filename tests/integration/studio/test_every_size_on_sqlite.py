"""A catalog as large as the Seal-Tools one (4,000 tools) works on SQLite as on PostgreSQL.

SQLite is the embedded default (the README's first command). Reading a version there once failed
past about 1,000 input elements ("Expression tree is too large (maximum depth 1000)"): Django 5.2
writes a prefetch through a foreign key as one OR term per id on SQLite. The test below runs on
the database the suite runs on; the one after it runs it again, in a child pytest, on SQLite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from catalog_app.planning import intent_plan
from catalog_app.selectors import version_spec
from catalog_app.services import catalog_import
from orchestrator.engine.catalog.synthetic import synthetic_catalog

from .conftest import HTMX

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
SKILLS = 4000


def test_a_catalog_of_4000_skills_is_imported_read_back_planned_opened_and_edited(workspace, admin_client):
    spec = synthetic_catalog(SKILLS, seed=5).model_copy(update={"catalog": "tools"})

    version = catalog_import(workspace=workspace, spec=spec)

    # Nothing has read the version yet: its spec is assembled from the rows.
    assert version_spec(version=version) == spec
    intent = spec.intents[0]
    plan = intent_plan(version=version, intent=intent.name)
    assert plan.solved, plan.message
    assert plan.lines
    page = admin_client.get("/catalogs/tools/edit/")
    assert page.status_code == 200
    assert f"page 1 of {SKILLS // 20}" in page.content.decode()
    form = admin_client.get(f"/catalogs/tools/v1/forms/skill/s{SKILLS - 1}/", **HTMX)
    assert form.status_code == 200
    skill = f"s{SKILLS - 1}"
    saved = admin_client.post(f"/catalogs/tools/v1/skills/{skill}/", {
        f"skill-{skill}-name": skill, f"skill-{skill}-description": "Looks up the weather",
        f"skill-{skill}-endpoint": "sim:", f"skill-{skill}-max_retries": "1", "_revision": "0"}, **HTMX)
    assert saved.status_code == 200
    assert f"Skill {skill} saved." in saved.content.decode()
    version.refresh_from_db()
    edited = version_spec(version=version)
    assert edited.skill(skill).description == "Looks up the weather"
    assert edited.model_copy(update={"skills": spec.skills}) == spec  # and nothing else changed


# Run again on SQLite: the test above, and the updates of a draft's rows, whose deletions go by
# batches there (SQLite limits the parameters of a query) where PostgreSQL takes them at once.
ON_SQLITE = (
    "tests/integration/studio/test_every_size_on_sqlite.py::"
    "test_a_catalog_of_4000_skills_is_imported_read_back_planned_opened_and_edited",
    "tests/integration/catalog/test_version_update_rows.py",
)


def test_the_same_catalogs_work_on_sqlite(tmp_path):
    if connection.vendor == "sqlite":
        pytest.skip("the suite runs on SQLite: the tests that would run here ran in it")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "NLU_WARM_UP": "false"}

    done = subprocess.run([sys.executable, "-m", "pytest", *ON_SQLITE, "-q", "-p", "no:cacheprovider"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=900, check=False)

    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " skipped" not in done.stdout
