"""What a window shows in words, collected from its widgets and graphs, for the tests that
switch the language; and a pseudo catalogue that marks every app text it translates."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGraphicsTextItem,
    QGraphicsView,
    QGroupBox,
    QLabel,
    QLineEdit,
    QTabWidget,
    QWidget,
    QWizard,
    QWizardPage,
)

from scripts.qt_catalogue import lrelease, lupdate

OPEN, CLOSE = "⟦", "⟧"


def pseudo_catalogue(folder: Path) -> set[str]:
    """``folder/rocmate_zh_CN.qm`` translating every app text to itself in ⟦ ⟧ (so a text a
    window failed to set again stands out); the English texts it translates."""
    ts = folder / "pseudo.ts"
    lupdate(ts)
    tree = ET.parse(ts)
    sources: set[str] = set()
    for message in tree.iter("message"):
        source = message.findtext("source") or ""
        sources.add(source)
        translation = message.find("translation")
        assert translation is not None
        translation.attrib.pop("type", None)
        marked = OPEN + source + CLOSE
        forms = translation.findall("numerusform")
        if forms:
            for form in forms:
                form.text = marked
        else:
            translation.text = marked
    tree.write(ts, encoding="utf-8", xml_declaration=True)
    lrelease(ts, folder / "rocmate_zh_CN.qm")
    return sources


def window_texts(window: QWidget) -> list[str]:
    """Every text ``window`` shows: labels, buttons, titles, tooltips, list and table cells and
    headers, tab names, placeholders, and the words inside graphs (axis labels, marks)."""
    found: list[str] = []

    def add(text: object) -> None:
        if isinstance(text, str) and text.strip():
            found.append(text)

    widgets = [window, *window.findChildren(QWidget)]
    for widget in widgets:
        if widget is not window and not widget.isVisibleTo(window):
            continue
        add(widget.toolTip())
        add(widget.accessibleName())
        if isinstance(widget, (QLabel, QAbstractButton)):
            add(widget.text())
        elif isinstance(widget, QGroupBox):
            add(widget.title())
        elif isinstance(widget, QLineEdit):
            add(widget.placeholderText())
        elif isinstance(widget, QComboBox):
            for i in range(widget.count()):
                add(widget.itemText(i))
        elif isinstance(widget, QTabWidget):
            for i in range(widget.count()):
                add(widget.tabText(i))
        elif isinstance(widget, QAbstractItemView):
            _item_texts(widget, add)
        elif isinstance(widget, QGraphicsView) and widget.scene() is not None:
            _scene_texts(widget, add)
        if isinstance(widget, QWizardPage):
            add(widget.title())
            add(widget.subTitle())
        if isinstance(widget, QWizard):
            add(widget.windowTitle())
        if widget.isWindow():
            add(widget.windowTitle())
    return found


def _item_texts(view: QAbstractItemView, add: object) -> None:
    model = view.model()
    if model is None:
        return
    assert callable(add)
    for orientation in (Qt.Orientation.Horizontal, Qt.Orientation.Vertical):
        count = model.columnCount() if orientation == Qt.Orientation.Horizontal else \
            model.rowCount()
        for i in range(min(count, 200)):
            add(model.headerData(i, orientation, Qt.ItemDataRole.DisplayRole))
    for row in range(min(model.rowCount(), 200)):
        for column in range(model.columnCount()):
            index = model.index(row, column)
            add(model.data(index, Qt.ItemDataRole.DisplayRole))
            add(model.data(index, Qt.ItemDataRole.ToolTipRole))


def _scene_texts(view: QGraphicsView, add: object) -> None:
    assert callable(add)
    for item in view.scene().items():
        if not item.isVisible():
            continue
        if isinstance(item, QGraphicsTextItem):
            add(item.toPlainText())
        for name in ("labelText", "text"):  # pyqtgraph's AxisItem, LabelItem; plot marks
            value = getattr(item, name, None)
            if isinstance(value, str):
                add(value)
