"""Memory facts of an integrated AMD GPU: how much of the machine's RAM its GPU may use and why.

Read through the :class:`~core.system.System` door (so ``rocmate snapshot`` records them):
``/proc/meminfo`` (MemTotal, MemAvailable), the GPU's ``mem_info_vram_total`` (the BIOS carve-out)
and ``mem_info_gtt_total`` (the system memory it may map; read by :mod:`core.probe.gpus`), ttm's
parameters in force (``/sys/module/ttm/parameters/pages_limit``, ``page_pool_size``; ``amdttm``
with AMD's DKMS driver) and amdgpu's ``gttsize``, the options configured in modprobe.d files and on
the kernel command line, what the chosen PyTorch reported (``total_memory``), and on WSL the
``memory=`` of the Windows user's ``.wslconfig`` where it can be read (issue 35).
"""

from __future__ import annotations

from dataclasses import replace

from core.probe.gpus import Gpu, GpuFacts
from core.probe.memory_facts import (
    DEFAULT,
    GTTSIZE,
    PAGE_BYTES,
    PAGES_LIMIT,
    UNKNOWN,
    MemoryFacts,
    Setting,
    SystemMemory,
)
from core.probe.parse.memory import (
    option_integer,
    parse_cmdline_options,
    parse_integer,
    parse_meminfo,
    parse_modprobe_options,
    parse_wslconfig_memory,
)
from core.probe.torch import TorchFacts
from core.system import System

__all__ = ["DEFAULT", "GTTSIZE", "PAGES_LIMIT", "PAGE_BYTES", "UNKNOWN", "MemoryFacts", "Setting",
           "SystemMemory", "gtt_source", "probe_system_memory", "with_memory",
           "with_torch_memory"]

MEMINFO = "/proc/meminfo"
CMDLINE = "/proc/cmdline"
MODULE_PARAMETERS = "/sys/module/{module}/parameters/{option}"
MODPROBE_DIRS = ("/etc/modprobe.d", "/run/modprobe.d", "/usr/local/lib/modprobe.d",
                 "/usr/lib/modprobe.d", "/lib/modprobe.d")
WSLCONFIG = "/mnt/c/Users/{user}/.wslconfig"
MIB = 1 << 20


def probe_system_memory(system: System, *, wsl: int | None = None,
                        user: str | None = None) -> SystemMemory:
    """RAM, ttm's limits and the configured options; never raises."""
    meminfo = parse_meminfo(system.read_text(MEMINFO) or "")
    module, pages, pool = None, None, None
    for name in ("ttm", "amdttm"):
        pages = _parameter(system, name, "pages_limit")
        pool = _parameter(system, name, "page_pool_size")
        if pages is not None or pool is not None:
            module = name
            break
    configured: list[Setting] = []
    for folder in MODPROBE_DIRS:
        for entry in system.list_dir(folder) or []:
            if not entry.endswith(".conf"):
                continue
            path = f"{folder}/{entry}"
            for mod, option, value in parse_modprobe_options(system.read_text(path) or ""):
                configured.append(Setting(mod, option, value, path))
    for mod, option, value in parse_cmdline_options(system.read_text(CMDLINE) or ""):
        configured.append(Setting(mod, option, value, CMDLINE))
    wsl_bytes, wslconfig = None, None
    if wsl == 2 and user:
        path = WSLCONFIG.format(user=user)
        text = system.read_text(path)
        if text is not None:
            wsl_bytes, wslconfig = parse_wslconfig_memory(text), path
    return SystemMemory(
        ram_bytes=meminfo.get("MemTotal"),
        available_bytes=meminfo.get("MemAvailable"),
        pages_limit=pages,
        page_pool_size=pool,
        ttm_module=module,
        gttsize_mib=_parameter(system, "amdgpu", "gttsize"),
        configured=tuple(configured),
        wsl_memory_bytes=wsl_bytes,
        wslconfig=wslconfig,
    )


def _parameter(system: System, module: str, option: str) -> int | None:
    return parse_integer(system.read_text(MODULE_PARAMETERS.format(module=module, option=option)))


def gtt_source(gpu: Gpu, memory: SystemMemory) -> str:
    """Where ``gpu``'s GTT size comes from, judged by its size against each setting: amdgpu's
    ``gttsize`` (in force, else configured), ttm's ``pages_limit`` (in force or configured), or
    the kernel's default (half of RAM, with nothing configured)."""
    gtt = gpu.gtt_bytes
    if gtt is None:
        return UNKNOWN
    gttsize = memory.gttsize_mib
    if gttsize is None or gttsize <= 0:
        values = [option_integer(s.value) for s in memory.configured
                  if s.module == "amdgpu" and s.option == "gttsize"]
        gttsize = next((v for v in reversed(values) if v is not None and v > 0), None)
    if gttsize and gtt == gttsize * MIB:
        return GTTSIZE
    limits = {option_integer(s.value) for s in memory.configured if s.option == "pages_limit"}
    if memory.pages_limit:
        limits.add(memory.pages_limit)
    if any(limit and gtt == limit * PAGE_BYTES for limit in limits):
        ram = memory.ram_bytes
        configured = any(s.option == "pages_limit" for s in memory.configured)
        if not configured and ram and abs(gtt - ram / 2) <= ram / 100:
            return DEFAULT  # the kernel's own limit: half of RAM
        return PAGES_LIMIT
    if not gttsize and not any(s.option == "pages_limit" for s in memory.configured):
        return DEFAULT
    return UNKNOWN


def is_apu(gpu: Gpu) -> bool:
    return gpu.is_amd and gpu.integrated


def with_memory(system: System, gpus: GpuFacts, *, wsl: int | None = None,
                user: str | None = None) -> GpuFacts:
    """``gpus`` with :attr:`Gpu.memory` filled for each integrated AMD GPU (the others, and a
    machine without one, are left as they are and nothing more is read)."""
    if not any(is_apu(g) for g in gpus.gpus):
        return gpus
    memory = probe_system_memory(system, wsl=wsl, user=user)
    filled = tuple(
        replace(g, memory=MemoryFacts(g.vram_bytes, g.gtt_bytes, gtt_source(g, memory), memory))
        if is_apu(g) else g
        for g in gpus.gpus
    )
    return replace(gpus, gpus=filled)


def with_torch_memory(gpus: GpuFacts, torch: TorchFacts | None) -> GpuFacts:
    """Give each integrated AMD GPU the ``total_memory`` PyTorch reported for it: the PyTorch
    device whose gfx target matches, or the only device where one AMD GPU is the only one."""
    if torch is None or not torch.total_memory or torch.build != "rocm":
        return gpus
    amd = [g for g in gpus.gpus if g.is_amd]
    totals = list(torch.total_memory)
    changed = []
    for gpu in gpus.gpus:
        memory = gpu.memory
        total: int | None = None
        if memory is not None and is_apu(gpu):
            same = [i for i, arch in enumerate(torch.gcn_arch)
                    if arch and gpu.gfx and arch.split(":", 1)[0] == gpu.gfx]
            if len(same) == 1 and same[0] < len(totals):
                total = totals[same[0]]
            elif len(amd) == 1 and len(totals) == 1:
                total = totals[0]
        if total and memory is not None:
            gpu = replace(gpu, memory=replace(memory, torch_total_bytes=total))
        changed.append(gpu)
    return replace(gpus, gpus=tuple(changed))
