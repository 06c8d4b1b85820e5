"""The engine stays pure: no Django, no catalog_app, so it can be tested and reused alone."""

import subprocess
import sys
from pathlib import Path

from tests.import_graph import imported_modules

ENGINE = Path(__file__).resolve().parents[3] / "orchestrator" / "engine"
FORBIDDEN = ("django", "catalog_app", "orchestrator.models", "celery", "ninja")


def test_no_engine_module_imports_the_web_layer():
    offenders = {
        f"{path.name}: {name}"
        for path in ENGINE.rglob("*.py")
        for name in imported_modules(path)
        if name.split(".")[0] in {f.split(".")[0] for f in FORBIDDEN} and name.startswith(FORBIDDEN)
    }
    assert not offenders


def test_importing_the_engine_loads_no_django():
    code = (
        "import sys, importlib, pkgutil, orchestrator.engine as e\n"
        "for m in pkgutil.walk_packages(e.__path__, 'orchestrator.engine.'): importlib.import_module(m.name)\n"
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('django', 'catalog_app', 'celery')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ENGINE.parents[1])
    assert out.stdout.strip() == "[]"
