"""Slow imports for a test's worker process: each module named in SLOW_IMPORTS (comma-separated, top-level
names) takes SLOW_IMPORT_SECONDS longer to import, with its import lock held the whole time.

Put on PYTHONPATH by tests/integration/simulation/test_worker_warm_up.py. On a busy machine `import onnx`
and `import onnxruntime` take seconds; this makes that window the same length on every run, so a fork
that lands inside it (and the hang it leaves in the child) is not left to chance.
"""

import importlib.machinery
import os
import sys
import time

_NAMES = frozenset(filter(None, os.environ.get("SLOW_IMPORTS", "").split(",")))
_SECONDS = float(os.environ.get("SLOW_IMPORT_SECONDS", "0"))


class _SlowFinder:
    """Finds the module as Python would, then makes its loader sleep before running it."""

    def find_spec(self, name, path=None, target=None):
        if name not in _NAMES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            time.sleep(_SECONDS)  # importlib holds this module's lock while it loads it
            run(module)

        spec.loader.exec_module = exec_module
        return spec


if _NAMES and _SECONDS > 0:
    sys.meta_path.insert(0, _SlowFinder())
