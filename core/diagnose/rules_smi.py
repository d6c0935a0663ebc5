"""amd-smi set beside PCI, the bound driver, KFD and rocminfo (issue 32, item 2).

``amd-smi-disagrees`` (a warning): amd-smi lists no GPU (its start-up check finds no amdgpu,
or its library fails with an AMDSMI_STATUS_* error) while amdgpu drives an AMD GPU and KFD lists
it. ROCm programs and PyTorch reach the GPU through KFD, not through amd-smi, so they are not
stopped by it; what amd-smi's answer is worth, and what to do, depends on how it failed:

- "driver not initialized (amdgpu not found in modules)": amd-smi's CLI judges the driver by
  ``/sys/module/amdgpu/initstate``, which a kernel with amdgpu built in (not a module) does not
  have (ROCm/amdsmi#170, #172); fixed upstream by ROCm/rocm-systems PR #2689 (2026-01-20);
- another failure: amd-smi's library cannot read the driver the runtime uses; its line is quoted.

Where amd-smi's failure agrees with the rest (no GPU driven by amdgpu, WSL 2 where amd-smi has
no driver to read before librocdxg 1.2.1: ROCm/amdsmi#75), nothing is said here: the findings
about the driver and KFD say it.
"""

from __future__ import annotations

from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.i18n import t
from core.probe.gpus import Gpu
from core.probe.parse.smi import amd_smi_failure


def driven(ctx: Context) -> list[Gpu]:
    """The AMD GPUs amdgpu drives and KFD lists (the driver has started them)."""
    return [g for g, _ in ctx.amd if g.driver == "amdgpu" and g.kfd_node is not None]


def amd_smi_disagrees(ctx: Context) -> list[Finding]:
    rocm = ctx.facts.rocm
    if not ctx.native or rocm.smi_tool != "amd-smi":
        return []
    failure = amd_smi_failure(rocm.smi)
    gpus = driven(ctx)
    if failure is None or not gpus:
        return []
    names = ", ".join(f"{g.name} ({g.slot or g.pci_id or '?'})" for g in gpus)
    report = rocm.rocminfo
    runtime = (t("doctor.amd-smi-disagrees.rocminfo-ok",
                 " rocminfo, the runtime's own answer, lists it too.")
               if report is not None and report.gpus else "")
    impact = t(
        "doctor.amd-smi-disagrees.impact",
        "ROCm programs and PyTorch reach the GPU through KFD, not through amd-smi, so this does "
        "not stop them; what asks amd-smi sees no GPU: amd-smi itself, monitoring tools, apps "
        "that find GPUs through it (gpustack/gpustack#4338) and PyTorch's memory and "
        "utilisation queries (\"Can't initialize amdsmi\", ROCm/legacy-rocm-build#5000).")
    if failure.kind == "driver":
        detail = t(
            "doctor.amd-smi-disagrees.driver",
            "amd-smi says the amdgpu driver is not there ({line}), yet amdgpu drives {gpus} and "
            "ROCm's kernel interface (KFD) lists it.{runtime} amd-smi is wrong here: it judges "
            "the driver by /sys/module/amdgpu/initstate, a file that a kernel with amdgpu built "
            "in (not a module) does not have (ROCm/amdsmi#170, #172).",
            line=failure.line, gpus=names, runtime=runtime)
        fix = t(
            "doctor.amd-smi-disagrees.fix.driver",
            "Nothing to fix for PyTorch. For amd-smi, use one with the fix of "
            "ROCm/rocm-systems PR #2689 (merged 2026-01-20; it also looks for AMD GPUs under "
            "/sys/class/drm). Until then, see which driver runs each AMD GPU with: {command}",
            command="lspci -nnk -d 1002:")
    else:
        said = failure.line or t("doctor.amd-smi-disagrees.nothing", "it lists no GPU")
        detail = t(
            "doctor.amd-smi-disagrees.other",
            "amd-smi fails ({line}), yet amdgpu drives {gpus} and ROCm's kernel interface "
            "(KFD) lists it.{runtime} amd-smi's library cannot read what the driver offers; its "
            "message is what says why.",
            line=said, gpus=names, runtime=runtime)
        fix = t(
            "doctor.amd-smi-disagrees.fix.other",
            "Nothing to fix for PyTorch. For amd-smi, check that its release is the one of the "
            "ROCm you installed ({command}); if it is, report the message to ROCm/rocm-systems, "
            "amd-smi's home now.", command="amd-smi version")
    return [Finding(
        "amd-smi-disagrees",
        "warning",
        t("doctor.amd-smi-disagrees.title", "amd-smi does not see {gpus}, which the driver runs",
          gpus=names),
        detail + ("" if detail.endswith("。") else " ") + impact,  # no space after a CJK stop
        fix,
    )]
