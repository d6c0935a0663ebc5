"""The runtime's own answer (issue 32): PCI, the bound driver, KFD's nodes and rocminfo, set side
by side.

- ``driver-not-started``: amdgpu is loaded, but an AMD GPU on the PCI bus has no bound amdgpu, or
  amdgpu drives it and KFD has no node for it: ROCm cannot use it, whatever the tables say of the
  card. The cause comes from amdgpu's kernel log lines (``resources/data/kernel_log.toml``) or
  from an amdgpu-dkms that was not built for the running kernel.
- ``gpu-breaks-runtime``: rocminfo fails (HSA_STATUS_ERROR...) while KFD lists GPUs, and one of
  them is a card ROCm does not support: the runtime gives up at start-up on every card, not only
  on that one. The fix hides it (``ROCR_VISIBLE_DEVICES``) or takes it out.
- ``runtime-fails``: rocminfo fails the same way while KFD lists GPUs and none of them is a card
  ROCm does not support: no card is to blame, the runtime cannot start on the driver it has
  (ROCm/TheRock#7952, ROCm/legacy-rocm-build#5433).
"""

from __future__ import annotations

import re

from core.diagnose.context import Context, Support
from core.diagnose.finding import Finding
from core.i18n import local, t
from core.knowledge.kernel_log import first_cause, load_kernel_log
from core.probe.gpus import Gpu
from core.probe.parse.kernel_log import failed_probes, lines_for

DMESG = "sudo dmesg | grep -iE 'amdgpu|kfd'"
SHOWN_LINES = 4
_TELLING = re.compile(r"fatal|fail|error|not supported|rejects", re.IGNORECASE)


# -- the driver did not start ----------------------------------------------------------------


def not_started(ctx: Context) -> list[tuple[Gpu, Support, bool]]:
    """(GPU, support, bound) for each AMD GPU on the PCI bus that amdgpu, although loaded, does
    not serve: no driver bound (``bound`` False), or amdgpu bound and no KFD node (only for a card
    ROCm would use: KFD leaves out the chips it does not support, and the support finding says
    so). Cards bound to vfio-pci (kept for a VM) or radeon are meant so."""
    facts = ctx.facts
    if not ctx.native or not facts.driver.amdgpu_loaded:
        return []
    found = []
    for gpu, sup in ctx.amd:
        if "pci" not in gpu.sources or gpu.driver in ("vfio-pci", "radeon"):
            continue
        if gpu.driver != "amdgpu":
            found.append((gpu, sup, False))
        elif facts.gpus.kfd_present and gpu.kfd_node is None and sup.usable:
            found.append((gpu, sup, True))
    return found


