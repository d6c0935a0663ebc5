"""The history window: every benchmark run kept on this computer (and every report imported) as
a table that sorts (numbers as numbers, times as times) and filters (words, suite, status);
open a run, compare two, delete one (asking first), import a report someone shared.

It shows what ``core.operations.reports`` returns and calls what it offers. The work off the GUI
thread (reading, opening, deleting, importing; each run's row worked out once) is
gui/history_rows.py, run in the bridge's worker thread; the table's model and filter are
gui/widgets/history_table.py, filled in one model reset, so a history of thousands of runs does
not freeze the window. A language change words the table, the run or comparison shown and the
message again (keeping the sorting, the filter and the selection)."""

from __future__ import annotations

import heapq
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    Qt,
    QTimer,
)
from PySide6.QtGui import QCloseEvent, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QStyle,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.operations.reports import (
    LoadedReport,
)
from core.report import formatting as fmt
from core.report.history import HistoryEntry, row_suites
from gui.bridge import Bridge
from gui.compare import CompareView
from gui.history_rows import (
    DEVICE,
    ORIGIN,
    RESULT,
    RUN,
    STATUS,
    SUITE,
    WHEN,
    HistoryRow,
    HistoryRows,
    delete_runs,
    import_file,
    load_rows,
    open_pair,
    open_run,
    open_runs,
    timestamp,
)
from gui.widgets.confirm import ask
from gui.widgets.history_table import ROW_ROLE, SORT_ROLE, HistoryModel, HistoryProxy
from gui.widgets.message import MessageLine
from gui.widgets.results_view import (
    ResultsView,
    plainly,
    status_word,
    text_label,
)

PREVIEW_MS = 150  # a selection of one run rests this long before it is shown
MAX_COLUMN = 190  # pixels a column takes at most when sized to its text



