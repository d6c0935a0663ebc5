"""A finding: one thing the doctor says about the machine, with a plain fix."""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("error", "warning", "info", "ok")


@dataclass(frozen=True)
class Finding:
    id: str
    severity: str
    title: str
    detail: str = ""
    fix: str = ""

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")

    @property
    def needs_action(self) -> bool:
        return self.severity in ("error", "warning")

    def to_json(self) -> dict[str, str]:
        return {
            "id": self.id,
            "severity": self.severity,
            "title": self.title,
            "detail": self.detail,
            "fix": self.fix,
        }
