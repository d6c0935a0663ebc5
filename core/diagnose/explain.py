"""``rocmate explain "<error text>"``: the likely cause of a pasted error on *this* machine.

The error patterns are data (resources/data/explain.toml). Each pattern names the doctor findings
that would confirm it; the doctor's answer for this machine decides which cause comes first.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.diagnose.doctor import DoctorReport
from core.diagnose.finding import Finding
from core.i18n import local, t
from core.knowledge.error_patterns import ErrorPattern
from core.knowledge.loader import Knowledge


@dataclass(frozen=True)
class Explanation:
    pattern: ErrorPattern
    confirmed_by: tuple[Finding, ...]
    """Findings on this machine that point to this cause."""

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.pattern.id,
            "title": self.pattern.title,
            "cause": self.pattern.cause,
            "fix": self.pattern.fix,
            "source": self.pattern.source,
            "on_this_machine": [f.to_json() for f in self.confirmed_by],
        }


def explain(text: str, kb: Knowledge, report: DoctorReport | None) -> list[Explanation]:
    """Matching patterns, those confirmed by this machine's findings first."""
    findings = [f for f in (report.findings if report else ()) if f.needs_action]
    result = []
    for pattern in kb.match_errors(text):
        confirmed = tuple(f for f in findings if f.id in pattern.findings)
        result.append(Explanation(pattern, confirmed))
    return sorted(result, key=lambda e: 0 if e.confirmed_by else 1)


def render_explanations(
    text: str, explanations: list[Explanation], report: DoctorReport | None
) -> str:
    if not explanations:
        lines = [
            t("explain.text.unknown", "rocmate does not recognise this error."),
            t("explain.text.unknown.next",
              "Run {doctor} for a full check of this machine, and include its output (or a "
              "{snapshot}) when you ask for help.", doctor="`rocmate doctor`",
              snapshot="`rocmate snapshot`"),
        ]
        if report is not None:
            problems = [f for f in report.findings if f.needs_action]
            if problems:
                lines.append("")
                lines.append(t("explain.text.meanwhile",
                               "Meanwhile, the doctor sees these problems here:"))
                lines += [f"  - {f.title}" for f in problems]
        return "\n".join(lines) + "\n"
    lines = []
    for number, item in enumerate(explanations, start=1):
        pattern = item.pattern
        lines.append(f"{number}. {local(pattern.title)}")
        lines.append("   " + t("explain.text.cause", "Cause: {cause}", cause=pattern.cause))
        if item.confirmed_by:
            lines.append("   " + t("explain.text.on-this-machine", "On this machine:"))
            for finding in item.confirmed_by:
                lines.append(f"     - {finding.title}")
                if finding.fix:
                    lines.append("       " + t("explain.text.fix", "Fix: {fix}", fix=finding.fix))
        lines.append("   " + t("explain.text.fix", "Fix: {fix}", fix=pattern.fix))
        lines.append("   " + t("explain.text.source", "(source: {source})",
                               source=pattern.source))
        lines.append("")
    return "\n".join(lines)
