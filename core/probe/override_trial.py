"""Trying an HSA_OVERRIDE_GFX_VERSION value for real: one throwaway process in the chosen Python
with the value set (or with none), a matrix product and a convolution on the GPU compared with
the CPU, under a time limit.

A wrong value can compute wrong numbers silently, crash the process (a memory access fault) or
hang the GPU, so each value runs alone, in its own process, and the outcome says which:
``works``, ``wrong`` (the GPU's numbers differ from the CPU's), ``crashed`` (a signal),
``hung`` (no answer within the limit), ``no-gpu`` (PyTorch sees no GPU with it) or ``failed``.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

from core.probe.environment import applied_env
from core.probe.parse._text import last_json_object
from core.system import System

OVERRIDE = "HSA_OVERRIDE_GFX_VERSION"
OUTCOMES = ("works", "wrong", "crashed", "hung", "no-gpu", "failed")

TRIAL_SCRIPT = r"""
import json, sys
def say(**fields):
    print(json.dumps(fields), flush=True); sys.exit(0)
try:
    import torch
except Exception as exc:
    say(outcome="failed", detail=f"{type(exc).__name__}: {exc}")
if not torch.cuda.is_available():
    say(outcome="no-gpu", detail="torch.cuda.is_available() is False")
torch.manual_seed(0)
a, b = torch.randn(128, 128), torch.randn(128, 128)
x, w = torch.randn(2, 3, 32, 32), torch.randn(8, 3, 3, 3)
worst = 0.0
for cpu, gpu in ((a @ b, (a.cuda() @ b.cuda()).cpu()),
                 (torch.nn.functional.conv2d(x, w),
                  torch.nn.functional.conv2d(x.cuda(), w.cuda()).cpu())):
    torch.cuda.synchronize()
    scale = float(cpu.abs().max()) or 1.0
    worst = max(worst, float((gpu - cpu).abs().max()) / scale)
    if not torch.isfinite(gpu).all():
        worst = float("inf")
say(outcome="works" if worst < 1e-2 else "wrong", detail=f"largest relative difference {worst:.2g}",
    device=torch.cuda.get_device_name(0))
"""


@dataclass(frozen=True)
class Trial:
    value: str | None
    """The override tried; None: without one."""
    outcome: str
    detail: str = ""

    @property
    def works(self) -> bool:
        return self.outcome == "works"


def run_trial(system: System, python: str, value: str | None, timeout: float) -> Trial:
    """One value, one fresh process (never two at once: the caller waits for each)."""
    _, extra = applied_env(system, python)  # the other variables rocmate wrote for the card
    env: dict[str, str | None] = {**extra, OVERRIDE: value}
    result = system.run([python, "-I", "-c", TRIAL_SCRIPT], timeout=timeout, extra_env=env)
    if not result.found:
        return Trial(value, "failed", f"no Python at {python}")
    if result.timed_out:
        return Trial(value, "hung", f"no answer within {timeout:g} s")
    code = result.returncode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return Trial(value, "crashed", f"killed by {name}{_tail(result.output)}")
    answer = last_json_object(result.output) or {}
    if answer.get("outcome") in OUTCOMES:
        return Trial(value, str(answer["outcome"]), str(answer.get("detail") or ""))
    return Trial(value, "crashed" if code else "failed",
                 f"exit status {code}{_tail(result.output)}")


def _tail(output: str) -> str:
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return f": {lines[-1][:200]}" if lines else ""
