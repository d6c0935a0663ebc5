"""Override tester (only where the card needs HSA_OVERRIDE_GFX_VERSION): each candidate value
tried for real, one throwaway process at a time, with what happened — works, wrong numbers,
crashed, hung, no GPU — and the value to keep. It starts only when asked: a bad value can hang
a desktop, and the page says so first."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QStyle, QVBoxLayout, QWidget

from core.operations.setup import (
    OverrideTrials,
    SetupResult,
    keep_override,
    override_candidates,
    override_warning,
    try_overrides,
)
from core.probe.override_trial import Trial
from gui.bridge import Bridge, Call
from gui.pages.base import PageId, RocPage
from gui.session import Session
from gui.widgets.findings import selectable_label

OUTCOME_ICONS = {"works": QStyle.StandardPixmap.SP_DialogApplyButton}


class OverrideTesterPage(RocPage):
    PAGE_ID = PageId.OVERRIDE_TESTER

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.warning = selectable_label("")
        self.values = QLabel()
        self.values.setWordWrap(True)
        self.start_button = QPushButton()
        self.start_button.clicked.connect(self.start)
        self.keep_button = QPushButton()
        self.keep_button.clicked.connect(self.keep)
        self.keep_button.hide()
        self.best: Trial | None = None
        self.rows = QVBoxLayout()
        self.result = QLabel()
        self.result.setWordWrap(True)
        font = self.result.font()
        font.setBold(True)
        self.result.setFont(font)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start_button)
        buttons.addWidget(self.keep_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.warning)
        layout.addWidget(self.values)
        layout.addLayout(buttons)
        layout.addLayout(self.rows)
        layout.addWidget(self.result)
        layout.addStretch(1)
        self.trials: list[Trial] = []
        self.row_widgets: list[QWidget] = []
        self.row_labels: list[QLabel] = []
        self.entered = False
        self.retranslate()

    def retranslate(self) -> None:
        """The page's words again, and each value tried (its outcome and detail in the new
        language)."""
        self.setTitle(self.tr("Try the override"))
        self.setSubTitle(self.tr("Your card runs PyTorch by posing as a close relative "
                                 "(HSA_OVERRIDE_GFX_VERSION). Try the values for real."))
        self.warning.setText(override_warning())  # core's words, in the language now set
        self.start_button.setText(self.tr("&Try the values"))
        self.keep_button.setText(self.tr("&Keep this value"))
        if self.entered:
            self._show_values()
        for trial, label in zip(self.trials, self.row_labels, strict=False):
            label.setText(self._trial_text(trial))

    def candidates(self) -> list[str | None]:
        report = self.session.report
        return override_candidates(report) if report is not None else [None]

    def initializePage(self) -> None:
        self.entered = True
        self._show_values()
        replay = self.session.root is not None
        self.start_button.setEnabled(not replay)
        if replay:
            self.say(self.result, lambda: self.tr("A replayed machine runs nothing: try the "
                                                  "values on the computer itself."))

    def _show_values(self) -> None:
        shown = ", ".join(v or self.tr("none") for v in self.candidates())
        self.values.setText(self.tr("Values to try, in this order: %1").replace("%1", shown))

    def _trial_text(self, trial: Trial) -> str:
        value = trial.value or self.tr("no override")
        return self.tr("%1: %2 — %3").replace("%1", value).replace(
            "%2", trial.outcome_text).replace("%3", trial.detail_text)

    def start(self) -> None:
        for row in self.row_widgets:
            self.rows.removeWidget(row)
            row.hide()  # gone from sight now, deleted once Qt is back in its loop
            row.deleteLater()
        self.row_widgets, self.row_labels, self.trials = [], [], []
        self.set_busy(True)
        self.start_button.setEnabled(False)
        self.say(self.result, lambda: self.tr("Trying, one value at a time…"))
        # each value tried reaches _trial through this call (its work starts after run returns)
        call: list[Call] = []
        call.append(self.bridge.run("overrides", try_overrides, None, self.session.python,
                                    values=self.candidates(),
                                    on_trial=lambda trial: call[0].report(trial),
                                    owner=self, on_done=self._tried, on_failed=self._try_failed,
                                    on_progress=self._trial))

    def _trial(self, trial: object) -> None:
        if not isinstance(trial, Trial):
            return
        self.trials.append(trial)
        row = QWidget()
        layout = QHBoxLayout(row)
        icon = QLabel()
        kind = OUTCOME_ICONS.get(trial.outcome, QStyle.StandardPixmap.SP_MessageBoxCritical)
        size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        icon.setPixmap(self.style().standardIcon(kind).pixmap(size))
        layout.addWidget(icon)
        label = selectable_label(self._trial_text(trial))
        layout.addWidget(label, 1)
        self.rows.addWidget(row)
        self.row_widgets.append(row)
        self.row_labels.append(label)

    def keep(self) -> None:
        """Write the working value into the environment through the plan's own steps."""
        if self.best is None:
            return
        value = self.best.value or ""
        self.set_busy(True)
        self.keep_button.setEnabled(False)
        self.bridge.run_async("keep-override",
                              lambda: self.keep_override(value, self.session.root),
                              owner=self, on_done=self._kept, on_failed=self._keep_failed)

    keep_override = staticmethod(keep_override)

    def _kept(self, result: object) -> None:
        self.set_busy(False)
        if isinstance(result, SetupResult):
            ok, log_path = result.ok, str(result.log_path)
            self.say(self.result, lambda: self.tr(
                "Written into the environment's variables (rocmate-env.sh): every PyTorch run "
                "there gets it.") if ok else self.tr(
                "It could not be written (has the set-up made the environment?): see %1.")
                .replace("%1", log_path))

    def _tried(self, result: object) -> None:
        if not isinstance(result, OverrideTrials):
            self.start_button.setEnabled(True)
            self.set_busy(False)
            return
        best = result.best
        self.best = best
        self.keep_button.setVisible(best is not None)
        self.keep_button.setEnabled(best is not None)
        self.say(self.result, lambda: self._best_text(best))
        self.start_button.setEnabled(True)
        self.set_busy(False)

    def _best_text(self, best: Trial | None) -> str:
        if best is None:
            return self.tr("No value made PyTorch work: see the system check for the cause.")
        if best.value is None:
            return self.tr("PyTorch works without an override: leave it unset.")
        return self.tr("Keep HSA_OVERRIDE_GFX_VERSION=%1.").replace("%1", best.value)

    def _keep_failed(self, message: str, details: str) -> None:
        self.say(self.result, lambda: message)
        self.set_busy(False)

    def _try_failed(self, message: str, details: str) -> None:
        self.say(self.result, lambda: message)
        self.start_button.setEnabled(True)
        self.set_busy(False)

    def nextId(self) -> int:
        return int(PageId.VERIFY)
