"""Find the fastest settings (issue 37): the window the Results page opens. The budget is shown
before Start; while it runs, a progress bar and the time left; then the ranked table (setting,
headline, CV, against today's defaults, state), core's answer, and "Keep these" (the winner's
variables into the environment through the plan's steps) with "Undo". The measuring is core's
(``core.operations.tune``): each setting in a fresh benchmark worker."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.bench.tune_rank import DEFAULT
from core.bench.tune_variants import load_variants
from core.operations.errors import OperationError
from core.operations.tune import (
    DEFAULT_BUDGET_S,
    TUNE_SUITES,
    KeepResult,
    TuneEvent,
    TuneRequest,
    TuneResult,
    TuneRun,
    answer_text,
    keep_text,
    keep_tuned,
    measure_seconds,
    percent,
    reworded,
    state_text,
    undo_ready,
    undo_tuned,
    upper_count,
    variant_title,
)
from gui.bridge import Bridge, Call
from gui.session import Session
from gui.widgets.findings import selectable_label

TUNE, KEEP, UNDO = "tune", "tune-keep", "tune-undo"


def clock(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class TuneDialog(QDialog):
    """Non-modal; one per Results page. ``keep_tuned`` and ``undo_tuned`` are attributes so
    that a test can point them at a throwaway environment."""

    keep_tuned = staticmethod(keep_tuned)
    undo_tuned = staticmethod(undo_tuned)

    def __init__(self, session: Session, bridge: Bridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tune")
        self.session = session
        self.bridge = bridge
        self.run: TuneRun | None = None
        self.outcome: TuneResult | None = None
        self.titles: dict[str, str] = {}
        self.fixed: dict[str, Any] = {}
        """More fields of the request (a test's ``only`` and ``measure_s``)."""
        self.intro = selectable_label("")
        self.suite = QComboBox()
        for suite in TUNE_SUITES:
            self.suite.addItem(suite, suite)
        self.device = QComboBox()
        self.device.addItem("", "cuda:0")
        self.device.addItem("", "cpu")
        self.tiny = QCheckBox()
        self.budget = QSpinBox()
        self.budget.setRange(10, 3600)
        self.budget.setSingleStep(30)
        self.budget.setValue(int(DEFAULT_BUDGET_S))
        self.labels = {name: QLabel() for name in ("suite", "device", "budget")}
        self.labels["suite"].setBuddy(self.suite)
        self.labels["device"].setBuddy(self.device)
        self.labels["budget"].setBuddy(self.budget)
        form = QFormLayout()
        form.addRow(self.labels["suite"], self.suite)
        form.addRow(self.labels["device"], self.device)
        form.addRow("", self.tiny)
        form.addRow(self.labels["budget"], self.budget)
        self.plan_line = selectable_label("")
        self.plan_line.setObjectName("tune-plan")
        for widget in (self.suite, self.device):
            widget.currentIndexChanged.connect(self.show_plan)
        self.tiny.toggled.connect(self.show_plan)
        self.budget.valueChanged.connect(self.show_plan)
        self.start_button = QPushButton()
        self.start_button.clicked.connect(self.start)
        self.stop_button = QPushButton()
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.setEnabled(False)
        self.keep_button = QPushButton()
        self.keep_button.clicked.connect(self.keep)
        self.keep_button.setEnabled(False)
        self.undo_button = QPushButton()
        self.undo_button.clicked.connect(self.undo)
        self.undo_button.setEnabled(undo_ready())
        actions = QHBoxLayout()
        for button in (self.start_button, self.stop_button, self.keep_button, self.undo_button):
            actions.addWidget(button)
        actions.addStretch(1)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("%v / %m")  # runs done of the runs planned
        self.status = QLabel()
        self.status.setObjectName("tune-status")
        self.table = QTableWidget(0, 5)
        self.table.setObjectName("tune-table")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # the long titles wrap
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.answer = selectable_label("", bold=True)
        self.answer.setObjectName("tune-answer")
        self.kept = selectable_label("")
        self.kept.setObjectName("tune-kept")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addLayout(form)
        layout.addWidget(self.plan_line)
        layout.addLayout(actions)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.answer)
        layout.addWidget(self.kept)
        layout.addWidget(buttons)
        self._from_report()
        self.resize(1040, 680)
        self.retranslate()

    # -- words -----------------------------------------------------------------------------

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Find the fastest settings"))
        self.intro.setText(self.tr(
            "Runs the suite with today's defaults, then once with each setting that may help "
            "on this card (variables such as TORCH_BLAS_PREFER_HIPBLASLT or MIOPEN_FIND_MODE, "
            "bf16 or fp16, channels_last, torch.compile), each in a fresh worker with the same "
            "checks as a benchmark, and ranks them by the suite's headline with its spread."))
        self.labels["suite"].setText(self.tr("&Suite:"))
        self.labels["device"].setText(self.tr("&Device:"))
        self.labels["budget"].setText(self.tr("&Budget:"))
        self.device.setItemText(0, self.tr("The GPU (cuda:0)"))
        self.device.setItemText(1, self.tr("The CPU (no GPU)"))
        self.tiny.setText(self.tr("T&iny shapes: a smoke run, not a measurement"))
        self.budget.setSuffix(self.tr(" s"))
        self.start_button.setText(self.tr("S&tart"))
        self.stop_button.setText(self.tr("St&op"))
        self.keep_button.setText(self.tr("&Keep these"))
        self.undo_button.setText(self.tr("&Undo"))
        self.table.setHorizontalHeaderLabels([
            self.tr("Setting"), self.tr("Headline"), self.tr("CV"), self.tr("vs defaults"),
            self.tr("State")])
        self.show_plan()
        if self.outcome is not None:
            self.outcome = reworded(self.outcome)  # rocmate's reasons in the new language
            self._show_result(self.outcome)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def _from_report(self) -> None:
        """The suite, device and size of the last benchmark, where it ran one of the suites
        a tune measures."""
        report = self.session.bench_report
        for run in getattr(report, "runs", None) or []:
            if run.suite in TUNE_SUITES:
                self.suite.setCurrentIndex(TUNE_SUITES.index(run.suite))
                settings = run.settings or {}
                self.device.setCurrentIndex(1 if settings.get("device") == "cpu" else 0)
                self.tiny.setChecked(settings.get("size") == "tiny")
                break

    def request(self) -> TuneRequest:
        return TuneRequest(self.suite.currentData(), budget_s=float(self.budget.value()),
                           device=self.device.currentData(),
                           size="tiny" if self.tiny.isChecked() else "default",
                           python=self.session.python, **self.fixed)

    def show_plan(self) -> None:
        """The budget and what it buys, before Start."""
        request = self.request()
        runs = upper_count(load_variants(), request.suite, request.device)
        self.plan_line.setText(self.tr(
            "Budget %1: today's defaults first, then up to %2 settings, each measured for "
            "%3 s. Settings that do not apply to this card are listed, not run.")
            .replace("%1", clock(request.budget_s)).replace("%2", str(runs - 1))
            .replace("%3", f"{measure_seconds(request.budget_s, runs):g}"))

    # -- the tune --------------------------------------------------------------------------

    def start(self) -> None:
        try:
            # its events reach _progress through this run's own call (made below)
            call: list[Call] = []
            self.run = TuneRun(self.request(), lambda event: call[0].report(event))
        except OperationError as exc:
            self.status.setText(str(exc))
            return
        self.outcome = None
        self.table.setRowCount(0)
        self.answer.setText("")
        self.kept.setText("")
        self.progress.setRange(0, self.run.total)
        self.progress.setValue(0)
        self.status.setText(self.tr("Starting today's defaults…"))
        self._busy(True)
        run = self.run
        call.append(self.bridge.run_async(TUNE, lambda: run.run(), owner=self, on_done=self._tuned,
                                          on_failed=self._tune_failed,
                                          on_progress=self._progress))

    def stop(self) -> None:
        if self.run is not None:
            self.run.cancel()
            self.status.setText(self.tr("Stopping after the run in progress…"))

    def _progress(self, event: Any) -> None:
        if not isinstance(event, TuneEvent):
            return
        if event.kind == "plan":
            self.titles = {p.variant.id: variant_title_of(p.variant) for p in event.plans}
        self.progress.setRange(0, max(event.total, 1))
        done = event.index if event.kind == "done" else event.index - 1
        self.progress.setValue(min(done, event.total))
        title = (self.tr("today's defaults") if event.variant == DEFAULT
                 else self.titles.get(event.variant, event.variant))
        if event.kind == "start":
            self.status.setText(self.tr("Measuring %1 of %2: %3 — about %4 left")
                                .replace("%1", str(event.index)).replace("%2", str(event.total))
                                .replace("%3", title).replace("%4", clock(event.left_s)))
        elif event.kind == "done" and event.measured is not None:
            self._add_row(event.measured, title)

    def _add_row(self, row: Any, title: str) -> None:
        at = self.table.rowCount()
        self.table.insertRow(at)
        ok = row.state == "ok"
        cells = [title,
                 f"{row.median:.4g} {row.unit}" if ok and row.median is not None else "–",
                 percent(row.cv) if ok else "–",
                 percent(row.vs_default, signed=True) if ok and row.vs_default is not None
                 and row.variant != DEFAULT else "–",
                 state_text(row)]
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            self.table.setItem(at, column, item)
        self.table.resizeRowToContents(at)

    def _show_result(self, result: TuneResult) -> None:
        self.table.setRowCount(0)
        for row in result.ranking.rows:
            self._add_row(row, variant_title(result, row.variant))
        self.answer.setText(answer_text(result))
        self.kept.setText(keep_text(result) or "")
        done = (self.tr("Stopped after %1 (budget %2).") if result.cancelled
                else self.tr("Done in %1 (budget %2)."))
        self.status.setText(done.replace("%1", clock(result.elapsed_s))
                            .replace("%2", clock(result.budget_s)))

    def _busy(self, busy: bool) -> None:
        for widget in (self.suite, self.device, self.tiny, self.budget, self.start_button):
            widget.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        if busy:
            self.keep_button.setEnabled(False)
            self.undo_button.setEnabled(False)

    # -- background calls: each with its own success and failure ---------------------------

    def _tuned(self, result: object) -> None:
        self._busy(False)
        if not isinstance(result, TuneResult):
            return
        self.outcome = result
        self.progress.setValue(self.progress.maximum())
        self._show_result(result)
        self.keep_button.setEnabled(result.winner is not None and result.ranking.clear)
        self.undo_button.setEnabled(undo_ready())

    def _tune_failed(self, message: str, details: str = "") -> None:
        self._busy(False)
        self.status.setText(message)
        self.undo_button.setEnabled(undo_ready())

    def keep(self) -> None:
        result = self.outcome
        if result is None:
            return
        self.keep_button.setEnabled(False)
        root = self.session.root
        self.bridge.run_async(KEEP, lambda: self.keep_tuned(result, root), owner=self,
                              on_done=self._kept, on_failed=self._keep_failed)

    def undo(self) -> None:
        self.undo_button.setEnabled(False)
        root = self.session.root
        self.bridge.run_async(UNDO, lambda: self.undo_tuned(root), owner=self, on_done=self._undone,
                              on_failed=self._keep_failed)

    def _kept(self, kept: object) -> None:
        if not isinstance(kept, KeepResult):
            return
        if not kept.ok:
            self.kept.setText(self.tr("It could not be written (has the set-up made the "
                                      "environment?): see %1.").replace("%1", str(kept.log_path)))
        elif kept.options:
            self.kept.setText(self.tr("Not a variable, so nothing was written: on the "
                                      "Benchmark page choose %1.")
                              .replace("%1", " ".join(kept.options)))
        else:
            self.kept.setText(self.tr("Written into %1: %2. Every PyTorch run of that "
                                      "environment gets them; Undo puts back what was there.")
                              .replace("%1", str(kept.script))
                              .replace("%2", ", ".join(f"{k}={v}"
                                                       for k, v in kept.written.items())))
        self.undo_button.setEnabled(undo_ready())

    def _undone(self, undone: object) -> None:
        if not isinstance(undone, KeepResult):
            return
        self.kept.setText(self.tr("Put back in %1: %2.").replace("%1", str(undone.script))
                          .replace("%2", ", ".join(f"{k}={v}" for k, v in undone.written.items())
                                   or self.tr("no tuned variable")) if undone.ok else
                          self.tr("It could not be written back: see %1.")
                          .replace("%1", str(undone.log_path)))
        self.undo_button.setEnabled(undo_ready())
        self.keep_button.setEnabled(self.outcome is not None and self.outcome.winner is not None
                                    and self.outcome.ranking.clear)

    def _keep_failed(self, message: str, details: str = "") -> None:
        self.kept.setText(message)
        self.undo_button.setEnabled(undo_ready())


def variant_title_of(variant: Any) -> str:
    from core.i18n import local

    return local(variant.title)
