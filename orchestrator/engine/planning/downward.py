"""Running Fast Downward's search binary (shipped by up-fast-downward) on a SAS+ task."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from ..errors import PlannerFailure

# Optimal (A* with the admissible LM-cut heuristic); the stubborn-set pruning keeps optimality
# and cuts the search by orders of magnitude on our tasks (PLANNING-NOTES.md, trap 2).
OPTIMAL_SEARCH = "astar(lmcut(),pruning=stubborn_sets_simple())"  # no spaces: UP splits on them

UNSOLVABLE_CODES = {11, 12}  # SEARCH_UNSOLVABLE, SEARCH_UNSOLVED_INCOMPLETE


@cache
def search_binary() -> Path:
    # Located, not imported: the package's __init__ imports unified-planning, 1.5 s that a process's
    # first plan would pay for nothing (we run the binary ourselves).
    package = importlib.util.find_spec("up_fast_downward")
    if package is None or not package.submodule_search_locations:
        raise PlannerFailure("Fast Downward is not installed (the up-fast-downward package)")
    binary = Path(package.submodule_search_locations[0]) / "downward" / "builds" / "release" / "bin" / "downward"
    if not binary.exists():
        raise PlannerFailure(f"Fast Downward's search binary is missing at {binary}")
    return binary


def run_search(sas: str, search: str = OPTIMAL_SEARCH, timeout: float = 60.0) -> list[int] | None:
    """Operator indices of the plan found (names `o<i>`), or None when there is none."""
    # The plan is written to FD's own standard output, where its lines `(o<i>)` stand apart from the
    # log's: no file and no directory to make and remove per search (a third of a search's cost).
    # FD runs in a directory of its own all the same (trap 4: it may write files where it runs).
    try:
        done = subprocess.run(
            [str(search_binary()), "--search", search, "--internal-plan-file", "/dev/stdout"],
            input=sas.encode(), capture_output=True, cwd=_workdir(), timeout=timeout, check=False,
        )
    except subprocess.TimeoutExpired:
        raise PlannerFailure(f"the planner found no plan within {timeout:g} s") from None
    if done.returncode in UNSOLVABLE_CODES:
        return None
    out = done.stdout.decode(errors="replace")
    if done.returncode != 0 or PLAN_END.search(out) is None:
        detail = done.stderr.decode(errors="replace").strip()[-500:]
        raise PlannerFailure(f"Fast Downward failed (exit {done.returncode}): {detail}")
    return [int(m) for m in PLAN_STEP.findall(out)]


PLAN_STEP = re.compile(r"^\(o(\d+)\)", re.MULTILINE)
PLAN_END = re.compile(r"^; cost = \d+", re.MULTILINE)  # the plan file's last line: a plan was written whole


_workdirs: list[str] = []


def _workdir() -> str:
    """One directory for FD to run in, kept while it exists (a cleaner of /tmp may remove it)."""
    if not _workdirs or not os.path.isdir(_workdirs[-1]):
        _workdirs.append(tempfile.mkdtemp(prefix="concerto-fd-"))
    return _workdirs[-1]


# Exhaustive landmarks: every fact tested for being a landmark of the delete relaxation, which is
# exact for our tasks (facts are only added). `bound=0` stops the search at once: only the
# landmark graph, dumped at debug verbosity, is wanted.
LANDMARK_SEARCH = "eager_greedy([landmark_sum(lm_exhaust(verbosity=debug))],bound=0)"
LANDMARK_NODE = re.compile(r'^\s*lm\d+ \[label="Atom (\w+)\(([^)]*)\)"', re.MULTILINE)


def run_landmarks(sas: str, timeout: float = 60.0) -> list[tuple[str, str]]:
    """The fact landmarks of a SAS+ task (written by `sas.write_sas`), as (predicate, argument)."""
    with tempfile.TemporaryDirectory(prefix="concerto-fd-") as workdir:
        try:
            done = subprocess.run(
                [str(search_binary()), "--search", LANDMARK_SEARCH], input=sas.encode(),
                capture_output=True, cwd=workdir, timeout=timeout, check=False,
            )
        except subprocess.TimeoutExpired:
            raise PlannerFailure(f"landmarks were not found within {timeout:g} s") from None
    out = done.stdout.decode(errors="replace")
    start, end = out.find("Dumping landmark graph"), out.find("Landmark graph end")
    if start < 0 or end < 0:
        raise PlannerFailure(f"Fast Downward printed no landmark graph (exit {done.returncode})")
    return [(pred, arg) for pred, arg in LANDMARK_NODE.findall(out[start:end])]


def run_driver(domain_pddl: str, problem_pddl: str, search: str = OPTIMAL_SEARCH, timeout: float = 300.0) -> int | None:
    """Cost of FD's plan for PDDL text through its full driver (translator and search).

    The slow, general path; used to check that the PDDL we show and the SAS+ we plan with
    describe the same task.
    """
    driver = search_binary().parents[3] / "fast-downward.py"
    with tempfile.TemporaryDirectory(prefix="concerto-fd-") as workdir:
        folder = Path(workdir)
        (folder / "domain.pddl").write_text(domain_pddl)
        (folder / "problem.pddl").write_text(problem_pddl)
        done = subprocess.run(
            [sys.executable, str(driver), "--plan-file", "plan", "domain.pddl", "problem.pddl",
             "--search", search],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=workdir, timeout=timeout, check=False,
        )
        if done.returncode in UNSOLVABLE_CODES or done.returncode == 10:  # 10: translator proved it
            return None
        plan = folder / "plan"
        if done.returncode != 0 or not plan.exists():
            raise PlannerFailure(f"Fast Downward's driver failed (exit {done.returncode}): "
                                 f"{done.stdout.decode(errors='replace')[-800:]}")
        match = re.search(r"; cost = (\d+)", plan.read_text())
        return int(match.group(1)) if match else None
