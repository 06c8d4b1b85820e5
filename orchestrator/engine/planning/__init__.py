"""From a catalog to optimal plans: compilation, PDDL text, grounding, SAS+, Fast Downward, reachability.

Imports `engine.catalog` and below; never the runtime, analysis, simulation or learning.
"""
