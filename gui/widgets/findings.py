"""The doctor's findings as cards: an icon and a word for the severity (never colour alone), the
title, the detail, what causes it, and the fix (selectable, to copy a command)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from core.diagnose.finding import Finding
from core.diagnose.fix_commands import commands
from gui.widgets.cards import CardColumn

_WORDS = {
    "error": QT_TRANSLATE_NOOP("Findings", "Problem"),
    "warning": QT_TRANSLATE_NOOP("Findings", "Warning"),
    "info": QT_TRANSLATE_NOOP("Findings", "Note"),
    "ok": QT_TRANSLATE_NOOP("Findings", "OK"),
}


APP_WAYS = {  # the longer command first: each command takes the first that fits
    "rocmate install --repair": QT_TRANSLATE_NOOP("Findings", "In this app: Repair… in the "
                                                  "list of the apps' environments above."),
    "rocmate install --rollback": QT_TRANSLATE_NOOP("Findings", "In this app: Roll back in "
                                                    "that app's repair window."),
    "rocmate install": QT_TRANSLATE_NOOP("Findings", "In this app: Next leads to the set-up "
                                         "plan, which does this."),
    "rocmate doctor": QT_TRANSLATE_NOOP("Findings", "In this app: Re-check."),
    "rocmate bench": QT_TRANSLATE_NOOP("Findings", "In this app: the Benchmark page."),
}
"""Where a fix names one of rocmate's own commands, the way to the same in the app."""


def severity_word(severity: str) -> str:
    """The severity in words (translated when shown, not when imported)."""
    return QCoreApplication.translate("Findings", str(_WORDS[severity]))


SEVERITY_ICONS = {
    "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "info": QStyle.StandardPixmap.SP_MessageBoxInformation,
    "ok": QStyle.StandardPixmap.SP_DialogApplyButton,
}


def selectable_label(text: str, *, bold: bool = False, mono: bool = False, wrap: bool = True,
                     right: bool = False, scale: float = 1.0) -> QLabel:
    """Plain text that can be selected and copied (by mouse and keyboard); it wraps unless
    ``wrap`` is off; ``right`` aligns it right, ``scale`` enlarges its font."""
    label = QLabel(text)
    label.setWordWrap(wrap)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                  | Qt.TextInteractionFlag.TextSelectableByKeyboard)
    if wrap:
        label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    if right:
        label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    font = label.font()
    font.setBold(bold)
    if scale != 1.0:
        font.setPointSizeF(font.pointSizeF() * scale)
    if mono:
        font.setFamily("monospace")
        font.setStyleHint(font.StyleHint.Monospace)
    label.setFont(font)
    return label


class FindingCard(QFrame):
    """One finding. ``finding_id`` is kept for tests and for translating core texts later."""

    def __init__(self, finding: Finding, causes: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.finding_id = finding.id
        self.finding, self.causes = finding, causes
        self.setObjectName(f"finding-{finding.id}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        row = QHBoxLayout(self)
        self.icon = QLabel()
        metric = (QStyle.PixelMetric.PM_LargeIconSize if finding.needs_action
                  else QStyle.PixelMetric.PM_SmallIconSize)
        size = self.style().pixelMetric(metric)
        self.icon.setPixmap(
            self.style().standardIcon(SEVERITY_ICONS[finding.severity]).pixmap(size))
        self.icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.icon)
        body = QVBoxLayout()
        self.heading = selectable_label("", bold=True)
        body.addWidget(self.heading)
        if finding.detail and finding.severity != "ok":
            body.addWidget(selectable_label(finding.detail))
        self.caused_by = selectable_label("") if causes else None
        if self.caused_by is not None:
            body.addWidget(self.caused_by)
        self.fix_heading: QLabel | None = None
        self.commands = commands(finding.fix) if finding.needs_action else ()
        self.copy_button: QPushButton | None = None
        self.app_way: QLabel | None = None
        if finding.fix and finding.needs_action:
            self.fix_heading = selectable_label("")
            heading_row = QHBoxLayout()
            heading_row.addWidget(self.fix_heading, 1)
            if self.commands:  # the commands alone, never the sentence around them
                self.copy_button = QPushButton()
                self.copy_button.setObjectName("copy-command")
                self.copy_button.clicked.connect(self.copy_commands)
                heading_row.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignRight)
            body.addLayout(heading_row)
            body.addWidget(selectable_label(finding.fix, mono=True))
            if any(c.startswith(tuple(APP_WAYS)) for c in self.commands):
                self.app_way = selectable_label("")
                body.addWidget(self.app_way)
        row.addLayout(body, 1)
        self.retranslate()

    def copy_commands(self) -> None:
        """The fix's commands to the clipboard, a line each (to paste into a terminal)."""
        QGuiApplication.clipboard().setText("\n".join(self.commands))
        if self.copy_button is not None:
            self.copy_button.setText(QCoreApplication.translate("Findings", "Copied"))

    def retranslate(self) -> None:
        """The card's own words in the current language (the finding's are core's: the page
        shows the findings made again in the new language with new cards)."""
        word = severity_word(self.finding.severity)
        self.icon.setAccessibleName(word)
        self.heading.setText(QCoreApplication.translate("Findings", "%1: %2").replace(
            "%1", word).replace("%2", self.finding.title))
        if self.caused_by is not None:
            separator = QCoreApplication.translate("Findings", "; ")
            self.caused_by.setText(QCoreApplication.translate("Findings", "Caused by: %1")
                                   .replace("%1", separator.join(self.causes)))
        if self.fix_heading is not None:
            self.fix_heading.setText(QCoreApplication.translate("Findings", "How to fix it:"))
        if self.copy_button is not None:
            self.copy_button.setText(
                QCoreApplication.translate("Findings", "Copy the command")
                if len(self.commands) == 1
                else QCoreApplication.translate("Findings", "Copy the commands"))
            self.copy_button.setToolTip("\n".join(self.commands))
        if self.app_way is not None:
            ways = [str(next(way for start, way in APP_WAYS.items() if c.startswith(start)))
                    for c in self.commands if c.startswith(tuple(APP_WAYS))]
            self.app_way.setText(" ".join(QCoreApplication.translate("Findings", w)
                                          for w in dict.fromkeys(ways)))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class FindingsView(CardColumn[FindingCard]):
    """Every finding of a report, the ones to act on first (the doctor's order)."""

    def show_findings(self, findings: tuple[Finding, ...]) -> None:
        titles = {f.id: f.title for f in findings}
        self.set_cards([FindingCard(f, [titles[c] for c in f.caused_by if c in titles], self)
                        for f in findings])
