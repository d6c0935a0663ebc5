"""rocmate's core: everything that knows about machines, installs, benchmarks and reports (no Qt).

This package imports nothing on purpose: the benchmark worker runs in another Python with only
``core`` on its path (docs/architecture.md).
"""

__version__ = "0.1.0"
