"""The benchmark worker: the code that runs inside the user's PyTorch Python.

Everything under this package is copied, alone, into the worker's clean start folder (see
core/bench/runner.py), so it imports only the standard library, the ML stack and itself; an
import-linter contract in pyproject.toml holds it to that. This file imports nothing.
"""

PYTHON_MIN = (3, 9)
"""The oldest Python the worker runs on, and with it the scripts rocmate sends to the user's
Python (core/probe/torch.py, torch_check.py, kernel_check.py, override_trial.py): the oldest
CPython with wheels of the oldest PyTorch rocmate plans. That is torch 2.5.1 for ROCm 6.2, the
legacy route for gfx900/gfx906 (resources/data/math_libraries.toml), whose wheels start at
Python 3.9 (resources/data/torch_python.toml, from pytorch/pytorch RELEASE.md's compatibility
matrix); the current stable indexes (torch 2.10 on) start at 3.10. Checked against that data, and
with real interpreters, by tests/bench/test_worker_python_versions.py."""
