"""A benchmark report on screen: one card per suite run with its headline figure, the cold start
against the steady figures, every figure, the cautions in words, how close it came to the
datasheet, and the results of cards like it (each with its source); a failed or cancelled run
shows its error and what to do instead. Save it (JSON, HTML, Markdown), copy it as Markdown for
a forum post, or open it as a page in the browser.

Every number is the report's own, worded by ``core.report.formatting`` as the terminal view
(``core.report.text``) words it. Rendering and writing run off the GUI thread (the bridge)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QStandardPaths, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from core.bench.advice import app_advice_text, message_text
from core.i18n import local
from core.operations.reports import (
    REPORT_ERRORS,
    Written,
    cold_start,
    export_report,
    render_report,
    said_for_the_user,
)
from core.report import formatting as fmt
from core.report.interruption import interruption_text
from core.report.model import PEAK_SUFFIX, Reference, Report, SuiteResult, SuiteRun
from core.report.references import CardsLikeMine, cards_like_mine, conditions_text, kind_title
from core.report.scaling import scaling_lines
from core.report.steadiness import cautions
from core.report.text import efficiency_lines, reference_key_lines, reference_where_lines
from core.report.writers import SUFFIXES
from gui.bridge import Bridge
from gui.widgets.findings import selectable_label
from gui.widgets.message import MessageLine

REFERENCES_SHOWN = 3  # reference results on a card before "Show all"

STATUS_WORDS = {
    "ok": QT_TRANSLATE_NOOP("Results", "finished"),
    "error": QT_TRANSLATE_NOOP("Results", "failed"),
    "cancelled": QT_TRANSLATE_NOOP("Results", "cancelled"),
    "interrupted": QT_TRANSLATE_NOOP("Results", "interrupted"),
}
_CORE_WORDS = {  # core's words for a reference or a comparison, translated when shown
    "same card": QT_TRANSLATE_NOOP("Results", "same card"),
    "same chip": QT_TRANSLATE_NOOP("Results", "same chip"),
    "other card": QT_TRANSLATE_NOOP("Results", "other card"),
    "faster": QT_TRANSLATE_NOOP("Results", "faster"),
    "slower": QT_TRANSLATE_NOOP("Results", "slower"),
    "about the same": QT_TRANSLATE_NOOP("Results", "about the same"),
    "more": QT_TRANSLATE_NOOP("Results", "more"),
    "less": QT_TRANSLATE_NOOP("Results", "less"),
    "better": QT_TRANSLATE_NOOP("Results", "better"),
    "worse": QT_TRANSLATE_NOOP("Results", "worse"),
    "within the noise": QT_TRANSLATE_NOOP("Results", "within the noise"),
}


def status_word(status: str) -> str:
    """A run's status in words; a status this version does not know is shown as it is."""
    word = STATUS_WORDS.get(status)
    return QCoreApplication.translate("Results", str(word)) if word else status


def status_pixmap(status: str) -> QStyle.StandardPixmap:
    """The mark beside a run's status words: done, cancelled (stopped by the user, or cut
    short), failed; a status this version does not know is marked as failed."""
    if status == "ok":
        return QStyle.StandardPixmap.SP_DialogApplyButton
    if status in ("cancelled", "interrupted"):
        return QStyle.StandardPixmap.SP_MediaStop
    return QStyle.StandardPixmap.SP_MessageBoxCritical


def core_word(word: str) -> str:
    """One of core's words (a verdict, a match), translated where known."""
    known = _CORE_WORDS.get(word)
    return QCoreApplication.translate("Results", str(known)) if known else word


