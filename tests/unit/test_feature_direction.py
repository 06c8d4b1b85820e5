"""The orchestrator's features depend one way, lowest first: `jobs` and `modes` under everything,
then `validation` and `simulation`, `assistants` (publishing and gated promotion, which reads
simulation runs), `chat` (sessions of an assistant), and `learning` on top (it mines simulations,
live chats and trajectories and feeds promotion); `conversation_tests` beside it replays test-chat
conversations on the chat runtime and gates promotion; `analytics` over learning (it reads chat's
stored conversations and queues examples in learning's review queue); `cold_start` over learning too (its
campaigns simulate, learn, and wait for the review or fill a sandbox). `docs/ARCHITECTURE.md` draws
the same picture.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.import_graph import imported_modules

ROOT = Path(__file__).resolve().parents[2]
SHARED = {"modes", "models", "charts", "fields", "engine"}  # shared vocabulary, the models registry, charts,
# model fields, the pure engine
MAY_USE = {
    "jobs": set(),
    "validation": {"jobs"},
    "simulation": {"jobs"},
    "assistants": {"jobs", "simulation"},
    "chat": {"jobs", "assistants"},
    "learning": {"jobs", "validation", "simulation", "assistants", "chat"},
    "conversation_tests": {"jobs", "simulation", "assistants", "chat"},
    "analytics": {"jobs", "assistants", "chat", "learning"},
    "cold_start": {"jobs", "simulation", "assistants", "learning"},
}


def feature_imports(feature: str) -> set[str]:
    """The other parts of the orchestrator package that `feature` imports."""
    used = set()
    for path in (ROOT / "orchestrator" / feature).rglob("*.py"):
        for name in imported_modules(path):
            parts = name.split(".")
            if parts[0] == "orchestrator" and len(parts) > 1 and parts[1] != feature:
                used.add(parts[1])
    return used - SHARED


@pytest.mark.parametrize("feature", sorted(MAY_USE))
def test_a_feature_uses_only_the_features_below_it(feature):
    assert feature_imports(feature) <= MAY_USE[feature]


def test_every_feature_package_has_a_place_in_the_order():
    packages = {p.name for p in (ROOT / "orchestrator").iterdir()
                if p.is_dir() and (p / "__init__.py").exists() and p.name not in ("engine", "management", "migrations")}
    assert packages == set(MAY_USE)


def test_the_order_has_no_circle():
    def below(feature: str, seen: tuple[str, ...] = ()) -> None:
        assert feature not in seen, f"circle: {' -> '.join(seen + (feature,))}"
        for lower in MAY_USE[feature]:
            below(lower, seen + (feature,))

    for feature in MAY_USE:
        below(feature)


def test_the_feature_check_sees_an_import_against_it():
    planted = ROOT / "orchestrator" / "jobs" / "_planted_for_test.py"
    planted.write_text("from orchestrator.chat.services import message_post\n")
    try:
        assert "chat" in feature_imports("jobs")
    finally:
        planted.unlink()
