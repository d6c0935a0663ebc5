"""Two runs side by side, as core compares them (``core.report.compare``): for each pair of
runs every figure of B against the baseline A with the ratio and better or worse in words,
then what differs in the settings, the software and the machine. Copy it as Markdown; swap
which run is the baseline. Shown in the history window when two runs are picked, and usable
alone. A language change asks core for the comparison of the same two runs again."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from core.operations.reports import LoadedReport, compare_reports
from core.report import formatting as fmt
from core.report.compare import (
    Comparison,
    Difference,
    FigureDelta,
    RunComparison,
    compare,
)
from gui.bridge import Bridge
from gui.widgets.results_view import (
    TextGrid,
    core_word,
    icon_line,
    keep_place,
    plainly,
    scrolled_pane,
    text_label,
)


class CompareView(QWidget):
    """``show_comparison(a, b)``: B against the baseline A. ``comparison`` is core's answer;
    ``figure_grids`` hold a grid per pair of runs (figure, A, B, B ÷ A, B is, unit)."""

    def __init__(self, bridge: Bridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.key = f"compare-{id(self)}"
        self.a: LoadedReport | None = None
        self.b: LoadedReport | None = None
        self.comparison: Comparison | None = None
        self.figure_grids: list[TextGrid] = []
        self.difference_grids: dict[str, TextGrid] = {}
        self.content = QWidget()
        self.column = QVBoxLayout(self.content)
        self.column.setContentsMargins(6, 6, 6, 6)
        self.column.addStretch(1)
        self.parts: list[QWidget] = []
        self.copy_button = QPushButton()
        self.swap_button = QPushButton()
        self.copy_button.clicked.connect(self.copy_markdown)
        self.swap_button.clicked.connect(self.swap)
        self.area, self.message = scrolled_pane(self, self.content,
                                                [self.copy_button, self.swap_button])
        self.retranslate()

    def retranslate(self) -> None:
        """Every text in the current language: the buttons, the comparison (core's again, of
        the same two runs) and the last message."""
        self.copy_button.setText(self.tr("Copy as &Markdown"))
        self.swap_button.setText(self.tr("S&wap A and B"))
        if self.a is not None and self.b is not None:
            self.relabel(self.a, self.b)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def say(self, words: Callable[[], str] | None) -> None:
        """Show ``words()`` under the comparison (None: nothing), and again after a language
        change."""
        self.message.say(words)

    def show_comparison(self, a: LoadedReport, b: LoadedReport) -> None:
        self._render(a, b)
        self.say(None)
        self.copy_button.setEnabled(True)
        self.swap_button.setEnabled(True)

    def relabel(self, a: LoadedReport, b: LoadedReport) -> None:
        """The comparison made again (of the same runs, in the current language), in the
        place it was scrolled to and with the message as it was."""
        keep_place(self.area, lambda: self._render(a, b))

    def _render(self, a: LoadedReport, b: LoadedReport) -> None:
        self.a, self.b = a, b
        c = self.comparison = compare(a.report, b.report, a.label, b.label)
        for part in self.parts:
            self.column.removeWidget(part)
            part.hide()  # gone from sight now, deleted once Qt is back in its loop
            part.deleteLater()
        self.parts = []
        self.figure_grids = []
        self.difference_grids = {}
        self._add(text_label(self.tr("A (the baseline): %1").replace("%1", c.a_label),
                             bold=True))
        self._add(text_label(self.tr("B: %1").replace("%1", c.b_label), bold=True))
        self._add(text_label(self.tr("Each figure of B against A: a ratio above 1× means B "
                                     "measured more. \u201cB is\u201d says whether that is "
                                     "better or worse for the figure.")))
        for rc in c.runs:
            self._run(rc)
        for name, title, same, diffs in (
                ("software", self.tr("Software that differs"),
                 self.tr("The same software."), c.software),
                ("machine", self.tr("Machine that differs"),
                 self.tr("The same machine."), c.machine)):
            self._differences(name, title, same, diffs)
        if c.unpaired:
            self._add(text_label(self.tr("Runs with no partner: %1")
                                 .replace("%1", ", ".join(c.unpaired))))

    def _add(self, widget: QWidget) -> None:
        self.column.insertWidget(self.column.count() - 1, widget)
        self.parts.append(widget)

    def _run(self, rc: RunComparison) -> None:
        title = (fmt.suite_title(rc.suite_a) if rc.same_suite
                 else f"{fmt.suite_title(rc.suite_a)} / {fmt.suite_title(rc.suite_b)}")
        heading = text_label(title, bold=True, scale=1.2)
        heading.setContentsMargins(0, 10, 0, 0)
        self._add(heading)
        self._add(text_label(self.tr("A on %1\nB on %2").replace("%1", rc.device_a)
                             .replace("%2", rc.device_b)))
        for note in rc.notes:
            line, _ = icon_line(self, QStyle.StandardPixmap.SP_MessageBoxWarning,
                                self.tr("Note: %1").replace("%1", note))
            self._add(line)
        if rc.figures:
            rows = [[fmt.figure_label(d.name), fmt.num(d.a), fmt.num(d.b), fmt.ratio(d.ratio),
                     self.verdict_words(d), d.unit_text]
                    for d in rc.figures]
            grid = TextGrid([self.tr("Figure"), self.tr("A"), self.tr("B"), self.tr("B ÷ A"),
                             self.tr("B is"), self.tr("Unit")], rows, right=(1, 2, 3))
            for cells, d in zip(grid.cells, rc.figures, strict=True):
                if d.within_noise and d.noise is not None:
                    cells[4].setToolTip(self.tr(
                        "B differs from A by less than the steps varied (up to %1): run both "
                        "again before reading a difference into it.").replace(
                            "%1", f"{d.noise * 100:.0f} %"))
                elif d.verdict in ("better", "worse"):  # said in words; bold only to find it
                    font = cells[4].font()
                    font.setBold(True)
                    cells[4].setFont(font)
            self.figure_grids.append(grid)
            self._add(grid)
        self._differences(f"settings-{len(self.figure_grids)}", self.tr("Settings that differ"),
                          self.tr("The same settings."), rc.settings)

    def verdict_words(self, d: FigureDelta) -> str:
        """The "B is" cell: better, worse, about the same; a difference smaller than the steps
        varied is said to be within the noise, not better or worse (core's words, as in the
        terminal and the reports)."""
        return core_word(d.shown_verdict) if d.shown_verdict else "-"

    def _differences(self, name: str, title: str, same: str, diffs: list[Difference]) -> None:
        heading = text_label(title, bold=True)
        heading.setContentsMargins(0, 8, 0, 0)
        self._add(heading)
        if not diffs:
            self._add(text_label(same))
            return
        grid = TextGrid([self.tr("What"), self.tr("A"), self.tr("B")],
                        [[fmt.setting_label(d.key), d.a, d.b] for d in diffs], wrap=(1, 2))
        self.difference_grids[name] = grid
        self._add(grid)

    # -- the buttons ------------------------------------------------------------------------------

    def swap(self) -> None:
        if self.a is not None and self.b is not None:
            self.show_comparison(self.b, self.a)

    def copy_markdown(self) -> None:
        if self.a is not None and self.b is not None:
            self.bridge.run(f"{self.key}:md", plainly, compare_reports, self.a, self.b,
                            kind="md", owner=self, on_done=self._copied, on_failed=self._failed)

    def _copied(self, result: object) -> None:
        if isinstance(result, str):
            QGuiApplication.clipboard().setText(result)
            self.say(lambda: self.tr("Copied the comparison as Markdown: paste it into a forum "
                                     "post or an issue."))

    def _failed(self, message: str, details: str) -> None:
        self.say(lambda: self.tr("Not copied: %1").replace("%1", message))