class HistoryWindow(QDialog):
    """Non-modal. ``reload()`` reads the history again (off the GUI thread; ``load_now()`` does
    it at once, for the screenshots); ``start_compare()`` says how to pick two runs;
    ``compare_ids(a, b)`` shows run ``b`` against the baseline ``a``."""

    def __init__(self, bridge: Bridge, history_path: Path | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.history_path = history_path
        self.key = f"history-{id(self)}"
        self.setObjectName("history")
        self.setModal(False)
        self.setSizeGripEnabled(True)
        self.total = 0
        self.loaded = False
        self.pick_two = False
        """Say how to pick two runs to compare (opened by the wizard's Compare)."""
        self.error = False
        """The message under the table is a problem."""
        self.shown_ids: set[int] = set()
        """The runs the area under the table shows (opened or compared)."""
        self._asked: dict[str, tuple[int, ...]] = {}  # the runs asked for, by what was asked
        self._latest = ""  # what was asked last to be shown under the table: open or compare
        self._preview = QTimer(self)
        self._preview.setSingleShot(True)
        self._preview.setInterval(PREVIEW_MS)
        self._preview.timeout.connect(self._show_selected)
        self._selecting = False  # select_ids at work: a choice made for the person
        self._loaded: dict[int, LoadedReport] = {}
        """The runs the area under the table shows, as read (to word them again)."""
        self._note: Callable[[], str] | None = None  # said with the count once read again
        self._reword: set[str] = set()
        """What was being read when the language changed (its words made in the old one)."""
        self.model = HistoryModel(self)
        self.proxy = HistoryProxy(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setDynamicSortFilter(True)

        self.filter_edit = QLineEdit()
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(lambda text: self.proxy.set_filter(words=text))
        self.filter_label = QLabel()
        self.filter_label.setBuddy(self.filter_edit)
        self.suite_box = QComboBox()
        self.status_box = QComboBox()
        self.suite_box.currentIndexChanged.connect(
            lambda _: self.proxy.set_filter(suite=self.suite_box.currentData()))
        self.status_box.currentIndexChanged.connect(
            lambda _: self.proxy.set_filter(status=self.status_box.currentData()))
        self.import_button = QPushButton()
        self.import_button.clicked.connect(self.choose_import)
        self.reload_button = QPushButton()
        self.reload_button.clicked.connect(self.reload)
        top = QHBoxLayout()
        top.addWidget(self.filter_label)
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.suite_box)
        top.addWidget(self.status_box)
        top.addWidget(self.import_button)
        top.addWidget(self.reload_button)

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(WHEN, Qt.SortOrder.DescendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # the whole text: tooltip
        for column, width in ((RUN, 48), (SUITE, 185), (STATUS, 100), (DEVICE, 120),
                              (RESULT, 125), (WHEN, 145)):
            self.table.setColumnWidth(column, width)
        self.table.doubleClicked.connect(lambda _: self.open_selected())
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._selection())

        self.open_button = QPushButton()
        self.compare_button = QPushButton()
        self.delete_button = QPushButton()
        self.open_button.clicked.connect(self.open_selected)
        self.compare_button.clicked.connect(self.compare_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        actions = QHBoxLayout()
        self.selection_hint = text_label("")
        actions.addWidget(self.open_button)
        actions.addWidget(self.compare_button)
        actions.addWidget(self.delete_button)
        actions.addWidget(self.selection_hint, 1)

        self.placeholder = text_label("")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setContentsMargins(24, 24, 24, 24)
        self.results = ResultsView(bridge)
        self.compare = CompareView(bridge)
        self.detail = QStackedWidget()
        for widget in (self.placeholder, self.results, self.compare):
            self.detail.addWidget(widget)

        upper = QWidget()
        upper_layout = QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        upper_layout.addWidget(self.table, 1)
        upper_layout.addLayout(actions)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(upper)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([330, 330])  # a dozen rows above the run shown
        self.splitter.setChildrenCollapsible(False)

        self.message_icon = QLabel()
        self.message = MessageLine()  # under the table; says its last words again in a new language
        bottom = QHBoxLayout()
        bottom.addWidget(self.message_icon)
        bottom.addWidget(self.message, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.splitter, 1)
        layout.addLayout(bottom)
        self.resize(900, 720)
        self._placeholder()
        self.retranslate()

    def retranslate(self) -> None:
        """Every text in the current language: the window's own words, the table's (sorted,
        filtered and selected as it was), the area under it (the run or the comparison shown,
        made again) and the message."""
        self.setWindowTitle(self.tr("rocmate — history of runs"))
        self.filter_edit.setPlaceholderText(self.tr("card, suite, figure, file name…"))
        self.filter_label.setText(self.tr("&Filter:"))
        self.suite_box.setAccessibleName(self.tr("Suite"))
        self.status_box.setAccessibleName(self.tr("Status"))
        self.import_button.setText(self.tr("&Import a report…"))
        self.import_button.setToolTip(self.tr("A report file someone shared, to compare with "
                                              "your runs"))
        self.reload_button.setText(self.tr("&Reload"))
        self.open_button.setText(self.tr("&Open"))
        self.compare_button.setText(self.tr("&Compare the two"))
        self.delete_button.setText(self.tr("&Delete…"))
        self._reword_rows()
        self._fill_boxes()  # the filter again too: the words it looks in are the new ones
        # the hint's words, not a new choice: the selection did not change, so what is shown
        # under the table stays (a preview started here replaced a comparison, or the empty
        # area, with the one run selected, PREVIEW_MS after the language changed)
        self._selection_words()
        if self.detail.currentWidget() is self.placeholder:
            self.placeholder.setText(self._placeholder_text())
        else:
            self._read_labels()
        # what is being read now comes with words in the old language: made again when it comes
        self._reword |= {what for what in ("load", "open", "compare")
                         if self.bridge.busy(f"{self.key}:{what}")}

    def _reword_rows(self) -> None:
        self.model.reword()
        if self.loaded:
            self._size_columns(self.model.rows)

    def _read_labels(self) -> None:
        """The run or comparison shown shows itself again in the new language (the views'
        own language change), but the runs' labels are made when a run is read: read the runs
        shown again, for their labels."""
        if self._loaded:
            self._call("relabel", open_runs, self.history_path,
                              list(self._loaded))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    # -- loading --------------------------------------------------------------------------------

    def reload(self) -> None:
        """Read the history again, off the GUI thread."""
        self.say(lambda: self.tr("Reading the history…"))
        self._reword.discard("load")
        self._call("load", load_rows, self.history_path)

    def load_now(self) -> None:
        """Read the history at once, on this thread (for the screenshots, which run no loop)."""
        try:
            self._show_rows(plainly(load_rows, self.history_path))
        except Exception as exc:  # an OperationError: one line
            self.say(str(exc), error=True)

    def _show_rows(self, loaded: HistoryRows) -> None:
        kept = self.selected_ids()
        self.loaded = True
        self.total = loaded.total
        self.model.set_rows(loaded.rows)
        self._size_columns(loaded.rows)
        self._fill_boxes()
        self.select_ids(kept)
        note = self._note or str
        self._note = None
        if loaded.notices:
            notices = loaded.notices
            self.say(lambda: " ".join([note(), *notices]).strip(), error=True)
            return
        self.say(lambda: self._count_text(note(), loaded))
        if self.detail.currentWidget() is self.placeholder:
            self._placeholder()

    def _count_text(self, note: str, loaded: HistoryRows) -> str:
        """``note``, then how many runs the history holds (and how many were added as
        interrupted)."""
        shown = len(loaded.rows)
        if loaded.total > shown:
            count = self.tr("The newest %1 of %2 runs.").replace(
                "%1", f"{shown:,}").replace("%2", f"{loaded.total:,}")
        elif loaded.total:
            count = (self.tr("One run in the history.") if loaded.total == 1
                     else self.tr("%n runs in the history.", "", loaded.total))
        else:  # the area below says so, and how to make one
            count = ""
        if loaded.recovered:
            note += " " + self.tr("%n run(s) that stopped before their end (rocmate closed "
                                  "or crashed) were added as interrupted.", "",
                                  loaded.recovered)
        return f"{note} {count}".strip()

    def _size_columns(self, rows: list[HistoryRow]) -> None:
        """Each column as wide as its longest text (measured on the few longest: sizing to
        contents would ask every cell), at most MAX_COLUMN; the last one takes the room left."""
        metrics = self.table.fontMetrics()
        icon = self.table.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize) + 6
        for column in range(ORIGIN):
            header = str(self.model.headerData(column, Qt.Orientation.Horizontal))
            longest = heapq.nlargest(8, (r.texts[column] for r in rows), key=len)
            width = max(metrics.horizontalAdvance(t) for t in [header, *longest]) + 16
            if column == STATUS:
                width += icon
            self.table.setColumnWidth(column, min(width, MAX_COLUMN))

    def _fill_boxes(self) -> None:
        """The suites and statuses the history holds, keeping what was chosen."""
        for box, everything, values, word in (
                (self.suite_box, self.tr("All suites"),
                 # each suite once: a row of several runs (the health check's) offers each
                 sorted({s for r in self.model.rows for s in row_suites(r.entry.suite)}),
                 fmt.suite_title),
                (self.status_box, self.tr("Any status"),
                 sorted({r.entry.status for r in self.model.rows}, key=lambda s: (s != "ok", s)),
                 status_word)):
            chosen = box.currentData()
            box.blockSignals(True)
            box.clear()
            box.addItem(everything, None)
            for value in values:
                box.addItem(word(value), value)
            index = box.findData(chosen) if chosen is not None else 0
            box.setCurrentIndex(max(index, 0))
            box.blockSignals(False)
        self.proxy.set_filter(suite=self.suite_box.currentData(),
                              status=self.status_box.currentData())

    def _placeholder(self) -> None:
        self.placeholder.setText(self._placeholder_text())
        self.detail.setCurrentWidget(self.placeholder)
        self.shown_ids = set()
        self._loaded = {}

    def _placeholder_text(self) -> str:
        if self.loaded and not self.total:
            text = self.tr("No runs in the history yet.\n\nRun a benchmark on the Benchmark "
                           "page (or rocmate bench in a terminal): each run is kept here. To "
                           "compare with someone else's card, press Import a report… and pick "
                           "the report file they shared.")
        elif self.loaded and self.pick_two:
            text = self.tr("To compare two runs, pick them (click one, Ctrl+click the other) "
                           "and press Compare the two. The older one is the baseline A.")
        elif self.loaded:
            text = self.tr("Pick a run and press Open (or double-click it) to see it; pick two "
                           "(Ctrl+click) and press Compare the two.")
        else:
            text = ""
        return text

    # -- selection ------------------------------------------------------------------------------

    def selected_ids(self) -> list[int]:
        """The ids of the selected runs, in the table's order."""
        rows = sorted(i.row() for i in self.table.selectionModel().selectedRows())
        return [self.proxy.index(r, RUN).data(ROW_ROLE).entry.id for r in rows]

    def visible_ids(self) -> list[int]:
        """The ids of the runs the table shows, in its order (sorted and filtered)."""
        return [self.proxy.index(r, RUN).data(ROW_ROLE).entry.id
                for r in range(self.proxy.rowCount())]

    def select_ids(self, ids: list[int]) -> None:
        """Select these runs (the wizard's or a test's choice: nothing is opened for it; a
        person's click or arrow key shows the run it lands on)."""
        self._selecting = True
        try:
            selection = self.table.selectionModel()
            selection.clearSelection()
            if not ids:
                return
            flags = (QItemSelectionModel.SelectionFlag.Select
                     | QItemSelectionModel.SelectionFlag.Rows)
            wanted = set(ids)
            for n, row in enumerate(self.model.rows):
                if row.entry.id in wanted:
                    index = self.proxy.mapFromSource(self.model.index(n, RUN))
                    if index.isValid():
                        selection.select(index, flags)
        finally:
            self._selecting = False

    def _selection_words(self) -> list[int]:
        """The buttons and the hint for the runs selected (their ids)."""
        ids = self.selected_ids()
        self.open_button.setEnabled(len(ids) == 1)
        self.compare_button.setEnabled(len(ids) == 2)
        self.delete_button.setEnabled(bool(ids))
        if len(ids) > 2:
            self.selection_hint.setText(self.tr("Compare takes two runs."))
        else:
            self.selection_hint.clear()
        return ids

    def _selection(self) -> None:
        ids = self._selection_words()
        # the area under the table follows the selection, never shows runs no longer picked:
        # one run is shown at once; two wait for Compare (a comparison of others goes)
        if self._selecting:
            return
        if len(ids) == 1:
            self._preview.start()  # once the selection rests (arrow keys pass rows by)
        elif len(ids) == 2 and self.shown_ids and set(ids) != self.shown_ids:
            self.pick_two = True
            self._placeholder()

    def _show_selected(self) -> None:
        """The one run selected, under the table (unless it is shown or on its way)."""
        ids = self.selected_ids()
        if not self.isVisible():
            return  # closed while the selection rested: nothing to show it in
        if len(ids) == 1 and {ids[0]} != self.shown_ids and not (
                self._latest == "open" and self._asked.get("open") == (ids[0],)
                and self.bridge.busy(f"{self.key}:open")):
            self.open_id(ids[0])

    def _entry(self, entry_id: int) -> HistoryEntry | None:
        return next((r.entry for r in self.model.rows if r.entry.id == entry_id), None)

    # -- the actions ----------------------------------------------------------------------------

    def open_selected(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1:
            self.open_id(ids[0])

    def open_id(self, entry_id: int) -> None:
        self.say(lambda: self.tr("Opening run #%1…").replace("%1", str(entry_id)))
        self._preview.stop()
        self._asked["open"] = (entry_id,)
        self._latest = "open"
        self._reword.discard("open")
        self._call("open", open_run, self.history_path, entry_id)

    def compare_selected(self) -> None:
        ids = self.selected_ids()
        if len(ids) != 2:
            return
        # the older run is the baseline A
        entries = [self._entry(i) for i in ids]
        keyed = sorted(zip(ids, entries, strict=True),
                       key=lambda p: (timestamp(p[1].created) if p[1] else 0.0, p[0]))
        self.compare_ids(keyed[0][0], keyed[1][0])

    def start_compare(self) -> None:
        """Ready to pick two runs to compare: says how, with the table in focus."""
        self.pick_two = True
        self.table.clearSelection()
        self._placeholder()
        self.table.setFocus()

    def compare_ids(self, a: int, b: int) -> None:
        """Show run ``b`` against the baseline ``a`` (ids in the history)."""
        self.say(lambda: self.tr("Comparing run #%1 with run #%2…").replace("%1", str(b))
                 .replace("%2", str(a)))
        self._preview.stop()
        self._asked["compare"] = (a, b)
        self._latest = "compare"
        self._reword.discard("compare")
        self._call("compare", open_pair, self.history_path, a, b)

    def delete_selected(self) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        names = ", ".join(f"#{i}" for i in ids)
        if ask(self, self.tr("Delete runs"),
               (self.tr("Delete run %1 from the history? This cannot be undone.")
                if len(ids) == 1
                else self.tr("Delete %n runs from the history (%1)? This cannot be undone.", "",
                             len(ids))).replace("%1", names),
               self.tr("&Delete"), self.tr("&Keep", "the runs")):
            self._call("delete", delete_runs, self.history_path,
                              ids)

    def choose_import(self) -> None:
        file, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import a report"), str(Path.home()),
            self.tr("rocmate reports (*.json);;All files (*)"))
        if file:
            self.import_path(file)

    def import_path(self, file: str | Path) -> None:
        name = Path(file).name
        self.say(lambda: self.tr("Importing %1…").replace("%1", name))
        self._call("import", import_file, self.history_path,
                          str(file))

    # -- answers from the bridge ----------------------------------------------------------------

    def _call(self, what: str, fn: Callable[..., Any], *args: Any) -> None:
        """``fn(*args)`` off the GUI thread (through ``plainly``); its answer comes to
        ``_answered``, its failure to ``_failed``, with ``what`` it was."""
        self.bridge.run(f"{self.key}:{what}", plainly, fn, *args,
                        owner=self, on_done=lambda result: self._answered(what, result),
                        on_failed=lambda message, details: self._failed(what, message))

    def _answered(self, what: str, result: object) -> None:
        reword = what in self._reword
        self._reword.discard(what)
        if what == "load" and isinstance(result, HistoryRows):
            self._show_rows(result)
            if reword:
                self._reword_rows()
        elif what in ("open", "compare") and what != self._latest:
            return  # an answer overtaken by a later question: the later one is shown
        elif what == "open" and isinstance(result, LoadedReport):
            self.results.show_report(result.report, result.label)
            self.detail.setCurrentWidget(self.results)
            self._shown(self._asked.get(what, ()), [result], reword)
        elif what == "compare" and isinstance(result, tuple):
            self.compare.show_comparison(*result)
            self.detail.setCurrentWidget(self.compare)
            self._shown(self._asked.get(what, ()), list(result), reword)
        elif what == "relabel" and isinstance(result, dict):
            self._relabel(result)
        elif what == "delete" and isinstance(result, tuple):
            ids, notices = result
            if self.shown_ids & set(ids):
                self._placeholder()
            deleted = ", ".join(f"#{i}" for i in ids)
            self._note = lambda: " ".join([self.tr("Deleted %1.").replace("%1", deleted),
                                           *notices])
            self.reload()
        elif what == "import" and isinstance(result, tuple):
            imported, notices = result
            runs = ", ".join(f"#{i}" for i in imported.ids)

            def note() -> str:
                text = (self.tr("Imported %1 as %2 (%3).") if imported.new
                        else self.tr("%1 is in the history already, as %2 (%3)."))
                return " ".join([text.replace("%1", imported.name).replace("%2", runs)
                                 .replace("%3", imported.what), *notices])

            self._note = note
            self.reload()

    def _shown(self, ids: tuple[int, ...], runs: list[LoadedReport], reword: bool) -> None:
        self.shown_ids = set(ids)
        self._loaded = dict(zip(ids, runs, strict=True)) if len(ids) == len(runs) else {}
        self.say("")
        if reword:
            self._read_labels()

    def _relabel(self, fresh: dict[int, LoadedReport]) -> None:
        """The runs shown under the table, labelled again (after a language change): the
        reports held, under the labels read just now; nothing when something else is shown by
        now."""
        if set(fresh) != set(self._loaded) or all(
                fresh[i].label == old.label for i, old in self._loaded.items()):
            return  # something else shown by now, or the same labels: shown as they are
        held = {id(old.report): LoadedReport(old.report, fresh[i].label)
                for i, old in self._loaded.items()}
        shown = self.detail.currentWidget()
        if shown is self.results and self.results.report is not None \
                and id(self.results.report) in held:
            self.results.relabel(held[id(self.results.report)].label)
        elif shown is self.compare and self.compare.a is not None \
                and self.compare.b is not None and id(self.compare.a.report) in held \
                and id(self.compare.b.report) in held:
            self.compare.relabel(held[id(self.compare.a.report)],
                                 held[id(self.compare.b.report)])
        else:
            return
        self._loaded = {i: held[id(old.report)] for i, old in self._loaded.items()}

    def _failed(self, what: str, message: str) -> None:
        self._reword.discard(what)
        if what == "relabel":  # the labels stay as they were; the rest is in the new language
            return
        if what == "load":
            self.loaded = False
            self.total = 0
            self.model.set_rows([])
            self._placeholder()
        line = message.splitlines()[0] if message else ""
        self.say(lambda: line or self.tr("Something went wrong."), error=True)

    def say(self, text: str | Callable[[], str], *, error: bool = False) -> None:
        """One line under the table (a problem with an icon and the word "Problem"): ``text``,
        or what ``text()`` says, made again after a language change."""
        words = text if callable(text) else (lambda: text)
        if error:
            size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
            self.message_icon.setPixmap(self.style().standardIcon(
                QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(size))
        else:
            self.message_icon.clear()
        self.error = error
        self.message.say(lambda: fmt.safe(self.tr("Problem: %1").replace("%1", words())
                                          if error else words()))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter opens the selected run in the table, presses a button that has the focus, and
        never a default button elsewhere (Enter in the filter only filters)."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            focus = self.focusWidget()
            if focus is self.table:
                self.open_selected()
            elif isinstance(focus, QPushButton):
                focus.click()
            return
        super().keyPressEvent(event)

    def done(self, result: int) -> None:
        self._preview.stop()
        for what in ("load", "open", "compare", "relabel", "delete", "import"):
            self.bridge.cancel(f"{self.key}:{what}")
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:
        self._preview.stop()
        for what in ("load", "open", "compare", "relabel"):
            self.bridge.cancel(f"{self.key}:{what}")
        super().closeEvent(event)

