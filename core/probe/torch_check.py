"""The seeds' verification, line by line: the torch version, its HIP version, whether it sees the
GPU, the device's name, a small matrix product on the GPU compared with the CPU, and then the
kernel check's lines (core.probe.kernel_check: fp32/fp16/bf16 matrix products, a convolution and
attention on each GPU, each against the CPU in its own time limit) -- the same check the doctor's
verdict stands on.

A script runs in the chosen Python (with the variables rocmate wrote for the card, as a run in
that environment gets them) and prints one JSON object; a replayed machine answers with its
recorded ``torch-check.json``, or else with what its ``torch.json`` knows (no GPU computation can
be replayed). Each line says what to do when it is red.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from core.i18n import t
from core.probe.environment import applied
from core.probe.kernel_check import (
    OpResult,
    kernel_answer,
    kernel_check_from_json,
    library_of,
    message_line,
    op_name,
    what_happened,
)
from core.probe.managed_env import default_python
from core.probe.parse._text import last_json_object
from core.system import System

CHECK_SCRIPT = r"""
import json, sys
out = {"python": sys.executable}
def done():
    print(json.dumps(out)); sys.exit(0)
try:
    import torch
except Exception as exc:
    out["import_error"] = f"{type(exc).__name__}: {exc}"; done()
out["version"] = str(torch.__version__)
out["hip"] = getattr(torch.version, "hip", None)
out["cuda"] = getattr(torch.version, "cuda", None)
try:
    out["available"] = bool(torch.cuda.is_available())
except Exception as exc:
    out["available"] = False; out["available_error"] = f"{type(exc).__name__}: {exc}"
if not out["available"]:
    done()
try:
    out["device"] = torch.cuda.get_device_name(0)
    out["device_count"] = torch.cuda.device_count()
except Exception as exc:
    out["device_error"] = f"{type(exc).__name__}: {exc}"; done()
try:
    torch.manual_seed(0)
    a = torch.randn(256, 256)
    b = torch.randn(256, 256)
    want = a @ b
    got = (a.cuda() @ b.cuda()).cpu()
    torch.cuda.synchronize()
    out["matmul_error_max"] = float((got - want).abs().max())
    out["matmul_ok"] = bool(torch.allclose(got, want, rtol=1e-2, atol=1e-2))
except Exception as exc:
    out["matmul_exception"] = f"{type(exc).__name__}: {exc}"
done()
"""


@dataclass(frozen=True)
class CheckLine:
    name: str
    ok: bool | None
    """True green, False red, None not checked (an earlier line failed, or a replay)."""
    value: str
    fix: str = ""


@dataclass(frozen=True)
class TorchCheck:
    python: str
    lines: tuple[CheckLine, ...]
    replayed: bool = False
    computed: bool = False
    """Something ran on the card and matched the CPU (the matrix product, the kernel check)."""
    answer: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """What the check answered (English, as recorded): its lines are made from it."""

    @property
    def ok(self) -> bool:
        return all(line.ok is not False for line in self.lines) and any(
            line.ok for line in self.lines)

    @property
    def proved(self) -> bool:
        """Nothing failed and computations ran on the card and matched the CPU (a replay
        without a recorded kernel check ran nothing there: PyTorch is not proved to work)."""
        return self.ok and self.computed


NO_OUTPUT = "no output"
"""What the check's answer says (in English) of a Python that printed nothing."""


def torch_check(system: System, python: str | None, timeout: float = 120.0, *,
                kernels: bool = True) -> TorchCheck:
    """The check in ``python``; with ``kernels``, where PyTorch sees a GPU, the kernel check
    too (run on a live machine, its record on a replayed one), its answer kept under
    ``kernel_check`` in :attr:`TorchCheck.answer`."""
    exe = python or default_python(system)
    answer = system.answer("torch-check", lambda machine: _run(machine, exe, timeout))
    if answer is not None:
        return lines_from(_with_kernels(system, exe, answer, kernels), exe)
    recorded = system.answer("torch", lambda machine: {}) or {}  # a replay without a check
    exe = python or str(recorded.get("python") or exe)
    return lines_from(_with_kernels(system, exe, _from_probe(recorded), kernels), exe,
                      replayed=True)


def _with_kernels(system: System, exe: str, answer: dict[str, Any],
                  kernels: bool) -> dict[str, Any]:
    if not kernels or not answer.get("available") or not answer.get("device") \
            or "kernel_check" in answer:
        return answer
    count = answer.get("device_count")
    count = count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1
    found = kernel_answer(system, exe, [str(i) for i in range(count)])
    return {**answer, "kernel_check": found} if found is not None else answer


