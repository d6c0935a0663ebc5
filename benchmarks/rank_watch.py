"""How fast does the per-rank watchdog of a data-parallel run answer? Starts ``--gpus N``
through the runner (PyTorch's launcher, the real worker as each rank), stops the last rank with
SIGSTOP after a few measured steps, and prints how long the runner took to end the run, what it
said, and whether any rank was left behind.

    python benchmarks/rank_watch.py --python python3 --gpus 1            # a GPU machine
    python benchmarks/rank_watch.py --device cpu --gpus 2 --tiny         # anywhere

With the default pulse (2 s) a stopped rank should end the run within about 10-15 s: five
silent pulses, the stacks of the others, the kill. Without the per-rank watchdog it would wait for
the watchdog (180 s) or the collective timeout (135 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_common  # noqa: F401  (puts the repository on sys.path)

from core.bench.runner import BenchRunner
from core.bench.worker.options import BenchOptions


def ranks_of(launcher: int) -> list[int]:
    """The launcher's children running the worker (the ranks)."""
    try:
        children = Path(f"/proc/{launcher}/task/{launcher}/children").read_text().split()
    except OSError:
        return []
    return [int(pid) for pid in children
            if b"core.bench.worker" in Path(f"/proc/{pid}/cmdline").read_bytes()]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--python", default="python3")
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--gpus", default="1")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--suite", default="resnet50-train")
    p.add_argument("--after-steps", type=int, default=5)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="rank-watch-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    options = BenchOptions(suite=args.suite, device=args.device, gpus=args.gpus,
                           size="tiny" if args.tiny else "default", steps=1_000_000)
    stopped: dict[str, Any] = {}
    holder: dict[str, BenchRunner] = {}

    def on_event(event: dict[str, Any]) -> None:
        runner = holder["runner"]
        if (event["event"] == "step" and event.get("phase") == "measure" and not stopped
                and event.get("index", 0) + 1 >= args.after_steps and runner.pid):
            victims = ranks_of(runner.pid)
            stopped["all"] = victims
            stopped["pid"] = max(victims)
            stopped["t"] = time.monotonic()
            os.kill(stopped["pid"], signal.SIGSTOP)

    env = {"OMP_NUM_THREADS": "1"} if args.device == "cpu" else {}
    runner = BenchRunner(options, python=args.python, run_file=out_dir / "run.jsonl",
                         startup_timeout_s=1200, on_event=on_event, env=env)
    holder["runner"] = runner
    outcome = asyncio.run(runner.run())
    answered = time.monotonic() - stopped["t"] if stopped else None
    left = [pid for pid in stopped.get("all", []) if Path(f"/proc/{pid}").exists()
            and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] not in "ZX"]
    for pid in left:  # never leave a stopped rank behind
        os.kill(pid, signal.SIGKILL)
    error = outcome.error or {}
    print(json.dumps({"suite": args.suite, "gpus": args.gpus, "device": args.device,
                      "status": outcome.status, "answered_s": round(answered or -1, 2),
                      "message": error.get("message"), "stall": error.get("stall"),
                      "ranks": error.get("ranks"), "ranks_left_behind": len(left),
                      "run_file": str(out_dir / "run.jsonl")}), flush=True)
    return 0 if outcome.status == "error" and error.get("stall") == "stopped" and not left else 1


if __name__ == "__main__":
    raise SystemExit(main())
