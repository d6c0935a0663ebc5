"""How much memory to give an integrated AMD GPU, with the numbers (issue 35).

Pure arithmetic over :class:`~core.probe.memory.MemoryFacts` and the APU memory table
(resources/data/apu_memory.toml): what stays for the system (the floor), the most the GPU may
safely map, what a goal needs, and the ttm setting that gives it (GiB x 262144 pages of 4 KiB).
The doctor's memory findings and ``rocmate memory`` both use it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from core.i18n import local
from core.knowledge.apu_memory import ApuMemoryTable, Note, load_apu_memory
from core.probe.memory import MemoryFacts

GIB = 1 << 30

# MemoryAdvice.verdict
ENOUGH = "enough"
"""The GPU can already use what the goal needs."""
RAISE = "raise"
"""It can use less; raising GTT to :attr:`MemoryAdvice.target_gib` gives it (a restart)."""
TOO_BIG = "too-big"
"""The goal needs more than the machine can safely give."""
UNKNOWN = "unknown"
"""The machine's RAM is not known, so no safe amount can be said."""

NIXOS_NOTE = "how-to-set-nixos"
"""The table's "how-to-set" for NixOS, whose /etc/modprobe.d is made from the system's
configuration (``boot.extraModprobeConfig``), not written by hand."""


def gib(value: int | float | None) -> str:
    """Bytes as people read an APU's memory: ``62.5 GiB``; ``?`` when not known."""
    return "?" if value is None else f"{value / GIB:.1f} GiB"


@dataclass(frozen=True)
class Goal:
    """What the user wants to run: a benchmark choice, an LLM of a size, or the most the
    machine can safely give (``need_bytes`` None)."""

    kind: str
    """``max``, ``bench`` or ``llm``."""
    label: str
    need_bytes: int | None = None


MAX_GOAL = Goal("max", "max")


@dataclass(frozen=True)
class AdviceNote:
    """A note of the table in the current language, its numbers filled in."""

    key: str
    text: str
    source: str


@dataclass(frozen=True)
class MemoryAdvice:
    gpu: str
    memory: MemoryFacts
    goal: Goal
    ram_bytes: int | None
    floor_bytes: int | None
    safe_bytes: int | None
    usable_bytes: int | None
    verdict: str
    target_gib: int | None
    """The GTT size to set (whole GiB), or None when nothing should change or is known."""
    pages: int | None
    """ttm's ``pages_limit`` (and ``page_pool_size``) for :attr:`target_gib`."""
    floor_reasoning: str
    floor_source: str
    notes: tuple[AdviceNote, ...]
    distro: str | None = None
    """The machine's os-release ID: how a limit is set depends on it (NixOS)."""

    def to_json(self) -> dict[str, object]:
        return {
            "gpu": self.gpu,
            "goal": {"kind": self.goal.kind, "label": self.goal.label,
                     "need_bytes": self.goal.need_bytes},
            "ram_bytes": self.ram_bytes,
            "floor_bytes": self.floor_bytes,
            "safe_bytes": self.safe_bytes,
            "usable_bytes": self.usable_bytes,
            "verdict": self.verdict,
            "target_gib": self.target_gib,
            "pages_limit": self.pages,
            "floor": {"reasoning": str(self.floor_reasoning), "source": self.floor_source},
            "notes": [{"key": n.key, "text": n.text, "source": n.source}
                      for n in self.notes],
            "memory": self.memory.to_json(),
        }


def advise(gpu: str, memory: MemoryFacts, goal: Goal = MAX_GOAL,
           table: ApuMemoryTable | None = None, distro: str | None = None) -> MemoryAdvice:
    """What to give the GPU for ``goal`` on this machine (``distro``: its os-release ID)."""
    table = table or load_apu_memory()
    ram = memory.system.ram_bytes
    usable = memory.usable_bytes
    floor = table.floor_bytes(ram) if ram else None
    safe = table.safe_bytes(ram) if ram else None
    verdict, target = UNKNOWN, None
    if goal.need_bytes is not None and usable is not None and usable >= goal.need_bytes:
        verdict = ENOUGH  # whatever the RAM: the GPU already has what the goal needs
    elif safe is not None:
        most = int(safe // GIB)
        need = goal.need_bytes
        if need is None:
            want = most
            verdict = ENOUGH if usable is not None and usable >= want * GIB else RAISE
        elif usable is not None and usable >= need:
            want, verdict = None, ENOUGH
        elif need > safe:
            want, verdict = most, TOO_BIG
        else:
            want, verdict = math.ceil(need / GIB), RAISE
        target = want if verdict != ENOUGH else None
    keys = ["carve-out-vs-gtt", "expandable-segments", "how-to-set"]
    if memory.configured("amdgpu.gttsize", "amdgpu.gtt_size"):
        keys.insert(0, "gttsize-deprecated")
    return MemoryAdvice(
        gpu=gpu, memory=memory, goal=goal, ram_bytes=ram, floor_bytes=floor, safe_bytes=safe,
        usable_bytes=usable, verdict=verdict, target_gib=target,
        pages=table.pages(target) if target else None,
        floor_reasoning=table.floor_reasoning, floor_source=table.floor_source,
        notes=tuple(_note(table, _how_to_set(table, distro) if k == "how-to-set"
                          else table.note(k), target) for k in keys),
        distro=distro,
    )


def _how_to_set(table: ApuMemoryTable, distro: str | None) -> Note:
    """How to set the limit on this distribution: NixOS's own note where the table has one."""
    if distro == "nixos":
        nixos = next((n for n in table.notes if n.key == NIXOS_NOTE), None)
        if nixos is not None:
            return replace(nixos, key="how-to-set")
    return table.note("how-to-set")


def _note(table: ApuMemoryTable, note: Note, target_gib: int | None) -> AdviceNote:
    text = local(note.text)
    if note.key == "how-to-set":
        gib_text = str(target_gib) if target_gib else "N"
        pages = str(table.pages(target_gib)) if target_gib else "N x 262144"
        text = text.replace("{pages}", pages).replace("{gib}", gib_text)
    return AdviceNote(note.key, text, note.source)
