"""Torch facts: what PyTorch in a chosen Python says about itself and the GPUs it sees.

A small script runs in that Python, in a subprocess with a timeout (importing torch can take many
seconds, and a broken ROCm install can hang it). Its answer is the ``torch.json`` of a snapshot.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

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


def run_torch_probe(system: System, python: str | None, timeout: float) -> dict[str, Any] | None:
    """Run the probe script in ``python``; the answer, or an answer that carries the error."""
    from core.probe.environment import applied_env  # local: that module imports this one

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


def managed_venv(home: str, xdg_data_home: str | None) -> str:
    """rocmate's managed environment: $XDG_DATA_HOME/rocmate/venv (~/.local/share by default)."""
    data_home = xdg_data_home or os.path.join(home, ".local", "share")
    return os.path.join(data_home, "rocmate", "venv")


def managed_python(system: System) -> str:
    """The Python of rocmate's managed environment (it may not exist yet)."""
    env = system.env()
    home = env.get("HOME") or system.user().home
    return os.path.join(managed_venv(home, env.get("XDG_DATA_HOME")), "bin", "python")


def default_python(system: System) -> str:
    """rocmate's managed environment if it exists, else python3."""
    managed = managed_python(system)
    return managed if system.exists(managed) else "python3"
