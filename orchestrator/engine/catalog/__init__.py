"""The catalog as analysts author it: the spec schema, files, cross-reference checks, ontology, lint, diffs.

Imports only `engine.errors` and itself; every other layer builds on it.
"""
