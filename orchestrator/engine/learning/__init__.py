"""Cold-start learning: spec refinements mined from conversation traces, with evidence, confidence and plan effects.

Imports `engine.simulation` and everything below it (observations are read from the traces the driver writes).
"""
