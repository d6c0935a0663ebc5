"""Rules about an integrated AMD GPU's memory (issue 35): what it may use and why, when that is
much less than the machine could safely give, and settings that are deprecated or disagree."""

from __future__ import annotations

from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.diagnose.memory_advice import GIB, RAISE, advise, gib
from core.i18n import t
from core.knowledge.apu_memory import load_apu_memory
from core.probe.gpus import Gpu
from core.probe.memory import (
    CMDLINE,
    DEFAULT,
    GTTSIZE,
    PAGE_BYTES,
    PAGES_LIMIT,
    MemoryFacts,
    Setting,
)
from core.probe.parse.memory import option_integer

MIB = 1 << 20


def _apus(ctx: Context) -> list[tuple[Gpu, MemoryFacts]]:
    return [(g, g.memory) for g in ctx.facts.gpus.gpus if g.memory is not None]


def _source_words(source: str) -> str:
    return {
        DEFAULT: t("doctor.apu-memory.source.default", "the kernel's default (half of RAM)"),
        GTTSIZE: t("doctor.apu-memory.source.gttsize", "amdgpu.gttsize"),
        PAGES_LIMIT: t("doctor.apu-memory.source.pages-limit", "ttm.pages_limit"),
    }.get(source, t("doctor.apu-memory.source.unknown", "not known"))


def _where(setting: Setting) -> str:
    """Where a setting lives, as the user edits it."""
    if setting.where == CMDLINE:
        return t("doctor.apu-memory.cmdline", "the kernel command line (the boot loader's "
                 "settings, such as GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub)")
    return setting.where


def _settings_words(settings: list[Setting] | tuple[Setting, ...]) -> str:
    return "; ".join(f"{s.name}={s.value} ({s.where})" for s in settings)


def apu_memory(ctx: Context) -> list[Finding]:
    """The facts, one info finding per integrated AMD GPU."""
    found = []
    for gpu, memory in _apus(ctx):
        if not memory.known:
            continue  # a snapshot recorded before these files were read: nothing to say
        system = memory.system
        lines = [
            t("doctor.apu-memory.no-ram", "Physical RAM: not known (/proc/meminfo could not "
              "be read).") if system.ram_bytes is None else
            t("doctor.apu-memory.ram", "Physical RAM (MemTotal): {ram}.",
              ram=gib(system.ram_bytes)) if system.available_bytes is None else
            t("doctor.apu-memory.ram-free", "Physical RAM (MemTotal): {ram}; available now "
              "(MemAvailable): {free}.", ram=gib(system.ram_bytes),
              free=gib(system.available_bytes)),
            t("doctor.apu-memory.carve-out", "BIOS carve-out (VRAM): {vram}.",
              vram=gib(memory.vram_bytes)),
            t("doctor.apu-memory.gtt", "GTT (system memory the GPU may map): {gtt}, set by "
              "{source}.", gtt=gib(memory.gtt_bytes), source=_source_words(memory.gtt_source))
            if memory.gtt_bytes is not None else
            t("doctor.apu-memory.no-gtt", "GTT (system memory the GPU may map): not known "
              "(mem_info_gtt_total could not be read)."),
        ]
        if system.pages_limit is not None:
            lines.append(t("doctor.apu-memory.ttm", "{module} in force: pages_limit={pages} "
                           "({size}), page_pool_size={pool}.", module=system.ttm_module or "ttm",
                           pages=system.pages_limit, size=gib(system.pages_limit * PAGE_BYTES),
                           pool=system.page_pool_size if system.page_pool_size is not None
                           else "?"))
        if system.configured:
            lines.append(t("doctor.apu-memory.configured", "Configured: {settings}.",
                           settings=_settings_words(system.configured)))
        if memory.torch_total_bytes:
            lines.append(t("doctor.apu-memory.torch", "PyTorch reports {total} "
                           "(total_memory).", total=gib(memory.torch_total_bytes)))
        if system.wsl_memory_bytes:
            lines.append(t("doctor.apu-memory.wsl", "WSL memory limit (.wslconfig): {limit}.",
                           limit=gib(system.wsl_memory_bytes)))
        found.append(Finding(
            "apu-memory", "info",
            t("doctor.apu-memory.title", "{gpu}: the GPU can use {usable} of {ram} of RAM",
              gpu=gpu.name, usable=gib(memory.usable_bytes), ram=gib(system.ram_bytes))
            if system.ram_bytes else
            t("doctor.apu-memory.title-no-ram", "{gpu}: the GPU can use {usable}; the machine's "
              "RAM is not known", gpu=gpu.name, usable=gib(memory.usable_bytes)),
            t("doctor.sentence-gap", " ").join(lines),
        ))
    return found