def plainly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args)`` with a report error (or a file's OSError) raised as the one line it is,
    so the bridge shows it without a type name or a traceback."""
    with said_for_the_user():
        return fn(*args, **kwargs)


def text_label(text: str, *, bold: bool = False, wrap: bool = True, mono: bool = False,
               right: bool = False, scale: float = 1.0) -> QLabel:
    """A selectable label of a report's text: whatever the report holds cannot reorder or
    hide what is shown (control characters and bidi overrides as escapes)."""
    return selectable_label(fmt.safe(text, keep_newlines=True), bold=bold, mono=mono,
                            wrap=wrap, right=right, scale=scale)


def scrolled_pane(owner: QWidget, content: QWidget, buttons: Sequence[QPushButton]
                  ) -> tuple[QScrollArea, MessageLine]:
    """Lay ``owner`` out as ``content`` in a scroll area, a line for messages under it and a
    row of ``buttons`` (greyed until there is something to act on); the area and the line."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(content)
    message = MessageLine()
    row = QHBoxLayout()
    for button in buttons:
        button.setEnabled(False)
        row.addWidget(button)
    row.addStretch(1)
    layout = QVBoxLayout(owner)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(area, 1)
    layout.addWidget(message)
    layout.addLayout(row)
    return area, message


def keep_place(area: QScrollArea, render: Callable[[], None]) -> None:
    """``render()`` the widgets in ``area`` again (the same things in other words) in the place
    it was scrolled to."""
    bar = area.verticalScrollBar()
    scrolled = bar.value()
    render()
    content = area.widget()
    if content is None:
        return
    for child in content.findChildren(QWidget, "",
                                      Qt.FindChildOption.FindDirectChildrenOnly):
        # a widget just laid out shows when Qt is back in its loop (unless hidden on purpose):
        # now, to count in the height
        if not (child.isHidden()
                and child.testAttribute(Qt.WidgetAttribute.WA_WState_ExplicitShowHide)):
            child.show()
    # the new height now, not when Qt is back in its loop, so that the place can be kept
    QCoreApplication.sendEvent(content, QEvent(QEvent.Type.LayoutRequest))
    bar.setValue(scrolled)


class TextGrid(QWidget):
    """Rows of selectable text in columns (a header row in bold); ``cells[r][c]`` for tests."""

    def __init__(self, header: Sequence[str], rows: Sequence[Sequence[str]],
                 right: Sequence[int] = (), wrap: Sequence[int] = (),
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(2)
        for c, text in enumerate(header):
            grid.addWidget(text_label(text, bold=True, wrap=False, right=c in right), 0, c)
        self.cells: list[list[QLabel]] = []
        for r, row in enumerate(rows, start=1):
            cells = [text_label(text, wrap=c in wrap, right=c in right)
                     for c, text in enumerate(row)]
            for c, cell in enumerate(cells):
                grid.addWidget(cell, r, c)
            self.cells.append(cells)
        for c in wrap or (len(header) - 1,):  # the wrapping columns share the room left
            grid.setColumnStretch(c, 1)


def icon_line(widget: QWidget, pixmap: QStyle.StandardPixmap, text: str, *,
              bold: bool = False, name: str = "") -> tuple[QWidget, QLabel]:
    """An icon and its text side by side (the words say what the icon shows)."""
    row = QWidget(widget)
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    icon = QLabel(row)
    size = widget.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
    icon.setPixmap(widget.style().standardIcon(pixmap).pixmap(size))
    icon.setAlignment(Qt.AlignmentFlag.AlignTop)
    label = text_label(text, bold=bold)
    if name:
        row.setObjectName(name)
    layout.addWidget(icon)
    layout.addWidget(label, 1)
    return row, label


class RunCard(QFrame):
    """One suite run of a report. The labels tests read are attributes (None when the run has
    no such thing)."""

    def __init__(self, report: Report, index: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run = run = report.runs[index]
        self.setObjectName(f"run-{index + 1}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.column = QVBoxLayout(self)
        self.headline: QLabel | None = None
        self.steady: QLabel | None = None
        self.cold_start: QLabel | None = None
        self.facts: dict[str, QLabel] = {}
        self.figures: TextGrid | None = None
        self.cautions: dict[str, QLabel] = {}
        self.error_message: QLabel | None = None
        self.error_advice: QLabel | None = None
        self.references: list[QFrame] = []
        self.references_note: QLabel | None = None
        self.more_references: QPushButton | None = None
        # any status but ok (error, cancelled, or one a later rocmate adds) says what happened
        failed = run.status != "ok" or run.result is None
        self.interrupted: QLabel | None = None
        cut = interruption_text(run)  # a run cut short: its result is of the steps before
        icon = (QStyle.StandardPixmap.SP_MessageBoxWarning if cut and run.result is not None
                else status_pixmap(run.status) if failed
                else QStyle.StandardPixmap.SP_DialogApplyButton)
        title = self.tr("%1 — %2").replace("%1", fmt.suite_title(run.suite)).replace(
            "%2", status_word(run.status))
        heading, self.title = icon_line(self, icon, title, bold=True)
        self.title.setAccessibleName(run.status)
        self.column.addWidget(heading)
        flags = fmt.settings_flags(run.settings)
        self.device = text_label(" · ".join([fmt.device_label(run), ", ".join(flags)])
                                 if flags else fmt.device_label(run))
        self.column.addWidget(self.device)
        if cut:  # core's words, in the app's language (as the cautions)
            line, self.interrupted = icon_line(self, QStyle.StandardPixmap.SP_MessageBoxWarning,
                                               cut, bold=True, name="interrupted")
            self.column.addWidget(line)
        if failed:
            self._failure(run)
        if run.result is not None:
            self._result(run)
            self._cards_like_mine(report, index)

    # -- a run that failed or was stopped ----------------------------------------------------------

    def _failure(self, run: SuiteRun) -> None:
        err = run.error
        if err is None:  # not in a valid report; said rather than hidden
            self.error_message = text_label(self.tr("The run did not measure (%1), and the "
                                                    "report says nothing more.")
                                            .replace("%1", run.status))
            self.column.addWidget(self.error_message)
            return
        what = text_label(self.tr("What happened (%1):").replace("%1", err.kind), bold=True)
        self.error_message = text_label(message_text(run))  # in the app's language and words
        self.error_message.setObjectName("error-message")
        self.error_advice = text_label(app_advice_text(run))
        self.error_advice.setObjectName("error-advice")
        self.column.addWidget(what)
        self.column.addWidget(self.error_message)
        self.column.addWidget(text_label(self.tr("What to do:"), bold=True))
        self.column.addWidget(self.error_advice)
        if err.detail:
            toggle = QPushButton(self.tr("Show the de&tails"))
            toggle.setCheckable(True)
            detail = text_label(err.detail.rstrip("\n"), mono=True)
            detail.hide()
            toggle.toggled.connect(detail.setVisible)
            self.column.addWidget(toggle, 0, Qt.AlignmentFlag.AlignLeft)
            self.column.addWidget(detail)

    # -- a run that measured -----------------------------------------------------------------------

    def _datasheet(self, r: SuiteResult, ref: Reference) -> list[str]:
        """One line per figure, the headline's first: how close it came to the datasheet, its
        peak (gemm's first burst) beside the sustained figure."""
        names = [n for n in ref.fractions if not (n.endswith(PEAK_SUFFIX)
                                                   and n.removesuffix(PEAK_SUFFIX) in
                                                   ref.fractions)]
        names.sort(key=lambda n: n != r.headline)
        lines = []
        for name in names:
            peak = ref.fractions.get(name + PEAK_SUFFIX)
            line = (self.tr("%1: peak %2, sustained %3 of the datasheet's %4 %5")
                    if peak is not None else self.tr("%1: %3 of the datasheet's %4 %5"))
            lines.append(line.replace("%1", fmt.figure_label(name))
                         .replace("%2", fmt.pct(peak, 0))
                         .replace("%3", fmt.pct(ref.fractions[name], 0))
                         .replace("%4", fmt.num(ref.peaks.get(name)))
                         .replace("%5", r.figures[name].unit if name in r.figures else "")
                         .rstrip())
        return lines

    def _result(self, run: SuiteRun) -> None:
        r = run.result
        assert r is not None
        f = r.headline_figure
        peak = r.peak_of(r.headline)
        headline = (self.tr("%1 peak · %2 %3 sustained").replace("%1", fmt.num(peak.median))
                    if peak is not None else "%2 %3")
        self.headline = text_label(headline.replace("%2", fmt.num(f.median))
                                   .replace("%3", f.unit), bold=True, scale=1.8)
        self.headline.setObjectName("headline")
        self.column.addWidget(self.headline)
        steady = self.tr("Steady: %1, the median of %2 measured steps · p10–p90 %3 · CV %4")
        self.steady = text_label(steady.replace("%1", fmt.figure_label(r.headline))
                                 .replace("%2", f"{r.measure.steps:,}")
                                 .replace("%3", fmt.spread(f)).replace("%4", fmt.cv(f)))
        self.steady.setToolTip(self.tr(
            "The median: half the measured steps were faster, half slower. p10–p90: eight "
            "steps in ten fell in this range. CV: how much the steps varied (the standard "
            "deviation over the mean)."))
        self.column.addWidget(self.steady)
        for c in cautions(run):  # before the rest: what to know before quoting the figure
            line, label = icon_line(self, QStyle.StandardPixmap.SP_MessageBoxWarning,
                                    self.tr("Caution: %1").replace("%1", c.text),
                                    name=f"caution-{c.kind}")
            self.cautions[c.kind] = label
            self.column.addWidget(line)
        facts: list[tuple[str, str, str]] = []
        start = cold_start(run)
        if start is not None:
            text = (self.tr("the first step took %1, %2 a steady step (%3)")
                    if start.ratio is not None else self.tr("the first step took %1"))
            facts.append(("cold-start", self.tr("Cold start"),
                          text.replace("%1", fmt.seconds(start.first_step_s))
                          .replace("%2", fmt.ratio(start.ratio))
                          .replace("%3", f"{fmt.num(start.steady_step_s)} s")))
        # a run of several parts: each part's warm-up on a line (llm-infer's prefill 1 s, its
        # decode 42 s), as the figures per watt
        facts.append(("warm-up", self.tr("Warm-up"), "\n".join(fmt.warmup_lines(run))))
        facts.append(("measured", self.tr("Measured"), "\n".join(fmt.measure_lines(run))))
        ref = run.reference
        if ref is not None:
            text = "\n".join(self._datasheet(r, ref)) or (
                ref.note or self.tr("no peak known for this card"))
            key = (self.tr("Datasheet (%1)").replace("%1", ref.name) if ref.name
                   else self.tr("Datasheet"))
            facts.append(("datasheet", key, text))
        if r.peak_memory_bytes is not None:
            memory = fmt.gib(r.peak_memory_bytes)
            if r.peak_memory_reserved_bytes:
                memory += " " + self.tr("(reserved %1)").replace(
                    "%1", fmt.gib(r.peak_memory_reserved_bytes))
            on_cpu = run.device is not None and run.device.backend == "cpu"
            facts.append(("peak-memory", self.tr("Peak memory", "the machine's, on the CPU")
                          if on_cpu else self.tr("Peak memory"), memory))
        if run.energy is not None:
            e = run.energy
            energy = f"{fmt.num(e.per_item_j)} J/{e.item_unit}"
            if e.mean_power_w:
                energy += " " + self.tr("at %1 W").replace("%1", f"{e.mean_power_w:.0f}")
            facts.append(("energy", self.tr("Energy"), f"{energy} ({e.method})"))
        per_watt = efficiency_lines(run)  # core's words, in the app's language
        if per_watt:
            facts.append(("per-watt", self.tr("Per watt"), "\n".join(per_watt)))
        attention = fmt.attention_text(run)  # core's words: the SDPA kernel llm-infer ran
        if attention:
            facts.append(("attention", self.tr("Attention"), attention))
        notes = fmt.suite_notes(run.suite)  # llm-infer: llama.cpp's figures are not these
        if notes:
            facts.append(("note", self.tr("Note"), "\n".join(notes)))
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        for row, (name, key, value) in enumerate(facts):
            grid.addWidget(text_label(key, bold=True, wrap=False), row, 0,
                           Qt.AlignmentFlag.AlignTop)
            self.facts[name] = text_label(value)
            grid.addWidget(self.facts[name], row, 1)
        grid.setColumnStretch(1, 1)
        self.column.addLayout(grid)
        if start is not None:
            self.cold_start = self.facts["cold-start"]
            self.cold_start.setToolTip(self.tr(
                "The first step also loads and tunes the GPU's kernels, allocates memory and "
                "lets the clocks come up: what a fresh start waits before full speed."))
        rows = [[fmt.figure_label(name), fmt.num(g.median), fmt.spread(g), fmt.cv(g), g.unit]
                for name, g in r.figures.items()]
        self.figures = TextGrid([self.tr("Figure"), self.tr("Median"), self.tr("p10–p90"),
                                 self.tr("CV"), self.tr("Unit")], rows, right=(1, 2, 3))
        self.figures.setContentsMargins(0, 6, 0, 0)
        self.column.addWidget(self.figures)

    def _cards_like_mine(self, report: Report, index: int) -> None:
        try:
            refs = cards_like_mine(report, index)
        except REPORT_ERRORS as exc:
            self.references_note = text_label(self.tr("Reference results could not be read: %1")
                                              .replace("%1", str(exc)))
            self.column.addWidget(self.references_note)
            return
        arch = f" ({refs.arch})" if refs.arch else ""
        heading = text_label(self.tr("Reference results") if refs.on_cpu else
                             self.tr("Cards like mine: reference results for %1")
                             .replace("%1", refs.device + arch), bold=True)
        heading.setContentsMargins(0, 8, 0, 0)
        self.column.addWidget(heading)
        for warning in refs.warnings:
            line, _ = icon_line(self, QStyle.StandardPixmap.SP_MessageBoxWarning,
                                self.tr("Caution: %1").replace("%1", warning))
            self.column.addWidget(line)
        if refs.note:
            self.references_note = text_label(refs.note)
            self.column.addWidget(self.references_note)
        if refs.matches:
            self.column.addWidget(text_label(self.tr(
                "Comparisons first: a reference is compared only where its harness, backend, "
                "OS, precision, batch and steps match this run; any other is a hint.")))
        self.references = [self._reference(refs, i) for i in range(len(refs.matches))]
        for i, card in enumerate(self.references):
            card.setVisible(i < REFERENCES_SHOWN)
            self.column.addWidget(card)
        hidden = len(self.references) - REFERENCES_SHOWN
        if hidden > 0:
            more = QPushButton(self.tr("Show one mor&e reference result") if hidden == 1 else
                               self.tr("Show %n mor&e reference results", "", hidden))
            more.setCheckable(True)
            more.toggled.connect(self._show_all_references)
            self.more_references = more
            self.column.addWidget(more, 0, Qt.AlignmentFlag.AlignLeft)

    def _show_all_references(self, shown: bool) -> None:
        for card in self.references[REFERENCES_SHOWN:]:
            card.setVisible(shown)

    def _reference(self, refs: CardsLikeMine, i: int) -> QFrame:
        m = refs.matches[i]
        r = m.row
        card = QFrame(self)
        card.setObjectName(f"reference-{r.id}")
        card.setFrameShape(QFrame.Shape.StyledPanel)
        column = QVBoxLayout(card)
        column.addWidget(text_label(
            self.tr("%1 (%2) — %3 %4 (%5), %6").replace("%1", r.card)
            .replace("%2", core_word(m.match)).replace("%3", fmt.num(r.value))
            .replace("%4", r.unit).replace("%5", fmt.figure_label(r.figure))
            .replace("%6", kind_title(r.kind)), bold=True))
        if m.yours is not None:
            yours = self.tr("Yours: %1 %2 = %3 the reference (%4)")
            if m.how:
                yours += " " + self.tr("[%1]").replace("%1", m.how)
            column.addWidget(text_label(
                yours.replace("%1", fmt.num(m.yours)).replace("%2", r.unit)
                .replace("%3", fmt.ratio(m.ratio)).replace("%4", core_word(m.verdict or "-"))))
        else:
            column.addWidget(text_label(self.tr("Yours: none (%1)").replace("%1", m.how or "")))
        standing, *key = reference_key_lines(m)  # core's words, in the app's language
        row, _ = icon_line(self, QStyle.StandardPixmap.SP_DialogApplyButton
                           if m.standing == "comparison"
                           else QStyle.StandardPixmap.SP_MessageBoxInformation,
                           standing, name="standing")
        column.addWidget(row)
        lines = [*key, self.tr("Conditions: %1").replace("%1", conditions_text(r.conditions))]
        lines += [self.tr("Differs: %1").replace("%1", d) for d in m.differences]
        if m.unstated:
            lines.append(self.tr("Not stated by the source: %1").replace("%1",
                                                                         ", ".join(m.unstated)))
        if r.note:
            lines.append(self.tr("Note: %1").replace("%1", local(r.note)))
        if r.method:
            lines.append(self.tr("Method: %1").replace("%1", local(r.method)))
        for line in lines:
            column.addWidget(text_label(line))
        source = text_label(self.tr("Source: %1").replace("%1", local(r.source)))
        source.setObjectName("source")
        column.addWidget(source)
        for where in reference_where_lines(r):
            column.addWidget(text_label(where))
        return card


class ResultsView(QWidget):
    """A report: a line on the machine and software, a card per run, and the buttons. A
    language change shows the report again in the new language (the message under it too)."""

    def __init__(self, bridge: Bridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.key = f"results-{id(self)}"
        self.report: Report | None = None
        self.label: str | None = None
        self.cards: list[RunCard] = []
        self.open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl
        self.heading = text_label("", bold=True)
        self.machine = text_label("")
        self.content = QWidget()
        self.runs = QVBoxLayout(self.content)
        self.runs.setContentsMargins(6, 6, 6, 6)
        self.runs.addWidget(self.heading)
        self.runs.addWidget(self.machine)
        self.runs.addStretch(1)
        self.save_button = QPushButton()
        self.copy_button = QPushButton()
        self.browser_button = QPushButton()
        self.show_file_button = QPushButton()  # the page written for the browser, in its folder
        self.page: Path | None = None
        self.save_button.clicked.connect(self.choose_file)
        self.copy_button.clicked.connect(self.copy_markdown)
        self.browser_button.clicked.connect(self.open_in_browser)
        self.show_file_button.clicked.connect(self.show_file)
        self.area, self.message = scrolled_pane(
            self, self.content,
            [self.save_button, self.copy_button, self.browser_button, self.show_file_button])
        self.show_file_button.setVisible(False)
        self.retranslate()

    def retranslate(self) -> None:
        """Every text in the current language: the buttons, the report shown (made again from
        the report held: core's words come in the new language) and the last message."""
        self.save_button.setText(self.tr("&Save report…"))
        self.copy_button.setText(self.tr("Copy as &Markdown"))
        self.browser_button.setText(self.tr("Open in the bro&wser"))
        self.show_file_button.setText(self.tr("Show the fi&le"))
        self.show_file_button.setToolTip(self.tr("The page written for the browser, in its "
                                                 "folder"))
        self.copy_button.setToolTip(self.tr("For a forum post or an issue"))
        report = self.report
        if report is not None:
            keep_place(self.area, lambda: self._render(report, self.label))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def say(self, words: Callable[[], str] | None) -> None:
        """Show ``words()`` under the report (None: nothing), and again after a language
        change."""
        self.message.say(words)

    def show_report(self, report: Report, label: str | None = None) -> None:
        self.report, self.label = report, label
        self._render(report, label)
        self.area.verticalScrollBar().setValue(0)
        self.say((lambda: self.tr("This report holds no runs.")) if not report.runs else None)
        for button in (self.save_button, self.copy_button, self.browser_button):
            button.setEnabled(True)

    def relabel(self, label: str | None) -> None:
        """The same report under another label (its words in the new language)."""
        if self.report is not None:
            self.label = label
            self._heading(self.report, label)

    def _heading(self, report: Report, label: str | None) -> None:
        heading = self.tr("rocmate %1 report, %2").replace("%1", report.tool_version).replace(
            "%2", fmt.when(report.created))
        self.heading.setText(fmt.safe(f"{label}\n{heading}" if label else heading,
                                      keep_newlines=True))

    def _render(self, report: Report, label: str | None) -> None:
        for card in self.cards:
            self.runs.removeWidget(card)
            card.hide()  # gone from sight now, deleted once Qt is back in its loop
            card.deleteLater()
        self._heading(report, label)
        soft = ", ".join(f"{k} {v}" for k, v in fmt.software_items(report)[:5])
        machine = self.tr("Machine: %1").replace("%1", fmt.platform_text(report))
        if soft:
            machine += "\n" + self.tr("Software: %1").replace("%1", soft)
        for line in scaling_lines(report):  # core's words: a data-parallel run's scaling
            machine += "\n" + line
        self.machine.setText(fmt.safe(machine, keep_newlines=True))
        self.cards = [RunCard(report, i, self.content) for i in range(len(report.runs))]
        for card in self.cards:
            self.runs.insertWidget(self.runs.count() - 1, card)

    # -- the buttons ------------------------------------------------------------------------------

    def choose_file(self) -> None:
        if self.report is None:
            return
        filters = {"html": self.tr("Web page (*.html)"), "md": self.tr("Markdown (*.md)"),
                   "json": self.tr("rocmate report, JSON (*.json)")}
        path, chosen = QFileDialog.getSaveFileName(
            self, self.tr("Save the report"), str(Path.home() / self.file_stem()),
            ";;".join(filters.values()))
        if not path:
            return
        suffix = Path(path).suffix.lower()
        if suffix in SUFFIXES:
            kind = SUFFIXES[suffix]
        else:  # no suffix (or another one): the chosen filter's, added to the name
            kind = next((k for k, text in filters.items() if text == chosen), "html")
            path = f"{path}.{kind}"
        self.save_to(path, kind)

    def save_to(self, path: str | Path, kind: str | None = None) -> None:
        """Write the report to ``path`` (its kind from ``kind`` or the suffix)."""
        if self.report is not None:
            self.say(lambda: self.tr("Saving…"))
            self.bridge.run(f"{self.key}:save", plainly, export_report, self.report, path,
                            kind, references=True, owner=self, on_done=self._saved,
                            on_failed=lambda message, details: self._failed("save", message))

    def copy_markdown(self) -> None:
        if self.report is not None:
            self.bridge.run(f"{self.key}:md", plainly, render_report, self.report, "md",
                            references=True, owner=self, on_done=self._copied,
                            on_failed=lambda message, details: self._failed("md", message))

    def open_in_browser(self) -> None:
        if self.report is not None:
            folder = Path(QStandardPaths.writableLocation(
                QStandardPaths.StandardLocation.GenericCacheLocation)) / "rocmate" / "reports"
            self.say(lambda: self.tr("Writing the page…"))
            self.bridge.run(f"{self.key}:html", plainly, _write_page, self.report,
                            folder / f"{self.file_stem()}.html", owner=self, on_done=self._written,
                            on_failed=lambda message, details: self._failed("html", message))

    def show_file(self) -> None:
        """The folder of the page written for the browser, in the file manager (or, where
        none opens, where it is, in words)."""
        page = self.page
        if page is None:
            return
        if not self.open_url(QUrl.fromLocalFile(str(page.parent))):
            self.say(lambda: self.tr("No file manager could be opened. The page is saved as "
                                     "%1.").replace("%1", str(page)))

    def file_stem(self) -> str:
        """``rocmate-resnet50-train-2026-11-30-0715``: the report's suites and time."""
        report = self.report
        if report is None:
            return "rocmate-report"
        suites = "-".join(dict.fromkeys(r.suite for r in report.runs)) or "report"
        when = "".join(c if c.isalnum() else "-" for c in report.created[:16])
        name = f"rocmate-{suites}-{when}"
        return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)[:120]

    def _saved(self, result: object) -> None:
        if isinstance(result, Written):
            path, kind = str(result.path), result.kind.upper()
            self.say(lambda: self.tr("Saved %1 (%2).").replace("%1", path).replace("%2", kind))

    def _copied(self, result: object) -> None:
        if isinstance(result, str):
            QGuiApplication.clipboard().setText(result)
            self.say(lambda: self.tr("Copied as Markdown: paste it into a forum post or an "
                                     "issue."))

    def _written(self, result: object) -> None:
        if isinstance(result, Written):
            page = str(result.path)
            self.page = result.path
            self.show_file_button.setVisible(True)
            self.show_file_button.setEnabled(True)
            # a True answer means a program was started to open it (xdg-open), not that a
            # browser showed it: the words say so, and the file can be shown instead
            if self.open_url(QUrl.fromLocalFile(page)):
                self.say(lambda: self.tr("Sent to the browser: %1. If no window opens, use Show "
                                         "the file.").replace("%1", page))
            else:
                self.say(lambda: self.tr("No browser could be opened. The page is saved as %1: "
                                         "open it from a file manager.").replace("%1", page))

    def _failed(self, what: str, message: str) -> None:
        def words() -> str:
            text = {"save": self.tr("Not saved: %1"), "md": self.tr("Not copied: %1"),
                    "html": self.tr("The page could not be written: %1")}.get(what, "%1")
            return text.replace("%1", message)

        self.say(words)


def _write_page(report: Report, path: Path) -> Written:
    """The report as an HTML page in ``path`` (its folder made when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return export_report(report, path, "html", references=True)