def driver_not_started(ctx: Context) -> list[Finding]:
    found = not_started(ctx)
    if not found:
        return []
    log = ctx.facts.driver.kernel_log
    lines = list(log.lines) if log is not None else []
    probes = failed_probes(lines)
    groups: dict[tuple[bool, str], list[Gpu]] = {}
    for gpu, _sup, bound in found:
        groups.setdefault((bound, probes.get((gpu.slot or "").lower(), "")), []).append(gpu)
    facts_text = []
    for (bound, error), gpus in groups.items():
        which = ", ".join(f"{g.name} ({g.slot or g.pci_id or '?'})" for g in gpus)
        if bound:
            facts_text.append(t(
                "doctor.driver-not-started.no-node",
                "amdgpu drives {gpus}, but ROCm's kernel interface (KFD) has no node for it.",
                gpus=which))
        elif error:
            facts_text.append(t(
                "doctor.driver-not-started.probe-failed",
                "amdgpu tried {gpus} and gave up (error {error}): no driver is bound to it.",
                gpus=which, error=error))
        else:
            facts_text.append(t(
                "doctor.driver-not-started.unbound",
                "amdgpu is loaded, but no driver is bound to {gpus}.", gpus=which))
    mine: list[str] = []
    for gpu, _sup, _bound in found:
        mine += [line for line in lines_for(lines, gpu.slot) if line not in mine]
    causes = load_kernel_log()
    general = [line for line in lines_for(lines, None) if first_cause(causes, [line])]
    cause = first_cause(causes, mine + general)
    telling = [line for line in mine + general
               if first_cause(causes, [line]) or _TELLING.search(line)]
    shown = list(dict.fromkeys(telling or mine))
    names = ", ".join(dict.fromkeys(g.name for g, _, _ in found))
    detail = " ".join(facts_text) + " " + t(
        "doctor.driver-not-started.so", "ROCm and PyTorch cannot use a GPU the driver has not "
        "started, whatever its support status says.")
    if cause is not None:
        row, _line = cause
        detail += " " + local(row.cause)
        fix = local(row.fix)
    elif (dkms := _dkms_not_for_kernel(ctx)) is not None:
        detail += " " + t(
            "doctor.driver-not-started.dkms",
            "amdgpu-dkms {version} is installed, but the running kernel {kernel} uses its own "
            "amdgpu: DKMS did not build the driver for this kernel, and the kernel's driver does "
            "not start this card.", version=dkms, kernel=ctx.facts.platform.kernel or "?")
        fix = t("doctor.driver-not-started.fix.dkms",
                "{command} (it needs the kernel's headers), then reboot; or boot a kernel "
                "amdgpu-dkms was built for.",
                command="sudo apt install linux-headers-$(uname -r) && sudo dkms autoinstall "
                        "-k $(uname -r)")
    elif log is not None and log.refused:
        detail += " " + t("doctor.driver-not-started.refused",
                          "rocmate may not read the kernel log here, which says why.")
        fix = t("doctor.driver-not-started.fix.read-log",
                "Read why in the kernel log: {command}", command=DMESG)
    else:
        fix = t("doctor.driver-not-started.fix.read-log", "Read why in the kernel log: "
                "{command}", command=DMESG)
    if shown:
        detail += " " + t("doctor.driver-not-started.log", "The kernel log says: {lines}",
                          lines=" | ".join(shown[:SHOWN_LINES]))
    return [Finding(
        "driver-not-started",
        "error",
        t("doctor.driver-not-started.title", "The amdgpu driver did not start on {gpus}",
          gpus=names),
        detail,
        fix,
    )]


def _dkms_not_for_kernel(ctx: Context) -> str | None:
    """The amdgpu-dkms version installed but not in use by the running kernel, if any."""
    driver = ctx.facts.driver
    if driver.dkms_trees and not driver.dkms_module_in_use and not driver.amdgpu_dkms_version:
        return sorted(driver.dkms_trees)[-1]
    return None


# -- a card that breaks the runtime ----------------------------------------------------------


def runtime_failed(ctx: Context) -> str | None:
    """rocminfo's failure (the HSA status, else its failure line) where it ran, listed no GPU
    and KFD lists GPU nodes; None otherwise."""
    rocm = ctx.facts.rocm
    run, report = rocm.rocminfo_run, rocm.rocminfo
    if (not ctx.native or run is None or not run.found or run.timed_out or report is None
            or not ctx.facts.gpus.kfd_nodes or report.gpus):
        return None
    if report.kfd_open_error or report.rock_loaded is False:
        return None  # access or driver: the findings about /dev/kfd say so
    status = report.hsa_status or ""
    if status.startswith("HSA_STATUS_ERROR"):
        return status
    if report.error and "hsa" in report.error.lower():
        return report.error
    return None


def runtime_breakers(ctx: Context) -> list[Gpu]:
    """The KFD-listed cards ROCm does not support, where the runtime fails to start and at least
    one other KFD-listed card is one it would use."""
    if runtime_failed(ctx) is None:
        return []
    listed = [(g, sup) for g, sup in ctx.amd if g.kfd_node is not None]
    breakers = [g for g, sup in listed if sup.status == "unsupported"]
    if not breakers or not any(sup.usable for g, sup in listed if g not in breakers):
        return []
    return breakers


def rocr_visible_devices(ctx: Context) -> str | None:
    """The ``ROCR_VISIBLE_DEVICES`` value that hides the cards that break the runtime (the other
    KFD-listed cards' indexes in KFD order, "1"); None where no card breaks it. What a set-up
    plan writes into the managed environment."""
    breakers = runtime_breakers(ctx)
    if not breakers:
        return None
    return ",".join(str(ctx.rocm_index(g)) for g in _in_kfd_order(ctx) if g not in breakers)


def _in_kfd_order(ctx: Context) -> list[Gpu]:
    """The AMD GPUs KFD lists, in its order (ROCm's numbering)."""
    return sorted((g for g, _ in ctx.amd if g.kfd_node is not None), key=lambda g: g.kfd_node or 0)


