"""``rocmate bench`` end to end on the CPU: progress, summary, report file, history."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from core.bench.worker.options import BenchOptions
from core.cli import bench as cli
from core.report.history import History
from core.report.model import from_json
from tests.bench.helpers import PYTHON


def bench(*words: str) -> int:
    parser = argparse.ArgumentParser(prog="rocmate")
    cli.add_parsers(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["bench", *words])
    assert args.func is cli.run
    return int(args.func(args))


def test_bench_writes_the_report_and_the_history(
        xdg: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    out = tmp_path / "r.json"
    rc = bench("gemm", "--python", PYTHON, "--device", "cpu", "--size", "tiny", "--steps", "2",
               "--warmup-steps", "1", "--out", str(out))
    cap = capsys.readouterr()
    assert rc == 0, cap.err
    assert "GEMM (matrix multiply) on " in cap.out
    assert "\n *bf16 " in cap.out  # the headline figure (tflops_bf16) by its words
    assert "  warm-up:\n    bf16: 1 steps" in cap.out  # each dtype's warm-up, a line each
    assert "measure" in cap.err  # progress goes to stderr
    report = from_json(out.read_text())
    assert report.runs[0].status == "ok"
    with History(xdg / "rocmate" / "history.sqlite") as h:
        rows = h.list()
    assert len(rows) == 1 and rows[0].suite == "gemm" and rows[0].unit == "TFLOP/s"
    runs = list((xdg / "rocmate" / "runs").glob("*-gemm.jsonl"))
    assert len(runs) == 1


def test_bench_json_and_a_failed_run_in_the_history(
        xdg: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a GPU no machine has: the worker starts, then fails (no-gpu), and the run is kept
    rc = bench("bandwidth", "--python", PYTHON, "--device", "cuda:99", "--size", "tiny",
               "--json")
    cap = capsys.readouterr()
    assert rc == 1
    data = json.loads(cap.out)
    assert data["schema"] == "rocmate.report/1"
    run = data["runs"][0]
    assert run["status"] == "error" and run["error"]["kind"] == "no-gpu"
    with History(xdg / "rocmate" / "history.sqlite") as h:
        rows = h.list()
    assert [(r.status, r.error_kind) for r in rows] == [("error", "no-gpu")]


def test_bad_options_are_refused_before_a_worker_starts(
        xdg: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A value no run can use is a usage error: no worker, no run file, no history row."""
    run_file = tmp_path / "run.jsonl"
    for words in (["--steps", "0"], ["--seconds", "nan"], ["--seconds", "-1"],
                  ["--seconds", "inf"], ["--seconds", "0"], ["--batch-size", "0"],
                  ["--batch-size", "-1"], ["--seq-len", "0"], ["--inference-steps", "0"],
                  ["--batch-size", "10000000000000000"], ["--seed", str(2**64)],
                  ["--device", "gpu"], ["--model", str(tmp_path / "nonexistent")],
                  ["--watchdog", "nan"], ["--startup-timeout", "0"]):
        rc = bench("gemm", "--python", PYTHON, "--device", "cpu", "--size", "tiny",
                   "--run-file", str(run_file), *words)
        err = capsys.readouterr().err
        assert rc == 2, (words, err)
        assert err.startswith("rocmate bench: --") and err.count("\n") == 1, err
    assert not run_file.exists()
    assert not (xdg / "rocmate" / "history.sqlite").exists()


def test_summary_names_the_error_and_its_advice(xdg: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    rc = bench("gemm", "--python", "/nonexistent/python", "--device", "cpu", "--no-history")
    cap = capsys.readouterr()
    assert rc == 1
    assert "error (other): cannot start /nonexistent/python" in cap.out
    assert "advice: Pass --python" in cap.out
    assert not (xdg / "rocmate" / "history.sqlite").exists()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


HELLO = {"event": "hello", "suite": "sd15-infer", "device_name": "NVIDIA H200", "backend": "cuda",
         "arch": "sm_90", "torch": "2.11.0", "settings": {"precision": "amp-fp16",
                                                           "batch_size": 1}, "rx_t": 1.0}


@pytest.mark.parametrize("tty", [True, False])
def test_progress_shows_the_preparation_before_the_first_phase(tty: bool) -> None:
    """Between hello and the warm-up (imports, model build: ~19 s for SD 1.5 on the H200) the
    line says what is going on and, on a terminal, for how long; then how long it took."""
    stream = _Terminal() if tty else io.StringIO()
    progress = cli.Progress(stream, BenchOptions(suite="sd15-infer"))
    for ev in (HELLO, {"event": "telemetry", "rx_t": 3.2},
               {"event": "phase", "phase": "warmup", "rx_t": 5.5}):
        progress(ev)
    text = stream.getvalue()
    assert "sd15-infer on NVIDIA H200 (cuda, sm_90)" in text
    if tty:
        assert "\rpreparing (libraries, model, data) 2 s" in text
        assert "\rprepared (libraries, model, data) in 4.5 s" in text.split("\n")[1]
    else:
        assert text.splitlines()[1:] == ["preparing (libraries, model, data) ...", "warmup ..."]


def test_a_64_bit_seed_is_measured_and_kept(xdg: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Stable Diffusion front ends use 64-bit seeds: the run is stored with it, exactly."""
    out = tmp_path / "r.json"
    rc = bench("gemm", "--python", PYTHON, "--device", "cpu", "--size", "tiny", "--steps", "1",
               "--warmup-steps", "0", "--seed", "18446744073709551615", "--out", str(out))
    assert rc == 0, capsys.readouterr().err
    assert json.loads(out.read_text())["runs"][0]["settings"]["seed"] == "18446744073709551615"
    with History(xdg / "rocmate" / "history.sqlite") as h:
        assert [r.status for r in h.list()] == ["ok"]


def test_the_system_python_is_told_to_use_a_virtual_environment(
        xdg: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A real run in Debian's own python3 (PEP 668, no torch): the advice is a venv, not pip."""
    import glob
    import subprocess

    system = "/usr/bin/python3"
    probe = subprocess.run([system, "-c", "import sysconfig; print(sysconfig.get_path("
                            "'stdlib'))"], capture_output=True, text=True, check=False)
    if not glob.glob(probe.stdout.strip() + "/EXTERNALLY-MANAGED"):
        pytest.skip("this machine's python3 is not externally managed")
    has_torch = subprocess.run([system, "-c", "import torch"], capture_output=True, check=False)
    if has_torch.returncode == 0:
        pytest.skip("this machine's python3 has torch")
    rc = bench("gemm", "--python", system, "--device", "cpu", "--size", "tiny", "--no-history")
    out = capsys.readouterr().out
    assert rc == 1 and "missing-package" in out
    assert "virtual environment" in out and f"{system} -m pip install" not in out
