"""Runs every rule over the facts and decides the verdict."""

from __future__ import annotations

from collections.abc import Callable

from core.diagnose import rules_gpu, rules_system
from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.diagnose.rules_torch import torch_rules

Rule = Callable[[Context], list[Finding]]

# Order matters only for reading: the most basic problems first.
RULES: tuple[Rule, ...] = (
    rules_system.wsl1,
    rules_gpu.no_gpu,
    rules_gpu.no_amd_gpu,
    rules_gpu.gpus_found,
    rules_gpu.support,
    rules_gpu.wsl_gpu,
    rules_system.windows_side,
    rules_system.kfd,
    rules_system.access,
    rules_gpu.hidden_by_env,
    rules_gpu.override_needed,
    rules_gpu.override_wrong,
    rules_gpu.igpu_first,
    rules_system.distro,
    rules_system.kernel,
    rules_system.rocm_multiple,
    rules_system.dkms,
)

READY = "Ready"
READY_AFTER_FIXES = "Ready after these fixes"
NOT_SUPPORTED = "Not supported"
BLOCKING = {"no-gpu", "no-amd-gpu", "gfx-unsupported", "wsl1", "wsl-gpu-unsupported"}
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2, "ok": 3}


def diagnose(ctx: Context) -> list[Finding]:
    """All findings, worst first (rules keep their order within a severity)."""
    findings: list[Finding] = []
    for rule in RULES:
        findings.extend(rule(ctx))
    findings.extend(torch_rules(ctx, findings))
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])


def verdict(findings: list[Finding]) -> str:
    ids = {f.id for f in findings}
    if ids & BLOCKING:
        return NOT_SUPPORTED
    if any(f.needs_action for f in findings):
        return READY_AFTER_FIXES
    return READY
