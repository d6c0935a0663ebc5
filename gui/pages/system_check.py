"""System check: the doctor's verdict as a banner, the GPUs with their gfx target and support,
and every finding with its fix; the apps' Python environments found under the home (ComfyUI,
the Stable Diffusion web UIs, ...) with their PyTorch, each with Repair (gui/repair.py) and
Check; re-check, check another Python (and repair it where its build is wrong), copy for a
forum post, save a snapshot for a bug report."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt, QTime
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QStyle,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.diagnose.doctor import DoctorReport
from core.diagnose.engine import NOT_PROVED, NOT_SUPPORTED, READY
from core.diagnose.rules_apps import NO, YES, AppCheck
from core.operations.machine import (
    Snapshot,
    benchmark_device,
    check_machine,
    forum_post,
    take_snapshot,
)
from core.operations.repair import AfterRepair
from core.probe.gpus import Gpu
from gui.bridge import Bridge
from gui.memory import MemoryDialog, has_apu
from gui.pages.base import PageId, RocPage
from gui.repair import RepairDialog
from gui.session import Session
from gui.widgets.findings import FindingsView
from gui.widgets.tables import facts_table, fit_rows

GIB = 1 << 30
WRONG_BUILD = ("torch-not-rocm", "torch-arch-missing")
"""The doctor's findings about the chosen Python that a repair of its PyTorch family fixes."""


