"""A finding: one thing the doctor says about the machine, with a plain fix."""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("error", "warning", "info", "ok")
REQUIRED_IDS = (
    "no-gpu",
    "no-amd-gpu",
    "gfx-needs-override",
    "override-wrong",
    "gfx-unsupported",
    "kfd-missing",
    "kfd-no-access",
    "not-in-render-group",
    "wsl1",
    "distro-unsupported",
    "kernel-old",
    "rocm-multiple",
    "torch-missing",
    "torch-not-rocm",
    "torch-no-gpu",
    "torch-arch-missing",
    "igpu-first",
    "hip-visible-devices-hides",
)
"""The finding ids docs/contracts.md requires ("Finding ids that must exist"), in its table's
order."""


@dataclass(frozen=True)
class Finding:
    id: str
    severity: str
    title: str
    detail: str = ""
    fix: str = ""
    caused_by: tuple[str, ...] = ()
    """Ids of other findings on the same machine that cause this one (PyTorch sees no GPU
    because the card needs an override): fix those first, and this one may go away."""

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")

    @property
    def needs_action(self) -> bool:
        return self.severity in ("error", "warning")

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "severity": self.severity,
            "title": self.title,
            "detail": self.detail,
            "fix": self.fix,
            **({"caused_by": list(self.caused_by)} if self.caused_by else {}),
        }
