"""``python -m core.bench.worker --suite NAME [options]`` (docs/contracts.md, worker protocol)."""

from core.bench.worker.entry import main

raise SystemExit(main())
