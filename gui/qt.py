"""The one place the Qt binding is chosen: PySide6, before qasync or pyqtgraph look for one
(both try PyQt first)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")