def _run(system: System, exe: str, timeout: float) -> dict[str, Any]:
    extra = applied(system, exe).for_run()
    result = system.run([exe, "-I", "-c", CHECK_SCRIPT], timeout=timeout, extra_env=extra)
    if not result.found:
        return {"python": exe, "import_error": f"no Python at {exe}"}
    if result.timed_out:
        return {"python": exe, "hung": timeout}
    data = last_json_object(result.output)
    if data is not None:
        return data
    tail = (result.output.strip().splitlines() or [NO_OUTPUT])[-1][:300]
    if result.returncode is not None and result.returncode < 0:
        return {"python": exe, "crashed": f"signal {-result.returncode}: {tail}"}
    return {"python": exe, "import_error": f"the check failed: {tail}"}


NOT_INSTALLED = "PyTorch is not installed"
"""The check's answer (English, like every answer) where a replayed machine has no PyTorch."""


def _from_probe(torch: dict[str, Any]) -> dict[str, Any]:
    """What a replayed machine's torch.json says, in the check's terms (no GPU computation)."""
    if not torch.get("version"):
        return {"import_error": str(torch.get("error") or NOT_INSTALLED)}
    devices = torch.get("devices") or []
    return {"version": torch["version"], "hip": torch.get("hip"), "cuda": torch.get("cuda"),
            "available": bool(torch.get("available")),
            **({"device": str(devices[0])} if devices else {})}


def run_the_check() -> str:
    """The fix of a red line whose cause the system check names."""
    return t("verify.fix.run-the-check", "Run the system check: it names the cause and its fix.")


def _import_error(text: str) -> str:
    """The PyTorch line's value where it has no version: the check's own words in the current
    language (its answer stays English), a tool's error as it is."""
    missing = re.fullmatch(r"no Python at (.*)", text, re.S)
    if missing:
        return t("probe.no-python", "no Python at {python}", python=missing[1])
    failed = re.fullmatch(r"the check failed: (.*)", text, re.S)
    if failed:
        output = failed[1] if failed[1] != NO_OUTPUT else t("probe.no-output",
                                                            "no output")
        return t("verify.pytorch.check-failed", "the check failed: {output}", output=output)
    if text == NOT_INSTALLED:
        return t("verify.pytorch.not-installed", "PyTorch is not installed")
    return text


def lines_from(data: dict[str, Any], python: str, *, replayed: bool = False) -> TorchCheck:
    """The check's lines from its answer, in the current language."""
    return replace(_lines_from(data, python, replayed=replayed), answer=data)


def reword(check: TorchCheck) -> TorchCheck:
    """The same check in the current language (nothing is run again)."""
    return lines_from(check.answer, check.python, replayed=check.replayed) if check.answer \
        else check