def apu_memory_low(ctx: Context) -> list[Finding]:
    """The GPU can use much less than the machine could safely give."""
    table = load_apu_memory()
    found = []
    for gpu, memory in _apus(ctx):
        advice = advise(gpu.name, memory, table=table, distro=ctx.facts.platform.distro_id)
        usable, safe = advice.usable_bytes, advice.safe_bytes
        if usable is None or safe is None or advice.verdict != RAISE:
            continue
        if usable >= table.low_fraction * safe or safe - usable < table.min_gap_gib * GIB:
            continue
        how = next(n.text for n in advice.notes if n.key == "how-to-set")
        found.append(Finding(
            "apu-memory-low", "warning",
            t("doctor.apu-memory-low.title", "The GPU can use only {usable} of {ram} of RAM; it "
              "could safely have {safe}", usable=gib(usable), ram=gib(advice.ram_bytes),
              safe=gib(safe)),
            t("doctor.apu-memory-low.detail", "{floor} stays for the system (rocmate memory "
              "says why). Programs see only what the GPU may map, so models and batches larger "
              "than {usable} fail or fall back to the CPU.", floor=gib(advice.floor_bytes),
              usable=gib(usable)),
            t("doctor.apu-memory-low.fix", "rocmate memory shows the advice for your goal. {how}",
              how=how),
        ))
    return found


def apu_gttsize_deprecated(ctx: Context) -> list[Finding]:
    """amdgpu.gttsize (deprecated) or amdgpu.gtt_size (no parameter) configured."""
    found = []
    for _gpu, memory in _apus(ctx):
        settings = memory.configured("amdgpu.gttsize", "amdgpu.gtt_size")
        if not settings:
            continue
        found.append(Finding(
            "apu-gttsize-deprecated", "warning",
            t("doctor.apu-gttsize.title", "amdgpu.gttsize is configured: it is deprecated"),
            t("doctor.sentence-gap", " ").join([
                t("doctor.apu-gttsize.detail", "Configured: {settings}. The kernel says "
                  "'Configuring gttsize via module parameter is deprecated, please use "
                  "ttm.pages_limit'; how much PyTorch may use follows ttm's pages_limit.",
                  settings=_settings_words(settings)),
                *([t("doctor.apu-gttsize.ignored", "'amdgpu.gtt_size' is not a parameter at "
                     "all: the kernel ignores it.")]
                  if any(s.option == "gtt_size" for s in settings) else []),
            ]),
            t("doctor.apu-gttsize.fix", "Remove it from {where} and set ttm's pages_limit "
              "instead (rocmate memory shows the numbers).",
              where=", ".join(dict.fromkeys(_where(s) for s in settings))),
        ))
        break  # the settings are the machine's: one finding for every GPU
    return found


def apu_memory_conflict(ctx: Context) -> list[Finding]:
    """Settings that disagree: with each other, with what is in force, or with the RAM."""
    found = []
    for _gpu, memory in _apus(ctx):
        problems = conflicts(memory)
        if not problems:
            continue
        found.append(Finding(
            "apu-memory-conflict", "warning",
            t("doctor.apu-memory-conflict.title", "The GPU memory settings disagree"),
            t("doctor.sentence-gap", " ").join(problems),
            t("doctor.apu-memory-conflict.fix", "Keep one setting: ttm's pages_limit and "
              "page_pool_size, equal, in one modprobe.d file, below the physical RAM; then "
              "restart (rocmate memory shows the numbers)."),
        ))
        break
    return found


def conflicts(memory: MemoryFacts) -> list[str]:
    system = memory.system
    ram = system.ram_bytes
    problems: list[str] = []
    limits = memory.configured("ttm.pages_limit", "amdttm.pages_limit")
    pools = memory.configured("ttm.page_pool_size", "amdttm.page_pool_size")
    sizes = memory.configured("amdgpu.gttsize")
    pages = {option_integer(s.value) for s in limits} - {None}
    if len(pages) > 1:
        problems.append(t("doctor.apu-memory-conflict.several", "pages_limit is set to different "
                          "values: {settings}.", settings=_settings_words(limits)))
    last = option_integer(limits[-1].value) if limits else None
    gtt_mib = next((v for v in (option_integer(s.value) for s in reversed(sizes))
                    if v is not None and v > 0), None)
    if last and gtt_mib and last * PAGE_BYTES != gtt_mib * MIB:
        problems.append(t("doctor.apu-memory-conflict.gttsize", "amdgpu.gttsize ({gttsize}) and "
                          "pages_limit ({pages}) ask for different sizes.",
                          gttsize=gib(gtt_mib * MIB), pages=gib(last * PAGE_BYTES)))
    pool = option_integer(pools[-1].value) if pools else None
    if last and pool and pool > last:
        problems.append(t("doctor.apu-memory-conflict.pool", "page_pool_size ({pool}) is larger "
                          "than pages_limit ({pages}).", pool=pool, pages=last))
    if last and system.pages_limit is not None and system.pages_limit != last:
        problems.append(t("doctor.apu-memory-conflict.not-in-force", "pages_limit={configured} "
                          "is configured, but {in_force} is in force: the machine has not "
                          "restarted since, the initramfs holds an older file, or the setting "
                          "names the other ttm module.", configured=last,
                          in_force=system.pages_limit))
    if ram:
        for label, size in (("pages_limit", last * PAGE_BYTES if last else None),
                            ("amdgpu.gttsize", gtt_mib * MIB if gtt_mib else None)):
            if size and size > ram:
                problems.append(t("doctor.apu-memory-conflict.above-ram", "{setting} asks for "
                                  "{size}, more than the {ram} of RAM.", setting=label,
                                  size=gib(size), ram=gib(ram)))
    return problems


def memory_rules(ctx: Context) -> list[Finding]:
    """Every memory rule, in reading order (one entry in the engine's RULES)."""
    return [*apu_memory(ctx), *apu_memory_low(ctx), *apu_gttsize_deprecated(ctx),
            *apu_memory_conflict(ctx)]
