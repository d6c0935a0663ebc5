"""The keyboard's focus drawn so that it can be seen: the platform's own style, with a ring in
the highlight colour around a focused button (Fusion only tints its 1 px outline) and in place
of the focus rectangle of the other widgets (a thin dotted line). Drawn over what the style
draws, so no widget changes its size or its look otherwise."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleOption, QWidget

RING_PX = 2
PANELS = (QStyle.PrimitiveElement.PE_PanelButtonCommand,
          QStyle.PrimitiveElement.PE_PanelButtonTool)
"""The buttons' panels: the ring goes round them when they have the focus."""


class FocusRingStyle(QProxyStyle):
    """The style the app had, with a clear focus ring."""

    def drawPrimitive(self, element: QStyle.PrimitiveElement, option: QStyleOption,
                      painter: QPainter, widget: QWidget | None = None) -> None:
        if element == QStyle.PrimitiveElement.PE_FrameFocusRect:
            ring(option, painter)
            return
        super().drawPrimitive(element, option, painter, widget)
        if element in PANELS and option.state & QStyle.StateFlag.State_HasFocus:
            ring(option, painter)


def ring(option: QStyleOption, painter: QPainter) -> None:
    """A ring of RING_PX in the highlight colour just inside ``option.rect``."""
    painter.save()
    painter.setPen(QPen(option.palette.color(QPalette.ColorRole.Highlight), RING_PX))
    half = RING_PX // 2
    painter.drawRoundedRect(QRect(option.rect).adjusted(half, half, -half, -half), 2, 2)
    painter.restore()


_installed: list[FocusRingStyle] = []  # the style lives as long as the app


def install() -> None:
    """Draw the focus as a ring in the whole app (once; the style the app has stays its
    base)."""
    app = QApplication.instance()
    if not isinstance(app, QApplication) or isinstance(app.style(), FocusRingStyle):
        return
    style = FocusRingStyle(app.style().name())
    _installed.append(style)
    app.setStyle(style)
