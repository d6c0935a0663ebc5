"""All the facts about one machine, gathered by the probes through one :class:`System`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from core.knowledge.loader import Knowledge, load_knowledge
from core.knowledge.vendors import load_vendors
from core.probe.driver import DriverFacts, probe_driver
from core.probe.environment import EnvironmentFacts, probe_environment
from core.probe.gpus import GpuFacts, probe_gpus
from core.probe.permissions import PermissionFacts, probe_permissions
from core.probe.platform import PlatformFacts, probe_platform
from core.probe.rocm import RocmFacts, probe_rocm
from core.probe.torch import DEFAULT_TIMEOUT, TorchFacts, torch_answer, torch_facts_from_json
from core.probe.wsl import WindowsFacts, probe_windows
from core.system import Damage, System


@dataclass(frozen=True)
class Facts:
    platform: PlatformFacts
    gpus: GpuFacts
    rocm: RocmFacts
    permissions: PermissionFacts
    environment: EnvironmentFacts
    driver: DriverFacts
    windows: WindowsFacts | None
    torch: TorchFacts | None
    torch_probed: bool
    disk_free: dict[str, int] = field(default_factory=dict)
    """Free bytes where a set-up writes (home, /opt), where known."""
    timings: dict[str, float] = field(default_factory=dict)
    damaged: tuple[Damage, ...] = ()
    """A replayed machine's records that are there but could not be read: what they hold is
    unknown, never taken as absent."""


def gather(
    system: System,
    *,
    python: str | None = None,
    probe_torch: bool = True,
    torch_timeout: float = DEFAULT_TIMEOUT,
    kb: Knowledge | None = None,
) -> Facts:
    """Run every probe against ``system``; never raises for what the machine says."""
    kb = kb or load_knowledge()
    timings: dict[str, float] = {}
    start = time.perf_counter()
    platform = probe_platform(system)
    rocm = probe_rocm(system)
    windows = probe_windows(system, platform.wsl, platform.wsl_interop)
    gpus = probe_gpus(
        system,
        kb,
        load_vendors(),
        rocminfo=rocm.rocminfo,
        smi=rocm.smi,
        windows=windows.gpus if windows else (),
    )
    permissions = probe_permissions(system)
    environment = probe_environment(system, permissions.user, python)
    driver = probe_driver(system, platform.wsl)
    disk_free = _disk_free(system, permissions.user.home)
    timings["probes_s"] = time.perf_counter() - start
    torch: TorchFacts | None = None
    if probe_torch:
        start = time.perf_counter()
        torch = torch_facts_from_json(torch_answer(system, python, torch_timeout))
        if any(each.path == "torch.json" for each in system.damaged()):
            torch = unreadable_torch_record()
        timings["torch_s"] = time.perf_counter() - start
        gpus = name_from_torch(gpus, torch)
    return Facts(
        platform=platform,
        gpus=gpus,
        rocm=rocm,
        permissions=permissions,
        environment=environment,
        driver=driver,
        windows=windows,
        torch=torch,
        torch_probed=probe_torch,
        disk_free=disk_free,
        timings=timings,
        damaged=tuple(system.damaged()),
    )


def name_from_torch(gpus: GpuFacts, torch: TorchFacts | None) -> GpuFacts:
    """Give GPUs that only have a placeholder name the names PyTorch reports, in order."""
    if torch is None or not torch.devices or torch.build not in ("rocm", "cuda"):
        return gpus
    vendor = "amd" if torch.build == "rocm" else "nvidia"
    same = [g for g in gpus.gpus if g.vendor == vendor]
    if len(same) != len(torch.devices) or not any(g.name_is_placeholder for g in same):
        return gpus
    names = iter(torch.devices)
    renamed = []
    for gpu in gpus.gpus:
        if gpu.vendor == vendor:
            name = next(names)
            gpu = replace(gpu, name=name) if gpu.name_is_placeholder else gpu
        renamed.append(gpu)
    return replace(gpus, gpus=tuple(renamed))


def unreadable_torch_record() -> TorchFacts:
    """A replay whose torch.json is there but damaged: PyTorch's answer is unknown (not "not
    installed")."""
    return TorchFacts(python=None, version=None, hip=None, cuda=None, available=False,
                      device_count=0, devices=(), arch_list=(), error=None,
                      problem="record-damaged")


def _disk_free(system: System, home: str) -> dict[str, int]:
    found = {}
    for path in (home, "/opt"):
        free = system.disk_free(path)
        if free is not None:
            found[path] = free
    return found
