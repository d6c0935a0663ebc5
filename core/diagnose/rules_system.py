"""Rules about the system around the GPU: WSL, distribution, kernel, driver, device access, ROCm."""

from __future__ import annotations

from dataclasses import replace

from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.diagnose.release_choice import (
    describe_distro,
    releases_for,
    serving_releases,
    ubuntu_version,
)
from core.knowledge.releases import RocmRelease


def wsl1(ctx: Context) -> list[Finding]:
    if ctx.facts.platform.wsl != 1:
        return []
    return [
        Finding(
            "wsl1",
            "error",
            "This is WSL 1, which cannot reach the GPU",
            "WSL 1 translates Linux calls and has no GPU access at all; ROCm needs WSL 2 "
            "(a real Linux kernel with the /dev/dxg GPU bridge).",
            "In Windows PowerShell: wsl --set-version <your distribution> 2  "
            "(list them with wsl -l -v), then start it again and re-run rocmate doctor.",
        )
    ]


def kfd(ctx: Context) -> list[Finding]:
    """kfd-missing: no /dev/kfd on native Linux, or no ROCm WSL runtime on WSL 2."""
    facts = ctx.facts
    if not ctx.amd and (facts.gpus.gpus or not (facts.platform.wsl == 2 and facts.platform.dxg)):
        return []  # no AMD GPU: nothing for ROCm's device node to serve
    if facts.platform.wsl == 1:
        return []
    if facts.platform.wsl == 2:
        return _wsl_runtime(ctx)
    if facts.permissions.kfd.exists:
        return [Finding("kfd-ok", "ok", "/dev/kfd is present (the amdgpu driver is loaded)")]
    return [_kfd_missing(ctx)]


def _kfd_missing(ctx: Context) -> Finding:
    facts = ctx.facts
    drivers = {g.driver for g, _ in ctx.amd if g.driver}
    if "radeon" in drivers and not facts.driver.amdgpu_loaded:
        detail = (
            "The card is driven by the old 'radeon' kernel driver, which has no compute "
            "interface. ROCm needs amdgpu (and a card amdgpu's KFD supports)."
        )
        fix = "Nothing for ROCm on this card; see the support finding."
    elif "vfio-pci" in drivers:
        detail = "The card is bound to vfio-pci (reserved for a virtual machine), not to amdgpu."
        fix = (
            "Unbind it from vfio-pci (remove it from vfio-pci.ids) and reboot, or use it in the VM."
        )
    elif not facts.driver.amdgpu_loaded and kernel(ctx):
        old = kernel(ctx)[0]
        detail = (
            "The amdgpu kernel module is not loaded, so the GPU has no compute device node. "
            f"{old.title}: its amdgpu driver does not know current cards, and "
            "linux-modules-extra for it cannot add that."
        )
        fix = ("Install a newer kernel first (the kernel finding above says how), reboot, then "
               "check again: dmesg | grep -i -E 'amdgpu|kfd'")
        return Finding("kfd-missing", "error", "/dev/kfd does not exist", detail, fix,
                       caused_by=("kernel-old",))
    elif not facts.driver.amdgpu_loaded:
        detail = (
            "The amdgpu kernel module is not loaded, so the GPU has no compute device node. "
            "On Ubuntu the module ships in linux-modules-extra; a failed DKMS build or "
            "'nomodeset' on the kernel command line also stops it."
        )
        fix = (
            "sudo apt install linux-modules-extra-$(uname -r) && sudo modprobe amdgpu  "
            "(then check: dmesg | grep -i -E 'amdgpu|kfd'; remove nomodeset from GRUB)"
        )
    else:
        detail = (
            "amdgpu is loaded but did not create /dev/kfd: KFD rejected the GPU (unsupported chip, "
            "or PCIe atomics missing: 'PCI rejects atomics' in dmesg), or this is a container "
            "started without the device."
        )
        fix = (
            "dmesg | grep -i kfd; in Docker: --device=/dev/kfd --device=/dev/dri "
            "--group-add video --group-add render"
        )
    return Finding("kfd-missing", "error", "/dev/kfd does not exist", detail, fix)


