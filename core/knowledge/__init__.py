"""rocmate's knowledge base: the TOML tables in resources/data and their loader.

The loader is core.knowledge.loader.

Knowledge is data, not code: GPU names and gfx targets, ROCm releases, PyTorch wheel indexes,
override rules, the support policy per target, distro tables and error patterns all live in
resources/data/*.toml, each row with a ``source``. This package imports nothing on purpose.
"""
