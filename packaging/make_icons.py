"""rocmate's icon as PNGs, rendered from the hand-written SVG with Qt's own SVG renderer.

    .venv/bin/python packaging/make_icons.py

writes ``packaging/icons/hicolor/<N>x<N>/apps/org.rocmate.Rocmate.png`` for each size in
:data:`SIZES` (the freedesktop icon theme layout the AppImage and a desktop's menu read), and
the 256 px one again as ``resources/icons/org.rocmate.Rocmate.png``: the package's copy, which
"Add to the application menu" installs (core.operations.menu_entry). The PNGs are checked in;
run this again after changing the SVG.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_ID = "org.rocmate.Rocmate"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
PACKAGE_SIZE = 256

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "packaging" / "icons" / f"{APP_ID}.svg"
THEME = ROOT / "packaging" / "icons" / "hicolor"
PACKAGE_COPY = ROOT / "resources" / "icons" / f"{APP_ID}.png"


def theme_path(size: int, theme: Path = THEME) -> Path:
    return theme / f"{size}x{size}" / "apps" / f"{APP_ID}.png"


def render(svg: Path, size: int, out: Path) -> None:
    """``svg`` drawn at ``size`` x ``size`` pixels into the PNG ``out`` (transparent corners,
    maximum compression)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not an SVG Qt can draw")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not image.convertToFormat(QImage.Format.Format_ARGB32).save(str(out), "PNG", 0):
        raise SystemExit(f"{out}: could not be written")


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    for size in SIZES:
        out = theme_path(size)
        render(SVG, size, out)
        print(f"{out.relative_to(ROOT)}: {out.stat().st_size:,} bytes")
    render(SVG, PACKAGE_SIZE, PACKAGE_COPY)
    print(f"{PACKAGE_COPY.relative_to(ROOT)}: {PACKAGE_COPY.stat().st_size:,} bytes")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
