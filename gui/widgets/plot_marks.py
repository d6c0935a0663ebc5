"""The live graphs' marks, painted by Qt itself: the warm-up shading, the lines between a
suite's parts and the text labels.

pyqtgraph's own items for these (``LinearRegionItem``, ``InfiniteLine``, ``TextItem``) work out
their shape and paint themselves in Python at every frame of their plot: a quarter of the time
the graphs took to paint during a CPU benchmark on the 2-core build machine, and a part of the
longest stalls of the window. These are plain Qt graphics items (a rectangle, a line, text)
that Qt paints in C++; they sit in a plot's data coordinates and are told the plot's height
(:meth:`fit`) when its y range changes, so that they span it. Their methods keep the names of
pyqtgraph's items that they replace (``setRegion``, ``setValue``, ``setText``).
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsRectItem,
    QGraphicsTextItem,
)

PAD_PX = 3.0
"""Room around a label's text, in pixels."""


def _reach(bottom: float, top: float) -> tuple[float, float]:
    """How far a mark spans for a plot's y range: the range and as much again each way, so
    that a pan does not show its ends before it is fitted again."""
    span = top - bottom
    return bottom - span, top + span


class Band(QGraphicsRectItem):
    """A shaded band over the whole height of a plot, from x0 to x1 (a warm-up)."""

    def __init__(self, colour: QColor) -> None:
        super().__init__()
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setBrush(QBrush(colour))
        self.setZValue(-10)
        self._x = (0.0, 0.0)
        self._y = (0.0, 1.0)

    def setRegion(self, region: tuple[float, float]) -> None:
        self._x = (float(region[0]), float(region[1]))
        self._place()

    def getRegion(self) -> tuple[float, float]:
        return self._x

    def fit(self, bottom: float, top: float) -> None:
        """The plot's y range now: the band spans it."""
        self._y = _reach(bottom, top)
        self._place()

    def _place(self) -> None:
        (x0, x1), (y0, y1) = self._x, self._y
        self.setRect(QRectF(x0, y0, x1 - x0, y1 - y0))


class Rule(QGraphicsLineItem):
    """A dotted vertical line over the whole height of a plot at x (where a part starts), with
    an optional label at its foot."""

    def __init__(self, colour: QColor, label: Tag | None = None) -> None:
        super().__init__()
        pen = QPen(colour, 1.0, Qt.PenStyle.DotLine)
        pen.setCosmetic(True)  # one pixel, whatever the plot's scale
        self.setPen(pen)
        self.label = label  # made with foot=True
        if label is not None:
            label.setParentItem(self)
        self._x = 0.0
        self._y = (0.0, 1.0)
        self._bottom = 0.0

    def setValue(self, x: float) -> None:
        self._x = float(x)
        self._place()

    def value(self) -> float:
        return self._x

    def fit(self, bottom: float, top: float) -> None:
        self._y = _reach(bottom, top)
        self._bottom = bottom
        self._place()

    def _place(self) -> None:
        y0, y1 = self._y
        self.setLine(QLineF(self._x, y0, self._x, y1))
        if self.label is not None:
            self.label.setPos(QPointF(self._x, self._bottom))


class Tag(QGraphicsRectItem):
    """A label: text on a filled box, the same size in pixels whatever the plot's scale. Its
    position is its top left corner (or, at a :class:`Rule`'s foot, its bottom left)."""

    def __init__(self, colour: QColor, fill: QColor, *, foot: bool = False) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setBrush(QBrush(fill))
        self.setZValue(20)
        self.text = QGraphicsTextItem(self)
        self.text.setDefaultTextColor(colour)
        self.text.document().setDocumentMargin(0)
        self.foot = foot
        self.row = 0  # at a Rule's foot: rows up from the bottom (beside an earlier label)
        self._fit_box()

    def set_row(self, row: int) -> None:
        """At a Rule's foot, ``row`` label heights above the bottom: clear of the label of a
        part that began just before (llm-infer's decode, 3 s after its prompt's start)."""
        self.row = row
        self._fit_box()

    def setText(self, text: str) -> None:
        self.text.setPlainText(text)
        self._fit_box()

    def setHtml(self, html: str) -> None:
        self.text.setHtml(html)
        self._fit_box()

    def toPlainText(self) -> str:
        return self.text.toPlainText()

    def size(self) -> QRectF:
        """The label's box, in pixels."""
        return self.rect()

    def _fit_box(self) -> None:
        box = self.text.boundingRect()
        width, height = box.width() + 2 * PAD_PX, box.height() + 2 * PAD_PX
        top = -height * (self.row + 1) - PAD_PX if self.foot else 0.0
        left = PAD_PX if self.foot else 0.0
        self.setRect(QRectF(left, top, width, height))
        self.text.setPos(left + PAD_PX, top + PAD_PX)
