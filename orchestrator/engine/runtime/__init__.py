"""A conversation's turns: NLU, session state, skills, the planner and S3 orchestrators, explanations, masking.

Imports `engine.planning` and below; never analysis, simulation or learning.
"""
