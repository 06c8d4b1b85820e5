"""`python -m bench [--only planning|validation|turns|simulation|learning|nestful]`: one part, or all in that order.

Each part reads its own options (`bench/planning.py`, `bench/validation.py`); `bench/turns.py`
runs with its defaults here (`python -m bench.turns --help` for its own); `bench/nestful.py` reads
NESTFUL from the bench's own copy and skips with a message when it cannot have it.
"""

import argparse
import sys

from . import learning, nestful, planning, simulation, turns, validation

options = argparse.ArgumentParser(add_help=False)  # --help goes on to the planning part
options.add_argument("--only", choices=("planning", "validation", "turns", "simulation", "learning", "nestful"))
validation.add_arguments(options)
learning.add_arguments(options)
nestful.add_arguments(options)
chosen, rest = options.parse_known_args()

if chosen.only in (None, "planning"):
    sys.argv = [sys.argv[0], *rest]  # the planning part parses sys.argv itself
    planning.main()
if chosen.only in (None, "validation"):
    if chosen.only is None:
        print()
    validation.run(chosen)
if chosen.only in (None, "turns"):  # chat turn latency through the Django services, default options
    if chosen.only is None:
        print()
    turns.main([])
if chosen.only in (None, "simulation"):  # simulated conversations in process and on workers, default options
    if chosen.only is None:
        print()
    simulation.main([])
if chosen.only in (None, "learning"):  # the learner against the scenarios' answer keys
    if chosen.only is None:
        print()
    learning.run(sorted(int(x) for x in chosen.sizes.split(",")), chosen.learning_seed, peer=not chosen.no_peer)
if chosen.only in (None, "nestful"):
    if chosen.only is None:
        print()
    nestful.run(chosen)
