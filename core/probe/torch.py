"""Torch facts: what PyTorch in a chosen Python says about itself and the GPUs it sees.

A small script runs in that Python, in a subprocess with a timeout (importing torch can take many
seconds, and a broken ROCm install can hang it). Its answer is the ``torch.json`` of a snapshot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.i18n import t
from core.probe.environment import applied
from core.probe.managed_env import default_python
from core.probe.parse._text import last_json_object
from core.system import System

DEFAULT_TIMEOUT = 90.0

# The first line says "a Python runs this script"; a program that is not a Python (or is one too
# old for it) never prints it. Everything after it is about PyTorch.
STARTED = "rocmate-torch-probe: started"

PROBE_SCRIPT = r"""
import json, sys
print("rocmate-torch-probe: started", flush=True)
out = {"python": sys.executable, "version": None, "hip": None, "cuda": None,
       "available": False, "device_count": 0, "devices": [], "arch_list": [],
       "gcn_arch": [], "total_memory": [], "error": None}
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
            out["total_memory"].append(getattr(props, "total_memory", None))
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
    problem: str | None = None
    """Why there is no answer about PyTorch at all (not "PyTorch is not installed"):
    ``python-missing`` (no program at that path), ``not-a-python`` (it ran, or could not be
    started, but is no Python that runs the probe), ``timeout`` (importing torch did not finish
    in time), ``crashed`` (the Python died, e.g. on a signal), ``failed`` (no answer otherwise),
    ``record-damaged`` (a replayed machine's torch.json is there but cannot be read).
    None when PyTorch answered, or is simply not installed."""
    timeout_s: float | None = None
    total_memory: tuple[int | None, ...] = field(default=())
    """``get_device_properties(i).total_memory`` of each device, in bytes (issue 35; absent from
    answers recorded before it)."""

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

    @property
    def error_text(self) -> str | None:
        """:attr:`error` as a person reads it: the probe's own words (recorded in English, as
        the answer is) in the current language, an error PyTorch or the Python printed as it
        is."""
        return _error_text(self.error, self.python)

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
            "problem": self.problem,
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
        problem=_problem(data),
        timeout_s=_timeout(data),
        total_memory=_sizes(data.get("total_memory")),
    )


def _sizes(value: object) -> tuple[int | None, ...]:
    """A list of byte counts as the probe wrote it; anything that is not one is None."""
    if not isinstance(value, list):
        return ()
    return tuple(v if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 1 << 62
                 else None for v in value)


_PROBLEMS = ("python-missing", "not-a-python", "timeout", "crashed", "failed")


def _problem(data: dict[str, Any]) -> str | None:
    """The answer's ``problem``; for an answer recorded before that key existed, read from its
    error text (the probe's own words)."""
    value = data.get("problem")
    if value in _PROBLEMS:
        return str(value)
    if data.get("version") not in (None, ""):
        return None
    error = str(data.get("error") or "")
    if error.startswith("Python not found"):
        return "python-missing"
    if error.startswith("the torch probe timed out"):
        return "timeout"
    if error.startswith("the torch probe failed"):
        return "failed"
    return None


def _error_text(error: str | None, python: str | None) -> str | None:
    """The words :func:`run_torch_probe` records for a problem, in the current language."""
    if not error:
        return error
    exe = re.escape(python or "")
    found = re.fullmatch(rf"({exe}) cannot be run \((.*)\)", error, re.S) if python else None
    if found:
        why = found[2] if found[2] != NOT_EXECUTABLE else t(
            "probe.torch.not-executable", "not an executable program")
        return t("probe.torch.cannot-run", "{python} cannot be run ({why})", python=found[1],
                 why=why)
    found = re.fullmatch(rf"({exe}) ran, but not as a Python \((.*)\)", error, re.S) \
        if python else None
    if found:
        return t("probe.torch.not-a-python", "{python} ran, but not as a Python ({output})",
                 python=found[1], output=_output(found[2]))
    found = re.fullmatch(r"the Python died on signal (\d+) while importing torch \((.*)\)",
                         error, re.S)
    if found:
        return t("probe.torch.died", "the Python died on signal {number} while importing torch "
                 "({output})", number=found[1], output=_output(found[2]))
    found = re.fullmatch(r"the torch probe failed: (.*)", error, re.S)
    if found:
        return t("probe.torch.failed", "the torch probe failed: {output}",
                 output=_output(found[1]))
    return error


def _output(text: str) -> str:
    return t("probe.no-output", "no output") if text == NO_OUTPUT else text


def _timeout(data: dict[str, Any]) -> float | None:
    value = data.get("timeout_s")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    found = re.search(r"timed out after ([0-9.]+) s", str(data.get("error") or ""))
    return float(found.group(1)) if found else None


NOT_EXECUTABLE = "not an executable program"
"""Why a program that printed nothing could not be run, in the answer's English."""
NO_OUTPUT = "no output"


def torch_answer(system: System, python: str | None, timeout: float) -> dict[str, Any] | None:
    """The torch probe's answer (the ``torch.json`` of a snapshot) for ``python`` (default: the
    managed environment's, else python3): run in that Python on a live machine, the recorded
    answer on a replayed one (None when none was recorded)."""
    return system.answer("torch", lambda machine: run_torch_probe(machine, python, timeout))


def run_torch_probe(system: System, python: str | None, timeout: float) -> dict[str, Any]:
    """Run the probe script in ``python``; the answer, or an answer that carries the problem
    (``problem``: see :attr:`TorchFacts.problem`) and the error in words."""
    exe = python or default_python(system)
    extra = applied(system, exe).for_run()  # as a run in that environment gets them
    result = system.run([exe, "-I", "-c", PROBE_SCRIPT], timeout=timeout, extra_env=extra)
    base: dict[str, Any] = {"python": exe, "version": None, "available": False}
    output = result.output.strip()
    started = STARTED in output
    if not result.found:
        if not system.exists(exe):
            return {**base, "problem": "python-missing", "error": f"Python not found: {exe}"}
        why = output.splitlines()[-1][:200] if output else NOT_EXECUTABLE
        return {**base, "problem": "not-a-python",
                "error": f"{exe} cannot be run ({why})"}
    if result.timed_out:
        stage = "importing torch" if started else "starting that Python"
        return {**base, "problem": "timeout", "timeout_s": timeout,
                "error": f"the torch probe timed out after {timeout:g} s ({stage} did not finish)"}
    answer = last_json_object(output)
    if answer is not None:
        return answer
    tail = output.splitlines()[-1:] or [NO_OUTPUT]
    if not started:
        return {**base, "problem": "not-a-python",
                "error": f"{exe} ran, but not as a Python ({tail[0][:300]})"}
    if result.returncode is not None and result.returncode < 0:
        return {**base, "problem": "crashed",
                "error": f"the Python died on signal {-result.returncode} while importing torch "
                         f"({tail[0][:200]})"}
    return {**base, "problem": "failed", "error": f"the torch probe failed: {tail[0][:300]}"}
