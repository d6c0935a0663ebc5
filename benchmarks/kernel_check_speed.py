"""What the kernel check costs: the check alone, and what it adds to `rocmate doctor`.

Run: .venv/bin/python benchmarks/kernel_check_speed.py [--runs N] [--python PATH] [--out FILE]
Prints, for the chosen Python (default: this one):
- the check alone (`core.probe.kernel_check.run_kernel_check`) on every GPU that PyTorch there
  sees, or on the CPU device where it sees none (the same supervisor, workers and comparisons):
  median/min/max wall time over N runs, each worker's start (import torch, open the device) and
  each operation's own time;
- `rocmate doctor --json` with the torch probe: the whole command and its timings (torch_s,
  kernel_check_s);
- `rocmate doctor --no-torch --json` (the 1 s goal, no probe, no check).
With --out, the figures are also written as JSON.
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
sys.path.insert(0, str(ROOT))

from core.probe.kernel_check import run_kernel_check  # noqa: E402
from core.system import LiveSystem  # noqa: E402


def _devices(python: str) -> list[str]:
    out = subprocess.run([python, "-c", "import torch; print(torch.cuda.device_count() if "
                          "torch.cuda.is_available() else 0)"], capture_output=True, text=True,
                         check=False)
    count = int((out.stdout.strip().splitlines() or ["0"])[-1] or 0)
    return [str(i) for i in range(count)] or ["cpu"]


def _doctor(args: list[str]) -> tuple[float, dict]:
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "core.cli", "doctor", "--json", *args],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    return time.perf_counter() - start, json.loads(out.stdout)


def _spread(values: list[float]) -> str:
    return (f"median {statistics.median(values):.3f} s, min {min(values):.3f} s, "
            f"max {max(values):.3f} s")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    devices = _devices(args.python)
    figures: dict = {"python": args.python, "devices": devices, "check": []}
    walls = []
    for _ in range(args.runs):
        start = time.perf_counter()
        answer = run_kernel_check(LiveSystem(), args.python, devices)
        walls.append(time.perf_counter() - start)
        figures["check"].append(answer)
    last = figures["check"][-1]
    print(f"kernel check alone on {', '.join(devices)} ({args.runs} runs): {_spread(walls)}")
    for device in last.get("devices", []):
        ops = ", ".join(f"{op['op']} {op['outcome']} {op.get('seconds', 0) * 1000:.1f} ms"
                        for op in device.get("ops", []))
        print(f"  {device.get('name')} ({device.get('gfx')}): start {device.get('start_s')} s; "
              f"{ops}")
    figures["check_wall_s"] = walls
    wall, report = _doctor(["--python", args.python])
    timings = report["timings"]
    print(f"doctor with the torch probe and the check: {wall:.2f} s whole command; torch probe "
          f"{timings.get('torch_s', float('nan')):.2f} s, kernel check "
          f"{timings.get('kernel_check_s', float('nan')):.2f} s; verdict {report['verdict']}")
    figures["doctor"] = {"wall_s": wall, "timings": timings, "verdict": report["verdict"],
                         "kernel_check": report.get("kernel_check")}
    no_torch = [_doctor(["--no-torch"])[0] for _ in range(args.runs)]
    print(f"doctor --no-torch, whole command ({args.runs} runs): {_spread(no_torch)}")
    figures["doctor_no_torch_wall_s"] = no_torch
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
