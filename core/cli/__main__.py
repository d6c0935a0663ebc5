"""``python -m core.cli ...`` is ``rocmate ...``."""

from core.cli import main

raise SystemExit(main())
