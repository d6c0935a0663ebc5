"""``python -m core.cli ...`` is ``rocmate ...``."""

from core.cli import end, main

end(main())
