"""What every fault test checks of the history: the runs stored before the fault are all there,
unchanged (read without repairing anything, as ``rocmate report list`` reads)."""

from __future__ import annotations

from pathlib import Path

from core.report.history import History
from core.report.model import Report
from tests.faults.ledger import Ledger


def stored(history: Path) -> dict[int, Report]:
    """Every run in the history, by id."""
    with History(history, repair=False) as h:
        return {e.id: h.report(e.id) for e in h.list(limit=100_000)}


def check_kept(ledger: Ledger, kind: str, history: Path, before: dict[int, Report]) -> None:
    """The runs stored before the fault are all there, unchanged."""
    after = stored(history)
    for entry_id, report in before.items():
        if entry_id not in after:
            ledger.lost(kind, f"history run #{entry_id} is gone")
        if after[entry_id] != report:
            ledger.lost(kind, f"history run #{entry_id} was changed")
