"""Editor page size and time on generated catalogs: the studio must stay usable at thousands of skills.

    python -m bench --only editor [--editor-sizes 250,1000,4000] [--editor-repeat 3]

Each catalog (`orchestrator.engine.catalog.synthetic`) is imported as a draft into a throwaway copy
of the configured database; an admin opens the editor through Django's test client, as a browser
would (the whole page, then the preview fragment htmx loads beside it, first and again, then one
skill's edit form opened, then one field of that skill saved as its form posts it, and the preview
htmx fetches after it). Targets at 1,000 skills: the editor answers in under 1 s with under 1 MB of
HTML, and a saved field in under 1 s.

`--editor-profile` prints where the time of the last saved field and its preview goes (cProfile).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from .turns import _setup_django

TARGET_SKILLS, TARGET_SECONDS, TARGET_BYTES = 1000, 1.0, 1024 * 1024


@dataclass
class Row:
    skills: int
    page_ms: float
    page_bytes: int
    preview_first_ms: float  # the first preview of this state: plans and lint worked out
    preview_ms: float  # again (a refresh, "show all"): from the cache
    preview_bytes: int
    form_ms: float
    save_ms: float  # one field of one skill saved, with the editor htmx swaps in afterwards
    saved_preview_ms: float  # then the preview of the new state (its plans and lint worked out)


def _timed(client: object, url: str, repeat: int) -> tuple[float, int]:
    times, size = [], 0
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url)  # type: ignore[attr-defined]
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
        size = len(response.content)
    return statistics.median(times) * 1000, size


def _request(label: str, send: Callable[[], Any], times: list[float], profile: bool) -> Any:
    """`send()` timed into `times`, and profiled (printed) if asked."""
    profiler = cProfile.Profile() if profile else None
    started = time.perf_counter()
    if profiler:
        profiler.enable()
    response = send()
    if profiler:
        profiler.disable()
    times.append(time.perf_counter() - started)
    assert response.status_code == 200, (label, response.status_code)
    if profiler:
        print(f"{label}:")
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)
    return response


def _saved(client: Any, url: str, preview_url: str, version: Any, skill: str, repeat: int,
           profile: bool) -> tuple[float, float]:
    """Median times of saving a skill's description (a new one each time) as the editor's form posts
    it, and of the preview the page then fetches (htmx, on `catalog-changed`): the plans and lint
    of the new state, worked out afresh."""
    prefix = f"skill-{skill}"
    saves: list[float] = []
    previews: list[float] = []
    for k in range(repeat):
        version.refresh_from_db(fields=["revision"])
        data = {f"{prefix}-name": skill, f"{prefix}-description": f"bench edit {k}", f"{prefix}-endpoint": "sim:",
                f"{prefix}-max_retries": "1", "_revision": str(version.revision)}
        last = profile and k == repeat - 1
        saved = _request(f"One saved field ({url})", partial(client.post, url, data, HTTP_HX_REQUEST="true"),
                         saves, last)
        assert f"Skill {skill} saved." in saved.content.decode(), "the edit was not saved"
        _request("The preview after it", partial(client.get, preview_url, HTTP_HX_REQUEST="true"), previews, last)
    return statistics.median(saves) * 1000, statistics.median(previews) * 1000


def _measure(skills: int, repeat: int, profile: bool = False) -> Row:
    from django.test import Client
    from django.urls import reverse

    from catalog_app.models import Role
    from catalog_app.services import catalog_import, membership_set, user_create, workspace_get_or_create_default
    from orchestrator.engine.catalog.synthetic import synthetic_catalog

    workspace = workspace_get_or_create_default()
    spec = synthetic_catalog(skills, seed=1).model_copy(update={"catalog": f"bench-{skills}"})
    version = catalog_import(workspace=workspace, spec=spec)
    user = user_create(username=f"bench{skills}", password="bench-pass-1")
    membership_set(workspace=workspace, user=user, role=Role.ADMIN)
    client = Client()
    client.force_login(user)
    slug = version.catalog.slug
    client.get(reverse("catalog:edit", args=[slug]))  # warm the planner cache as a first visit would
    page_ms, page_bytes = _timed(client, reverse("catalog:edit", args=[slug]), repeat)
    preview_url = f"{reverse('catalog:preview', args=[slug])}?version={version.number}"
    preview_first_ms, _ = _timed(client, preview_url, 1)
    preview_ms, preview_bytes = _timed(client, preview_url, repeat)
    form_url = reverse("catalog:skill_form", args=[slug, version.number, spec.skills[-1].name])
    form_ms, _ = _timed(client, form_url, repeat)
    save_url = reverse("catalog:skill_update", args=[slug, version.number, spec.skills[-1].name])
    save_ms, saved_preview_ms = _saved(client, save_url, preview_url, version, spec.skills[-1].name, repeat, profile)
    return Row(skills, page_ms, page_bytes, preview_first_ms, preview_ms, preview_bytes, form_ms, save_ms,
               saved_preview_ms)


def run(sizes: list[int], repeat: int, profile: bool = False) -> list[Row]:
    from django.conf import settings
    from django.db import connection

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    database = connection.settings_dict
    database["TEST"]["NAME"] = f"{database['NAME']}_bench_editor"
    original = database["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        return [_measure(size, repeat, profile) for size in sizes]
    finally:
        connection.creation.destroy_test_db(original, verbosity=0)


def print_table(rows: list[Row]) -> None:
    print("Editor of a draft, generated catalogs (median of the repeats; the first visit not counted):")
    print("| skills | editor page ms | page KiB | preview ms, first | preview ms, again | preview KiB "
          "| one skill's form ms | one saved field ms | its preview ms | target |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for row in rows:
        target = ""
        if row.skills == TARGET_SKILLS:
            met = (row.page_ms < TARGET_SECONDS * 1000 and row.page_bytes < TARGET_BYTES
                   and row.save_ms < TARGET_SECONDS * 1000)
            target = "met (< 1 s, < 1 MiB; saved < 1 s)" if met else "MISSED (< 1 s, < 1 MiB; saved < 1 s)"
        print(f"| {row.skills} | {row.page_ms:.0f} | {row.page_bytes / 1024:.0f} | {row.preview_first_ms:.0f} "
              f"| {row.preview_ms:.0f} "
              f"| {row.preview_bytes / 1024:.0f} | {row.form_ms:.0f} | {row.save_ms:.0f} "
              f"| {row.saved_preview_ms:.0f} | {target} |", flush=True)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--editor-sizes", dest="editor_sizes", default="250,1000,4000",
                        help="skills in each generated catalog, comma-separated")
    parser.add_argument("--editor-repeat", dest="editor_repeat", type=int, default=3, help="requests per measurement")
    parser.add_argument("--editor-profile", dest="editor_profile", action="store_true",
                        help="print a cProfile of the last saved field of each size")


def main(args: argparse.Namespace) -> None:
    warnings.simplefilter("ignore")
    _setup_django()
    rows = run([int(s) for s in args.editor_sizes.split(",") if s.strip()], args.editor_repeat, args.editor_profile)
    print_table(rows)


if __name__ == "__main__":
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(options)
    main(options.parse_args())
