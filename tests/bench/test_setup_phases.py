"""``setup`` phases: the worker says what it prepares before its first step (importing PyTorch,
building the model, allocating the matrices), the runner and its callers see them as they come,
and every reader still takes an older worker's stream, which has none."""

from __future__ import annotations

import io
import stat
from pathlib import Path
from typing import Any

import pytest

from core.bench.run_report import build_report
from core.bench.runner import BenchRunner
from core.bench.worker.options import BenchOptions
from core.bench.worker.protocol import PHASES
from core.cli import bench as cli
from core.report.model import Machine, from_json, to_json
from core.report.text import report_text
from core.system import LiveSystem
from tests.bench.helpers import PYTHON, run_worker, tiny

MACHINE = Machine(platform={"distro_id": "test"}, gpus=[])


def test_the_phases_of_the_protocol() -> None:
    assert PHASES == ("setup", "warmup", "measure", "done")


def test_a_real_run_says_what_it_prepares_before_the_first_step(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    def on_event(_runner: BenchRunner, ev: dict[str, Any]) -> None:
        seen.append(ev)

    out, events = run_worker(tiny("resnet50-train", steps=2), tmp_path, on_event=on_event)
    assert out.status == "ok", out.error
    worker = [e for e in seen if e["event"] in ("hello", "phase", "step")]
    first_step = next(i for i, e in enumerate(worker) if e["event"] == "step")
    hello = next(i for i, e in enumerate(worker) if e["event"] == "hello")
    setup = [(i, e) for i, e in enumerate(worker[:first_step]) if e.get("phase") == "setup"]
    words = [e["what"] for _, e in setup]
    # in the order the worker does them: torch before hello, the suite's own after it
    assert words == ["importing PyTorch", "importing torchvision", "building the model",
                     "counting the model's FLOPs"]
    assert setup[0][0] < hello < setup[1][0]
    assert all(isinstance(e["t"], float) and e["t"] >= 0 and e["rx_t"] >= 0 for _, e in setup)
    rx = [e["rx_t"] for _, e in setup]
    assert rx == sorted(rx)
    # the callback saw what the run file holds, and the outcome keeps them with the phases
    assert [e for e in events if e.get("phase") == "setup"] == [e for _, e in setup]
    assert [p["phase"] for p in out.phases] == ["setup"] * 4 + ["warmup", "measure", "done"]
    assert not [e for e in worker[first_step:] if e.get("phase") == "setup"]


def test_gemm_says_it_allocates_its_matrices_once(tmp_path: Path) -> None:
    out, _ = run_worker(tiny("gemm", steps=1), tmp_path)
    assert out.status == "ok", out.error
    setup = [p for p in out.phases if p["phase"] == "setup"]
    assert [p["what"] for p in setup][-1] == "allocating the matrices (bf16, 256x256)"
    assert setup[-1]["part"] == "bf16"


def _old_worker_python(tmp_path: Path) -> str:
    """A 'python' that runs the real worker and drops its setup lines: the stream of a worker
    from before setup phases."""
    script = tmp_path / "old-worker-python"
    script.write_text(f'#!/bin/sh\n"{PYTHON}" "$@" | grep -v \'"phase":"setup"\'\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_an_older_workers_stream_without_setup_phases_is_read_as_before(
        tmp_path: Path) -> None:
    out, events = run_worker(tiny("gemm", steps=2), tmp_path,
                             python=_old_worker_python(tmp_path))
    assert out.status == "ok", out.error
    assert not [e for e in events if e.get("phase") == "setup"]
    assert [p["phase"] for p in out.phases] == ["warmup", "measure"] * 3 + ["done"]
    report = build_report([out], LiveSystem(), machine_facts=MACHINE)
    assert from_json(to_json(report)) == report
    assert "\n *bf16 " in report_text(report)  # the headline, tflops_bf16, by its words
    # the progress line says "preparing" in general words, as it did
    stream = io.StringIO()
    progress = cli.Progress(stream, BenchOptions(suite="gemm"))
    for ev in events:
        progress(ev)
    lines = stream.getvalue().splitlines()
    assert lines[1] == "preparing (libraries, model, data) ..." and lines[2] == "warmup bf16 ..."


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


HELLO = {"event": "hello", "suite": "gemm", "device_name": "NVIDIA H200", "backend": "cuda",
         "arch": "sm_90", "torch": "2.11.0", "settings": {}, "rx_t": 3.0}


def _setup(what: str, rx_t: float) -> dict[str, Any]:
    return {"event": "phase", "phase": "setup", "what": what, "t": rx_t - 0.1, "rx_t": rx_t}


@pytest.mark.parametrize("tty", [True, False])
def test_progress_says_each_setup_step(tty: bool) -> None:
    stream = _Terminal() if tty else io.StringIO()
    progress = cli.Progress(stream, BenchOptions(suite="gemm"))
    for ev in (_setup("importing PyTorch", 0.5), HELLO, _setup("starting the GPU runtime", 3.1),
               {"event": "telemetry", "rx_t": 5.6},
               _setup("allocating the matrices (bf16, 8192x8192)", 6.0),
               {"event": "phase", "phase": "warmup", "part": "bf16", "rx_t": 6.5}):
        progress(ev)
    text = stream.getvalue()
    if tty:
        assert "\rpreparing: importing PyTorch" in text
        assert "\rpreparing: starting the GPU runtime 2 s" in text  # the telemetry tick
        # from the first setup phase to the warm-up
        assert "\rprepared (libraries, model, data) in 6.0 s" in text
    else:
        assert text.splitlines() == [
            "preparing: importing PyTorch ...",
            "gemm on NVIDIA H200 (cuda, sm_90), torch 2.11.0",
            "preparing: starting the GPU runtime ...",
            "preparing: allocating the matrices (bf16, 8192x8192) ...",
            "warmup bf16 ..."]
