"""The two Django apps depend one way: `orchestrator` builds on `catalog_app`, never the reverse.

Both may use the engine (`orchestrator.engine`); neither imports the other's private modules
(a name starting with `_`). `docs/ARCHITECTURE.md` draws the same picture.
"""

from pathlib import Path

from tests.import_graph import imported_modules

ROOT = Path(__file__).resolve().parents[2]


def offending(app: str, forbidden: str, allowed: tuple[str, ...] = ()) -> list[str]:
    found = []
    for path in (ROOT / app).rglob("*.py"):
        for name in imported_modules(path, with_names=True):
            if name.startswith(forbidden) and not name.startswith(allowed):
                found.append(f"{path.relative_to(ROOT)}: {name}")
    return sorted(found)


def test_the_catalog_app_uses_only_the_engine_of_the_orchestrator_package():
    assert offending("catalog_app", "orchestrator", allowed=("orchestrator.engine",)) == []


def test_the_orchestrator_reaches_no_private_module_of_the_catalog_app():
    private = [line for line in offending("orchestrator", "catalog_app")
               if any(part.startswith("_") for part in line.split(": ")[1].split("."))]
    assert private == []


def test_the_direction_check_sees_an_import_against_it(tmp_path):
    planted = tmp_path / "views.py"
    planted.write_text("from orchestrator.assistants.services import assistant_create\n")
    assert "orchestrator.assistants.services" in imported_modules(planted)
