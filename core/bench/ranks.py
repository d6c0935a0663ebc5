"""Watching the ranks of a data-parallel run: their pulses, and what a stall means.

Each rank of ``rocmate bench --gpus N`` rewrites a pulse file (core.bench.worker.parallel.Pulse)
in a folder the runner gives it: its pid, the steps it finished and the collectives it entered.
From the pulses and the ranks' process states the runner's watchdog says which rank holds the
others up, and how (:func:`diagnose`):

``stopped``     its pulse went silent and its process is stopped (SIGSTOP, a debugger), or its
                pulse is silent while the others' go on (frozen, or never started)
``behind``      it is alive but entered fewer collectives than the others: it never reached the
                one they wait in (stuck in its own step: a GPU hang, a kernel that never ends)
``collective``  every rank entered the same collective and it never completed (the link between
                the GPUs, or RCCL/NCCL itself: the seeds' "multi-GPU training hangs")

:func:`collective_log` picks from the ranks' stderr what the run log keeps of a stall: the
collective library's lines (NCCL/RCCL, gloo, ProcessGroup, a timed-out collective) and the
Python stacks the ranks print on SIGUSR1. Pure functions but :func:`read_pulses` and
:func:`process_state`, which read the runner's own folder and its own children in /proc, and
:func:`collective_timed_out`, which reads the knowledge base's error texts (once per process).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.knowledge.loader import Knowledge, load_knowledge

StallKind = Literal["stopped", "behind", "collective"]

STOPPED_STATES = ("T", "t")
"""/proc/PID/stat states of a process that will not run until somebody continues it."""

TIMEOUT_PATTERN = "collective-timeout"
"""The row of resources/data/explain.toml whose texts say that a collective timed out."""
_LOG_LINE = re.compile(r"NCCL|RCCL|gloo|ProcessGroup|c10d|Watchdog caught|Timed out|collective",
                       re.IGNORECASE)
_STACK_HEAD = re.compile(r"^(?:Current thread|Thread) 0x[0-9a-f]+")
LOG_LINES = 200


@dataclass(frozen=True)
class RankPulse:
    """A rank's last pulse: ``t`` is the wall clock of its last write."""

    rank: int
    pid: int
    steps: int
    collectives: int
    t: float


def parse_pulse(text: str) -> RankPulse | None:
    """One pulse file's text, or None when it is not one."""
    try:
        data = json.loads(text)
        pulse = RankPulse(rank=int(data["rank"]), pid=int(data["pid"]),
                          steps=int(data["steps"]), collectives=int(data["collectives"]),
                          t=float(data["t"]))
    except (ValueError, TypeError, KeyError, RecursionError):
        return None
    return pulse if pulse.rank >= 0 and pulse.pid > 0 else None


def read_pulses(folder: Path) -> dict[int, RankPulse]:
    """Every rank's last pulse in ``folder`` (``rank<R>.json``), by rank."""
    pulses: dict[int, RankPulse] = {}
    try:
        files = sorted(folder.glob("rank*.json"))
    except OSError:
        return pulses
    for file in files:
        try:
            pulse = parse_pulse(file.read_text())
        except OSError:
            continue
        if pulse is not None:
            pulses[pulse.rank] = pulse
    return pulses


def process_state(pid: int) -> str | None:
    """The state letter of a process (``R``, ``S``, ``D``, ``T`` ...), None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    state = fields[0] if fields else None
    return None if state in (None, "Z", "X") else state


@dataclass(frozen=True)
class Stall:
    """Which ranks hold a data-parallel run up, and how."""

    kind: StallKind
    ranks: tuple[int, ...]
    world: int
    silent_s: float = 0.0  # "stopped": how long their pulse had been silent
    process_stopped: bool = False  # "stopped": the process is in the stopped state
    step: int = 0  # "behind": the steps they had finished
    started: bool = True  # "stopped": False when they never wrote a pulse

    def message(self, waited_s: float) -> str:
        """The run's error message (English, like every protocol message)."""
        who = _ranks_words(self.ranks, self.world)
        if self.kind == "stopped":
            how = ("its process is stopped" if self.process_stopped
                   else f"no sign of life for {self.silent_s:.0f} s" if self.started
                   else "it never gave a sign of life")
            return f"{who} stopped answering ({how}) and the run was stopped"
        if self.kind == "behind":
            return (f"{who} never reached the collective that the other ranks waited in for "
                    f"{waited_s:.0f} s: stuck after {self.step} steps (a GPU hang, or a kernel "
                    "that never ends)")
        return (f"all {self.world} ranks waited {waited_s:.0f} s in the same collective and it "
                "never completed (the link between the GPUs, or RCCL/NCCL)")

    def fields(self) -> dict[str, object]:
        """What the error event adds: ``stall`` and ``ranks``."""
        return {"stall": self.kind, "ranks": list(self.ranks)}


