"""A cancel that the worker cannot ignore: a rocmate started with SIGINT ignored (``sh -c
'rocmate &'``, nohup and some launchers do so) starts workers that inherit it. The runner asks
with SIGINT first (the worker reports ``interrupted`` with its steps), then SIGTERM, then
SIGKILL; the run is kept as cancelled, never as finished, with the result of its measured
steps (core.bench.partial)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = r'''
import asyncio, json, os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)  # as under sh -c 'rocmate &'
from core.bench.runner import BenchRunner
from core.bench.worker.options import BenchOptions

options = BenchOptions(suite="resnet50-train", device="cpu", size="tiny", warmup_steps=1,
                       steps=int(sys.argv[2]))
asked = {}

def on_event(event):
    measured = event.get("event") == "step" and event.get("phase") == "measure"
    if measured and event.get("index", 0) >= 2 and "at" not in asked:
        asked["at"] = time.monotonic()
        runner.cancel()

runner = BenchRunner(options, python=sys.executable, run_file=sys.argv[1], telemetry=False,
                     env={"OMP_NUM_THREADS": "1"}, kill_grace_s=60.0, on_event=on_event)
out = asyncio.run(runner.run())
print(json.dumps({"status": out.status, "error": (out.error or {}).get("kind"),
                  "steps": len([s for s in out.steps if s.get("phase") == "measure"]),
                  "partial": out.partial is not None, "returncode": out.returncode,
                  "stopped_s": time.monotonic() - asked.get("at", time.monotonic())}))
'''


def test_a_worker_that_ignores_sigint_is_stopped_and_kept_as_cancelled(tmp_path: Path) -> None:
    run_file = tmp_path / "run.jsonl"
    done = subprocess.run([sys.executable, "-c", CHILD, str(run_file), "200"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.splitlines()[-1])
    assert outcome["status"] == "cancelled", outcome  # not "ok": nobody let it finish
    assert outcome["error"] == "interrupted" and outcome["steps"] < 200, outcome
    assert outcome["stopped_s"] < 30, outcome  # long before the 60 s SIGKILL grace
    events = [json.loads(line) for line in run_file.read_text().splitlines()]
    assert events[-1]["event"] == "end" and events[-1]["status"] == "cancelled"
