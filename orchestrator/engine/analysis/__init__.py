"""Judging recorded behaviour: plan text, plan validation (sound / valid / optimal), tool-call trajectories.

Imports `engine.planning` and below (and the runtime if it needs to); never simulation or learning.
"""
