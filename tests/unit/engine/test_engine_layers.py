"""The engine's subpackages form layers: a lower one never imports a higher one.

The order is the one `docs/ARCHITECTURE.md` draws; a new subpackage must be placed in it.
"""

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[3] / "orchestrator" / "engine"
LAYERS = ("catalog", "planning", "runtime", "analysis", "simulation", "learning")


def engine_imports(source: str, package: tuple[str, ...]) -> set[str]:
    """The engine subpackages a module of `package` (inside the engine) imports, relative or absolute."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - node.level + 1])
                parts = base + (node.module.split(".") if node.module else [a.name for a in node.names][:1])
            elif node.module and node.module.startswith("orchestrator.engine."):
                parts = node.module.split(".")[2:]
            else:
                continue
            if parts:
                found.add(parts[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("orchestrator.engine."):
                    found.add(alias.name.split(".")[2])
    return found


def test_every_subpackage_has_a_place_in_the_layer_order():
    packages = {p.name for p in ENGINE.iterdir() if (p / "__init__.py").exists()}
    assert packages <= set(LAYERS), packages - set(LAYERS)


def test_no_module_is_left_loose_beside_the_layers():
    loose = {p.name for p in ENGINE.glob("*.py")} - {"__init__.py", "errors.py", "lru.py"}
    assert not loose


def test_a_lower_layer_never_imports_a_higher_one():
    offenders = []
    for path in ENGINE.rglob("*.py"):
        parts = path.relative_to(ENGINE).parts
        if len(parts) < 2:
            continue
        rank = LAYERS.index(parts[0])
        for target in engine_imports(path.read_text(), parts[:-1]):
            if target in LAYERS and LAYERS.index(target) > rank:
                offenders.append(f"{'/'.join(parts)} imports engine.{target}")
    assert not offenders


def test_the_layer_check_sees_relative_and_absolute_imports_upwards():
    assert engine_imports("from ..runtime.turns import PlannerOrchestrator\n", ("catalog",)) == {"runtime"}
    assert engine_imports("from .spec import CatalogSpec\n", ("catalog",)) == {"catalog"}
    assert engine_imports("from orchestrator.engine.learning import x\n", ("planning",)) == {"learning"}
    assert engine_imports("from ..errors import ConcertoError\n", ("planning",)) == {"errors"}
