"""Windows side (WSL 2 only): what can only be fixed on Windows — the Windows build, the AMD
Adrenalin version against the minimum of the ROCm release a WSL plan picks, an AMD integrated GPU,
.wslconfig's memory — and exactly what to do there; re-check afterwards. Where AMD builds PyTorch
for the card on Windows itself, the page says so and shows the PowerShell steps to copy (rocmate
runs nothing on Windows)."""

from __future__ import annotations

import html

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.diagnose.doctor import DoctorReport
from core.diagnose.finding import Finding
from core.operations.machine import check_machine
from gui.bridge import Bridge
from gui.pages.base import PageId, RocPage
from gui.session import Session
from gui.widgets.findings import FindingsView, selectable_label
from gui.widgets.tables import facts_table, fit_rows

WINDOWS_STEPS = QT_TRANSLATE_NOOP(
    "WindowsSidePage",
    "On Windows 11, install AMD Software: Adrenalin Edition 26.2.2 or newer (it brings ROCm's "
    "WSL support, ROCDXG; AMD's ROCm pages for Radeon and Ryzen, linked below, name the "
    "version for each ROCm release), then restart Windows.\n"
    "In PowerShell: wsl --update, then wsl --shutdown, and open this distribution again.\n"
    "Only for ROCm 7.2 in WSL: install the Windows SDK too; librocdxg is built against it "
    "in WSL (the set-up plan shows how).\n"
    "Check again here."
)
"""What to do on Windows, in English; translated when shown. Adrenalin 26.2.2 introduced ROCDXG
for WSL (AMD in ROCm/librocdxg#34; ../shared/research/rocm-2026.md, "WSL 2")."""

LINKS = (("https://rocm.docs.amd.com/projects/radeon-ryzen/en/latest/",
          QT_TRANSLATE_NOOP("WindowsSidePage", "AMD's ROCm pages for Radeon and Ryzen")),
         ("https://github.com/ROCm/librocdxg",
          QT_TRANSLATE_NOOP("WindowsSidePage", "librocdxg, ROCm's bridge to the Windows driver")))
"""The pages the steps name, as links (the browser opens them)."""


