"""The conversation layer stays readable (issue 21): no runtime module over ~400 lines, no
function over cyclomatic complexity 15, and S3 is a policy beside the planner's, not its subclass."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RUNTIME = Path(__file__).resolve().parents[3] / "orchestrator" / "engine" / "runtime"
MAX_LINES = 410


def test_no_runtime_module_is_over_400_lines():
    long = {p.relative_to(RUNTIME).as_posix(): n for p in RUNTIME.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_no_runtime_function_is_over_complexity_15():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    done = subprocess.run([ruff, "check", "--no-cache", "--select", "C901", "--config",
                           "lint.mccabe.max-complexity=15", str(RUNTIME)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_s3_is_a_policy_not_a_planner_subclass():
    from orchestrator.engine.runtime.s3 import S3Orchestrator, S3Policy
    from orchestrator.engine.runtime.turns import PlannerOrchestrator

    assert not issubclass(S3Orchestrator, PlannerOrchestrator)
    assert not hasattr(S3Policy, "_understand")
