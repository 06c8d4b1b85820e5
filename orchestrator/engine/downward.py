"""Running Fast Downward's search binary (shipped by up-fast-downward) on a SAS+ task."""

from __future__ import annotations

import importlib.resources
import re
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from .errors import PlannerFailure

# Optimal (A* with the admissible LM-cut heuristic); the stubborn-set pruning keeps optimality
# and cuts the search by orders of magnitude on our tasks (PLANNING-NOTES.md, trap 2).
OPTIMAL_SEARCH = "astar(lmcut(),pruning=stubborn_sets_simple())"  # no spaces: UP splits on them

UNSOLVABLE_CODES = {11, 12}  # SEARCH_UNSOLVABLE, SEARCH_UNSOLVED_INCOMPLETE


@cache
def search_binary() -> Path:
    root = importlib.resources.files("up_fast_downward")
    binary = Path(str(root)) / "downward" / "builds" / "release" / "bin" / "downward"
    if not binary.exists():
        raise PlannerFailure(f"Fast Downward's search binary is missing at {binary}")
    return binary


def run_search(sas: str, search: str = OPTIMAL_SEARCH, timeout: float = 60.0) -> list[int] | None:
    """Operator indices of the plan found (names `o<i>`), or None when there is none."""
    # Its own directory per call: FD writes files into its working directory (trap 4).
    with tempfile.TemporaryDirectory(prefix="concerto-fd-") as workdir:
        plan_file = Path(workdir) / "plan"
        try:
            done = subprocess.run(
                [str(search_binary()), "--search", search, "--internal-plan-file", str(plan_file)],
                input=sas.encode(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                cwd=workdir, timeout=timeout, check=False,
            )
        except subprocess.TimeoutExpired:
            raise PlannerFailure(f"the planner found no plan within {timeout:g} s") from None
        if done.returncode in UNSOLVABLE_CODES:
            return None
        if done.returncode != 0 or not plan_file.exists():
            detail = done.stderr.decode(errors="replace").strip()[-500:]
            raise PlannerFailure(f"Fast Downward failed (exit {done.returncode}): {detail}")
        return [int(m) for m in re.findall(r"^\(o(\d+)\)", plan_file.read_text(), re.MULTILINE)]