def _wsl_runtime(ctx: Context) -> list[Finding]:
    rocm = ctx.facts.rocm
    run = rocm.rocminfo_run
    agents = [
        a
        for a in (rocm.rocminfo.agents if rocm.rocminfo else ())
        if (a.device_type or "").upper() == "GPU"
    ]
    if run is not None and run.found and agents:
        return [Finding("wsl-runtime-ok", "ok", "The ROCm WSL runtime sees the GPU")]
    why = (
        "rocminfo is not installed"
        if run is None or not run.found
        else "rocminfo ran but found no GPU agent"
    )
    return [
        Finding(
            "kfd-missing",
            "error",
            "No ROCm WSL runtime: WSL 2 has no /dev/kfd",
            f"In WSL 2 the GPU is reached through /dev/dxg by AMD's WSL runtime; {why}. "
            "It also needs the AMD Adrenalin driver with WSL support on Windows.",
            "rocmate install --strategy wsl  (amdgpu-install -y --usecase=wsl,rocm --no-dkms), "
            "and update the Windows AMD driver.",
        )
    ]


def access(ctx: Context) -> list[Finding]:
    """kfd-no-access and not-in-render-group."""
    facts = ctx.facts
    perms = facts.permissions
    if not ctx.amd or not ctx.native or perms.is_root:
        return []
    findings = []
    blocked = perms.blocked_nodes()
    groups = perms.node_groups() or ["render"]
    wanted = [g for g in dict.fromkeys([*groups, "render", "video"]) if g in ("render", "video")]
    missing = [g for g in wanted if g not in perms.user.groups]
    add = f"sudo usermod -aG {','.join(wanted)} $USER   then log out and back in (or reboot)"
    if blocked:
        names = ", ".join(n.path for n in blocked)
        owners = ", ".join(sorted({f"{n.group}" for n in blocked if n.group}))
        findings.append(
            Finding(
                "kfd-no-access",
                "error",
                f"You cannot open {names}",
                f"The GPU device nodes belong to the group(s) {owners or 'render'}, and "
                f"{perms.user.name} is not allowed to open them, so ROCm reports "
                "HSA_STATUS_ERROR_OUT_OF_RESOURCES and PyTorch sees no GPU.",
                add,
            )
        )
    in_owner_group = any(g in perms.user.groups for g in groups)
    if perms.open_to_everyone:
        # Every GPU node is world read-write (mode 0666, as some distributions' udev rules and
        # admins' container rules set it): any account opens them, over ssh, from services and
        # from containers given the devices, so the render and video groups add nothing here.
        return findings
    configured = perms.user.configured_groups or ()
    if missing and not in_owner_group and all(g in configured for g in missing):
        findings.append(
            Finding(
                "not-in-render-group",
                "error" if blocked else "warning",
                f"{perms.user.name} was added to {' and '.join(missing)}, but this login is older",
                "Group changes reach only sessions started after them: this one still runs "
                "without the new groups.",
                "Log out and back in (or reboot), then run rocmate doctor again.",
            )
        )
    elif missing and not in_owner_group:
        findings.append(
            Finding(
                "not-in-render-group",
                "error" if blocked else "warning",
                f"{perms.user.name} is not in the {' and '.join(missing)} group",
                "AMD's instructions add every ROCm user to render and video; without them the "
                "GPU is usable only while a desktop session grants access, and not over ssh, "
                "from services or containers.",
                add,
            )
        )
    return _blocked_by_groups(findings)


def _blocked_by_groups(findings: list[Finding]) -> list[Finding]:
    """The device nodes are closed because of the missing group: say so (``caused_by``), so the
    group comes first and the closed nodes name it."""
    if not {"kfd-no-access", "not-in-render-group"} <= {f.id for f in findings}:
        return findings
    return [replace(f, caused_by=("not-in-render-group",)) if f.id == "kfd-no-access" else f
            for f in findings]


