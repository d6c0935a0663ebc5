"""Benchmark: the suites as cards sized to the card's memory (batch, about how long), the
advanced settings folded away, Start and Cancel, a progress bar with the time left and what
the worker is doing, and the live graphs.

Start runs the real worker through core's suite sequence on the qasync loop; its events arrive
on the GUI thread and go to the graphs' ring buffers (the graphs redraw on their own timer). The
progress line is refreshed on a 250 ms timer, never per event. Cancel stops the worker (SIGINT,
then SIGTERM and SIGKILL) and the run is kept in the history as cancelled.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QSettings, Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.bench.advice import app_advice_text, message_text
from core.bench.worker.protocol import PRECISIONS
from core.diagnose.context import data_parallel_gpus
from core.diagnose.engine import NOT_SUPPORTED
from core.i18n import local
from core.operations.benchmark import BenchmarkRequest, BenchmarkRun, known_bad_from
from core.operations.errors import OperationError
from core.operations.machine import benchmark_device
from core.operations.reports import summary
from core.operations.suites import (
    SequenceResult,
    Settings,
    SuitePlan,
    SuiteSequence,
    choice_requests,
    plan_choices,
    prepare_reports,
)
from core.probe.facts import Facts
from core.probe.gpus import Gpu, work_memory
from core.report import formatting as fmt
from core.report.model import Report, SuiteRun
from gui.bridge import Bridge
from gui.pages.base import PageId, RocPage
from gui.runtime import settle_collector
from gui.session import Session
from gui.widgets.findings import selectable_label

if TYPE_CHECKING:
    from gui.widgets.live_plots import LivePlots

KEY = "benchmark"
PHASE_WORDS = {"warmup": QT_TRANSLATE_NOOP("BenchmarkPage", "warming up"),
               "measure": QT_TRANSLATE_NOOP("BenchmarkPage", "measuring")}
"""What the worker is doing in each phase, in English: translated when shown."""


def about(seconds: float) -> str:
    """"about 25 s", "about 2 min"."""
    if seconds < 90:
        text = QCoreApplication.translate("BenchmarkPage", "about %1 s")
        return text.replace("%1", str(max(5, round(seconds / 5) * 5)))
    text = QCoreApplication.translate("BenchmarkPage", "about %1 min")
    return text.replace("%1", str(round(seconds / 60)))


class SuiteCard(QFrame):
    """One choice: a check box with its title, what it measures, the batch and the time."""

    def __init__(self, plan: SuitePlan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan = plan
        self.setObjectName(f"suite-{plan.choice.key}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(2)
        self.check = QCheckBox()
        font = self.check.font()
        font.setBold(True)
        self.check.setFont(font)
        layout.addWidget(self.check)
        self.what = selectable_label("")
        layout.addWidget(self.what)
        self.facts = selectable_label("")
        self.facts.setObjectName("suite-facts")
        layout.addWidget(self.facts)
        self.warning = selectable_label("")
        self.warning.setVisible(False)
        layout.addWidget(self.warning)
        self.retranslate()

    def retranslate(self) -> None:
        """The card's words in the language now set (the plan's own words, core's, are made
        again by the page, which holds what the cards are sized for)."""
        self.check.setText(local(self.plan.choice.title))
        self.what.setText(local(self.plan.choice.what))
        self.set_plan(self.plan)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def set_plan(self, plan: SuitePlan) -> None:
        self.plan = plan
        parts = [about(plan.estimate_s)]
        if plan.batch_size is not None and len(plan.choice.suites) == 1 \
                and plan.choice.key != "sd15-infer":
            parts.append(self.tr("batch %1, %2").replace("%1", str(plan.batch_size))
                         .replace("%2", plan.why))
        self.facts.setText(" · ".join(parts))
        self.setToolTip(self.tr("The first run on a card may take %1 more: the GPU libraries "
                                "pick their kernels once.").replace(
                                    "%1", about(plan.first_run_extra_s))
                        if plan.first_run_extra_s else "")
        if plan.warning:
            self.warning.setText(self.tr("Warning: %1").replace("%1", plan.warning))
        self.warning.setVisible(bool(plan.warning))


class AdvancedSettings(QWidget):
    """Precision, batch, channels_last, compile, how long to measure, the device, a tiny smoke
    run and SD weights from a local file; each "automatic" unless changed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.labels = {name: QLabel() for name in ("device", "gpus", "size", "precision",
                                                   "batch", "measure", "steps", "options",
                                                   "model")}
        self.device = QComboBox()
        self.device.addItem("", "cuda:0")
        self.device.addItem("", "cpu")
        form.addRow(self.labels["device"], self.device)
        self.form = form
        self.gpu_count = 1
        self.gpus = QComboBox()  # shown where more than one GPU is usable (set_gpu_count)
        self.gpus.addItem("", None)
        form.addRow(self.labels["gpus"], self.gpus)
        form.setRowVisible(self.gpus, False)
        # the words of the device and of the data-parallel choice follow each other
        self.device.currentIndexChanged.connect(self.retranslate)
        self.gpus.currentIndexChanged.connect(self.retranslate)
        self.tiny = QCheckBox()
        form.addRow(self.labels["size"], self.tiny)
        self.precision = QComboBox()
        self.precision.addItem("", None)
        for name in PRECISIONS:
            self.precision.addItem(name, name)
        form.addRow(self.labels["precision"], self.precision)
        self.batch = QSpinBox()
        self.batch.setRange(0, 1_000_000)
        form.addRow(self.labels["batch"], self.batch)
        self.measure = QDoubleSpinBox()
        self.measure.setRange(0, 3600)
        self.measure.setDecimals(0)
        form.addRow(self.labels["measure"], self.measure)
        self.steps = QSpinBox()
        self.steps.setRange(0, 1_000_000)
        form.addRow(self.labels["steps"], self.steps)
        switches = QHBoxLayout()
        self.channels_last = QCheckBox()
        self.compile = QCheckBox()
        switches.addWidget(self.channels_last)
        switches.addWidget(self.compile)
        switches.addStretch(1)
        form.addRow(self.labels["options"], switches)
        model_row = QHBoxLayout()
        self.model = QLineEdit()
        self.browse = QPushButton()
        self.browse.clicked.connect(self.choose_model)
        model_row.addWidget(self.model, 1)
        model_row.addWidget(self.browse)
        form.addRow(self.labels["model"], model_row)
        for name, field in (("device", self.device), ("gpus", self.gpus), ("size", self.tiny),
                            ("precision", self.precision), ("batch", self.batch),
                            ("measure", self.measure), ("steps", self.steps)):
            self.labels[name].setBuddy(field)  # as addRow gives a row named in words
        self.retranslate()
        self.recall()

    def retranslate(self) -> None:
        """Every word of the settings in the language now set; what is chosen stays (the
        lists' items are named again in place, without a signal: no re-sizing of the cards)."""
        for name, text in (("device", self.tr("Device")),
                           ("gpus", self.tr("GPUs") if self.on_gpu() else self.tr("Processes")),
                           ("size", self.tr("Size")),
                           ("precision", self.tr("Precision")),
                           ("batch", self.tr("Batch size")), ("measure", self.tr("Measure for")),
                           ("steps", self.tr("Or exactly N steps")),
                           ("options", self.tr("Options")), ("model", self.tr("SD 1.5 weights"))):
            self.labels[name].setText(text)
        gpus: dict[str | None, str] = {None: self.tr("One GPU") if self.on_gpu()
                                       else self.tr("One process")}
        for n in range(2, self.gpu_count + 1):
            gpus[str(n)] = (self.tr("%1 GPUs, data-parallel (ResNet-50 and LLM; one GPU first, "
                                    "for the scaling)") if self.on_gpu()
                            else self.tr("%1 processes on the CPU, data-parallel (a check "
                                         "that the mode runs)")).replace("%1", str(n))
        ranks = self.ranks()
        gpu = (self.tr("The GPUs (cuda:0 to cuda:%1)").replace("%1", str(ranks - 1))
               if ranks > 1 else self.tr("The GPU (cuda:0)"))
        for combo, items in ((self.device, {"cuda:0": gpu,
                                            "cpu": self.tr("The CPU (slow: a check that the "
                                                           "suites run)")}),
                             (self.gpus, gpus),
                             (self.precision, {None: self.tr("Automatic (the suite's default)")})):
            combo.blockSignals(True)
            for i in range(combo.count()):
                if combo.itemData(i) in items:
                    combo.setItemText(i, items[combo.itemData(i)])
            combo.blockSignals(False)
        self.tiny.setText(self.tr("Tiny shapes: a smoke run in seconds, not a measurement"))
        self.batch.setSpecialValueText(self.tr("Automatic (sized to the card)"))
        self.measure.setSuffix(self.tr(" s"))
        self.measure.setSpecialValueText(self.tr("Automatic (the suite's default)"))
        self.steps.setSpecialValueText(self.tr("Automatic (by time)"))
        self.channels_last.setText(self.tr("channels_last (ResNet-50)"))
        self.compile.setText(self.tr("torch.compile (slow to start)"))
        self.model.setPlaceholderText(self.tr("Random weights (no download)"))
        self.browse.setText(self.tr("Choose…"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def set_gpu_count(self, count: int) -> None:
        """How many GPUs a data-parallel run can use here: one, or 2 to ``count`` (the choice
        is offered from two)."""
        self.gpu_count = count
        chosen = self.gpus.currentData()
        self.gpus.blockSignals(True)
        while self.gpus.count() > 1:
            self.gpus.removeItem(1)
        for n in range(2, count + 1):
            self.gpus.addItem("", str(n))
        self.gpus.setCurrentIndex(max(0, self.gpus.findData(chosen)))
        self.gpus.blockSignals(False)
        self.form.setRowVisible(self.gpus, count > 1)
        self.retranslate()

    def on_gpu(self) -> bool:
        return self.device.currentData() != "cpu"

    def ranks(self) -> int:
        """How many ranks the run is to have: the data-parallel choice, else one."""
        chosen = self.gpus.currentData()
        return int(chosen) if self.gpu_count > 1 and chosen is not None else 1

    def choose_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("SD 1.5 weights"), str(Path.home()),
            self.tr("Safetensors (*.safetensors);;All files (*)"))
        if path:
            self.model.setText(path)

    _KEY = "benchmark/advanced"  # QSettings group of what was chosen for the last run

    def remember(self) -> None:
        """What is chosen now, for the next start of the app (a run was started with it)."""
        store = QSettings()
        store.beginGroup(self._KEY)
        for name, value in (("device", self.device.currentData()), ("tiny", self.tiny.isChecked()),
                            ("precision", self.precision.currentData() or ""),
                            ("batch", self.batch.value()), ("measure", self.measure.value()),
                            ("steps", self.steps.value()),
                            ("channels_last", self.channels_last.isChecked()),
                            ("compile", self.compile.isChecked()), ("model", self.model.text())):
            store.setValue(name, value)
        store.endGroup()

    def recall(self) -> None:
        """What was chosen for the last run, where this machine still offers it (a value that
        does not read is left at its default: nothing is lost, nothing raises)."""
        store = QSettings()
        store.beginGroup(self._KEY)
        try:
            def number(name: str) -> float:
                try:
                    return float(str(store.value(name, 0) or 0))
                except (TypeError, ValueError):
                    return 0.0

            def flag(name: str) -> bool:
                return str(store.value(name, "false")).lower() in ("true", "1")

            for combo, name in ((self.device, "device"), (self.precision, "precision")):
                index = combo.findData(store.value(name) or None)
                if store.contains(name) and index >= 0:
                    combo.setCurrentIndex(index)
            self.tiny.setChecked(flag("tiny"))
            self.channels_last.setChecked(flag("channels_last"))
            self.compile.setChecked(flag("compile"))
            self.batch.setValue(int(number("batch")))
            self.measure.setValue(number("measure"))
            self.steps.setValue(int(number("steps")))
            self.model.setText(str(store.value("model", "") or ""))
        finally:
            store.endGroup()

    def settings(self) -> Settings:
        return Settings(
            device=str(self.device.currentData()),
            size="tiny" if self.tiny.isChecked() else "default",
            precision=self.precision.currentData(),
            batch_size=self.batch.value() or None,
            channels_last=self.channels_last.isChecked(),
            compile=self.compile.isChecked(),
            steps=self.steps.value() or None,
            seconds=self.measure.value() or None,
            model=self.model.text().strip() or None,
            gpus=str(self.ranks()) if self.ranks() > 1 else None,
        )


class BenchmarkPage(RocPage):
    PAGE_ID = PageId.BENCHMARK

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.cards: list[SuiteCard] = []
        self.choices = QWidget()  # the cards; folded away while the graphs need the room
        grid = QGridLayout(self.choices)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setSpacing(6)
        # what the cards were last sized for (memory, gpu, tiny): sized so again in a new language
        self._sized_for: tuple[int | None, bool, bool, str | None, bool] = (
            None, True, False, None, False)
        for i, plan in enumerate(plan_choices(None)):
            card = SuiteCard(plan)
            card.check.toggled.connect(self._update_buttons)
            self.cards.append(card)
            grid.addWidget(card, i // 2, i % 2)
        self.advanced = AdvancedSettings()
        self.advanced.setVisible(False)
        self.advanced.device.currentIndexChanged.connect(self._resize_cards)
        self.advanced.device.currentIndexChanged.connect(self._say_waiting)
        self.advanced.tiny.toggled.connect(self._resize_cards)
        self.advanced.gpus.currentIndexChanged.connect(self._resize_cards)  # the runs' time
        self.fold = QToolButton()
        self.fold.setCheckable(True)
        self.fold.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.fold.setArrowType(Qt.ArrowType.RightArrow)
        self.fold.toggled.connect(self._fold)
        self.start_button = QPushButton()
        self.start_button.clicked.connect(self.start)
        self.cancel_button = QPushButton()
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setVisible(False)
        self.status = selectable_label("")
        self.message = selectable_label("")
        self.message.setObjectName("benchmark-message")
        self.message.setVisible(False)
        # a kernel, linux-firmware or ROCm release public reports show hanging this card: said
        # before a long run starts (core's words, from the System check's facts)
        self.stack_warning = selectable_label("")
        self.stack_warning.setObjectName("known-bad-stack")
        self.stack_warning.setVisible(False)
        self._plots: LivePlots | None = None  # made when the page is first shown (pyqtgraph
        # is slow to import, and the first window must not wait for it)

        self.choose_again = QPushButton()
        self.choose_again.clicked.connect(lambda: self.show_choices(True))
        self.choose_again.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.choose_again)
        buttons.addWidget(self.fold)
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.cancel_button)
        # after a run of several suites, whose graphs are shown: each suite's, not only the last
        self.shown_runs: list[SuiteRun] = []
        self.run_choice = QComboBox()
        self.run_choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.run_choice.currentIndexChanged.connect(self._show_chosen_run)
        self.run_choice_label = QLabel()
        self.run_choice_label.setBuddy(self.run_choice)
        self.run_row = QWidget()
        run_row = QHBoxLayout(self.run_row)
        run_row.setContentsMargins(0, 0, 0, 0)
        run_row.addWidget(self.run_choice_label)
        run_row.addWidget(self.run_choice)
        run_row.addStretch(1)
        self.run_row.setVisible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.stack_warning)
        layout.addWidget(self.choices)
        layout.addLayout(buttons)
        layout.addWidget(self.run_row)
        layout.addWidget(self.advanced)
        layout.addWidget(self.progress)
        layout.addWidget(self.message)
        self.waiting = selectable_label("")
        self.waiting.setObjectName("graphs-placeholder")
        # where the graphs will be: a framed space that says so, not an empty half page
        self.waiting.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.waiting.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.waiting.setMargin(24)
        self.waiting.setStyleSheet("#graphs-placeholder { border: 1px dashed palette(mid); "
                                   "border-radius: 6px; }")
        layout.addWidget(self.waiting, 10)
        layout.addStretch(1)
        self.layout_ = layout

        self.sequence: SuiteSequence | None = None
        self.result: SequenceResult | None = None
        self.close_when_stopped = False
        self._chosen: list[SuitePlan] = []
        self._estimate_s = 0.0
        self._started = 0.0
        self._run_index = 0
        self._runs = 0
        self._ranks_said: str | None = None  # a data-parallel run's GPUs, when some are left out
        self._doing: Callable[[], str] = str  # what the worker is doing, in words
        self._suite = ""
        self._replayed: bool | None = None  # a recorded machine (known once the page is shown)
        self._ticker = QTimer(self)
        self._ticker.setInterval(250)
        self._ticker.timeout.connect(self._tick)
        self.cards[0].check.setChecked(True)  # the quick health check, unless changed
        self.retranslate()

    def retranslate(self) -> None:
        """The page's words in the language now set. A run under way goes on undisturbed: the
        cards are sized again as they were (core's words about their batch), the progress line
        and the messages are said again (RocPage.say), the graphs name themselves again
        (LivePlots answers the language change itself, keeping every point)."""
        self.setTitle(self.tr("Benchmark the card"))
        self.setSubTitle(self.tr("Pick what to measure and press Start. The graphs follow the "
                                 "run live; the results are kept in the history."))
        self.fold.setText(self.tr("A&dvanced settings"))
        self.start_button.setText(self.tr("&Start"))
        self.cancel_button.setText(self.tr("&Cancel the run"))
        self.choose_again.setText(self.tr("Choose a&gain"))
        self.choose_again.setToolTip(self.tr("Show the benchmark cards again"))
        self.run_choice_label.setText(self.tr("Gra&phs of:"))
        self._name_runs()
        self._say_waiting()
        if self._replayed is not None:
            self.start_button.setToolTip(
                self.tr("A recorded machine runs nothing: the benchmark runs on this computer.")
                if self._replayed else "")
        self._size_cards()

    # -- the cards ---------------------------------------------------------------------------

    @property
    def plots(self) -> LivePlots:
        if self._plots is None:
            from gui.widgets.live_plots import LivePlots

            self._plots = LivePlots()
            self._plots.setMinimumHeight(260)
            self._plots.setVisible(False)  # until a run starts (or a recorded one is shown)
            self.layout_.addWidget(self._plots, 1000)
            settle_collector()  # pyqtgraph and numpy, imported now, live as long as the app
        return self._plots

    def _say_waiting(self) -> None:
        """What the graphs will show: on the CPU, no card's telemetry is promised."""
        self.waiting.setText(self.tr(
            "The graphs appear here when a run starts: throughput and step time, and the card's "
            "power, temperature, clocks, memory and load, live.") if self.advanced.on_gpu()
            else self.tr("The graphs appear here when a run starts: throughput and step time, "
                         "live, measured on the CPU."))

    def _device_here(self) -> None:
        """Where ROCm cannot be set up (the check's verdict), the device PyTorch sees: the CPU
        when it sees no GPU."""
        report = self.session.report
        if report is not None and report.verdict == NOT_SUPPORTED \
                and benchmark_device(report) == "cpu":
            self.advanced.device.setCurrentIndex(self.advanced.device.findData("cpu"))

    def initializePage(self) -> None:
        self._device_here()
        self._warn_of_known_bad_stack()
        prepare_reports()  # once: not while a run is shown live
        self.plots  # noqa: B018  (made now, hidden: pyqtgraph is not imported on Start)
        self.advanced.set_gpu_count(self.usable_gpus())
        self._resize_cards()
        self._replayed = self.session.root is not None
        self.start_button.setToolTip(
            self.tr("A recorded machine runs nothing: the benchmark runs on this computer.")
            if self._replayed else "")

    def _warn_of_known_bad_stack(self) -> None:
        report = self.session.report
        warned = bool(report is not None and known_bad_from(report.facts))
        self.stack_warning.setVisible(warned)
        if report is not None and warned:
            self.say(self.stack_warning, lambda: self.tr("Before a long run: %1").replace(
                "%1", " ".join(known_bad_from(report.facts))))

    def usable_gpus(self) -> int:
        """The GPUs a data-parallel run can use here, as the doctor counts them (discrete AMD
        cards ROCm serves, or several NVIDIA cards)."""
        report = self.session.report
        if report is None:
            return 0
        return len(data_parallel_gpus(report.facts.gpus.gpus, report.supports))

    def _primary_gpu(self) -> Gpu | None:
        report = self.session.report
        if report is None or report.primary_index is None:
            return None
        return report.facts.gpus.gpus[report.primary_index]

    def memory_bytes(self) -> int | None:
        """The memory the batches are sized to: the card's VRAM, an APU's shared GTT."""
        gpu = self._primary_gpu()
        return work_memory(gpu) if gpu is not None else None

    def _resize_cards(self) -> None:
        settings = self.advanced.settings()
        gpu = self._primary_gpu()
        self._sized_for = (self.memory_bytes(), settings.device != "cpu", settings.size == "tiny",
                           settings.gpus, gpu is not None and gpu.integrated)
        self._size_cards()

    def _size_cards(self) -> None:
        """Each card sized for what the page last sized them for (in the words now set)."""
        memory, gpu, tiny, gpus, shared = self._sized_for
        plans = plan_choices(memory, gpu=gpu, tiny=tiny, gpus=gpus, shared=shared)
        for card, plan in zip(self.cards, plans, strict=True):
            card.set_plan(plan)

    def show_choices(self, shown: bool, *, progress: bool | None = None) -> None:
        """The cards, or (while a run's graphs are shown) a button that brings them back;
        ``progress``: the progress bar shown or hidden as well."""
        # each widget shown lays the page out again at once, and each new size of the graphs
        # costs them a pass over every plot: the page is laid out once, with the graphs last
        self.layout_.setEnabled(False)
        try:
            self.waiting.setVisible(False)
            self.choices.setVisible(shown)
            self.choose_again.setVisible(not shown)
            if progress is not None:
                self.progress.setVisible(progress)
            if not shown:
                self.fold.setChecked(False)
        finally:
            self.layout_.setEnabled(True)
            self.layout_.activate()
        self.plots.setVisible(True)

    def choose(self, *keys: str) -> None:
        """Tick exactly these cards (health, resnet50-train, sd15-infer, llm-train)."""
        for card in self.cards:
            card.check.setChecked(card.plan.choice.key in keys)

    def _fold(self, open_: bool) -> None:
        self.fold.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.advanced.setVisible(open_)

    def _update_buttons(self) -> None:
        chosen = any(c.check.isChecked() for c in self.cards)
        self.start_button.setEnabled(chosen and not self.busy)
        self.cancel_button.setEnabled(self.busy)
        for card in self.cards:
            card.check.setEnabled(not self.busy)
        self.advanced.setEnabled(not self.busy)
        self.choose_again.setEnabled(not self.busy)
        self.fold.setEnabled(not self.busy)

    # -- a run -------------------------------------------------------------------------------

    def requests(self) -> tuple[list[BenchmarkRequest], list[int]]:
        """The chosen cards' requests, and how many are each card's (one history row each)."""
        python, path = self.session.python, self.session.history_path
        return choice_requests(
            self._chosen, self.advanced.settings(),
            lambda options: BenchmarkRequest(options=options, python=python, history_path=path))

    def start(self) -> None:
        if self.busy:
            return
        self._chosen = [c.plan for c in self.cards if c.check.isChecked()]
        self.message.setVisible(False)
        self.say(self.message, None)
        self.result = None
        self._ranks_said = None
        try:
            requests, groups = self.requests()
            self.sequence = SuiteSequence(requests, on_event=self._event,
                                          on_start=self._run_started, facts=self._facts(),
                                          groups=groups)
        except OperationError as exc:
            self._show_message(str(exc))
            return
        self.advanced.remember()  # the settings of a run that starts: offered again next time
        self._runs = len(requests)
        self.offer_runs([])  # the last run's choice goes with it
        self._estimate_s = sum(p.estimate_s for p in self._chosen)
        self._started = time.monotonic()
        self._doing = lambda: self.tr("starting the worker")
        self.plots.reset()
        self.show_choices(False, progress=True)
        self.set_busy(True)
        self._update_buttons()
        self._ticker.start()
        # the first words at the next turn of the event loop: the progress bar paints the
        # whole window at once when its value is set (Qt's QProgressBar repaints at once),
        # and the page's new layout is enough for this turn
        QTimer.singleShot(0, self, self._tick)
        sequence = self.sequence
        self.bridge.run_async(KEY, sequence.run, owner=self, on_done=self._finished,
                              on_failed=self._failed)

    def cancel(self) -> None:
        if self.sequence is not None:
            self.sequence.cancel()
            self._doing = lambda: self.tr("stopping the worker")
            self._tick()

    def stop(self) -> None:
        """Stop the run (the wizard's close asks for it)."""
        self.cancel()

    def _facts(self) -> Facts | None:
        """The System check's facts of this computer (a data-parallel run's GPUs come from
        them); None for a replayed machine, whose facts are not this computer's."""
        report = self.session.report
        return report.facts if report is not None and self.session.root is None else None

    def _run_started(self, index: int, run: BenchmarkRun) -> None:
        self._run_index = index
        self._suite = run.request.options.suite
        self._ranks_said = run.ranks.said  # core's words: which GPUs, what is left out
        if index:
            self.plots.reset()

    def _event(self, event: dict[str, Any]) -> None:
        """One worker event, on the GUI thread: to the graphs; the words for the ticker."""
        self.plots.add_event(event)
        kind = event.get("event")
        if kind == "phase":
            phase = event.get("phase")
            if phase == "setup":
                what = event.get("what")  # the worker's own words: kept as they came
                self._doing = (lambda: str(what)) if what else (lambda: self.tr("setting up"))
            elif phase in PHASE_WORDS:
                part, english = event.get("part"), str(PHASE_WORDS[phase])

                def doing() -> str:
                    words = QCoreApplication.translate("BenchmarkPage", english)
                    return f"{words} {self.plots.part_word(part)}" if part else words

                self._doing = doing
        elif kind == "hello":
            device = str(event.get("device_name") or event.get("device") or "?")
            self._doing = lambda: self.tr("the worker started on %1").replace("%1", device)

    def offer_runs(self, runs: list[SuiteRun]) -> None:
        """The runs whose graphs can be shown, the last one shown now; the choice is offered
        where there are several (the health check's two suites, a run of several cards)."""
        self.shown_runs = list(runs)
        self.run_choice.blockSignals(True)
        self.run_choice.clear()
        for _ in self.shown_runs:
            self.run_choice.addItem("")
        self.run_choice.setCurrentIndex(len(self.shown_runs) - 1)
        self.run_choice.blockSignals(False)
        self._name_runs()
        self.run_row.setVisible(len(self.shown_runs) > 1)

    def _name_runs(self) -> None:
        """Each offered run by its suite's title (and what set it apart), in the words now
        set."""
        for i, run in enumerate(self.shown_runs[:self.run_choice.count()]):
            flags = fmt.settings_flags(run.settings)
            name = fmt.suite_title(run.suite)
            self.run_choice.setItemText(i, self.tr("%1 (%2)").replace("%1", name).replace(
                "%2", ", ".join(flags)) if flags else name)

    def _show_chosen_run(self, index: int) -> None:
        if 0 <= index < len(self.shown_runs) and not self.busy:
            self.plots.show_run(self.shown_runs[index])

    def show_recorded(self, report: Report) -> None:
        """The graphs of a finished run (the last of ``report``), as it was saved; the others
        are offered."""
        self.plots.show_run(report.runs[-1])
        self.offer_runs(report.runs)
        self.show_choices(False)
        last = replace(report, runs=report.runs[-1:])  # the run the graphs show
        self.say(self.status, lambda: self.tr("A recorded run: %1").replace("%1", summary(last)))

    def _tick(self) -> None:
        if not self._ticker.isActive():  # a tick left over from a run that ended
            return
        self.say(self.status, self._progress_text)

    def _progress_text(self) -> str:
        """The progress line: the suite, what the worker does, the time gone and left."""
        elapsed = time.monotonic() - self._started
        estimate = max(self._estimate_s, 1.0)
        fraction = min(elapsed / estimate, 0.97)
        self.progress.setValue(int(fraction * 1000))
        left = estimate - elapsed
        when = (self.tr("%1 left").replace("%1", about(left)) if left > 0
                else self.tr("taking longer than the estimate"))
        suite = fmt.suite_title(
            self._suite or (self._chosen[0].choice.suites[0] if self._chosen else ""))
        text = self.tr("%1 (%2 of %3): %4 — %5 elapsed, %6")
        for marker, value in (("%1", suite), ("%2", str(self._run_index + 1)),
                              ("%3", str(self._runs)), ("%4", self._doing()),
                              ("%5", f"{elapsed:.0f} s"), ("%6", when)):
            text = text.replace(marker, value)
        return f"{text}\n{self._ranks_said}" if self._ranks_said else text

    def _finished(self, result: object) -> None:
        self._end()
        if not isinstance(result, SequenceResult):
            return
        self.result = result
        self.session.bench_report = result.report
        self.session.bench_history_ids = result.history_ids
        self.offer_runs(result.report.runs)
        last = result.results[-1]
        if result.status == "ok":
            self.progress.setValue(1000)
        else:  # a full bar would say it ran to its end: the words below say how it ended
            self.progress.setVisible(False)
        if result.status == "ok":
            took = f"{time.monotonic() - self._started:.0f}"
            self.say(self.status, lambda: self.tr("Done in %1 s. Next shows the results.")
                     .replace("%1", took))
        elif result.status == "cancelled":
            self.say(self.status, lambda: self.tr("Cancelled. The steps it measured are kept in "
                                                  "the history."))
        else:
            self.say(self.status, lambda: self.tr("The run failed."))
        run = last.report.runs[-1]
        lines = []
        if run.error is not None and result.status != "cancelled":
            lines += [message_text(run), app_advice_text(run)]
        lines += result.problems
        if lines:
            self._show_message("\n".join(line for line in lines if line))
        self.completeChanged.emit()

    def _failed(self, message: str, details: str) -> None:
        self._end()
        self.progress.setVisible(False)
        self.say(self.status, lambda: self.tr("The run did not start."))
        self._show_message(message)

    def _end(self) -> None:
        self._ticker.stop()
        self.plots.finish()
        self.sequence = None
        self.set_busy(False)
        self._update_buttons()
        if self.close_when_stopped:
            window = self.window()
            QTimer.singleShot(0, window.close)

    def _show_message(self, text: str) -> None:
        """What went wrong, in the words it came in (core's, the worker's): kept as it is."""
        self.say(self.message, lambda: text)
        self.message.setVisible(True)

    def isComplete(self) -> bool:
        return not self.busy and self.session.bench_report is not None

    def nextId(self) -> int:
        return int(PageId.RESULTS)
