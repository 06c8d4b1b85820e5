"""The conversation layer: typed commands, typed pending frames, the command generator, the
executor that applies commands under the safety invariants, and the policies that choose the
next step (planner, S3).

Understanding (`generator.py`) reads a message in its context and returns commands; it changes
nothing. The executor (`executor.py`) applies them; only it writes the session. A policy
(`planner_policy.py`, `..s3`) decides what comes next once the commands are applied.
"""
