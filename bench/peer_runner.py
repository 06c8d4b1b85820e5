"""Run inside the peer virtualenv (never the project's): SAM learning by the `sam-learner` package on PDDL trajectories.

    var/peer-venv/bin/python bench/peer_runner.py DIR

DIR holds `domain.pddl`, `problem.pddl` (one object per element) and `*.trajectory` files, each a
list of `(:state ...) (:action ...) (:state ...)` triples as `bench/peer.py` writes them. Prints
one JSON object: action -> {"pre": [...], "add": [...]}, the objects of the learned literals.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from pddl.pddl import Predicate  # noqa: I001  (the peer virtualenv's packages)
from pyperplan import Parser
from sam_learner.sam_learner import SAMLearner
from sam_learner.sam_models.parameter_binding import ParameterBinding
from sam_learner.sam_models.state import State
from sam_learner.sam_models.trajectory_component import TrajectoryComponent

FACTS = r"([^()]*(?:\([^()]*\)[^()]*)*)"
STEP = re.compile(rf"\(:state{FACTS}\)\s*\(:action \(([^()]*)\)\)\s*\(:state{FACTS}\)")


def facts(text: str) -> frozenset[str]:
    return frozenset(f"({m})" for m in re.findall(r"\(([^()]*)\)", text))


def state(text: str, domain, problem) -> State:
    """Grounded facts as the package's states hold them: predicates whose signature binds objects."""
    lifted = State.generate_problem_state(facts(text), domain, problem)
    return State([Predicate(p.name, [b.bind_parameter() for b in bindings]) for p, bindings in lifted], domain)


def main(folder: Path) -> None:
    parser = Parser(str(folder / "domain.pddl"), str(folder / "problem.pddl"))
    domain = parser.parse_domain()
    problem = parser.parse_problem(domain)
    trajectories = []
    for path in sorted(folder.glob("*.trajectory")):
        components = []
        for index, (before, action, after) in enumerate(STEP.findall(path.read_text())):
            name, *objects = action.split()
            lifted = domain.actions[name]
            bindings = [ParameterBinding(parameter, types, obj) for (parameter, types), obj
                        in zip(lifted.signature, objects, strict=True)]
            components.append(TrajectoryComponent(index, state(before, domain, problem), lifted, bindings,
                                                  state(after, domain, problem)))
        trajectories.append(components)
    learner = SAMLearner(working_directory_path=str(folder))
    learned = learner.learn_action_model(trajectories)
    found = {}
    for name, action in learned.actions.items():
        found[name] = {"pre": sorted(_object(p) for p in action.precondition),
                       "add": sorted(_object(p) for p in action.effect.addlist)}
    print(json.dumps(found))


def _object(predicate) -> str:
    # (known ?p_email) -> email: each action parameter is named after the one element it stands for.
    return predicate.signature[0][0].removeprefix("?p_")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
