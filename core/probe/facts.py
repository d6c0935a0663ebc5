"""All the facts about one machine, gathered by the probes through one :class:`System`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from core.knowledge.loader import Knowledge, load_knowledge
from core.knowledge.vendors import load_vendors
from core.probe.app_envs import AppEnv, find_app_envs
from core.probe.driver import DriverFacts, probe_driver
from core.probe.environment import EnvironmentFacts, probe_environment
from core.probe.gpus import GpuFacts, probe_gpus
from core.probe.kernel_check import KernelCheck, kernel_answer, kernel_check_from_json
from core.probe.memory import with_memory, with_torch_memory
from core.probe.permissions import PermissionFacts, probe_permissions
from core.probe.platform import PlatformFacts, probe_platform
from core.probe.python_venv import probe_ensurepip, probe_python_version
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
    kernel_check: KernelCheck | None = None
    """The kernel check's answer (small kernels run on each GPU PyTorch sees); None when it did
    not run (:attr:`kernel_skipped` says why)."""
    kernel_skipped: str | None = None
    """Why the kernel check did not run: ``no-torch`` (PyTorch not probed), ``no-gpu`` (no
    PyTorch that sees a GPU), ``replay`` (a recorded machine without a recorded check)."""
    ensurepip: bool | None = None
    """Whether the system's python3 has ensurepip, which ``python3 -m venv`` needs (False on
    Debian and Ubuntu until python3-venv is installed); None when not known (issue 33)."""
    python3: str | None = None
    """The system python3's version (``3.6.9``), which a pinned wheel must be built for; None
    when not known (issue 33)."""
    apps: tuple[AppEnv, ...] = ()
    """The Python environments of common AI apps found in their usual places under the home,
    with the torch family each holds (issue 34; core.probe.app_envs)."""


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
    permissions = probe_permissions(system)
    windows = probe_windows(system, platform.wsl, platform.wsl_interop, permissions.user.name)
    gpus = probe_gpus(
        system,
        kb,
        load_vendors(),
        rocminfo=rocm.rocminfo,
        smi=rocm.smi,
        windows=windows.gpus if windows else (),
    )
    gpus = with_memory(system, gpus, wsl=platform.wsl, user=permissions.user.name)
    environment = probe_environment(system, permissions.user, python)
    driver = probe_driver(system, platform.wsl, gpus)
    disk_free = _disk_free(system, permissions.user.home)
    ensurepip = probe_ensurepip(system)
    python3 = probe_python_version(system)
    apps = find_app_envs(system, permissions.user.home)  # counted in probes_s (no key of its own)
    timings["probes_s"] = time.perf_counter() - start
    torch: TorchFacts | None = None
    kernel: KernelCheck | None = None
    skipped: str | None = "no-torch"
    if probe_torch:
        start = time.perf_counter()
        torch = torch_facts_from_json(torch_answer(system, python, torch_timeout))
        if any(each.path == "torch.json" for each in system.damaged()):
            torch = unreadable_torch_record()
        timings["torch_s"] = time.perf_counter() - start
        gpus = with_torch_memory(name_from_torch(gpus, torch), torch)
        kernel, skipped = _kernel_check(system, python, torch, timings)
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
        kernel_check=kernel,
        kernel_skipped=skipped,
        ensurepip=ensurepip,
        python3=python3,
        apps=apps,
    )


def _kernel_check(system: System, python: str | None, torch: TorchFacts | None,
                  timings: dict[str, float]) -> tuple[KernelCheck | None, str | None]:
    """Run (or replay) the kernel check where PyTorch sees a GPU."""
    if torch is None or torch.problem or not torch.available or torch.device_count < 1:
        return None, "no-gpu"
    start = time.perf_counter()
    devices = [str(i) for i in range(torch.device_count)]
    answer = kernel_answer(system, python, devices)
    timings["kernel_check_s"] = time.perf_counter() - start
    if any(each.path == "kernel-check.json" for each in system.damaged()):
        return None, "replay"  # the snapshot-damaged finding names the record
    check = kernel_check_from_json(answer)
    return (check, None) if check is not None else (None, "replay")


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
