"""What the wizard knows so far: which machine (a replayed folder or this one), which Python,
the doctor's answer and the set-up plan. Pages read it and fill it in."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from core.diagnose.doctor import DoctorReport
from core.install.plan import Plan
from core.probe.torch_check import TorchCheck
from core.report.model import Report


@dataclass
class Session:
    root: str | None = None
    """A snapshot folder to replay, or None for this machine."""
    python: str | None = None
    """The Python whose PyTorch the doctor checks (None: rocmate's environment, else python3)."""
    report: DoctorReport | None = None
    plan: Plan | None = None
    plan_error: str | None = None
    check: TorchCheck | None = None
    """The last verification of PyTorch on the card."""
    history_path: Path | None = None
    """The history database (None: the default, $XDG_DATA_HOME/rocmate/history.sqlite)."""
    bench_report: Report | None = None
    """The report of the last benchmark started on the Benchmark page (every suite it ran)."""
    bench_history_ids: list[int] = field(default_factory=list)
    """Their ids in the history (empty when the history could not take them)."""

    @property
    def is_wsl2(self) -> bool:
        return self.report is not None and self.report.facts.platform.wsl == 2

    @property
    def needs_override(self) -> bool:
        """The card to train on runs PyTorch only with HSA_OVERRIDE_GFX_VERSION."""
        report = self.report
        return report is not None and report.primary_index is not None and \
            report.supports[report.primary_index].status == "override"
