"""rocmate's privileged helper: the only code that runs as root (``python -I -m
core.install.helper``; the whole story is in core/install/helper/main.py).

Its modules import only the standard library, the knowledge loader (the pinned keys and
repositories) and each other; an import-linter contract in pyproject.toml and
tests/test_architecture.py hold them to that. The rest of rocmate imports only
:mod:`core.install.helper.policy`. This file imports nothing.
"""