def distro(ctx: Context) -> list[Finding]:
    facts = ctx.facts
    if not ctx.amd or facts.platform.wsl == 1:
        return []
    platform = facts.platform
    rocm = ctx.primary[1].rocm if ctx.primary is not None else ()
    candidates = releases_for(ctx.kb, rocm)
    if not candidates or serving_releases(ctx.kb, platform, rocm):
        return []
    newest = candidates[0]
    served = sorted(
        {f"Ubuntu {v}" for r in candidates for v in r.ubuntu}
        | {d.replace("-", " ") for r in candidates for d in r.other_distros}
    )
    shown = describe_distro(platform, ubuntu_version(ctx.kb, platform))
    return [
        Finding(
            "distro-unsupported",
            "info",
            f"AMD's ROCm packages (up to {newest.version}) are not made for {shown}",
            f"AMD's repository serves {', '.join(served)}. PyTorch's ROCm wheels bring their "
            "own ROCm libraries, so the pip-only set-up still works wherever the kernel's "
            "amdgpu driver runs; only a system-wide ROCm install needs a listed distribution.",
            "rocmate install --strategy pip-only",
        )
    ]


def kernel(ctx: Context) -> list[Finding]:
    """kernel-old: only on Ubuntu and its derivatives, the only kernels rocm.toml has data for.

    AMD lists the other distributions (RHEL 8/9 with 4.18/5.14, SLES, Debian, ...) with their own
    vendor kernels, which carry backported amdgpu drivers; Ubuntu's GA kernel numbers say nothing
    about them, and neither do they about rolling distributions.
    """
    facts = ctx.facts
    version = facts.platform.kernel_version
    if not ctx.amd or facts.platform.wsl or version is None:
        return []
    chosen = _chosen(ctx)
    if chosen is None:
        return []
    release, tested, ubuntu = chosen
    needed = tuple(int(p) for p in tested.split(".")[:2] if p.isdigit())
    if version[:2] >= needed:
        return []
    this_ubuntu = ubuntu_version(ctx.kb, facts.platform)
    if this_ubuntu and this_ubuntu not in release.ubuntu:
        # no kernel made for this Ubuntu reaches the tested one: an HWE kernel would not do
        oldest = min(release.ubuntu, key=_kernel_key)
        fix = (f"Upgrade to Ubuntu {oldest} or newer (sudo do-release-upgrade), whose kernels "
               f"reach {tested}, then reboot.")
    else:
        fix = ("Install a newer kernel (Ubuntu: sudo apt install "
               "linux-generic-hwe-$(lsb_release -rs)) or upgrade the distribution, then reboot.")
    return [
        Finding(
            "kernel-old",
            "warning",
            f"Kernel {facts.platform.kernel} is older than ROCm {release.version} supports",
            f"ROCm {release.version} is tested on Ubuntu {ubuntu} with kernels {tested} and "
            "newer; the amdgpu driver of older kernels lacks fixes and support for newer cards.",
            fix,
        )
    ]


def rocm_multiple(ctx: Context) -> list[Finding]:
    installs = ctx.facts.rocm.installs
    if len({i.version for i in installs}) < 2:
        return []
    listed = "; ".join(f"{i.version} ({i.where})" for i in installs)
    return [
        Finding(
            "rocm-multiple",
            "warning",
            f"{len(installs)} ROCm versions are installed side by side",
            f"Found {listed}. Old libraries on the search path mix with new ones and give odd "
            "errors; PyTorch's ROCm wheels bring their own ROCm, so only one system ROCm (or "
            "none) is needed.",
            "Remove the ones you do not use: sudo amdgpu-install --uninstall --rocmrelease=<ver>"
            " (or sudo apt autoremove rocm-core<ver>); rocmate install offers to do it.",
        )
    ]


