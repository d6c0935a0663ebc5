"""The doctor's findings as cards: an icon and a word for the severity (never colour alone), the
title, the detail, what causes it, and the fix (selectable, to copy a command)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from core.diagnose.finding import Finding
from gui.widgets.cards import CardColumn

_WORDS = {
    "error": QT_TRANSLATE_NOOP("Findings", "Problem"),
    "warning": QT_TRANSLATE_NOOP("Findings", "Warning"),
    "info": QT_TRANSLATE_NOOP("Findings", "Note"),
    "ok": QT_TRANSLATE_NOOP("Findings", "OK"),
}


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
        self.setObjectName(f"finding-{finding.id}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        row = QHBoxLayout(self)
        icon = QLabel()
        metric = (QStyle.PixelMetric.PM_LargeIconSize if finding.needs_action
                  else QStyle.PixelMetric.PM_SmallIconSize)
        size = self.style().pixelMetric(metric)
        icon.setPixmap(self.style().standardIcon(SEVERITY_ICONS[finding.severity]).pixmap(size))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        icon.setAccessibleName(severity_word(finding.severity))
        row.addWidget(icon)
        body = QVBoxLayout()
        heading = f"{severity_word(finding.severity)}: {finding.title}"
        body.addWidget(selectable_label(heading, bold=True))
        if finding.detail and finding.severity != "ok":
            body.addWidget(selectable_label(finding.detail))
        if causes:
            body.addWidget(selectable_label(QCoreApplication.translate("Findings", "Caused by: %1")
                                 .replace("%1", "; ".join(causes))))
        if finding.fix and finding.needs_action:
            fix_heading = QCoreApplication.translate("Findings", "How to fix it:")
            body.addWidget(selectable_label(fix_heading))
            body.addWidget(selectable_label(finding.fix, mono=True))
        row.addLayout(body, 1)


class FindingsView(CardColumn[FindingCard]):
    """Every finding of a report, the ones to act on first (the doctor's order)."""

    def show_findings(self, findings: tuple[Finding, ...]) -> None:
        titles = {f.id: f.title for f in findings}
        self.set_cards([FindingCard(f, [titles[c] for c in f.caused_by if c in titles], self)
                        for f in findings])
