"""The benchmark worker: the code that runs inside the user's PyTorch Python.

Everything under this package is copied, alone, into the worker's clean start folder (see
core/bench/runner.py), so it imports only the standard library, the ML stack and itself; an
import-linter contract in pyproject.toml holds it to that. This file imports nothing.
"""
