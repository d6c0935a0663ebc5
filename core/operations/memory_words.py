"""An APU's memory advice in words, for every front end: the facts as (label, value) rows, the
goal, what to do, and the notes with their sources. The terminal lays them out in columns, the
app in a form: both say the same words (core's catalogue), in the current language."""

from __future__ import annotations

from dataclasses import dataclass

from core.diagnose.memory_advice import ENOUGH, RAISE, TOO_BIG, MemoryAdvice, gib
from core.i18n import t
from core.install.helper.policy import TTM_CONF
from core.probe.memory import DEFAULT, GTTSIZE, PAGE_BYTES, PAGES_LIMIT, Setting


@dataclass(frozen=True)
class Said:
    """A paragraph of the advice and where its fact comes from ("" when it is rocmate's)."""

    text: str
    source: str = ""


def fact_rows(advice: MemoryAdvice) -> list[tuple[str, str]]:
    """What the machine has and the GPU can use now, as (label, value)."""
    memory = advice.memory
    system = memory.system
    rows = [(t("cli.memory.ram", "Physical RAM"), gib(system.ram_bytes))]
    if system.available_bytes is not None:
        rows.append((t("cli.memory.available", "Available now"), gib(system.available_bytes)))
    rows.append((t("cli.memory.carve-out", "BIOS carve-out (VRAM)"), gib(memory.vram_bytes)))
    rows.append((t("cli.memory.gtt", "GTT"),
                 t("cli.memory.gtt-value", "{size} (set by {source})", size=gib(memory.gtt_bytes),
                   source=source_words(memory.gtt_source))
                 if memory.gtt_bytes is not None else "?"))
    if system.pages_limit is not None or system.page_pool_size is not None:
        limit = gib(system.pages_limit * PAGE_BYTES if system.pages_limit else None)
        rows.append((t("cli.memory.ttm", "{module} in force", module=system.ttm_module),
                     f"pages_limit={_or_unknown(system.pages_limit)} ({limit}), "
                     f"page_pool_size={_or_unknown(system.page_pool_size)}"))
    for setting in system.configured:
        rows.append((t("cli.memory.configured", "Configured"),
                     f"{setting.name}={setting.value} ({setting.where})"
                     + _ours_in_force(setting, system.pages_limit)))
    if memory.torch_total_bytes:
        rows.append((t("cli.memory.torch", "PyTorch reports"), gib(memory.torch_total_bytes)))
    if system.wsl_memory_bytes:
        rows.append((t("cli.memory.wsl", "WSL limit (.wslconfig)"),
                     gib(system.wsl_memory_bytes)))
    rows.append((t("cli.memory.usable", "The GPU can use"), gib(advice.usable_bytes)))
    return rows


def source_words(source: str) -> str:
    """Where the GTT size comes from, in words."""
    return {DEFAULT: t("cli.memory.source.default", "the kernel's default (half of RAM)"),
            GTTSIZE: "amdgpu.gttsize", PAGES_LIMIT: "ttm.pages_limit"}.get(
        source, t("cli.memory.source.unknown", "not known"))


def goal_words(advice: MemoryAdvice) -> str:
    """The goal the advice is for: the most the machine can give, or what a goal needs."""
    goal = advice.goal
    if goal.kind == "max":
        return t("cli.memory.goal.max", "the most the machine can safely give")
    if goal.need_bytes is None:
        return t("cli.memory.goal.sizes-itself", "{goal} (it sizes itself to what the GPU can "
                 "use: the more, the larger)", goal=goal.label)
    return t("cli.memory.goal.needs", "{goal}, which needs about {need}", goal=goal.label,
             need=gib(goal.need_bytes))


def limit_rows(advice: MemoryAdvice) -> list[tuple[str, str]]:
    """What stays for the system and what is safe for the GPU (none where RAM is unknown)."""
    if advice.safe_bytes is None:
        return []
    return [(t("cli.memory.floor", "Stays for the system"), gib(advice.floor_bytes)),
            (t("cli.memory.safe", "Safe for the GPU"), gib(advice.safe_bytes))]


def verdict_words(advice: MemoryAdvice) -> str:
    """What to do: nothing, the ttm setting that gives the goal, or that it does not fit."""
    if advice.verdict == ENOUGH:
        return t("cli.memory.verdict.enough", "Nothing to change: the GPU can already use "
                 "{usable}.", usable=gib(advice.usable_bytes))
    if advice.verdict == TOO_BIG:
        return t("cli.memory.verdict.too-big", "The goal needs more than the machine can safely "
                 "give: at most {gib} GiB (ttm pages_limit={pages}); a smaller model or batch "
                 "fits better.", gib=advice.target_gib, pages=advice.pages)
    if advice.verdict == RAISE:
        return t("cli.memory.verdict.raise", "Give the GPU {gib} GiB: ttm pages_limit={pages} "
                 "and page_pool_size={pages} ({gib} x 262144 pages of 4 KiB), then restart.",
                 gib=advice.target_gib, pages=advice.pages)
    if advice.safe_bytes is None:
        return t("cli.memory.no-ram", "The machine's RAM is not known (/proc/meminfo could not "
                 "be read), so rocmate cannot say how much is safe to give.")
    return ""


def explained(advice: MemoryAdvice) -> list[Said]:
    """Why the floor is what it is, and the notes that apply, each with its source."""
    said = []
    if advice.safe_bytes is not None:
        said.append(Said(t("cli.memory.floor-why", "Why this floor: {reasoning}",
                           reasoning=advice.floor_reasoning), advice.floor_source))
    for note in advice.notes:
        if note.key == "how-to-set" and not advice.target_gib:
            continue
        said.append(Said(note.text, note.source))
    return said


def _ours_in_force(setting: Setting, in_force: int | None) -> str:
    """For rocmate's own pages_limit (``rocmate memory apply``): whether the running kernel has
    it, or it waits for a restart."""
    if setting.where != TTM_CONF or setting.option != "pages_limit" or in_force is None:
        return ""
    if str(in_force) == setting.value:
        return " " + t("cli.memory.ours-in-force", "- in force")
    return " " + t("cli.memory.ours-after-restart", "- takes effect after a restart")


def _or_unknown(value: int | None) -> str:
    return "?" if value is None else str(value)
