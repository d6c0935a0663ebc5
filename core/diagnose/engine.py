"""Runs every rule over the facts and decides the verdict."""

from __future__ import annotations

from collections.abc import Callable

from core.diagnose import (
    rules_gpu,
    rules_links,
    rules_memory,
    rules_record,
    rules_runtime,
    rules_smi,
    rules_system,
    rules_windows,
)
from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.diagnose.rules_apps import app_findings
from core.diagnose.rules_kernel import NOT_RUN, kernel_rules
from core.diagnose.rules_torch import torch_rules

Rule = Callable[[Context], list[Finding]]

# Order matters only for reading: the most basic problems first.
RULES: tuple[Rule, ...] = (
    rules_record.snapshot_damaged,
    rules_system.wsl1,
    rules_gpu.no_gpu,
    rules_gpu.no_amd_gpu,
    rules_gpu.gpus_found,
    rules_gpu.support,
    rules_gpu.wsl_gpu,
    rules_system.windows_side,
    rules_windows.windows_rules,
    rules_system.kfd,
    rules_runtime.driver_not_started,
    rules_runtime.gpu_breaks_runtime,
    rules_runtime.runtime_fails,
    rules_smi.amd_smi_disagrees,
    rules_system.access,
    rules_gpu.hidden_by_env,
    rules_gpu.override_needed,
    rules_gpu.override_wrong,
    rules_gpu.igpu_first,
    rules_links.several_gpus,
    rules_links.gpu_links,
    rules_system.distro,
    rules_system.kernel,
    rules_system.known_bad_stack,
    rules_system.rocm_multiple,
    rules_system.dkms,
    rules_memory.memory_rules,
)

READY = "Ready"
READY_AFTER_FIXES = "Ready after these fixes"
NOT_SUPPORTED = "Not supported"
NOT_PROVED = "Not yet proved"
"""Nothing to fix that the tables can see, but no kernel has run on the GPU yet (``--no-torch``,
a replay without a recorded kernel check, no PyTorch that sees the GPU)."""
BLOCKING = {"no-gpu", "no-amd-gpu", "gfx-unsupported", "wsl1", "wsl-gpu-unsupported"}
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2, "ok": 3}


def diagnose(ctx: Context) -> list[Finding]:
    """All findings in the order to act on them: worst first (rules keep their order within a
    severity), and a finding another one causes right after its last cause."""
    findings: list[Finding] = []
    for rule in RULES:
        findings.extend(rule(ctx))
    findings.extend(torch_rules(ctx, findings))
    findings.extend(kernel_rules(ctx))
    findings.extend(app_findings(ctx))
    return causes_first(sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity]))


def causes_first(findings: list[Finding]) -> list[Finding]:
    """Move each finding that names causes (``caused_by``) to just after the last of them."""
    ordered = [f for f in findings if not _waits(f, findings)]
    for finding in (f for f in findings if _waits(f, findings)):
        last = max(i for i, f in enumerate(ordered) if f.id in finding.caused_by)
        ordered.insert(last + 1, finding)
    return ordered


def _waits(finding: Finding, findings: list[Finding]) -> bool:
    present = {f.id for f in findings if f is not finding}
    return bool(set(finding.caused_by) & present)


def verdict(findings: list[Finding]) -> str:
    ids = {f.id for f in findings}
    if ids & BLOCKING:
        return NOT_SUPPORTED
    if any(f.needs_action for f in findings):
        return READY_AFTER_FIXES
    if NOT_RUN in ids:
        return NOT_PROVED
    return READY