def gpu_breaks_runtime(ctx: Context) -> list[Finding]:
    breakers = runtime_breakers(ctx)
    value = rocr_visible_devices(ctx)
    if not breakers or value is None:
        return []
    status = runtime_failed(ctx) or ""
    listed = _in_kfd_order(ctx)
    order = ", ".join(f"{ctx.rocm_index(g)} = {g.name}" for g in listed)
    names = ", ".join(f"{g.name} ({g.gfx or '?'})" for g in breakers)
    return [Finding(
        "gpu-breaks-runtime",
        "error",
        t("doctor.gpu-breaks-runtime.title", "{gpus} stops ROCm from starting on every GPU",
          gpus=names),
        t("doctor.gpu-breaks-runtime.detail",
          "rocminfo fails ({status}) although the kernel's KFD lists {count} GPUs: ROCm's runtime "
          "gives up at start-up when one of them is a card it does not support, so every ROCm "
          "program fails, PyTorch too, not only on that card. ROCm numbers the GPUs {order}. No "
          "public report shows the variable below ending this yet; giving a container only the "
          "supported card's device nodes does (ROCm/rocm-systems#6883).",
          status=status, count=len(listed), order=order),
        t("doctor.gpu-breaks-runtime.fix",
          "Hide it from ROCm: {command} (in the environment ROCm programs start from); or take "
          "the card out, or disable its slot in the BIOS.",
          command=f"export ROCR_VISIBLE_DEVICES={value}"),
    )]


# -- the runtime fails with no card to blame ---------------------------------------------------


def runtime_fails(ctx: Context) -> list[Finding]:
    """rocminfo fails at start-up while KFD lists GPUs, and none of them is a card ROCm does not
    support (``gpu-breaks-runtime`` covers that case). Public reports (ROCm/TheRock#7952: a Radeon
    840M, kernel 7.0, ROCm 7.13 and 10.0; ROCm/legacy-rocm-build#5433: a Radeon 890M failing with
    amdgpu 6.14.14 and working with 6.12.12) point at the kernel driver the runtime runs on, not
    at the card; AMD could not reproduce #7952 on similar hardware."""
    status = runtime_failed(ctx)
    if status is None or runtime_breakers(ctx):
        return []
    listed = [(g, sup) for g, sup in ctx.amd if g.kfd_node is not None]
    if not listed or any(sup.status == "unsupported" for _, sup in listed):
        return []  # an unsupported card may be the cause: the support findings say so
    names = ", ".join(f"{g.name} ({g.gfx or '?'})" for g, _ in listed)
    kernel = ctx.facts.platform.kernel or "?"
    driver = ctx.facts.driver
    which = (t("doctor.runtime-fails.dkms", "amdgpu-dkms {version}",
               version=driver.amdgpu_dkms_version)
             if driver.amdgpu_dkms_version else
             t("doctor.runtime-fails.intree", "the amdgpu of kernel {kernel}", kernel=kernel))
    return [Finding(
        "runtime-fails",
        "error",
        t("doctor.runtime-fails.title", "ROCm's runtime does not start on {gpus}", gpus=names),
        t("doctor.runtime-fails.detail",
          "rocminfo fails ({status}) although the kernel's KFD lists {gpus}, and no card ROCm "
          "does not support is there to blame: every ROCm program fails the same way, PyTorch "
          "too (torch.cuda.is_available() is False). The card is not the cause; the runtime "
          "cannot start on the driver it runs on, here {driver}. Public reports: a Radeon 840M "
          "on kernel 7.0 with ROCm 7.13 and 10.0 (ROCm/TheRock#7952, open; AMD could not "
          "reproduce it on similar hardware), and a Radeon 890M that failed with amdgpu 6.14.14 "
          "and worked with amdgpu 6.12.12 (ROCm/legacy-rocm-build#5433).",
          status=status, gpus=names, driver=which),
        t("doctor.runtime-fails.fix",
          "No fix is confirmed in public yet. Boot another kernel (the one AMD lists for your "
          "ROCm release and distribution, or an older one: amdgpu 6.12 worked in #5433) and "
          "check again with rocminfo; if it still fails, add rocminfo's output, the kernel "
          "version and amdgpu's kernel log lines to ROCm/TheRock#7952 or a new report there: "
          "{command}", command=DMESG),
    )]