class WindowsSidePage(RocPage):
    PAGE_ID = PageId.WINDOWS_SIDE

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.wsl = QLabel()
        self.wsl.setWordWrap(True)
        self.gpus = facts_table(["", ""])
        self.findings = FindingsView()
        self.steps = selectable_label("")
        self.what_to_do = QLabel()
        self.message = selectable_label("")  # a check again that could not finish
        self.message.setObjectName("windows-check-message")
        self.links = QLabel()
        self.links.setObjectName("windows-links")
        self.links.setTextFormat(Qt.TextFormat.RichText)
        self.links.setOpenExternalLinks(True)
        self.links.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.recheck = QPushButton()
        self.recheck.clicked.connect(self.start_check)
        # PyTorch on Windows itself (issue 33, item 4): the doctor's windows-native-pytorch
        self.native_title = selectable_label("", bold=True)
        self.native_title.setObjectName("windows-native-title")
        self.native_detail = selectable_label("")
        self.native_steps = selectable_label("", mono=True, wrap=False)
        self.native_steps.setObjectName("windows-native-steps")
        self.copy_native = QPushButton()
        self.copy_native.setObjectName("copy-powershell")
        self.copy_native.clicked.connect(self.copy_powershell)
        self.native: Finding | None = None
        native_row = QHBoxLayout()
        native_row.addWidget(self.native_steps, 1)
        native_row.addWidget(self.copy_native, 0, Qt.AlignmentFlag.AlignTop)
        buttons = QHBoxLayout()
        buttons.addWidget(self.recheck)
        buttons.addStretch(1)
        content = QWidget()  # scrolls: findings, the native-Windows steps and the links are long
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.wsl)
        column.addWidget(self.gpus)
        column.addWidget(self.findings)
        column.addSpacing(6)
        column.addWidget(self.native_title)
        column.addWidget(self.native_detail)
        column.addLayout(native_row)
        column.addSpacing(6)
        column.addWidget(self.what_to_do)
        column.addWidget(self.steps)
        column.addWidget(self.links)
        column.addWidget(self.message)
        column.addStretch(1)
        area = QScrollArea()
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.Shape.NoFrame)
        area.setWidget(content)
        layout = QVBoxLayout(self)
        layout.addWidget(area, 1)
        layout.addLayout(buttons)
        self.shown = False
        """A report is on the page (a language change shows the session's again)."""
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("The Windows side"))
        self.setSubTitle(self.tr("In WSL 2 the GPU belongs to Windows: its AMD driver must "
                                 "support WSL."))
        self.gpus.setHorizontalHeaderLabels([self.tr("Windows sees"), self.tr("Driver")])
        self.steps.setText(QCoreApplication.translate("WindowsSidePage", str(WINDOWS_STEPS)))
        self.what_to_do.setText(self.tr("What to do on Windows when something above is not "
                                        "right:"))
        self.recheck.setText(self.tr("&Re-check"))
        self.copy_native.setText(self.tr("&Copy the PowerShell steps"))
        words = [(url, QCoreApplication.translate("WindowsSidePage", str(name)))
                 for url, name in LINKS]
        self.links.setText("<br>".join(
            f'<a href="{url}">{html.escape(name)}</a> — {html.escape(url)}'
            for url, name in words))
        if self.shown and self.session.report is not None:
            self.show_report(self.session.report)

    def initializePage(self) -> None:
        if self.session.report is not None:
            self.show_report(self.session.report)

    def start_check(self) -> None:
        self.say(self.message, None)
        self.set_busy(True)
        self.bridge.run("windows-check", check_machine, self.session.root,
                        python=self.session.python, owner=self, on_done=self._checked,
                        on_failed=self._failed)

    def _checked(self, result: object) -> None:
        if isinstance(result, DoctorReport):
            self.session.new_report(result)
            self.show_report(result)
        self.set_busy(False)

    def _failed(self, message: str, details: str) -> None:
        """A check again that could not finish: said, and the page is free again (it stayed
        busy for good, Next grey and nothing said: issue 38)."""
        self.set_busy(False)
        self.say(self.message, lambda: self.tr("The check could not finish: %1").replace(
            "%1", message))

    def show_report(self, report: DoctorReport) -> None:
        self.shown = True
        facts = report.facts
        windows = facts.windows
        text = self.tr("WSL %1, kernel %2.").replace("%1", str(facts.platform.wsl or "?")) \
            .replace("%2", facts.platform.kernel or "?")
        if windows is not None and windows.checked:
            unknown = self.tr("not known")
            build = windows.windows_build
            release = (self.tr("Windows 11") if build >= 22000 else self.tr("Windows 10")) \
                if build is not None else self.tr("Windows")
            said = self.tr("%1 (version %2), AMD Adrenalin %3.") \
                .replace("%1", release).replace("%2", windows.windows_version or unknown) \
                .replace("%3", windows.adrenalin or unknown)
            text = self.tr("%1 %2", "two sentences").replace("%1", text).replace("%2", said)
        if windows is not None and not windows.checked:
            asked = self.tr("Windows could not be asked: %1").replace(
                "%1", windows.problem_text or "")
            text = self.tr("%1 %2", "two sentences").replace("%1", text).replace("%2", asked)
        self.wsl.setText(text)
        gpus = windows.gpus if windows is not None else ()
        self.gpus.setRowCount(len(gpus))
        for row, gpu in enumerate(gpus):
            self.gpus.setItem(row, 0, QTableWidgetItem(gpu.name))
            self.gpus.setItem(row, 1, QTableWidgetItem(gpu.driver_version or "?"))
        self.gpus.setVisible(bool(gpus))
        fit_rows(self.gpus)
        self.findings.show_findings(tuple(
            f for f in report.findings if f.id.startswith(("wsl", "kfd-missing"))))
        self.native = next((f for f in report.findings if f.id == "windows-native-pytorch"), None)
        for widget in (self.native_title, self.native_detail, self.native_steps,
                       self.copy_native):
            widget.setVisible(self.native is not None)
        if self.native is not None:
            self.native_title.setText(self.native.title)
            self.native_detail.setText(self.native.detail)
            self.native_steps.setText(self.native.fix)

    def copy_powershell(self) -> None:
        """The PowerShell lines of the native-Windows steps (the fix's first line is its
        heading, "In PowerShell on Windows:")."""
        if self.native is not None:
            lines = self.native.fix.splitlines()[1:]
            QGuiApplication.clipboard().setText("\n".join(lines) + "\n")

    def nextId(self) -> int:
        report = self.session.report
        if report is not None and report.verdict in ("Ready", "Not yet proved"):
            return int(PageId.VERIFY)  # nothing to set up; Verify runs the kernel check
        return int(PageId.SETUP_PLAN)
