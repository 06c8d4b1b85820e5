"""`python -m bench [--only planning|validation|turns|nlu]`: planning, validation, chat turns, intent matching.

Each part reads its own options (`bench/planning.py`, `bench/validation.py`); `bench/turns.py`
runs with its defaults here (`python -m bench.turns --help` for its own).
"""

import argparse
import sys

from . import nlu, planning, turns, validation

options = argparse.ArgumentParser(add_help=False)  # --help goes on to the planning part
options.add_argument("--only", choices=("planning", "validation", "turns", "nlu"))
validation.add_arguments(options)
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
if chosen.only in (None, "nlu"):  # intent accuracy on held-out phrasings and time per utterance
    if chosen.only is None:
        print()
    nlu.main([])
