"""The kernel check failing readably: a stand-in torch whose GPU matrix product aborts, crashes,
hangs, returns wrong numbers or prints rocBLAS's real Tensile message before aborting.

The stand-in (tests/fixtures/standin-torch/, copied into a throwaway virtual environment: the
check runs its Python with -I, so a PYTHONPATH would be ignored) is the ONLY fake in the kernel
check's tests: the failing libraries need AMD hardware we do not have. The supervisor, the
workers, the time limits, the parsing and the findings all run for real. The messages it prints
are copied from public threads (pytorch/pytorch#179865 for rocBLAS on gfx900,
ROCm/legacy-rocm-build#1623 for hipErrorNoBinaryForGpu); the passing path on a real GPU is
tests/probe/test_kernel_check.py with the H200's recorded answer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import i18n
from core.diagnose.context import Context
from core.diagnose.doctor import run_doctor
from core.diagnose.finding import Finding
from core.diagnose.rules_kernel import kernel_rules
from core.knowledge.loader import load_knowledge
from core.probe.facts import gather
from core.probe.kernel_check import kernel_check_from_json, run_kernel_check
from core.system import LiveSystem, SnapshotSystem

ROOT = Path(__file__).resolve().parents[2]
STANDIN = ROOT / "tests" / "fixtures" / "standin-torch"
MACHINE = ROOT / "tests" / "fixtures" / "machines" / "rx7900xtx-ubuntu2404-ready"


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A virtual environment whose `torch` is the stand-in (numpy from rocmate's own)."""
    venv = tmp_path_factory.mktemp("standin") / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    import numpy
    numpy_dir = Path(numpy.__file__).parent
    for name in ("numpy", "numpy.libs"):
        if (numpy_dir.parent / name).exists():
            (site / name).symlink_to(numpy_dir.parent / name)
    for source in STANDIN.rglob("*.py.txt"):
        target = site / source.relative_to(STANDIN).with_suffix("").with_suffix(".py")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return str(venv / "bin" / "python"), site


def check(standin: tuple[str, Path], mode: str, op_timeout: float = 20.0) -> dict:
    python, site = standin
    (site / "mode.txt").write_text(mode)
    return run_kernel_check(LiveSystem(), python, ["0"], start_timeout=30.0,
                            op_timeout=op_timeout)


def outcomes(answer: dict) -> dict[str, str]:
    return {op["op"]: op["outcome"] for op in answer["devices"][0]["ops"]}


def findings(answer: dict, tmp_path: Path) -> list[Finding]:
    """The kernel findings of a recorded machine (an RX 7900 XTX replay) that carries this
    answer as its kernel-check.json."""
    machine = tmp_path / "machine"
    shutil.copytree(MACHINE, machine, symlinks=True)
    (machine / "kernel-check.json").write_text(__import__("json").dumps(answer))
    facts = gather(SnapshotSystem(machine))
    return kernel_rules(Context(facts, load_knowledge()))


def test_the_standin_passes_when_nothing_fails(standin, tmp_path) -> None:
    answer = check(standin, "ok")
    assert outcomes(answer) == {"matmul-fp32": "ok", "matmul-fp16": "ok",
                                "matmul-bf16": "skipped", "conv2d": "ok", "sdpa": "ok"}
    device = answer["devices"][0]
    assert (device["name"], device["gfx"]) == ("Radeon RX Vega", "gfx900:xnack-")
    assert [f.id for f in findings(answer, tmp_path)] == ["kernel-check-ok"]


def test_an_abort_names_the_operation_and_the_others_still_run(standin, tmp_path) -> None:
    answer = check(standin, "abort matmul")
    assert outcomes(answer) == {"matmul-fp32": "crashed", "matmul-fp16": "crashed",
                                "matmul-bf16": "skipped", "conv2d": "ok", "sdpa": "ok"}
    assert answer["devices"][0]["ops"][0]["signal"] == 6
    (finding,) = findings(answer, tmp_path)
    assert finding.id == "kernel-check-crashed"
    assert "Radeon RX Vega (gfx900)" in finding.title and "rocBLAS/hipBLASLt" in finding.title
    assert "SIGABRT" in finding.detail and "convolution (conv2d)" in finding.detail


