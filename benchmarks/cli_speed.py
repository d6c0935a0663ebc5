"""How quickly the commands a new user types answer: ``rocmate explain`` (goal: under 0.5 s)
and ``rocmate report show | render | import`` of a 20 MB report of 150,000 steps (goal: under
2 s each).

    .venv/bin/python benchmarks/cli_speed.py [--repeat 3]

Each command runs as a user runs it (a fresh ``python -m core.cli`` process, wall time from
start to exit); the figure is the median of the repeats. The big report is the recorded H200
ResNet-50 report with its step series grown to 150,000 steps and telemetry to 10,000 samples.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
H200 = ROOT / "tests/fixtures/reports/h200-resnet50-train-amp-bf16-cl-bs256.json"


def big_report(path: Path, steps: int = 150_000, samples: int = 10_000) -> int:
    data = json.loads(H200.read_text())
    run = data["runs"][0]
    base_steps, base_samples = run["steps"], run["telemetry"]
    run["steps"] = [dict(base_steps[i % len(base_steps)], index=i) for i in range(steps)]
    run["telemetry"] = [dict(base_samples[i % len(base_samples)], t=i * 0.5)
                        for i in range(samples)]
    text = json.dumps(data)
    path.write_text(text)
    return len(text)


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "core.cli", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr[-500:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    # an installed rocmate has its bytecode (pip compiles it); a checkout run with
    # PYTHONDONTWRITEBYTECODE would otherwise compile every module at every start
    subprocess.run([sys.executable, "-m", "compileall", "-q", "core"], cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "XDG_DATA_HOME": f"{tmp}/data", "HOME": tmp}
        report = Path(tmp) / "big.json"
        size = big_report(report)
        cases = {
            "explain": ["explain", "HIP error: invalid device function"],
            "report show (20 MB)": ["report", "show", str(report)],
            "report render html (20 MB)": ["report", "render", str(report), "--format", "html",
                                           "-o", f"{tmp}/out.html"],
            "report render md (20 MB)": ["report", "render", str(report), "--format", "md",
                                         "-o", f"{tmp}/out.md"],
            "report import (20 MB)": ["report", "import", str(report)],
        }
        print(f"big report: {size / 1e6:.1f} MB, 150000 steps, 10000 samples")
        results = {}
        for name, argv in cases.items():
            times = [timed(argv, env) for _ in range(args.repeat)]
            results[name] = statistics.median(times)
            print(f"{name:28} median {results[name]:.2f} s  "
                  f"({', '.join(f'{t:.2f}' for t in times)})")
        slowest = max(v for k, v in results.items() if k.startswith("report"))
        print(f"cli: explain {results['explain']:.2f} s; 20 MB report {slowest:.2f} s at the "
              "slowest (goals 0.5 s and 2 s)")


if __name__ == "__main__":
    main()
