"""How long ``rocmate gui`` takes to show its first window (goal: under 1.5 s on the
development machine).

    .venv/bin/python benchmarks/gui_start.py [--repeat 5] [--root DIR]

Each repeat starts a fresh Python, as ``rocmate gui`` does (the launcher, the Qt application,
the wizard), and the clock runs from the moment the process is started until the window has
been shown and painted (the child prints a line then and exits). Offscreen, so it runs without
a desktop; on a desktop, the X server adds a few milliseconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import sys
from gui.launcher import gui_parser
from gui.app import application
from gui.session import Session
from gui.wizard import RocWizard
from PySide6.QtCore import QCoreApplication
args = gui_parser().parse_args(sys.argv[1:])
app = application()
wizard = RocWizard(Session(root=args.root))
wizard.show()
QCoreApplication.processEvents()
wizard.grab()  # painted
print("shown", flush=True)
"""


def once(root: str | None, env: dict[str, str]) -> float:
    argv = [sys.executable, "-c", CHILD] + (["--root", root] if root else [])
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    took = time.perf_counter() - start
    proc.wait(timeout=60)
    if line.strip() != "shown":
        raise SystemExit("the child did not show its window")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--root", default=str(ROOT / "tests/fixtures/machines/"
                                                     "rx6700xt-ubuntu2204-needs-override"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": tmp,
               "XDG_STATE_HOME": tmp}
        once(args.root, env)  # warm the file cache, as a second start of the app would be
        times = [once(args.root, env) for _ in range(args.repeat)]
    print("first window: " + ", ".join(f"{t * 1000:.0f}" for t in times) + " ms")
    print(f"gui: first window {statistics.median(times) * 1000:.0f} ms (median of "
          f"{len(times)}; goal 1500 ms)")


if __name__ == "__main__":
    main()
