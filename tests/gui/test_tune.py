"""The Results page's "Find the fastest settings" window (issue 37), driven as a person does: the
button, the budget shown before Start, a real tiny tune on the CPU (each setting a real worker),
the ranked table and the answer, then "Keep these" and "Undo" on a throwaway environment."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from core.bench.tune_rank import DEFAULT, Measured, rank
from core.bench.tune_variants import applicability, load_variants
from core.bench.worker.options import BenchOptions
from core.operations.tune import TuneResult, VariantPlan, keep_tuned, undo_tuned
from core.probe.environment import parse_env_script
from gui.pages.base import PageId
from gui.tune import TuneDialog
from tests.gui.support import MACHINES, open_wizard
from tests.waits import call_ends

MACHINE = "rx6700xt-ubuntu2204-needs-override"


def _dialog(qtbot: Any) -> TuneDialog:
    wizard = open_wizard(qtbot, MACHINE)
    wizard.setStartId(int(PageId.RESULTS))  # as a user reaches it after a benchmark
    wizard.restart()
    page = wizard.pages[PageId.RESULTS]
    button = page.tune_button  # type: ignore[attr-defined]
    assert button.isVisible() and button.text() == "Find the fastest settin&gs…"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = page.tune_dialog  # type: ignore[attr-defined]
    assert isinstance(dialog, TuneDialog) and dialog.isVisible()
    return dialog


@pytest.mark.slow  # real tiny benchmark workers, one per setting (~23 s)
def test_a_tiny_cpu_tune_from_the_results_page(qtbot: Any, aloop: Any) -> None:
    dialog = _dialog(qtbot)
    dialog.session.python = sys.executable  # the test set-up's .venv holds torch
    assert dialog.plan_line.text().startswith("Budget 5:00: today's defaults first")
    dialog.device.setCurrentIndex(dialog.device.findData("cpu"))
    dialog.tiny.setChecked(True)
    dialog.budget.setValue(900)  # the runs fit even on a busy machine: each measures 1 s
    assert dialog.plan_line.text().startswith("Budget 15:00: today's defaults first, then up "
                                              "to 3 settings, each measured for 20 s")
    dialog.fixed = {"only": ("channels-last", "hipblaslt-on"), "measure_s": 1.0}
    with call_ends(qtbot, dialog.bridge, timeout_ms=240_000, key="tune"):
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
        assert not dialog.start_button.isEnabled() and dialog.stop_button.isEnabled()
    rows = {dialog.table.item(r, 0).text(): dialog.table.item(r, 4).text()
            for r in range(dialog.table.rowCount())}
    assert set(rows) == {"today's defaults", "channels_last memory format (--channels-last)",
                         "hipBLASLt for matrix products (TORCH_BLAS_PREFER_HIPBLASLT=1)"}
    assert rows["hipBLASLt for matrix products (TORCH_BLAS_PREFER_HIPBLASLT=1)"] == (
        "not applicable: only for ROCm")
    assert rows["today's defaults"].startswith("measured")
    assert dialog.progress.value() == dialog.progress.maximum() == 2
    assert dialog.answer.text() and dialog.status.text().startswith("Done in ")
    assert dialog.start_button.isEnabled() and not dialog.stop_button.isEnabled()
    winner = dialog.outcome.winner if dialog.outcome else None
    # channels_last is a bench option: nothing to write into the environment
    assert dialog.keep_button.isEnabled() == (winner is not None
                                              and dialog.outcome.ranking.clear)  # type: ignore


def _hipblaslt_result() -> TuneResult:
    rows = [Measured(DEFAULT, "ok", "throughput", "images/s", 100.0, 0.01),
            Measured("hipblaslt-on", "ok", "throughput", "images/s", 130.0, 0.01)]
    plans = tuple(VariantPlan(v, applicability(v, "resnet50-train", "rocm", "gfx1030",
                                               BenchOptions(suite="resnet50-train")))
                  for v in load_variants())
    return TuneResult("resnet50-train", 300, 10, 60, "/x/venv/bin/python", "rocm", "gfx1030",
                      "AMD Radeon RX 6700 XT", BenchOptions(suite="resnet50-train"), plans,
                      rank(rows))


def test_keep_these_and_undo_write_and_take_back_the_variable(
        qtbot: Any, aloop: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for name in ("activate", "activate.fish", "activate.csh"):
        (venv / "bin" / name).write_text("# activation\n")
    machine = str(MACHINES / MACHINE)
    dialog = _dialog(qtbot)
    dialog.keep_tuned = lambda result, root: keep_tuned(  # type: ignore[method-assign]
        result, machine, venv=str(venv), folder=tmp_path / "state")
    dialog.undo_tuned = lambda root: undo_tuned(  # type: ignore[method-assign]
        machine, folder=tmp_path / "state")
    dialog._tuned(_hipblaslt_result())  # a tune's answer, as the bridge hands it over
    assert dialog.answer.text().startswith("Fastest: hipBLASLt for matrix products")
    assert dialog.keep_button.isEnabled() and not dialog.undo_button.isEnabled()
    script = venv / "bin" / "rocmate-env.sh"
    with call_ends(qtbot, dialog.bridge, timeout_ms=60_000):
        qtbot.mouseClick(dialog.keep_button, Qt.MouseButton.LeftButton)
    assert parse_env_script(script.read_text())["TORCH_BLAS_PREFER_HIPBLASLT"] == "1"
    assert dialog.kept.text().startswith(f"Written into {script}: TORCH_BLAS_PREFER_HIPBLASLT=1")
    assert dialog.undo_button.isEnabled()
    with call_ends(qtbot, dialog.bridge, timeout_ms=60_000):
        qtbot.mouseClick(dialog.undo_button, Qt.MouseButton.LeftButton)
    assert "TORCH_BLAS_PREFER_HIPBLASLT" not in parse_env_script(script.read_text())
    assert dialog.kept.text().startswith("Put back in ")
    assert not dialog.undo_button.isEnabled()


def test_each_button_of_the_window_has_its_own_mnemonic(qtbot: Any) -> None:
    dialog = _dialog(qtbot)
    texts = [dialog.start_button.text(), dialog.stop_button.text(), dialog.keep_button.text(),
             dialog.undo_button.text(), dialog.tiny.text(),
             *(label.text() for label in dialog.labels.values())]
    keys = [text[text.index("&") + 1].lower() for text in texts]
    assert len(set(keys)) == len(keys), texts
