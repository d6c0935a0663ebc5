"""The history window's table: the runs as a Qt model (replaced as a whole, sorted by each
column's own key) and the proxy that filters them by words, suite and status."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QStyle, QWidget

from core.report import formatting as fmt
from core.report.history import HistoryEntry, row_suites
from core.report.interruption import interrupted_words
from gui.history_rows import (
    COLUMNS,
    DEVICE,
    ORIGIN,
    RESULT,
    RUN,
    STATUS,
    SUITE,
    WHEN,
    HistoryRow,
    history_row,
)
from gui.widgets.results_view import status_pixmap, status_word

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ROW_ROLE = Qt.ItemDataRole.UserRole + 2

Index = QModelIndex | QPersistentModelIndex




def status_tip(entry: HistoryEntry) -> str:
    """``failed: oom`` (the table's cell says ``failed``; a cancelled run's kind says nothing
    more than its status)."""
    word = status_word(entry.status)
    if entry.interrupted is not None:
        return f"{word}: {interrupted_words(*entry.interrupted)}"
    if entry.status == "error" and entry.error_kind:
        return f"{word}: {entry.error_kind}"
    return word


class HistoryModel(QAbstractTableModel):
    """The runs, replaced as a whole (one reset) by :meth:`set_rows`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[HistoryRow] = []
        self.icons: dict[QStyle.StandardPixmap, QIcon] = {}
        self.sort_by: tuple[int, Qt.SortOrder] = (-1, Qt.SortOrder.AscendingOrder)

    def set_rows(self, rows: list[HistoryRow]) -> None:
        self.beginResetModel()
        self.rows = self._sorted(rows)
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the runs by a column's key (in Python: one key per row, not a call per
        comparison, so 10,000 runs sort in milliseconds); selections follow their runs."""
        self.sort_by = (column, order)
        self._relayout(self.rows)

    def reword(self) -> None:
        """The same runs in the current language: their texts and the keys sorted by made
        again, in the same sorting (a column sorted by words may come in another order), the
        selections following their runs; the headers too."""
        if self.rows:
            self._relayout([history_row(row.entry) for row in self.rows])
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(COLUMNS) - 1)

    def _relayout(self, rows: list[HistoryRow]) -> None:
        """``rows`` (the same runs) in the sorting asked for, the selections following."""
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        ids = [self.rows[index.row()].entry.id for index in old]
        self.rows = self._sorted(rows)
        where = {row.entry.id: n for n, row in enumerate(self.rows)}
        self.changePersistentIndexList(
            old, [self.index(where[i], index.column()) for i, index in zip(ids, old, strict=True)])
        self.layoutChanged.emit()

    def _sorted(self, rows: list[HistoryRow]) -> list[HistoryRow]:
        column, order = self.sort_by
        if column < 0:
            return list(rows)
        return sorted(rows, key=lambda r: (r.keys[column], r.entry.id),
                      reverse=order == Qt.SortOrder.DescendingOrder)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return (self.tr("Run"), self.tr("Suite"), self.tr("Status"), self.tr("Device"),
                    self.tr("Result (median)"), self.tr("When"), self.tr("From"))[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return (self.tr("The run's number in the history"), None,
                    self.tr("How the run ended (the reason, for a failed one, in its tooltip)"),
                    None,
                    self.tr("The headline figure: the median of the measured steps"),
                    self.tr("When the benchmark ran, by this computer's clock"),
                    self.tr("This computer, or the report file it was imported from"))[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row = self.rows[index.row()]
        e = row.entry
        column = index.column()
        if role == ROW_ROLE:
            return row
        if role == Qt.ItemDataRole.DisplayRole:
            return row.texts[column]
        if role == SORT_ROLE:
            return row.keys[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == STATUS:
                return fmt.safe(status_tip(e))
            if column in (SUITE, DEVICE):
                return row.texts[column]
            if column == WHEN:
                return fmt.safe(row.when)  # the same moment in UTC, as reports say it
            if column == RESULT and e.headline:
                return fmt.safe(fmt.figure_label(e.headline))
            if column == ORIGIN and e.imported:
                return fmt.safe(self.tr("Imported from %1").replace("%1", e.origin or "?"))
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (RUN, RESULT):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.DecorationRole and column == STATUS:
            # the words say the status; the mark only helps to find the runs that failed or
            # were stopped, each kind its own (a cancelled run is no failure)
            pixmap = status_pixmap(e.status)
            if pixmap not in self.icons:
                self.icons[pixmap] = QApplication.style().standardIcon(pixmap)
            return self.icons[pixmap]
        return None


class HistoryProxy(QSortFilterProxyModel):
    """Keeps the runs that match the words, the suite and the status asked for; sorting is the
    source model's (by each column's own key: numbers as numbers, times as times)."""

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        model = self.sourceModel()
        if isinstance(model, HistoryModel):
            model.sort(column, order)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.words = ""
        self.suite: str | None = None
        self.status: str | None = None

    def set_filter(self, words: str | None = None, suite: str | None = "",
                   status: str | None = "") -> None:
        """Change what is asked for ("" leaves a choice as it is; None is any)."""
        self.beginFilterChange()
        if words is not None:
            self.words = words.strip().casefold()
        if suite != "":
            self.suite = suite
        if status != "":
            self.status = status
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        model = self.sourceModel()
        if not isinstance(model, HistoryModel):
            return True
        row = model.rows[source_row]
        if self.suite is not None and self.suite not in row_suites(row.entry.suite):
            return False
        if self.status is not None and row.entry.status != self.status:
            return False
        return all(word in row.search for word in self.words.split())
