"""Torch facts: what PyTorch in a chosen Python says about itself and the GPUs it sees.

A small script runs in that Python, in a subprocess with a timeout (importing torch can take many
seconds, and a broken ROCm install can hang it). Its answer is the ``torch.json`` of a snapshot.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from core.probe.environment import applied_env
from core.probe.managed_env import default_python
from core.system import System

DEFAULT_TIMEOUT = 90.0

PROBE_SCRIPT = r"""
import json, sys
out = {"python": sys.executable, "version": None, "hip": None, "cuda": None,
       "available": False, "device_count": 0, "devices": [], "arch_list": [],
       "gcn_arch": [], "error": None}
try:
    import torch
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out)); sys.exit(0)
out["version"] = str(torch.__version__)
out["hip"] = getattr(torch.version, "hip", None)
out["cuda"] = getattr(torch.version, "cuda", None)
try:
    out["arch_list"] = list(torch.cuda.get_arch_list())
except Exception:
    pass
try:
    out["available"] = bool(torch.cuda.is_available())
    if out["available"]:
        out["device_count"] = torch.cuda.device_count()
        for i in range(out["device_count"]):
            props = torch.cuda.get_device_properties(i)
            out["devices"].append(props.name)
            out["gcn_arch"].append(getattr(props, "gcnArchName", None))
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
"""


@dataclass(frozen=True)
class TorchFacts:
    python: str | None
    version: str | None
    hip: str | None
    cuda: str | None
    available: bool
    device_count: int
    devices: tuple[str, ...]
    arch_list: tuple[str, ...]
    error: str | None
    gcn_arch: tuple[str | None, ...] = field(default=())

    @property
    def installed(self) -> bool:
        return self.version is not None

    @property
    def build(self) -> str:
        """ "rocm", "cuda", "cpu" or "missing"."""
        if not self.installed:
            return "missing"
        if self.hip:
            return "rocm"
        if self.cuda:
            return "cuda"
        return "cpu"

    @property
    def wheel_rocm(self) -> str | None:
        """The ROCm series the wheel was built for ("6.2") from its local tag or HIP version."""
        version = self.version or ""
        if "+rocm" in version:
            text = version.split("+rocm", 1)[1]
        elif self.hip:
            text = self.hip
        else:
            return None
        parts = re.findall(r"\d+", text)
        return f"{parts[0]}.{parts[1]}" if len(parts) >= 2 else None

    def to_json(self) -> dict[str, object]:
        return {
            "python": self.python,
            "version": self.version,
            "hip": self.hip,
            "cuda": self.cuda,
            "available": self.available,
            "device_count": self.device_count,
            "devices": list(self.devices),
            "arch_list": list(self.arch_list),
            "error": self.error,
        }


def torch_facts_from_json(data: dict[str, Any] | None) -> TorchFacts | None:
    """Read a probe answer (or a snapshot's torch.json), tolerating missing or odd fields."""
    if not isinstance(data, dict):
        return None

    def text(key: str) -> str | None:
        value = data.get(key)
        return str(value) if value not in (None, "") else None

    def strings(key: str) -> tuple[str, ...]:
        value = data.get(key)
        return tuple(str(v) for v in value) if isinstance(value, list) else ()

    count = data.get("device_count")
    devices = strings("devices")
    gcn = data.get("gcn_arch")
    return TorchFacts(
        python=text("python"),
        version=text("version"),
        hip=text("hip"),
        cuda=text("cuda"),
        available=bool(data.get("available")),
        device_count=count if isinstance(count, int) else len(devices),
        devices=devices,
        arch_list=strings("arch_list"),
        error=text("error"),
        gcn_arch=tuple(str(g) if g else None for g in gcn) if isinstance(gcn, list) else (),
    )


def torch_answer(system: System, python: str | None, timeout: float) -> dict[str, Any] | None:
    """The torch probe's answer (the ``torch.json`` of a snapshot) for ``python`` (default: the
    managed environment's, else python3): run in that Python on a live machine, the recorded
    answer on a replayed one (None when none was recorded)."""
    return system.answer("torch", lambda machine: run_torch_probe(machine, python, timeout))


def run_torch_probe(system: System, python: str | None, timeout: float) -> dict[str, Any]:
    """Run the probe script in ``python``; the answer, or an answer that carries the error."""
    exe = python or default_python(system)
    _, extra = applied_env(system, exe)  # as a run in that environment gets them
    result = system.run([exe, "-I", "-c", PROBE_SCRIPT], timeout=timeout, extra_env=extra)
    base: dict[str, Any] = {"python": exe, "version": None, "available": False}
    if not result.found:
        return {**base, "error": f"Python not found: {exe}"}
    if result.timed_out:
        return {**base, "error": f"the torch probe timed out after {timeout:.0f} s"}
    for line in reversed(result.output.strip().splitlines()):
        if line.startswith("{"):
            try:
                answer = json.loads(line)
            except ValueError:
                break
            return answer if isinstance(answer, dict) else {**base, "error": "odd answer"}
    tail = result.output.strip().splitlines()[-1:] or ["no output"]
    return {**base, "error": f"the torch probe failed: {tail[0][:300]}"}
