"""The memory facts of an integrated AMD GPU (issue 35): the dataclasses :mod:`core.probe.memory`
fills and :attr:`core.probe.gpus.Gpu.memory` holds (a module of their own, so the two never import
each other)."""

from __future__ import annotations

from dataclasses import dataclass

PAGE_BYTES = 4096
"""ttm counts in pages of 4 KiB: GiB x 262144."""

# Where the GTT size comes from (MemoryFacts.gtt_source; the doctor's JSON says it as is).
DEFAULT = "default"
GTTSIZE = "amdgpu.gttsize"
PAGES_LIMIT = "ttm.pages_limit"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Setting:
    """One module option configured for the next boot: ``ttm pages_limit=25165824`` in
    ``/etc/modprobe.d/ttm.conf`` or on ``/proc/cmdline``."""

    module: str
    option: str
    value: str
    where: str

    @property
    def name(self) -> str:
        return f"{self.module}.{self.option}"

    def to_json(self) -> dict[str, str]:
        return {"module": self.module, "option": self.option, "value": self.value,
                "where": self.where}


@dataclass(frozen=True)
class SystemMemory:
    """The machine-wide part: RAM, ttm's limits, what is configured (one read per machine)."""

    ram_bytes: int | None = None
    available_bytes: int | None = None
    pages_limit: int | None = None
    """ttm's ``pages_limit`` in force (4 KiB pages), from /sys/module/ttm (or amdttm)."""
    page_pool_size: int | None = None
    ttm_module: str | None = None
    """"ttm" or "amdttm": the module whose parameters were read."""
    gttsize_mib: int | None = None
    """amdgpu's ``gttsize`` in force (MiB; -1 = auto), from /sys/module/amdgpu."""
    configured: tuple[Setting, ...] = ()
    wsl_memory_bytes: int | None = None
    """``memory=`` of ``.wslconfig``'s [wsl2] section, where rocmate could read the file."""
    wslconfig: str | None = None
    """The ``.wslconfig`` path read (None when none was found or outside WSL)."""


@dataclass(frozen=True)
class MemoryFacts:
    """What one integrated AMD GPU may use, with the numbers it comes from."""

    vram_bytes: int | None
    """The BIOS carve-out (``mem_info_vram_total``)."""
    gtt_bytes: int | None
    """``mem_info_gtt_total``: the system memory the GPU may map."""
    gtt_source: str
    """``default`` (the kernel's half of RAM), ``amdgpu.gttsize``, ``ttm.pages_limit`` or
    ``unknown``."""
    system: SystemMemory
    torch_total_bytes: int | None = None
    """``torch.cuda.get_device_properties(i).total_memory`` of the chosen PyTorch for this GPU."""

    @property
    def ttm_limit_bytes(self) -> int | None:
        limit = self.system.pages_limit
        return limit * PAGE_BYTES if limit is not None and limit > 0 else None

    @property
    def usable_bytes(self) -> int | None:
        """What the GPU can use: PyTorch's own figure where it reported one; else the larger of
        the carve-out and GTT (amdgpu uses the larger), GTT capped by ttm's limit. None while GTT
        is not known: the carve-out alone (often 512 MiB) says little of what the GPU can use
        (as :func:`core.probe.gpus.work_memory`)."""
        if self.torch_total_bytes:
            return self.torch_total_bytes
        gtt = self.gtt_bytes
        if gtt is None:
            return None
        if self.ttm_limit_bytes is not None:
            gtt = min(gtt, self.ttm_limit_bytes)
        return max(gtt, self.vram_bytes or 0)

    @property
    def known(self) -> bool:
        """Whether anything beyond the carve-out is known (a snapshot recorded before issue 35
        has neither RAM nor GTT)."""
        return (self.gtt_bytes is not None or self.system.ram_bytes is not None
                or bool(self.torch_total_bytes))

    def configured(self, *names: str) -> list[Setting]:
        return [s for s in self.system.configured if s.name in names]

    def to_json(self) -> dict[str, object]:
        system = self.system
        return {
            "ram_bytes": system.ram_bytes,
            "available_bytes": system.available_bytes,
            "vram_bytes": self.vram_bytes,
            "gtt_bytes": self.gtt_bytes,
            "gtt_source": self.gtt_source,
            "ttm": {"module": system.ttm_module, "pages_limit": system.pages_limit,
                    "page_pool_size": system.page_pool_size},
            "amdgpu_gttsize_mib": system.gttsize_mib,
            "configured": [s.to_json() for s in system.configured],
            "torch_total_bytes": self.torch_total_bytes,
            "usable_bytes": self.usable_bytes,
            "wsl_memory_bytes": system.wsl_memory_bytes,
        }
