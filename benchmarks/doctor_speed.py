"""How long `rocmate doctor` takes: without the torch probe (goal: under 1 s) and the probe alone.

Run: .venv/bin/python benchmarks/doctor_speed.py [--runs N] [--python PATH]
Prints the median and spread of N cold-process runs of `rocmate doctor --no-torch --json`
(the whole command, interpreter start included), the in-process time of the probes, and the
torch probe's own cost in the chosen Python.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _timed(argv: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, check=False)
    return time.perf_counter() - start, out.stdout


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--python", default=None, help="Python for the torch probe")
    parser.add_argument("--root", default=None, help="a snapshot to replay instead")
    args = parser.parse_args()
    base = [sys.executable, "-m", "core.cli", "doctor", "--json"]
    if args.root:
        base += ["--root", args.root]
    walls, probes = [], []
    for _ in range(args.runs):
        wall, out = _timed([*base, "--no-torch"])
        walls.append(wall)
        probes.append(json.loads(out)["timings"]["total_s"])
    print(
        f"doctor --no-torch, whole command ({args.runs} runs): "
        f"median {statistics.median(walls):.3f} s,"
        f" min {min(walls):.3f} s, max {max(walls):.3f} s"
    )
    print(f"  of which probes + diagnosis in-process: median {statistics.median(probes):.3f} s")
    torch_args = [*base] + (["--python", args.python] if args.python else [])
    wall, out = _timed(torch_args)
    timings = json.loads(out)["timings"]
    print(
        f"doctor with the torch probe: {wall:.2f} s whole command; "
        f"torch probe alone {timings.get('torch_s', float('nan')):.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
