"""The AppImage's size and how long it takes to show its window (goals: under 120 MB, window in
under 2 s from a warm cache).

    make appimage && .venv/bin/python benchmarks/appimage_start.py [--repeat 5]

Each start is a fresh process of dist/rocmate-x86_64.AppImage on a private Xvfb display (Debian
packages xvfb and x11-utils; the Qt X11 plugin's libraries too, e.g. libxcb-cursor0,
libxcb-icccm4, libxcb-keysyms1): the clock runs from the moment the image is started until the
X server has the app's 900 x 720 window mapped (``xwininfo`` polled every 10 ms). One start first
warms the page cache, as a second start of the app on a desktop would. Both ways a user starts
it are measured: mounted (FUSE) and ``--appimage-extract-and-run`` (no FUSE; it unpacks the
whole image first). The last line is

    appimage: N MB; window mounted N ms, extract-and-run N ms (median of N)
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGE = ROOT / "dist" / "rocmate-x86_64.AppImage"
MACHINE = ROOT / "tests/fixtures/machines/rx6700xt-ubuntu2204-needs-override"
DISPLAY = ":93"


def mapped(env: dict[str, str]) -> bool:
    out = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True,
                         env=env, timeout=10).stdout
    return any('"rocmate"' in line and "900x720" in line for line in out.splitlines())


def once(extract: bool, env: dict[str, str]) -> float:
    argv = [str(IMAGE), *(["--appimage-extract-and-run"] if extract else []), "gui", "--root",
            str(MACHINE)]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        while not mapped(env):
            if proc.poll() is not None:
                raise SystemExit(f"the app ended ({proc.returncode}) before its window showed")
            if time.perf_counter() - start > 60:
                raise SystemExit("no window after 60 s")
            time.sleep(0.01)
        return time.perf_counter() - start
    finally:
        close(proc, env)


def close(proc: subprocess.Popen[bytes], env: dict[str, str]) -> None:
    """End the app (its process, not the runtime's, which then unmounts or removes what it
    extracted, as after a user closes the window) and wait until its window is gone."""
    subprocess.run(["pkill", "-TERM", "-P", str(proc.pid)], check=False)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    while mapped(env):
        time.sleep(0.01)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not IMAGE.is_file():
        raise SystemExit(f"{IMAGE} is not built: run make appimage")
    for tool in ("Xvfb", "xwininfo"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing: apt-get install xvfb x11-utils")
    size = IMAGE.stat().st_size / 1e6
    print(f"size: {size:.1f} MB ({IMAGE.stat().st_size:,} bytes; goal under 120 MB)")
    server = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1280x900x24", "-nolisten",
                               "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM",
                                                                   "WAYLAND_DISPLAY")}
            env.update(DISPLAY=DISPLAY, XDG_CONFIG_HOME=tmp, XDG_STATE_HOME=tmp,
                       XDG_DATA_HOME=tmp, TMPDIR=tmp)
            time.sleep(1.0)
            figures = {}
            for extract in (False, True):
                once(extract, env)  # warm the page cache
                times = [once(extract, env) for _ in range(args.repeat)]
                name = "extract-and-run" if extract else "mounted"
                figures[name] = statistics.median(times) * 1000
                print(f"{name}: " + ", ".join(f"{t * 1000:.0f}" for t in times) + " ms",
                      flush=True)
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"appimage: {size:.1f} MB; window mounted {figures['mounted']:.0f} ms, "
          f"extract-and-run {figures['extract-and-run']:.0f} ms (median of {args.repeat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