def _ranks_words(ranks: tuple[int, ...], world: int) -> str:
    if len(ranks) == 1:
        return f"rank {ranks[0]} of {world}"
    return f"ranks {', '.join(map(str, ranks))} of {world}"


def stopped_ranks(pulses: Mapping[int, RankPulse], states: Mapping[int, str | None],
                  now: float, silent_after_s: float) -> tuple[int, ...]:
    """The ranks whose process is stopped and whose pulse has been silent for
    ``silent_after_s``: the watchdog ends the run for them at once."""
    return tuple(r for r, p in sorted(pulses.items())
                 if states.get(r) in STOPPED_STATES and now - p.t >= silent_after_s)


def diagnose(pulses: Mapping[int, RankPulse], world: int, now: float,
             states: Mapping[int, str | None] | None = None,
             silent_after_s: float = float("inf")) -> Stall | None:
    """Which ranks hold the others up. With ``states`` (the run is live) a rank whose process
    is stopped, or whose pulse has been silent for ``silent_after_s`` while others' go on, or
    that never wrote one, counts as stopped; without them (the run has ended) only the counts
    speak. None when no rank wrote a pulse."""
    if not pulses:
        return None
    if states is not None:
        stopped = tuple(r for r in sorted(pulses) if states.get(r) in STOPPED_STATES)
        silent = stopped or tuple(r for r, p in sorted(pulses.items())
                                  if now - p.t >= silent_after_s and states.get(r) is not None)
        if stopped or (silent and len(silent) < len(pulses)):  # silent alone: while others go on
            oldest = min(pulses[r].t for r in silent)
            return Stall("stopped", silent, world, silent_s=max(0.0, now - oldest),
                         process_stopped=bool(stopped))
        missing = tuple(r for r in range(world) if r not in pulses)
        if missing:
            return Stall("stopped", missing, world, started=False)
    entered = {r: p.collectives for r, p in pulses.items()}
    least = min(entered.values())
    behind = tuple(r for r in sorted(entered) if entered[r] == least)
    if len(behind) < len(entered):
        return Stall("behind", behind, world, step=pulses[behind[0]].steps)
    return Stall("collective", tuple(sorted(entered)), world)


def collective_timed_out(text: str, kb: Knowledge | None = None) -> bool:
    """Whether a rank's words say that a collective timed out (gloo's "Timed out waiting ...
    ms", NCCL/RCCL's "Watchdog caught collective operation timeout"): the texts of
    ``rocmate explain``'s ``collective-timeout`` row."""
    pattern = (kb or load_knowledge()).pattern(TIMEOUT_PATTERN)
    return pattern is not None and pattern.matches(text)


def collective_log(text: str, limit: int = LOG_LINES) -> list[str]:
    """The lines of the ranks' words (stderr, their error events) that the run log keeps of a
    stall: the collective library's, and the Python stacks the ranks printed (faulthandler's
    blocks: a ``Thread 0x...`` line and the ``File`` lines under it)."""
    kept: list[str] = []
    in_stack = False
    for line in text.splitlines():
        line = line.rstrip()
        if _STACK_HEAD.match(line):
            in_stack = True
        elif in_stack and line.startswith("  File "):
            pass
        else:
            in_stack = False
            if not _LOG_LINE.search(line):
                continue
        kept.append(line)
    return kept[-limit:]
