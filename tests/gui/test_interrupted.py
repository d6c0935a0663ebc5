"""A benchmark whose app crashed mid-run shows in the History window as interrupted, with the
steps it had: the app is killed for real (SIGKILL) while its worker runs on the CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from core.report.history import History
from gui.bridge import Bridge
from gui.history import HistoryWindow

ROOT = Path(__file__).resolve().parents[2]

APP = r"""
import asyncio, os, signal, sys
import gui.qt
import qasync
from gui.app import application
from gui.runtime import use_python_threads
from gui.bridge import Bridge
from gui.pages.benchmark import BenchmarkPage
from gui.session import Session
from pathlib import Path

app = application()
loop = qasync.QEventLoop(app)
asyncio.set_event_loop(loop)
use_python_threads(loop)
page = BenchmarkPage(Session(python=sys.executable, history_path=Path(sys.argv[1])), Bridge())
page.initializePage()
page.show()
page.choose("resnet50-train")
page.advanced.device.setCurrentIndex(page.advanced.device.findData("cpu"))
page.advanced.tiny.setChecked(True)
page.advanced.steps.setValue(100000)


async def crash() -> None:
    page.start()
    while page.plots.steps_seen < 3:
        if not page.busy:  # the run ended first: its steps can no longer come
            print("ended:", page.status.text(), page.message.text(), flush=True)
            os._exit(3)
        await asyncio.sleep(0.05)
    print("steps", page.plots.steps_seen, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # a crash: nothing is cleaned up

loop.run_until_complete(crash())
"""


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.slow  # a real worker or app process: not in make check
def test_a_crashed_run_shows_as_interrupted(qtbot: Any, aloop: Any, tmp_path: Path,
                                            monkeypatch: Any) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "XDG_DATA_HOME": str(data), "XDG_STATE_HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen",
           "OMP_NUM_THREADS": "1"}
    db = tmp_path / "history.sqlite"
    done = subprocess.run([sys.executable, "-c", APP, str(db)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == -9 and "steps" in done.stdout, (done.stdout + done.stderr)[-2000:]
    (run_file,) = (data / "rocmate" / "runs").glob("*.jsonl")
    events = [json.loads(line) for line in run_file.read_text().splitlines() if line.strip()]
    assert not [e for e in events if e["event"] == "end"]
    (hello,) = [e for e in events if e["event"] == "hello"]
    deadline = time.monotonic() + 60  # the orphaned worker ends at its next write
    while not _gone(hello["pid"]) and time.monotonic() < deadline:
        time.sleep(0.2)
    steps = len([e for e in run_file.read_text().splitlines() if '"event":"step"' in e])

    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    window = HistoryWindow(Bridge(), db)
    qtbot.addWidget(window)
    window.show()
    window.reload()
    qtbot.waitUntil(lambda: window.loaded, timeout=30_000)
    (row,) = window.model.rows
    assert row.entry.status == "interrupted" and row.texts[2] == "interrupted"
    assert "interrupted" in window.message.text()
    with History(db) as history:
        report = history.run_report(row.entry.id)
    assert len(report.runs[0].steps) == steps >= 3
    window.reload()  # a second look adds nothing
    qtbot.waitUntil(lambda: window.loaded and not window.bridge.busy(), timeout=30_000)
    assert len(window.model.rows) == 1
