"""Read-only tables of facts, as tall as their rows."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget


def facts_table(headers: list[str]) -> QTableWidget:
    """A table nobody edits or selects in (its facts are in the page's text too)."""
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
    table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return table


def fit_rows(table: QTableWidget, stretch_column: int = 0) -> None:
    """Size the columns to their text (one stretching) and the height to the rows."""
    table.resizeColumnsToContents()
    table.horizontalHeader().setSectionResizeMode(stretch_column,
                                                  QHeaderView.ResizeMode.Stretch)
    rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
    table.setFixedHeight(table.horizontalHeader().height() + rows + 2 * table.frameWidth())