def _lines_from(data: dict[str, Any], python: str, *, replayed: bool = False) -> TorchCheck:
    lines: list[CheckLine] = []
    if data.get("hung"):
        lines.append(CheckLine(
            "PyTorch", False,
            t("verify.pytorch.hung", "did not answer within {seconds} s",
              seconds=f"{data['hung']:g}"),
            t("verify.pytorch.hung.fix", "A hang on the GPU usually means a wrong "
              "HSA_OVERRIDE_GFX_VERSION or a stuck driver ({command}). {run_the_check}",
              command="dmesg | grep -i amdgpu", run_the_check=run_the_check())))
        return TorchCheck(python, tuple(lines), replayed)
    if data.get("crashed"):
        lines.append(CheckLine("PyTorch", False,
                               t("verify.pytorch.crashed", "crashed ({error})",
                                 error=data["crashed"]),
                               run_the_check()))
        return TorchCheck(python, tuple(lines), replayed)
    if data.get("import_error") or not data.get("version"):
        error = data.get("import_error")
        lines.append(CheckLine("PyTorch", False, _import_error(str(error)) if error else t(
            "verify.pytorch.not-found", "not found"),
            t("verify.pytorch.install.fix", "Install PyTorch for ROCm: the set-up plan does "
              "({command}).", command="rocmate install")))
        return TorchCheck(python, tuple(lines), replayed)
    lines.append(CheckLine("PyTorch", True, str(data["version"])))
    hip = data.get("hip")
    if hip:
        hip_value = str(hip)
    elif data.get("cuda"):
        hip_value = t("verify.hip.cuda-build", "none: a CUDA {version} build",
                      version=data["cuda"])
    else:
        hip_value = t("verify.hip.cpu-only", "none: a CPU-only build")
    lines.append(CheckLine("HIP (ROCm)", bool(hip), hip_value, "" if hip else t(
        "verify.hip.fix", "This PyTorch cannot use an AMD card: install the ROCm build (the "
        "set-up plan does).")))
    available = bool(data.get("available"))
    if available:
        seen = t("verify.gpu-visible.yes", "yes")
    elif data.get("available_error"):
        seen = t("verify.gpu-visible.no-error", "no ({error})", error=data["available_error"])
    else:
        seen = t("verify.gpu-visible.no", "no")
    lines.append(CheckLine(t("verify.gpu-visible", "GPU visible ({call})",
                             call="torch.cuda.is_available()"), available, seen,
                           "" if available else run_the_check()))
    if not available:
        return TorchCheck(python, tuple(lines), replayed)
    device = data.get("device")
    lines.append(CheckLine(t("verify.device", "Device"), bool(device),
                           str(device or data.get("device_error")),
                           "" if device else run_the_check()))
    matmul = t("verify.matmul", "Matrix product on the GPU")
    kernels = _kernel_lines(data)
    if replayed and kernels:
        pass  # the recorded kernel check's lines say what ran on the card
    elif replayed:
        lines.append(CheckLine(matmul, None, t(
            "verify.matmul.replayed", "not run: this machine is replayed from a snapshot")))
    elif data.get("matmul_exception"):
        lines.append(CheckLine(matmul, False, str(data["matmul_exception"]), t(
            "verify.matmul.exception.fix", "The GPU could not run PyTorch's code: a wheel "
            "without the card's target, or a wrong override. {run_the_check}",
            run_the_check=run_the_check())))
    elif "matmul_ok" in data:
        ok = bool(data["matmul_ok"])
        difference = data.get("matmul_error_max", 0)
        lines.append(CheckLine(
            matmul, ok,
            t("verify.matmul.same", "same as the CPU (largest difference {difference})",
              difference=f"{difference:.2g}") if ok
            else t("verify.matmul.wrong", "WRONG: differs from the CPU by {difference}",
                   difference=f"{difference:.3g}"),
            "" if ok else t("verify.matmul.wrong.fix", "The card computes wrong numbers: most "
                            "often an HSA_OVERRIDE_GFX_VERSION that poses as another chip. "
                            "{run_the_check}", run_the_check=run_the_check())))
    lines.extend(kernels)
    computed = bool(data.get("matmul_ok")) or any(line.ok for line in kernels)
    return TorchCheck(python, tuple(lines), replayed, computed=computed)


def _kernel_lines(data: dict[str, Any]) -> list[CheckLine]:
    """One line per operation and GPU of the kernel check in ``data`` (none without one)."""
    check = kernel_check_from_json(data.get("kernel_check"))
    if check is None:
        return []
    build = "rocm" if data.get("hip") else "cuda" if data.get("cuda") else "cpu"
    several = len(check.devices) > 1
    lines = []
    for device in check.devices:
        where = f" · {device.name or device.device}" if several else ""
        if device.start is not None:
            lines.append(CheckLine(t("verify.kernel.start", "Kernel check{where}", where=where),
                                   False, _failed(device.start), run_the_check()))
        for op in device.ops:
            name = f"{op_name(op.op)} ({library_of(op, build)}){where}"
            if op.outcome == "ok":
                lines.append(CheckLine(name, True, t(
                    "verify.kernel.same", "same as the CPU (largest difference {difference})",
                    difference=f"{op.difference or 0:.2g}")))
            elif op.outcome == "skipped":
                lines.append(CheckLine(name, None, t("verify.kernel.skipped",
                                                     "not run: the card has no such type")))
            elif op.outcome != "not-run" or device.start is None:
                lines.append(CheckLine(name, False, _failed(op), run_the_check()))
    if check.problem and not any(line.ok is False for line in lines):
        lines.append(CheckLine(t("verify.kernel.start", "Kernel check{where}", where=""), False,
                               check.error or check.problem, run_the_check()))
    return lines


def _failed(op: OpResult) -> str:
    line = message_line(op) if op.outcome not in ("wrong", "hung") else ""
    what = what_happened(op)
    return f"{what}: {line}" if line else what