def dkms(ctx: Context) -> list[Finding]:
    driver = ctx.facts.driver
    findings = []
    in_use = bool(driver.amdgpu_dkms_version) or driver.dkms_module_in_use
    if in_use and driver.crash_files:  # the DKMS driver works: only an old crash report is left
        findings.append(
            Finding(
                "dkms-leftovers",
                "info",
                "An old amdgpu-dkms crash report was left behind",
                "Found " + ", ".join(driver.crash_files) + ". The amdgpu driver that runs is "
                "the DKMS-built one, so that build has since worked.",
                "sudo rm -f /var/crash/amdgpu-dkms.*",
            )
        )
    elif driver.crash_files or (driver.dkms_trees and not in_use):
        findings.append(
            Finding(
                "dkms-leftovers",
                "warning",
                "A failed or stale amdgpu-dkms build was left behind",
                "Found "
                + ", ".join(
                    [f"/var/lib/dkms/amdgpu/{t}" for t in driver.dkms_trees]
                    + list(driver.crash_files)
                )
                + ". A half-built DKMS module breaks the next kernel update; the kernel's own "
                "amdgpu driver serves consumer cards without DKMS.",
                "sudo apt purge amdgpu-dkms && sudo rm -f /var/crash/amdgpu-dkms.*",
            )
        )
    if driver.secure_boot and driver.amdgpu_dkms_version:
        findings.append(
            Finding(
                "secure-boot-dkms",
                "info",
                "Secure Boot is on and amdgpu is a DKMS module",
                "A DKMS module must be signed with a key enrolled in MOK, or it will not load.",
                "sudo mokutil --import /var/lib/dkms/mok.pub  (then reboot and enrol the key)",
            )
        )
    return findings


def windows_side(ctx: Context) -> list[Finding]:
    windows = ctx.facts.windows
    if windows is None or (ctx.facts.gpus.gpus and not ctx.amd):
        return []
    if not windows.checked:
        return [
            Finding(
                "wsl-windows-unchecked",
                "info",
                "The Windows side was not checked",
                windows.problem or "",
                "Make sure the AMD Adrenalin driver with WSL support is installed on Windows.",
            )
        ]
    amd = [g for g in windows.gpus if _is_amd_name(f"{g.vendor or ''} {g.name}")]
    if not amd:
        return [
            Finding(
                "wsl-windows-no-amd",
                "warning",
                "Windows reports no AMD GPU",
                "Windows lists: " + ", ".join(g.name for g in windows.gpus),
                "Install the AMD Adrenalin driver on Windows, then restart WSL (wsl --shutdown).",
            )
        ]
    return [
        Finding(
            "wsl-windows-driver",
            "ok",
            "Windows: " + "; ".join(f"{g.name} driver {g.driver_version or '?'}" for g in amd),
        )
    ]


def _is_amd_name(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in ("advanced micro devices", "amd", "radeon", "ati "))


def _chosen(ctx: Context) -> tuple[RocmRelease, str, str] | None:
    """The release a set-up would pick on an Ubuntu-family system, the lowest kernel it is tested
    with, and the Ubuntu version(s) that number belongs to ("22.04", or "24.04 and 26.04").

    The release is the newest one serving this Ubuntu, else the newest one. Its kernels are those
    listed for this Ubuntu version (ubuntu_kernels), else min_kernel (the GA kernel of its oldest
    Ubuntu). None on any other distribution: rocm.toml has no kernel numbers for them.
    """
    platform = ctx.facts.platform
    if not platform.is_ubuntu_family:
        return None
    rocm = ctx.primary[1].rocm if ctx.primary is not None else ()
    serving = serving_releases(ctx.kb, platform, rocm)
    candidates = serving or releases_for(ctx.kb, rocm)
    with_kernels = [r for r in candidates if r.min_kernel]
    if not with_kernels:
        return None
    release = with_kernels[0]
    ubuntu = ubuntu_version(ctx.kb, platform)
    listed = release.ubuntu_kernels.get(ubuntu, ()) if ubuntu in release.ubuntu else ()
    if listed:
        return release, min(listed, key=_kernel_key), ubuntu
    return release, release.min_kernel or "", " and ".join(sorted(release.ubuntu, key=_kernel_key))


def _kernel_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())
