"""`python -m bench [--only PART]`: every benchmark part in turn, or one of them.

Parts: planning, validation, turns, simulation, learning, nestful, editor, nlu, replies, values, dialogue, load,
turn_cost, first_turn, analytics, cold-start.
Each reads its own options (`bench/planning.py`, `bench/validation.py`, ...); `bench/turns.py` and `bench/simulation.py`
run with their defaults here (`python -m bench.turns --help` for their own); `bench/nestful.py`
reads NESTFUL from the bench's own copy and skips with a message when it cannot have it.
"""

import argparse
import sys
from collections.abc import Callable

from . import (
    analytics,
    cold_start,
    dialogue,
    editor,
    first_turn,
    learning,
    load,
    nestful,
    nlu,
    planning,
    replies,
    simulation,
    turn_cost,
    turns,
    validation,
    values,
)


def _planning(chosen: argparse.Namespace, rest: list[str]) -> None:
    sys.argv = [sys.argv[0], *rest]  # the planning part parses sys.argv itself
    planning.main()


def _learning(chosen: argparse.Namespace, rest: list[str]) -> None:
    learning.run(sorted(int(x) for x in chosen.sizes.split(",")), chosen.learning_seed, peer=not chosen.no_peer,
                 generated=learning._seeds(chosen.generated))


# In the order they run when no part is chosen.
PARTS: dict[str, Callable[[argparse.Namespace, list[str]], None]] = {
    "planning": _planning,
    "validation": lambda chosen, rest: validation.run(chosen),
    "turns": lambda chosen, rest: turns.main([]),  # chat turn latency through the Django services
    "simulation": lambda chosen, rest: simulation.main([]),  # in process and on workers
    "learning": _learning,  # the learner against the scenarios' answer keys
    "nestful": lambda chosen, rest: nestful.run(chosen),
    "editor": lambda chosen, rest: editor.main(chosen),  # the editor page on generated catalogs
    "nlu": lambda chosen, rest: nlu.main([]),  # intent accuracy on held-out phrasings, time per utterance
    "replies": lambda chosen, rest: replies.main(),  # yes/no replies on held-out phrasings
    # values read by format on held-out phrasings: misreads, misses (--file NAME: one file, default both)
    "values": lambda chosen, rest: values.main(rest if chosen.only == "values" else []),
    # whole conversations on catalogs unlike banking: commands, wrong values sent, consent violations
    "dialogue": lambda chosen, rest: dialogue.main(),
    # Concurrent banking conversations over HTTP (gunicorn, PostgreSQL, Redis), then a worker killed;
    # its own options (`python -m bench.load --help`) pass through with --only load.
    "load": lambda chosen, rest: load.main(rest if chosen.only == "load" else []),
    # The server's side of `load` in process: CPU and queries per chat turn (--profile N: cProfile).
    "turn_cost": lambda chosen, rest: turn_cost.main(rest if chosen.only == "turn_cost" else []),
    # A fresh gunicorn worker's first session and message, and what a process loads once.
    "first_turn": lambda chosen, rest: first_turn.main(rest if chosen.only == "first_turn" else []),
    # The analytics page's queries over 100,000 seeded sessions (PostgreSQL).
    "analytics": lambda chosen, rest: analytics.main(chosen),
    # Issue 23: thin sketches to the planner in rounds (simulate, learn, accept all), engine only.
    "cold-start": lambda chosen, rest: cold_start.main(chosen),
}

options = argparse.ArgumentParser(prog="python -m bench", add_help=False)
options.add_argument("--only", choices=tuple(PARTS))
for part in (validation, learning, nestful, editor, analytics, cold_start):
    part.add_arguments(options)
chosen, rest = options.parse_known_args()
if chosen.only is None and {"-h", "--help"} & set(rest):  # with --only PART, --help is that part's own
    options.print_help()
    print("\nparts, in the order they run:", ", ".join(PARTS))
    print("a part's own options: python -m bench --only PART --help")
    sys.exit(0)

chosen_parts = [run for name, run in PARTS.items() if chosen.only in (None, name)]
for number, run in enumerate(chosen_parts):
    if number:
        print()
    run(chosen, rest)
