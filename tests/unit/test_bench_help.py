"""`python -m bench --help` lists the parts a newcomer can pick with --only."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _parts_in_source() -> list[str]:
    """The keys of bench/__main__.py's PARTS (importing that module would run the bench)."""
    tree = ast.parse((ROOT / "bench" / "__main__.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "PARTS":
            return [key.value for key in node.value.keys]
    raise AssertionError("no PARTS in bench/__main__.py")


def test_bench_help_lists_every_part():
    result = subprocess.run([sys.executable, "-m", "bench", "--help"], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    listed = result.stdout.split("parts, in the order they run:", 1)[1].splitlines()[0]
    assert [part.strip() for part in listed.split(",")] == _parts_in_source()
    assert "nlu" in listed and "load" in listed