def test_a_segfault_is_a_crash_on_sigsegv(standin, tmp_path) -> None:
    answer = check(standin, "segv matmul")
    assert outcomes(answer)["matmul-fp32"] == "crashed"
    assert answer["devices"][0]["ops"][0]["signal"] == 11
    (finding,) = findings(answer, tmp_path)
    assert finding.id == "kernel-check-crashed" and "SIGSEGV" in finding.detail


def test_a_hang_costs_only_its_own_time_limit(standin, tmp_path) -> None:
    began = time.monotonic()
    answer = check(standin, "hang matmul", op_timeout=3.0)
    took = time.monotonic() - began
    assert outcomes(answer) == {"matmul-fp32": "hung", "matmul-fp16": "hung",
                                "matmul-bf16": "skipped", "conv2d": "ok", "sdpa": "ok"}
    assert took < 30, took  # two hangs of 3 s each, three worker starts
    (finding,) = findings(answer, tmp_path)
    assert finding.id == "kernel-check-hung"
    assert "no answer within 3 s" in finding.detail
    assert "dmesg" in finding.fix


def test_wrong_numbers_are_caught_by_the_comparison_with_the_cpu(standin, tmp_path) -> None:
    answer = check(standin, "wrong matmul")
    ops = {op["op"]: op for op in answer["devices"][0]["ops"]}
    assert ops["matmul-fp32"]["outcome"] == "wrong"
    assert ops["matmul-fp32"]["difference"] > 0.1
    assert ops["conv2d"]["outcome"] == "ok"
    (finding,) = findings(answer, tmp_path)
    assert finding.id == "kernel-check-wrong"
    assert "WRONG" in finding.detail and "--try-overrides" in finding.fix


def test_rocblas_without_tensile_files_for_the_card_names_the_route(standin, tmp_path) -> None:
    answer = check(standin, "tensile matmul")
    op = answer["devices"][0]["ops"][0]
    assert op["outcome"] == "crashed" and "Illegal seek for GPU arch : gfx900" in op["log"]
    (finding,) = findings(answer, tmp_path)
    assert finding.id == "kernel-check-no-kernels"
    assert finding.title == "rocBLAS in this PyTorch has no kernels for Radeon RX Vega (gfx900)"
    assert "No PyTorch wheel is publicly shown to carry rocBLAS kernels for gfx900" in finding.fix
    assert "ROCm 6.3.4" in finding.fix


def test_no_binary_for_the_gpu_at_start_is_named(standin, tmp_path) -> None:
    answer = check(standin, "nobinary")
    device = answer["devices"][0]
    assert device["start"]["outcome"] == "crashed" and device["start"]["signal"] == 6
    assert "hipErrorNoBinaryForGpu" in device["start"]["log"]
    assert set(outcomes(answer).values()) == {"not-run"}
    (finding,) = findings(answer, tmp_path)
    assert finding.id == "kernel-check-no-kernels"
    assert "PyTorch in this PyTorch" not in finding.title
    assert "hipErrorNoBinaryForGpu" in finding.detail


def test_a_miopen_error_names_miopen(standin, tmp_path) -> None:
    answer = check(standin, "miopen conv2d")
    assert outcomes(answer)["conv2d"] == "error"
    (finding,) = findings(answer, tmp_path)
    assert finding.id == "kernel-check-failed" and "MIOpen" in finding.title


def test_the_findings_read_in_chinese(standin, tmp_path) -> None:
    answer = check(standin, "tensile matmul")
    i18n.set_language("zh_CN")
    try:
        (finding,) = findings(answer, tmp_path)
    finally:
        i18n.set_language(None)
    assert finding.id == "kernel-check-no-kernels"
    assert any("\u4e00" <= char <= "\u9fff" for char in finding.title + finding.fix)


def test_a_kernel_check_that_was_killed_keeps_what_it_printed(standin) -> None:
    """The outer limit (every operation hanging) still leaves the lines printed so far."""
    python, site = standin
    (site / "mode.txt").write_text("hang conv2d")
    from core.probe import kernel_check
    answer = kernel_check.kernel_check_from_json(
        kernel_check._from_events(python, kernel_check.events(
            "@rocmate-kc {\"event\": \"ready\", \"device\": \"0\", \"name\": \"Radeon RX Vega\","
            " \"gfx\": \"gfx900\"}\n@rocmate-kc {\"event\": \"op\", \"device\": \"0\", \"op\":"
            " \"matmul-fp32\", \"outcome\": \"ok\"}\nnoise\n"), "timeout", "ran past"))
    assert answer is not None and answer.problem == "timeout"
    assert [op.outcome for op in answer.devices[0].ops] == ["ok"]
    assert os.path.exists(python)


