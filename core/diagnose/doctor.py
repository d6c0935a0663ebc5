"""The machine check: gather facts, diagnose, and produce the ``rocmate.doctor/1`` answer."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from core import __version__
from core.diagnose.context import Context, Support
from core.diagnose.engine import diagnose, verdict
from core.diagnose.finding import Finding
from core.diagnose.rules_apps import AppCheck, check_apps
from core.diagnose.rules_runtime import not_started
from core.knowledge.loader import Knowledge, load_knowledge
from core.probe.facts import Facts, gather
from core.probe.gpus import GpuFacts
from core.probe.torch import DEFAULT_TIMEOUT
from core.system import System

SCHEMA = "rocmate.doctor/1"


@dataclass(frozen=True)
class DoctorReport:
    facts: Facts
    supports: tuple[Support, ...]
    primary_index: int | None
    findings: tuple[Finding, ...]
    verdict: str
    elapsed_s: float
    not_started: tuple[int, ...] = ()
    """The GPUs (indexes into facts.gpus.gpus) amdgpu, although loaded, did not start: their
    support says what ROCm would make of them, not that they work (rules_runtime)."""
    apps: tuple[AppCheck, ...] = ()
    """The apps' Python environments found under the home, and whether each one's PyTorch can
    reach the card (rules_apps; issue 34)."""

    def to_json(self) -> dict[str, Any]:
        facts = self.facts
        platform = facts.platform.to_json()
        gpus = []
        for i, (gpu, support) in enumerate(zip(facts.gpus.gpus, self.supports, strict=True)):
            entry = gpu.to_json()
            entry["support"] = support.to_json()
            if i in self.not_started:  # additive: present only for a GPU the driver did not start
                entry["driver_started"] = False
            gpus.append(entry)
        for index, device in _kernel_devices(facts):
            gpus[index]["kernel_check"] = device
        return {
            "schema": SCHEMA,
            "rocmate": __version__,
            "verdict": self.verdict,
            "platform": platform,
            "gpus": gpus,
            **_links(facts.gpus),
            "primary_gpu": self.primary_index,
            "rocm": facts.rocm.to_json(),
            "torch": facts.torch.to_json() if facts.torch is not None else None,
            "permissions": facts.permissions.to_json(),
            "environment": facts.environment.to_json(),
            "driver": facts.driver.to_json(),
            "windows": facts.windows.to_json() if facts.windows is not None else None,
            "kernel_check": _kernel_json(facts),
            **({"apps": [a.to_json() for a in self.apps]} if self.apps else {}),
            "findings": [f.to_json() for f in self.findings],
            "timings": {**facts.timings, "total_s": round(self.elapsed_s, 4)},
            "problems": list(facts.gpus.problems),
        }


def _links(gpus: GpuFacts) -> dict[str, Any]:
    """``links``, only where sysfs or nvidia-smi showed any (older consumers and recorded
    outputs without them are unchanged): each discrete GPU's PCIe link by its slot, the xGMI
    links, and (``nvidia``, only where there are two NVIDIA GPUs or more) how each pair of
    NVIDIA GPUs is connected."""
    if not gpus.pcie and not gpus.peers and not gpus.nvidia:
        return {}
    peers = None if gpus.peers is None else [peer.to_json() for peer in gpus.peers]
    links: dict[str, Any] = {"pcie": {slot: link.to_json() for slot, link in gpus.pcie},
                             "peers": peers}
    if gpus.nvidia:
        links["nvidia"] = [path.to_json() for path in gpus.nvidia]
    return {"links": links}


def _kernel_json(facts: Facts) -> dict[str, Any]:
    """``kernel_check``: the check's answer (``ran: true``), or why it did not run."""
    if facts.kernel_check is not None:
        return facts.kernel_check.to_json()
    return {"ran": False, "reason": facts.kernel_skipped or "no-gpu"}


def _kernel_devices(facts: Facts) -> list[tuple[int, dict[str, Any]]]:
    """Each checked device's result by the index of its GPU in ``gpus``: PyTorch's devices are
    that build's GPUs (AMD for ROCm, NVIDIA for CUDA) in order, where the counts agree."""
    check, torch = facts.kernel_check, facts.torch
    if check is None or torch is None or torch.build not in ("rocm", "cuda"):
        return []
    vendor = "amd" if torch.build == "rocm" else "nvidia"
    same = [i for i, gpu in enumerate(facts.gpus.gpus) if gpu.vendor == vendor]
    devices = [d for d in check.devices if d.device.isdigit()]
    if len(same) != len(devices):
        return []
    return [(same[int(d.device)], d.to_json()) for d in devices if int(d.device) < len(same)]


def reword(report: DoctorReport, kb: Knowledge | None = None) -> DoctorReport:
    """The same answer in the current language: the findings made again from the facts already
    gathered (nothing is probed again). Findings that no rule makes (an operation added them)
    are kept as they were."""
    kb = kb or load_knowledge()
    ctx = Context(report.facts, kb)
    findings = diagnose(ctx)
    made = {f.id for f in findings}
    added = tuple(f for f in report.findings if f.id not in made)
    return replace(report, findings=(*added, *findings))


def run_doctor(
    system: System,
    *,
    python: str | None = None,
    probe_torch: bool = True,
    torch_timeout: float = DEFAULT_TIMEOUT,
    kb: Knowledge | None = None,
) -> DoctorReport:
    start = time.perf_counter()
    kb = kb or load_knowledge()
    facts = gather(
        system, python=python, probe_torch=probe_torch, torch_timeout=torch_timeout, kb=kb
    )
    ctx = Context(facts, kb)
    findings = diagnose(ctx)
    primary = None
    if ctx.primary is not None:
        primary = list(facts.gpus.gpus).index(ctx.primary[0])
    return DoctorReport(
        facts=facts,
        supports=tuple(ctx.supports),
        primary_index=primary,
        findings=tuple(findings),
        verdict=verdict(findings),
        elapsed_s=time.perf_counter() - start,
        not_started=tuple(sorted(list(facts.gpus.gpus).index(g) for g, _, _ in not_started(ctx))),
        apps=check_apps(ctx),
    )
