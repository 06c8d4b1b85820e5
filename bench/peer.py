"""The peer comparison: SAM learning by the `sam-learner` package, on the same traces written as PDDL trajectories.

The package lives in its own virtualenv under `var/peer-venv` (made here on first use with pip;
never a dependency of the project). Each successful skill call becomes a (state, action, state)
triple: the state is the `(known x)` facts of what the conversation knew, the action one per
(skill, mode, outcome) of the spec with one parameter per element, the next state adds the outputs.
SAM's preconditions beyond a mode's inputs are its input proposals, its effects beyond an
outcome's outputs its output proposals; both are scored with the same answer key as ours.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.learning.observations import Conversation

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "var" / "peer-venv"
PACKAGES = ["sam-learner==2.1.9", "pyperplan==1.3", "requests"]


def peer_python() -> Path | str:
    """The peer virtualenv's python, made when missing; a sentence saying why not, if it cannot be."""
    python = VENV / "bin" / "python"
    if not python.exists():
        made = subprocess.run([sys.executable, "-m", "venv", str(VENV)], capture_output=True, text=True)
        if made.returncode != 0:
            return f"could not make {VENV}: {made.stderr.strip()[-200:]}"
    check = subprocess.run([str(python), "-c", "import sam_learner.sam_learner, pyperplan"], capture_output=True,
                           cwd=tempfile.gettempdir())
    if check.returncode != 0:
        pip = subprocess.run([str(python), "-m", "pip", "install", "-q", *PACKAGES], capture_output=True, text=True)
        if pip.returncode != 0:
            return f"pip could not install {', '.join(PACKAGES)}: {pip.stderr.strip()[-300:]}"
    return python


def _actions(spec: CatalogSpec) -> dict[str, tuple[str, str, str]]:
    return {f"{s.name}__{m}__{o.name}": (s.name, m, o.name) for s in spec.skills
            for m, mode in zip(s.mode_names(), s.modes, strict=True) for o in mode.outcomes}


def write_pddl(spec: CatalogSpec, conversations: list[Conversation], folder: Path) -> None:
    names = [e.name for e in spec.elements]
    params = " ".join(f"?p_{x} - t_{x}" for x in names)
    actions = "\n".join(f"  (:action {a}\n   :parameters ({params})\n   :precondition (and)\n   :effect (and))"
                        for a in _actions(spec))
    (folder / "domain.pddl").write_text(
        f"(define (domain learned)\n  (:requirements :strips :typing)\n  (:types {' '.join('t_' + x for x in names)}"
        f" - object)\n  (:predicates (known ?x - object))\n{actions})\n")
    (folder / "problem.pddl").write_text(
        f"(define (problem observed) (:domain learned)\n  (:objects {' '.join(f'{x} - t_{x}' for x in names)})\n"
        f"  (:init)\n  (:goal (and (known {names[0]}))))\n")
    known = set(_actions(spec))
    for index, conversation in enumerate(conversations):
        steps = []
        for call in conversation.calls:
            action = f"{call.skill}__{call.mode}__{call.outcome}"
            if call.status != "ok" or action not in known:
                continue
            before = sorted(x for x in call.available if x in names)
            after = sorted(set(before) | {x for x in call.outputs if x in names})
            steps.append(f"(:state {' '.join(f'(known {x})' for x in before)})\n(:action ({action} {' '.join(names)}))"
                         f"\n(:state {' '.join(f'(known {x})' for x in after)})")
        if steps:
            (folder / f"c{index:05d}.trajectory").write_text("\n".join(steps) + "\n")


def sam_proposals(spec: CatalogSpec, conversations: list[Conversation]) -> list[tuple[Any, ...]] | str:
    """The answer-key-shaped proposals of the peer SAM learner, or why it could not run."""
    python = peer_python()
    if isinstance(python, str):
        return python
    with tempfile.TemporaryDirectory() as folder:
        write_pddl(spec, conversations, Path(folder))
        ran = subprocess.run([str(python), str(ROOT / "bench" / "peer_runner.py"), folder], capture_output=True,
                             text=True, cwd=tempfile.gettempdir(), timeout=1800)
    if ran.returncode != 0:
        return f"sam-learner failed: {ran.stderr.strip()[-300:]}"
    learned = json.loads(ran.stdout)
    found: set[tuple[Any, ...]] = set()
    for action, model in learned.items():
        skill, mode, outcome = _actions(spec)[action]
        spec_mode = spec.skill(skill).mode(mode)
        declared = next(o.outputs for o in spec_mode.outcomes if o.name == outcome)
        found |= {("input_needed", skill, mode, None, x) for x in model["pre"] if x not in spec_mode.inputs}
        found |= {("output_produced", skill, mode, outcome, x) for x in model["add"] if x not in declared}
    return sorted(found, key=str)