class SystemCheckPage(RocPage):
    PAGE_ID = PageId.SYSTEM_CHECK

    def __init__(self, session: Session, bridge: Bridge) -> None:
        super().__init__(session, bridge)
        self.banner = QFrame()
        self.banner.setObjectName("verdict")
        self.banner.setFrameShape(QFrame.Shape.StyledPanel)
        banner_row = QHBoxLayout(self.banner)
        self.banner_icon = QLabel()
        self.verdict = QLabel()
        font = self.verdict.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.verdict.setFont(font)
        self.verdict.setWordWrap(True)
        banner_row.addWidget(self.banner_icon)
        banner_row.addWidget(self.verdict, 1)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # a check has no percent: busy until it answers
        self.progress.setTextVisible(False)
        self.machine = QLabel()
        self.machine.setWordWrap(True)
        self.machine.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.gpus = facts_table(["", "", "", ""])
        self.apps_box = QGroupBox()  # the apps' Python environments: shown where any was found
        self.apps_box.setVisible(False)
        self.apps = facts_table(["", "", "", "", ""])
        self.apps.setObjectName("apps")
        # a long folder gives way in its middle (the whole path is its tooltip), not the
        # column that says whether the app reaches the GPU
        self.apps.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        QVBoxLayout(self.apps_box).addWidget(self.apps)
        self.repair_dialogs: dict[str, RepairDialog] = {}
        self.findings = FindingsView()
        findings_area = QScrollArea()
        findings_area.setWidgetResizable(True)
        findings_area.setWidget(self.findings)
        findings_area.setFrameShape(QFrame.Shape.NoFrame)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.benchmark_note = QLabel()  # where ROCm cannot be set up: can the benchmarks run?
        self.benchmark_note.setObjectName("benchmark-note")
        self.benchmark_note.setWordWrap(True)
        self.benchmark_note.setVisible(False)
        self.recheck = QPushButton()
        self.other_python = QPushButton()
        self.copy_post = QPushButton()
        self.save_snapshot = QPushButton()
        self.repair_python = QPushButton()  # the Python checked holds a wrong build
        self.repair_python.setObjectName("repair-this-python")
        self.repair_python.setVisible(False)
        self.repair_python.clicked.connect(
            lambda: self.open_repair(self.session.python or "", self.session.python or ""))
        self.memory = QPushButton()  # an APU's GPU memory: shown where the machine has one
        self.memory.setVisible(False)
        self.memory.clicked.connect(self.show_memory)
        self.memory_dialog: MemoryDialog | None = None
        self.recheck.clicked.connect(self.start_check)
        self.other_python.clicked.connect(self.choose_python)
        self.copy_post.clicked.connect(self.copy_for_forum)
        self.save_snapshot.clicked.connect(self.choose_snapshot_folder)
        buttons = QHBoxLayout()
        for button in (self.recheck, self.other_python, self.repair_python, self.copy_post,
                       self.save_snapshot, self.memory):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(self.progress)
        layout.addWidget(self.machine)
        layout.addWidget(self.gpus)
        layout.addWidget(self.apps_box)
        layout.addWidget(findings_area, 1)
        layout.addWidget(self.benchmark_note)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.failed_check = False
        self._before: DoctorReport | None = None
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("System check"))
        self.setSubTitle(self.tr("What this computer has, and what stands between it and "
                                 "PyTorch on the GPU."))
        self.gpus.setHorizontalHeaderLabels([self.tr("Graphics card"), self.tr("Target"),
                                             self.tr("Memory"), self.tr("ROCm support")])
        self.recheck.setText(self.tr("&Re-check"))
        self.other_python.setText(self.tr("Check another &Python…"))
        self.copy_post.setText(self.tr("&Copy for a forum post"))
        self.save_snapshot.setText(self.tr("&Save snapshot…"))
        self.memory.setText(self.tr("GPU &memory…"))
        self.repair_python.setText(self.tr("Repair &this Python…"))
        self.repair_python.setToolTip(self.tr("Replace its PyTorch family with the ROCm build "
                                              "for this card, with a way back"))
        self.apps_box.setTitle(self.tr("Apps' Python environments"))
        self.apps.setHorizontalHeaderLabels([self.tr("App"), self.tr("Folder"), self.tr("PyTorch"),
                                             self.tr("Reaches the GPU"), ""])
        self.memory.setToolTip(self.tr("How much system memory the integrated GPU can use, and "
                                       "how much to give it"))
        self.save_snapshot.setToolTip(
            self.tr("Saves the replayed machine: a copy of its folder") if self.session.root
            else self.tr("Records this computer, anonymised, into an empty folder"))
        if self.busy:
            self.verdict.setText(self.tr("Checking this computer…"))
        elif self.failed_check:
            self.verdict.setText(self.tr("The check could not finish"))
        elif self.session.report is not None:
            self.show_report(self.session.report)

    # -- running the check ---------------------------------------------------------------------

    def initializePage(self) -> None:
        if self.session.report is None and not self.busy:
            self.start_check()
        elif self.session.report is not None:
            self.show_report(self.session.report)

    def start_check(self) -> None:
        self._before = self.session.report  # a check again: what it found, to say what changed
        self.set_busy(True)
        self.failed_check = False
        self.progress.show()
        self.say(self.message, None)
        self.verdict.setText(self.tr("Checking this computer…"))
        self.bridge.run("check", check_machine, self.session.root, python=self.session.python,
                        owner=self, on_done=self._checked, on_failed=self._check_failed)

    def _checked(self, result: object) -> None:
        if isinstance(result, DoctorReport):
            self.session.new_report(result)
            self.show_report(result)
            self.set_busy(False)
            if self._before is not None:
                before, at = self._before, QTime.currentTime().toString("HH:mm:ss")
                self.say(self.message, lambda: self.recheck_words(before, result, at))

    def _check_failed(self, message: str, details: str) -> None:
        self._snapshot_failed(message, details)
        self.failed_check = True
        self.verdict.setText(self.tr("The check could not finish"))
        self.set_busy(False)

    def _saved(self, result: object) -> None:
        if isinstance(result, Snapshot):
            self.say(self.message, lambda: self.snapshot_words(result))

    def _snapshot_failed(self, message: str, details: str) -> None:
        self.progress.hide()
        self.say(self.message, lambda: message)

    def recheck_words(self, before: DoctorReport, now: DoctorReport, at: str) -> str:
        """What a check again found against the check before it: a sign that it ran, and
        whether anything changed (the problems fixed since, the new ones)."""
        def acting(report: DoctorReport) -> set[str]:
            return {f.id for f in report.findings if f.needs_action}

        fixed, new = len(acting(before) - acting(now)), len(acting(now) - acting(before))
        if not fixed and not new and before.verdict == now.verdict:
            return self.tr("Checked again at %1: the same as before.").replace("%1", at)
        return (self.tr("Checked again at %1: %2 fixed since, %3 new.").replace("%1", at)
                .replace("%2", str(fixed)).replace("%3", str(new)))

    # -- showing it ------------------------------------------------------------------------------

    def show_report(self, report: DoctorReport) -> None:
        self.progress.hide()
        style = self.style()
        if report.verdict == READY:
            icon, words = QStyle.StandardPixmap.SP_DialogApplyButton, self.tr(
                "Ready: PyTorch can use this card.")
        elif report.verdict == NOT_SUPPORTED and self.session.plan_possible():
            icon, words = QStyle.StandardPixmap.SP_MessageBoxWarning, self.tr(
                "Not supported by AMD any more, but a last route may still run this card: "
                "unverified. Next shows it.")
        elif report.verdict == NOT_SUPPORTED:
            icon, words = QStyle.StandardPixmap.SP_MessageBoxCritical, self.tr(
                "Not supported: see the problems below.")
        elif report.verdict == NOT_PROVED:  # nothing to fix; Verify runs the kernel check
            icon, words = QStyle.StandardPixmap.SP_MessageBoxInformation, self.tr(
                "Nothing to fix, but not yet proved: the Verify page runs PyTorch on the card.")
        else:
            count = sum(1 for f in report.findings if f.needs_action)
            icon = QStyle.StandardPixmap.SP_MessageBoxWarning
            words = self.tr("Ready after these fixes (%n to fix).", "", count)
        size = style.pixelMetric(QStyle.PixelMetric.PM_LargeIconSize)
        self.banner_icon.setPixmap(style.standardIcon(icon).pixmap(size))
        self.verdict.setText(words)
        self.verdict.setAccessibleName(report.verdict)
        facts = report.facts
        p = facts.platform
        system = f"{p.distro_name} {p.distro_version}".strip() or self.tr("unknown system")
        wsl = self.tr(", WSL %1").replace("%1", str(p.wsl)) if p.wsl else ""
        torch = facts.torch
        if not facts.torch_probed:
            torch_text = self.tr("not checked")
        elif torch is None or not torch.installed:
            torch_text = self.tr("not installed") if not (torch and torch.problem) else \
                self.tr("not checked (see below)")
        else:
            torch_text = f"{torch.version} ({torch.python})"
        self.machine.setText(self.tr("System: %1%2, kernel %3\nPyTorch: %4")
                             .replace("%1", system).replace("%2", wsl)
                             .replace("%3", p.kernel or "?").replace("%4", torch_text))
        gpus = facts.gpus.gpus
        self.gpus.setRowCount(len(gpus))
        for row, (gpu, support) in enumerate(zip(gpus, report.supports, strict=True)):
            memory = self.memory_words(gpu)
            status = {"official": self.tr("official"),
                      "override": self.tr("works with override %1").replace(
                          "%1", support.override or "?"),
                      "unsupported": self.tr("not supported"),
                      "not-amd": self.tr("not an AMD card"),
                      # a target newer than rocmate's tables: not known either way
                      "unknown": self.tr("newer than rocmate knows")}.get(support.status,
                                                                          support.status)
            if row in report.not_started:  # the driver did not start it: see the findings
                status = self.tr("the driver did not start it (%1 once it does)").replace(
                    "%1", status)
            for column, text in enumerate((gpu.name, gpu.gfx or "-", memory, status)):
                self.gpus.setItem(row, column, QTableWidgetItem(text))
        self.gpus.setVisible(bool(gpus))
        fit_rows(self.gpus)
        self.findings.show_findings(report.findings)
        self.copy_post.setEnabled(True)
        self.memory.setVisible(has_apu(report))
        self.show_apps(report)
        wrong = {f.id for f in report.findings} & set(WRONG_BUILD)
        self.repair_python.setVisible(bool(self.session.python) and bool(wrong))
        self.show_benchmark_note(report)

    # -- the apps' environments --------------------------------------------------------------

    def reach_words(self, check: AppCheck) -> str:
        """Whether an app's PyTorch reaches the GPU, and why, in the language now set (the why
        in core's words)."""
        if check.reaches == YES:
            return self.tr("yes")
        if check.reaches == NO:
            return self.tr("no: %1").replace("%1", check.why())
        return self.tr("not checked")  # why: in the cell's tooltip

    def show_apps(self, report: DoctorReport) -> None:
        """One row per app environment found, with its Repair… and Check buttons (the first
        row's with mnemonics; the others are reached with Tab)."""
        apps = report.apps
        for row in range(self.apps.rowCount()):  # the buttons of the answer before go now
            old = self.apps.cellWidget(row, 4)
            if old is not None:
                old.hide()
                old.deleteLater()
        self.apps_box.setVisible(bool(apps))
        self.apps.setRowCount(len(apps))
        home = report.facts.permissions.user.home.rstrip("/")
        for row, check in enumerate(apps):
            env = check.env
            folder = "~" + env.folder[len(home):] if home and env.folder.startswith(
                home + "/") else env.folder
            torch = env.torch.version if env.torch else self.tr("not installed")
            for column, text in enumerate((env.name, folder, torch, self.reach_words(check))):
                item = QTableWidgetItem(text)
                item.setToolTip(env.python if column == 1 else check.why() if column == 3
                                else text)
                self.apps.setItem(row, column, item)
            self.apps.setCellWidget(row, 4, self.app_buttons(check, first=row == 0))
        self.apps.resizeRowsToContents()
        fit_rows(self.apps, stretch_column=1)

    def app_buttons(self, check: AppCheck, *, first: bool) -> QWidget:
        cell = QWidget()
        row = QHBoxLayout(cell)
        row.setContentsMargins(2, 0, 2, 0)
        repair = QPushButton(self.tr("Rep&air…") if first else self.tr("Repair…"))
        repair.setObjectName("app-repair")
        repair.setToolTip(self.tr("Show the repair plan for %1").replace("%1", check.env.python))
        repair.clicked.connect(lambda: self.open_repair(check.env.python, check.env.name))
        row.addWidget(repair)
        if check.reaches != YES:
            run = QPushButton(self.tr("Chec&k") if first else self.tr("Check"))
            run.setObjectName("app-check")
            replay = self.session.root is not None
            run.setEnabled(not replay)
            run.setToolTip(self.tr("A replayed machine answers only for the Python it "
                                   "recorded") if replay else
                           self.tr("Run the check in this Python: its PyTorch on the card"))
            run.clicked.connect(lambda: self.check_python(check.env.python))
            row.addWidget(run)
        return cell

    def check_python(self, python: str) -> None:
        """The check again, in ``python`` (as Check another Python… does)."""
        self.session.python = python
        self.start_check()

    def open_repair(self, python: str, name: str) -> None:
        """The repair window for ``python`` (one per Python, brought forward)."""
        if not python:
            return
        dialog = self.repair_dialogs.get(python)
        if dialog is None:
            dialog = self.keep_repair(RepairDialog(self.session.root, python, name,
                                                   self.bridge, self))
            dialog.load()
        if dialog.isVisible():  # open already: forward (a new one comes forward)
            dialog.raise_()
            dialog.activateWindow()
        dialog.show()

    def keep_repair(self, dialog: RepairDialog) -> RepairDialog:
        """``dialog`` becomes the repair window of its Python; when a repair or a rollback in
        it ends, that app's row shows the environment as it is then (no Re-check needed)."""
        self.repair_dialogs[dialog.python] = dialog
        dialog.checked.connect(self.app_changed)
        return dialog

    def app_changed(self, after: object) -> None:
        """The row of the app just repaired or rolled back, anew: its PyTorch and whether it
        reaches the GPU, as the check run in that Python found them."""
        report = self.session.report
        if not isinstance(after, AfterRepair) or report is None:
            return
        folder = after.app.env.folder.rstrip("/")
        if not any(a.env.folder.rstrip("/") == folder for a in report.apps):
            return
        apps = tuple(after.app if a.env.folder.rstrip("/") == folder else a
                     for a in report.apps)
        self.session.report = replace(report, apps=apps)
        self.show_apps(self.session.report)
        name = after.app.env.name  # the findings are the check's from before: say so
        self.say(self.message, lambda: self.tr(
            "%1's PyTorch changed: its row shows it now. The findings above are from the check "
            "before; Re-check to see them anew.").replace("%1", name))

    def show_memory(self) -> None:
        """The GPU memory window for the machine checked last (one window, brought forward)."""
        report = self.session.report
        if report is None:
            return
        if self.memory_dialog is None or self.memory_dialog.report is not report:
            if self.memory_dialog is not None:
                self.memory_dialog.close()
            self.memory_dialog = MemoryDialog(report, self, root=self.session.root,
                                              bridge=self.bridge)
            self.memory_dialog.read_before()
        if self.memory_dialog.isVisible():  # open already: forward (a new one comes forward)
            self.memory_dialog.raise_()
            self.memory_dialog.activateWindow()
        self.memory_dialog.show()

    def show_benchmark_note(self, report: DoctorReport) -> None:
        """Where ROCm cannot be set up, whether the benchmarks still run here and on what (the
        Next button goes to them), or why the wizard ends at this page."""
        note = ""
        if report.verdict == NOT_SUPPORTED:
            note = self.tr("No public output shows this route working on this card: the "
                           "Set-up plan lists its known problems, and its last step shows "
                           "whether it works here. Going on is your choice.") \
                if self.session.plan_possible() else self.benchmark_words(report)
        self.benchmark_note.setText(note)
        self.benchmark_note.setVisible(bool(note))

    def benchmark_words(self, report: DoctorReport) -> str:
        """The note for a machine ROCm cannot serve, in the language now set."""
        device = benchmark_device(report)
        torch = report.facts.torch
        if device is None or torch is None:
            return self.tr("Without PyTorch there is nothing to benchmark here: check another "
                           "Python that has it, and the benchmarks run on what it sees (a GPU, "
                           "or the CPU).")
        if device == "cpu":
            return self.tr("The benchmarks still run here, on the CPU (PyTorch %1 sees no "
                           "GPU): slowly, as a check that they run. Next goes to them.")\
                .replace("%1", torch.version or "?")
        name = torch.devices[0] if torch.devices else self.tr("the GPU")
        return self.tr("The benchmarks still run here, on %1 through PyTorch %2. Next goes to "
                       "them.").replace("%1", name).replace("%2", torch.version or "?")

    def memory_words(self, gpu: Gpu) -> str:
        """A card's memory column: its VRAM; for an integrated GPU, that it shares system memory
        (how much where the machine says: its GTT size; never its small carve-out as "0 GiB")."""
        if not gpu.integrated:
            return f"{gpu.vram_bytes / GIB:.0f} GiB" if gpu.vram_bytes else "-"
        if gpu.gtt_bytes:
            return self.tr("shared, up to %1 GiB of system memory").replace(
                "%1", f"{max(gpu.gtt_bytes, gpu.vram_bytes or 0) / GIB:.0f}")
        if gpu.vram_bytes and gpu.vram_bytes >= GIB:
            return self.tr("shared with system memory (%1 GiB set aside)").replace(
                "%1", f"{gpu.vram_bytes / GIB:.0f}")
        return self.tr("shared with system memory")

    # -- the buttons -----------------------------------------------------------------------------

    def choose_python(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("The Python that holds PyTorch"))
        if path:
            self.session.python = path
            self.start_check()

    def copy_for_forum(self) -> None:
        if self.session.report is not None:
            QGuiApplication.clipboard().setText(forum_post(self.session.report))
            self.say(self.message, lambda: self.tr(
                "Copied: the check as Markdown, without your user name, host name or home "
                "folder."))

    def choose_snapshot_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("An empty folder for the "
                                                                "snapshot"))
        if folder:
            self.save_to(folder)

    def save_to(self, folder: str) -> None:
        """A snapshot into ``folder``: this computer recorded, or on a replay the replayed
        machine's folder copied (it is the snapshot; this computer is not read)."""
        if self.session.root:
            self.say(self.message, lambda: self.tr("Copying the replayed machine…"))
        else:
            self.say(self.message, lambda: self.tr("Recording this computer…"))
        self.bridge.run("snapshot", take_snapshot, folder, python=self.session.python,
                        root=self.session.root, owner=self, on_done=self._saved,
                        on_failed=self._snapshot_failed)

    def snapshot_words(self, snapshot: Snapshot) -> str:
        """What was saved, in the language now set."""
        if snapshot.copied_from is not None:
            return self.tr("Saved the replayed machine (a copy of %1) in %2; this computer was "
                           "not recorded. Attach the folder (zipped) to a bug report.").replace(
                "%1", str(snapshot.copied_from)).replace("%2", str(snapshot.path))
        return self.tr("Snapshot saved in %1. Attach the folder (zipped) to a bug report.")\
            .replace("%1", str(snapshot.path))

    def nextId(self) -> int:
        report = self.session.report
        if report is None:
            return -1
        if report.verdict == NOT_SUPPORTED:
            if self.session.plan_possible():  # a card past AMD's support, on its last route
                return int(PageId.SETUP_PLAN)
            # no ROCm here; the benchmarks where PyTorch runs
            return int(PageId.BENCHMARK) if benchmark_device(report) else -1
        if self.session.is_wsl2:
            return int(PageId.WINDOWS_SIDE)
        if report.verdict in (READY, NOT_PROVED):
            return int(PageId.VERIFY)  # nothing to set up: see PyTorch work
        return int(PageId.SETUP_PLAN)

    def validatePage(self) -> bool:
        if self.session.report is not None and self.session.plan is None:
            self.session.replan()
        return True