def test_odd_answers_never_raise() -> None:
    for junk in (None, {}, {"devices": "x"}, {"devices": [1, {"ops": [None, {"outcome": 3}]}]},
                 {"devices": [{"start": {"outcome": "hung"}, "ops": []}], "problem": "x"}):
        kernel_check_from_json(junk)  # type: ignore[arg-type]


def test_the_verify_page_shows_the_kernel_check_line_by_line(standin) -> None:
    """The wizard's Verify page (core.operations.setup.verify_pytorch) runs the same check."""
    from core.operations.setup import verify_pytorch
    python, site = standin
    (site / "mode.txt").write_text("miopen conv2d")
    check = verify_pytorch(None, python)
    lines = {line.name: line for line in check.lines}
    assert lines["fp32 matrix product (rocBLAS/hipBLASLt)"].ok is True
    assert lines["bf16 matrix product (rocBLAS/hipBLASLt)"].ok is None
    conv = lines["convolution (conv2d) (MIOpen)"]
    assert conv.ok is False and "miopenStatusUnknownError" in conv.value and conv.fix
    assert not check.ok
    assert check.answer["kernel_check"]["devices"][0]["gfx"] == "gfx900:xnack-"
    (site / "mode.txt").write_text("ok")
    assert verify_pytorch(None, python).ok


def test_the_plans_last_step_runs_the_same_check(standin) -> None:
    """The set-up plan's verify step is the kernel check as one script: exit 0 only when every
    operation matched the CPU, and the failing one named in its output."""
    from core.probe.kernel_check import verify_script
    python, site = standin
    (site / "mode.txt").write_text("abort matmul")
    ran = subprocess.run([python, "-c", verify_script(op_timeout=20.0)], capture_output=True,
                         text=True, timeout=300, check=False)
    assert ran.returncode == 1
    assert "matmul-fp32: crashed" in ran.stdout and "conv2d: ok" in ran.stdout
    assert ran.stdout.strip().splitlines()[-1].startswith("kernel check: 2 operation(s) failed")
    (site / "mode.txt").write_text("ok")
    ran = subprocess.run([python, "-c", verify_script()], capture_output=True, text=True,
                         timeout=300, check=False)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.strip().endswith("every operation matched the CPU")


def test_several_gpus_are_checked_and_reported_each_on_its_own(standin, tmp_path) -> None:
    """Two GPUs, the matrix product aborting on the second only: each device has its own
    worker, so GPU 0 passes whole, GPU 1 names the crash, and the doctor puts each answer on
    its own GPU (``gpus[i].kernel_check``) of a recorded two-card machine. The multi-GPU path
    runs here with the stand-in: no machine with two AMD GPUs is at hand."""
    python, site = standin
    (site / "mode.txt").write_text("abort matmul devices=2 on=1")
    answer = run_kernel_check(LiveSystem(), python, ["0", "1"], start_timeout=30.0,
                              op_timeout=20.0)
    by_device = {d["device"]: {op["op"]: op["outcome"] for op in d["ops"]}
                 for d in answer["devices"]}
    assert set(by_device["0"].values()) <= {"ok", "skipped"}
    assert by_device["1"]["matmul-fp32"] == by_device["1"]["matmul-fp16"] == "crashed"
    assert by_device["1"]["conv2d"] == by_device["1"]["sdpa"] == "ok"
    machine = tmp_path / "machine"
    shutil.copytree(ROOT / "tests" / "fixtures" / "machines" / "rocm-multiple-2x-rx7900xtx",
                    machine, symlinks=True)
    (machine / "kernel-check.json").write_text(__import__("json").dumps(answer))
    data = run_doctor(SnapshotSystem(machine)).to_json()
    amd = [gpu for gpu in data["gpus"] if gpu["vendor"] == "amd"]
    assert [gpu["kernel_check"]["device"] for gpu in amd] == ["0", "1"]
    assert amd[0]["kernel_check"]["ok"] is True and amd[1]["kernel_check"]["ok"] is False
    crashed = [f for f in data["findings"] if f["id"] == "kernel-check-crashed"]
    assert len(crashed) == 1 and data["verdict"] != "Ready"
    assert "GPU 1, Radeon RX Vega (gfx900)" in crashed[0]["title"]  # which of the two
