"""The seeds' verification, line by line: the torch version, its HIP version, whether it sees the
GPU, the device's name, and a small matrix product on the GPU compared with the CPU.

A script runs in the chosen Python (with the variables rocmate wrote for the card, as a run in
that environment gets them) and prints one JSON object; a replayed machine answers with its
recorded ``torch-check.json``, or else with what its ``torch.json`` knows (no GPU computation can
be replayed). Each line says what to do when it is red.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.probe.environment import applied_env
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

    @property
    def ok(self) -> bool:
        return all(line.ok is not False for line in self.lines) and any(
            line.ok for line in self.lines)


def torch_check(system: System, python: str | None, timeout: float = 120.0) -> TorchCheck:
    exe = python or default_python(system)
    answer = system.answer("torch-check", lambda machine: _run(machine, exe, timeout))
    if answer is not None:
        return lines_from(answer, exe)
    recorded = system.answer("torch", lambda machine: {}) or {}  # a replay without a check
    return lines_from(_from_probe(recorded), python or str(recorded.get("python") or exe),
                      replayed=True)


def _run(system: System, exe: str, timeout: float) -> dict[str, Any]:
    _, extra = applied_env(system, exe)
    result = system.run([exe, "-I", "-c", CHECK_SCRIPT], timeout=timeout, extra_env=extra)
    if not result.found:
        return {"python": exe, "import_error": f"no Python at {exe}"}
    if result.timed_out:
        return {"python": exe, "hung": timeout}
    data = last_json_object(result.output)
    if data is not None:
        return data
    tail = (result.output.strip().splitlines() or ["no output"])[-1][:300]
    if result.returncode is not None and result.returncode < 0:
        return {"python": exe, "crashed": f"signal {-result.returncode}: {tail}"}
    return {"python": exe, "import_error": f"the check failed: {tail}"}


def _from_probe(torch: dict[str, Any]) -> dict[str, Any]:
    """What a replayed machine's torch.json says, in the check's terms (no GPU computation)."""
    if not torch.get("version"):
        return {"import_error": str(torch.get("error") or "PyTorch is not installed")}
    devices = torch.get("devices") or []
    return {"version": torch["version"], "hip": torch.get("hip"), "cuda": torch.get("cuda"),
            "available": bool(torch.get("available")),
            **({"device": str(devices[0])} if devices else {})}


RUN_THE_CHECK = "Run the system check: it names the cause and its fix."


def lines_from(data: dict[str, Any], python: str, *, replayed: bool = False) -> TorchCheck:
    """The check's lines from its answer."""
    lines: list[CheckLine] = []
    if data.get("hung"):
        lines.append(CheckLine("PyTorch", False, f"did not answer within {data['hung']:g} s",
                               "A hang on the GPU usually means a wrong HSA_OVERRIDE_GFX_VERSION "
                               "or a stuck driver (dmesg | grep -i amdgpu). " + RUN_THE_CHECK))
        return TorchCheck(python, tuple(lines), replayed)
    if data.get("crashed"):
        lines.append(CheckLine("PyTorch", False, f"crashed ({data['crashed']})",
                               RUN_THE_CHECK))
        return TorchCheck(python, tuple(lines), replayed)
    if data.get("import_error") or not data.get("version"):
        lines.append(CheckLine("PyTorch", False, str(data.get("import_error") or "not found"),
                               "Install PyTorch for ROCm: the set-up plan does (rocmate "
                               "install)."))
        return TorchCheck(python, tuple(lines), replayed)
    lines.append(CheckLine("PyTorch", True, str(data["version"])))
    hip = data.get("hip")
    lines.append(CheckLine("HIP (ROCm)", bool(hip), str(hip) if hip else (
        f"none: a CUDA {data['cuda']} build" if data.get("cuda") else "none: a CPU-only build"),
        "" if hip else "This PyTorch cannot use an AMD card: install the ROCm build (the "
                       "set-up plan does)."))
    available = bool(data.get("available"))
    lines.append(CheckLine("GPU visible (torch.cuda.is_available())", available,
                           "yes" if available else "no" + (
                               f" ({data['available_error']})" if data.get("available_error")
                               else ""),
                           "" if available else RUN_THE_CHECK))
    if not available:
        return TorchCheck(python, tuple(lines), replayed)
    device = data.get("device")
    lines.append(CheckLine("Device", bool(device), str(device or data.get("device_error")),
                           "" if device else RUN_THE_CHECK))
    if replayed:
        lines.append(CheckLine("Matrix product on the GPU", None,
                               "not run: this machine is replayed from a snapshot"))
    elif data.get("matmul_exception"):
        lines.append(CheckLine("Matrix product on the GPU", False, str(data["matmul_exception"]),
                               "The GPU could not run PyTorch's code: a wheel without the card's "
                               "target, or a wrong override. " + RUN_THE_CHECK))
    elif "matmul_ok" in data:
        ok = bool(data["matmul_ok"])
        lines.append(CheckLine(
            "Matrix product on the GPU", ok,
            f"same as the CPU (largest difference {data.get('matmul_error_max', 0):.2g})" if ok
            else f"WRONG: differs from the CPU by {data.get('matmul_error_max', 0):.3g}",
            "" if ok else "The card computes wrong numbers: most often an "
                          "HSA_OVERRIDE_GFX_VERSION that poses as another chip. " + RUN_THE_CHECK))
    return TorchCheck(python, tuple(lines), replayed)
