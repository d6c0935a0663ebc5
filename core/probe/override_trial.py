"""Trying an HSA_OVERRIDE_GFX_VERSION value for real: one throwaway process in the chosen Python
with the value set (or with none), a matrix product and a convolution on the GPU compared with
the CPU, under a time limit.

A wrong value can compute wrong numbers silently, crash the process (a memory access fault) or
hang the GPU, so each value runs alone, in its own process, and the outcome says which:
``works``, ``wrong`` (the GPU's numbers differ from the CPU's), ``crashed`` (a signal),
``hung`` (no answer within the limit), ``no-gpu`` (PyTorch sees no GPU with it) or ``failed``.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable
from dataclasses import dataclass, field

from core.i18n import t
from core.probe.environment import applied
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
    words: Callable[[], str] | None = field(default=None, compare=False, repr=False)
    """Makes :attr:`detail` again, in the language current then."""

    @property
    def works(self) -> bool:
        return self.outcome == "works"

    @property
    def detail_text(self) -> str:
        """:attr:`detail` in the current language."""
        return self.words() if self.words is not None else self.detail

    @property
    def outcome_text(self) -> str:
        """The outcome in the current language (:attr:`outcome` is the id)."""
        return outcome_text(self.outcome)


def outcome_text(outcome: str) -> str:
    """An outcome (one of :data:`OUTCOMES`) as a person reads it, in the current language."""
    words = {
        "works": t("override.outcome.works", "works"),
        "wrong": t("override.outcome.wrong", "wrong"),
        "crashed": t("override.outcome.crashed", "crashed"),
        "hung": t("override.outcome.hung", "hung"),
        "no-gpu": t("override.outcome.no-gpu", "no-gpu"),
        "failed": t("override.outcome.failed", "failed"),
    }
    return words.get(outcome, outcome)


def run_trial(system: System, python: str, value: str | None, timeout: float) -> Trial:
    """One value, one fresh process (never two at once: the caller waits for each)."""
    # the other variables rocmate wrote for the card
    env: dict[str, str | None] = {**applied(system, python).for_run(), OVERRIDE: value}
    result = system.run([python, "-I", "-c", TRIAL_SCRIPT], timeout=timeout, extra_env=env)
    if not result.found:
        return _trial(value, "failed", lambda: t("probe.no-python", "no Python at {python}",
                                                 python=python))
    if result.timed_out:
        return _trial(value, "hung", lambda: t("override.detail.no-answer",
                                               "no answer within {seconds} s",
                                               seconds=f"{timeout:g}"))
    code = result.returncode
    tail = _tail(result.output)
    if code is not None and code < 0:
        number = -code

        def name() -> str:
            try:
                return signal.Signals(number).name
            except ValueError:
                return t("override.detail.signal", "signal {number}", number=number)
        if tail:
            return _trial(value, "crashed", lambda: t("override.detail.killed.output",
                                                      "killed by {signal}: {output}",
                                                      signal=name(), output=tail))
        return _trial(value, "crashed", lambda: t("override.detail.killed",
                                                  "killed by {signal}", signal=name()))
    answer = last_json_object(result.output) or {}
    if answer.get("outcome") in OUTCOMES:
        detail = str(answer.get("detail") or "")
        return _trial(value, str(answer["outcome"]), lambda: _said(detail))
    outcome = "crashed" if code else "failed"
    if tail:
        return _trial(value, outcome, lambda: t("override.detail.exit-status.output",
                                                "exit status {code}: {output}", code=code,
                                                output=tail))
    return _trial(value, outcome, lambda: t("override.detail.exit-status",
                                            "exit status {code}", code=code))


def _trial(value: str | None, outcome: str, words: Callable[[], str]) -> Trial:
    return Trial(value, outcome, words(), words)


def _said(detail: str) -> str:
    """The script's own words in the current language (it answers in English); an error it
    caught, as it is."""
    if detail == "torch.cuda.is_available() is False":
        return t("override.detail.no-gpu", "{call} is False", call="torch.cuda.is_available()")
    found = re.fullmatch(r"largest relative difference (\S+)", detail)
    if found:
        return t("override.detail.difference", "largest relative difference {difference}",
                 difference=found[1])
    return detail


def _tail(output: str) -> str:
    """The last line the process printed (shortened), "" when it printed none."""
    lines = [line for line in output.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""
