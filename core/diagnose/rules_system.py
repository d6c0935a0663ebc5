"""Rules about the system around the GPU: WSL, distribution, kernel, driver, device access, ROCm."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.diagnose.known_bad import known_bad_findings
from core.diagnose.release_choice import (
    describe_distro,
    planned_release,
    releases_for,
    serves,
    serving_releases,
    ubuntu_version,
)
from core.i18n import t
from core.knowledge.releases import GpuPlatform, RocmRelease, UbuntuKernel
from core.probe.driver import DriverFacts
from core.probe.gpus import Gpu

DMESG_AMDGPU = "dmesg | grep -i -E 'amdgpu|kfd'"
PIP_ONLY = "rocmate install --strategy pip-only"
# os-release IDs as AMD's support tables name the distributions (rocm.toml other_distros)
_DISTRO_NAMES = {"rhel": "RHEL", "sles": "SLES", "ol": "Oracle Linux", "debian": "Debian",
                 "rocky": "Rocky Linux", "centos": "CentOS", "azurelinux": "Azure Linux"}


def _and() -> str:
    """What joins the last two of a short list ("render and video")."""
    return t("doctor.list-and-separator", " and ")


def _listed(items: Iterable[str], last: str | None = None) -> str:
    """A short list as a sentence says it: "10.1, 10.0 and 7.14" (in Chinese "10.1、10.0和
    7.14"); ``last`` joins the last two (default: :func:`_and`)."""
    words = list(items)
    if len(words) < 3:
        return (last or _and()).join(words)
    return t("doctor.list-comma", ", ").join(words[:-1]) + (last or _and()) + words[-1]


def wsl1(ctx: Context) -> list[Finding]:
    if ctx.facts.platform.wsl != 1:
        return []
    distribution = t("doctor.wsl1.your-distribution", "<your distribution>")
    return [
        Finding(
            "wsl1",
            "error",
            t("doctor.wsl1.title", "This is WSL 1, which cannot reach the GPU"),
            t("doctor.wsl1.detail",
              "WSL 1 translates Linux calls and has no GPU access at all; ROCm needs WSL 2 "
              "(a real Linux kernel with the /dev/dxg GPU bridge)."),
            t("doctor.wsl1.fix",
              "In Windows PowerShell: {command}  (list them with {list}), then start it again "
              "and re-run {doctor}.",
              command=f"wsl --set-version {distribution} 2", list="wsl -l -v",
              doctor="rocmate doctor"),
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
    if not facts.permissions.kfd.known:
        return []  # a replay whose devices.json could not be read: unknown, not missing
    if facts.permissions.kfd.exists:
        return [Finding("kfd-ok", "ok", t("doctor.kfd-ok.title",
                                          "/dev/kfd is present (the amdgpu driver is loaded)"))]
    return [_kfd_missing(ctx)]


def _kfd_missing(ctx: Context) -> Finding:
    facts = ctx.facts
    drivers = {g.driver for g, _ in ctx.amd if g.driver}
    if "radeon" in drivers and not facts.driver.amdgpu_loaded:
        detail = t(
            "doctor.kfd-missing.detail.radeon",
            "The card is driven by the old 'radeon' kernel driver, which has no compute "
            "interface. ROCm needs amdgpu (and a card amdgpu's KFD supports).")
        fix = t("doctor.kfd-missing.fix.radeon",
                "Nothing for ROCm on this card; see the support finding.")
    elif "vfio-pci" in drivers:
        detail = t("doctor.kfd-missing.detail.vfio",
                   "The card is bound to vfio-pci (reserved for a virtual machine), not to "
                   "amdgpu.")
        fix = t("doctor.kfd-missing.fix.vfio",
                "Unbind it from vfio-pci (remove it from vfio-pci.ids) and reboot, or use it in "
                "the VM.")
    elif not facts.driver.amdgpu_loaded and kernel(ctx):
        old = kernel(ctx)[0]
        detail = t(
            "doctor.kfd-missing.detail.kernel-old",
            "The amdgpu kernel module is not loaded, so the GPU has no compute device node. "
            "{kernel_old}: its amdgpu driver does not know current cards, and "
            "linux-modules-extra for it cannot add that.", kernel_old=old.title)
        fix = t("doctor.kfd-missing.fix.kernel-old",
                "Install a newer kernel first (the kernel finding above says how), reboot, then "
                "check again: {command}", command=DMESG_AMDGPU)
        return Finding("kfd-missing", "error", _kfd_missing_title(), detail, fix,
                       caused_by=("kernel-old",))
    elif not facts.driver.amdgpu_loaded:
        detail = t(
            "doctor.kfd-missing.detail.not-loaded",
            "The amdgpu kernel module is not loaded, so the GPU has no compute device node. "
            "On Ubuntu the module ships in linux-modules-extra; a failed DKMS build or "
            "'nomodeset' on the kernel command line also stops it.")
        fix = t("doctor.kfd-missing.fix.not-loaded",
                "{command}  (then check: {check}; remove nomodeset from GRUB)",
                command="sudo apt install linux-modules-extra-$(uname -r) && sudo modprobe amdgpu",
                check=DMESG_AMDGPU)
    else:
        detail = t(
            "doctor.kfd-missing.detail.rejected",
            "amdgpu is loaded but did not create /dev/kfd: KFD rejected the GPU (unsupported "
            "chip, or PCIe atomics missing: '{message}' in dmesg), or this is a container "
            "started without the device.", message="PCI rejects atomics")
        fix = t("doctor.kfd-missing.fix.rejected", "{check}; in Docker: {options}",
                check="dmesg | grep -i kfd",
                options="--device=/dev/kfd --device=/dev/dri --group-add video --group-add render")
    return Finding("kfd-missing", "error", _kfd_missing_title(), detail, fix)


def _kfd_missing_title() -> str:
    return t("doctor.kfd-missing.title", "/dev/kfd does not exist")


def _wsl_runtime(ctx: Context) -> list[Finding]:
    rocm = ctx.facts.rocm
    run = rocm.rocminfo_run
    agents = [
        a
        for a in (rocm.rocminfo.agents if rocm.rocminfo else ())
        if (a.device_type or "").upper() == "GPU"
    ]
    if run is not None and run.found and agents:
        return [Finding("wsl-runtime-ok", "ok", t("doctor.wsl-runtime-ok.title",
                                                  "The ROCm WSL runtime sees the GPU"))]
    why = (
        t("doctor.kfd-missing.because.rocminfo-missing", "rocminfo is not installed")
        if run is None or not run.found
        else t("doctor.kfd-missing.because.no-gpu-agent", "rocminfo ran but found no GPU agent")
    )
    return [
        Finding(
            "kfd-missing",
            "error",
            t("doctor.kfd-missing.title.wsl", "No ROCm WSL runtime: WSL 2 has no /dev/kfd"),
            t("doctor.kfd-missing.detail.wsl",
              "In WSL 2 the GPU is reached through /dev/dxg by AMD's WSL runtime; {why}. "
              "It also needs the AMD Adrenalin driver with WSL support on Windows.", why=why),
            t("doctor.kfd-missing.fix.wsl.rocdxg",
              "{command}  (ROCm with {library}, the bridge to the Windows driver), and keep the "
              "Windows AMD driver current.",
              command="rocmate install --strategy wsl", library="librocdxg"),
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
    add = t("doctor.fix.add-to-groups", "{command}   then log out and back in (or reboot)",
            command=f"sudo usermod -aG {','.join(wanted)} $USER")
    if blocked:
        names = ", ".join(n.path for n in blocked)
        owners = ", ".join(sorted({f"{n.group}" for n in blocked if n.group}))
        findings.append(
            Finding(
                "kfd-no-access",
                "error",
                t("doctor.kfd-no-access.title", "You cannot open {nodes}", nodes=names),
                t("doctor.kfd-no-access.detail",
                  "The GPU device nodes belong to the group(s) {groups}, and {user} is not "
                  "allowed to open them, so ROCm reports HSA_STATUS_ERROR_OUT_OF_RESOURCES and "
                  "PyTorch sees no GPU.", groups=owners or "render", user=perms.user.name),
                add,
            )
        )
    in_owner_group = any(g in perms.user.groups for g in groups)
    if perms.open_to_everyone:
        # Every GPU node is world read-write (mode 0666, as some distributions' udev rules and
        # admins' container rules set it): any account opens them, over ssh, from services and
        # from containers given the devices, so the render and video groups add nothing here.
        return findings
    if not perms.user.known:
        return findings  # a replay whose user.json could not be read: the groups are unknown
    configured = perms.user.configured_groups or ()
    if missing and not in_owner_group and all(g in configured for g in missing):
        findings.append(
            Finding(
                "not-in-render-group",
                "error" if blocked else "warning",
                t("doctor.not-in-render-group.title.stale-login",
                  "{user} was added to {groups}, but this login is older",
                  user=perms.user.name, groups=_listed(missing)),
                t("doctor.not-in-render-group.detail.stale-login",
                  "Group changes reach only sessions started after them: this one still runs "
                  "without the new groups."),
                t("doctor.not-in-render-group.fix.stale-login",
                  "Log out and back in (or reboot), then run {command} again.",
                  command="rocmate doctor"),
            )
        )
    elif missing and not in_owner_group:
        findings.append(
            Finding(
                "not-in-render-group",
                "error" if blocked else "warning",
                t("doctor.not-in-render-group.title", "{user} is not in the {groups} group",
                  user=perms.user.name, groups=_listed(missing)),
                t("doctor.not-in-render-group.detail",
                  "AMD's instructions add every ROCm user to render and video; without them the "
                  "GPU is usable only while a desktop session grants access, and not over ssh, "
                  "from services or containers."),
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
    """distro-unsupported when no current release for the card is made for this distribution;
    gpu-os-unsupported when releases are, but AMD's list for this GPU family (os-support.yaml:
    Radeon and Ryzen get fewer systems and fixed kernels) does not name this system."""
    facts = ctx.facts
    if not ctx.amd or facts.platform.wsl == 1:
        return []
    platform = facts.platform
    rocm = ctx.primary[1].rocm if ctx.primary is not None else ()
    candidates = releases_for(ctx.kb, rocm)
    if not candidates:
        return []
    if serving_releases(ctx.kb, platform, rocm):
        return _gpu_os(ctx, candidates)
    newest = candidates[0]
    served = sorted(
        {f"Ubuntu {v}" for r in candidates for v in r.ubuntu}
        | {d.replace("-", " ") for r in candidates for d in r.other_distros}
    )
    shown = describe_distro(platform, ubuntu_version(ctx.kb, platform))
    family = _family_list(ctx, newest)
    if family is not None and all(
        _family_list(ctx, r) is not None or not (r.ubuntu or r.other_distros) for r in candidates
    ):  # every release for the card lists its family's systems: those are the whole answer
        gpu, row = family
        detail = t("doctor.distro-unsupported.detail.gpu",
                   "For the {gpu}, AMD's ROCm {version} supports only {systems}. PyTorch's ROCm "
                   "wheels bring their own ROCm libraries, so the pip-only set-up still works "
                   "wherever the kernel's amdgpu driver runs; only a system-wide ROCm install "
                   "needs a listed system.",
                   gpu=gpu.name, version=newest.version, systems=_systems(row))
    else:
        detail = t("doctor.distro-unsupported.detail",
                   "AMD's repository serves {distros}. PyTorch's ROCm wheels bring their own "
                   "ROCm libraries, so the pip-only set-up still works wherever the kernel's "
                   "amdgpu driver runs; only a system-wide ROCm install needs a listed "
                   "distribution.", distros=", ".join(served))
    return [
        Finding(
            "distro-unsupported",
            "info",
            t("doctor.distro-unsupported.title",
              "AMD's ROCm packages (up to {version}) are not made for {distro}",
              version=newest.version, distro=shown),
            detail,
            PIP_ONLY,
        )
    ]


def _family_list(ctx: Context, release: RocmRelease) -> tuple[Gpu, GpuPlatform] | None:
    """The primary GPU and its family's systems in ``release``, where the card is official and
    the release lists systems per family for it."""
    if ctx.primary is None:
        return None
    gpu, sup = ctx.primary
    if sup.status != "official" or not gpu.gfx or not release.lists(gpu.gfx):
        return None
    row = release.platform_for(gpu.gfx)
    return (gpu, row) if row is not None else None


def _gpu_os(ctx: Context, candidates: list[RocmRelease]) -> list[Finding]:
    """gpu-os-unsupported: a current release is made for this distribution, but for this GPU
    AMD lists fewer systems (ROCm 10.x: Ryzen APUs only on Ubuntu 26.04 and 24.04 with one
    kernel each; Radeon on Ubuntu with the HWE kernels and on RHEL 10.2/9.8). Quiet when any
    current release for the card serves this system, per family or, without a family list,
    as a whole; and under WSL, whose lists are separate."""
    platform = ctx.facts.platform
    if not ctx.native:
        return []
    ubuntu = ubuntu_version(ctx.kb, platform)
    limited: list[tuple[Gpu, RocmRelease, GpuPlatform]] = []
    for release in candidates:
        family = _family_list(ctx, release)
        if family is None:
            if serves(release, ctx.kb, platform):
                return []
            continue
        gpu, row = family
        if platform.is_ubuntu_family:
            if any(line.fits(ubuntu, platform.kernel) for line in row.ubuntu):
                return []
        elif row.serves_distro(platform.distro_id, platform.distro_version):
            return []
        limited.append((gpu, release, row))
    if not limited:
        return []
    gpu, release, row = limited[0]
    same_ubuntu = [(r.version, line) for _, r, p in limited for line in p.ubuntu
                   if platform.is_ubuntu_family and line.ubuntu == ubuntu]
    runs = gpu.kfd_node is not None
    meanwhile = (
        t("doctor.gpu-os-unsupported.meanwhile",
          "Meanwhile this kernel's amdgpu driver already runs the GPU, and PyTorch's ROCm wheels "
          "bring their own ROCm libraries, so the pip-only set-up works here; AMD just does not "
          "test this combination.")
        if runs else
        t("doctor.gpu-os-unsupported.meanwhile.no-driver",
          "This kernel's amdgpu driver does not show the GPU to ROCm (it has no KFD node), so "
          "nothing runs on it until the system is one of those.")
    )
    kernel = platform.kernel or "?"
    if same_ubuntu:
        by_kernel: dict[tuple[str, str], list[str]] = {}
        for version, line in same_ubuntu:
            by_kernel.setdefault((line.flavour, line.kernel), []).append(version)
        kernels = [
            t("doctor.gpu-os-unsupported.kernel-in", "{flavour} {kernel} (ROCm {versions})",
              flavour=flavour, kernel=number, versions=_listed(versions))
            for (flavour, number), versions in by_kernel.items()
        ]
        title = t("doctor.gpu-os-unsupported.title.kernel",
                  "AMD supports the {gpu} on Ubuntu {ubuntu} only with the {kernels} kernel",
                  gpu=gpu.name, ubuntu=ubuntu, kernels=_listed(kernels, _or()))
        system = t("doctor.gpu-os-unsupported.system.ubuntu", "Ubuntu {ubuntu} with kernel "
                   "{kernel}", ubuntu=ubuntu, kernel=kernel)
        route = _kernel_route(same_ubuntu[0][1])
    else:
        shown = describe_distro(platform, ubuntu)
        title = t("doctor.gpu-os-unsupported.title",
                  "AMD does not support the {gpu} with ROCm {versions} on {distro}",
                  gpu=gpu.name, versions=_listed(r.version for _, r, _ in limited),
                  distro=shown)
        system = t("doctor.gpu-os-unsupported.system", "{distro} with kernel {kernel}",
                   distro=shown, kernel=kernel)
        route = t("doctor.gpu-os-unsupported.fix.os",
                  "AMD's supported route is one of those systems.")
    detail = t("doctor.gpu-os-unsupported.detail",
               "The {gpu} ({gfx}) is official in ROCm {version}, but AMD supports it only on "
               "{systems}; this is {system}.", gpu=gpu.name, gfx=gpu.gfx,
               version=release.version, systems=_systems(row), system=system)
    gap = t("doctor.sentence-gap", " ")
    fix = route
    if runs:
        fix += gap + t("doctor.gpu-os-unsupported.fix.meanwhile", "Meanwhile: {command}",
                       command=PIP_ONLY)
    # info findings show no fix line in the terminal, so the detail says the route too
    return [Finding("gpu-os-unsupported", "info", title,
                    detail + gap + route + gap + meanwhile, fix)]


def _kernel_route(line: UbuntuKernel) -> str:
    """The kernel AMD validated on this Ubuntu, as a step (the OEM kernels' package names are
    not in AMD's table, so only the HWE and GA kernels get a command)."""
    if line.flavour == "HWE":
        return t("doctor.gpu-os-unsupported.fix.hwe",
                 "AMD's supported route: Ubuntu's HWE kernel {kernel} ({command}), then reboot.",
                 kernel=line.kernel,
                 command=f"sudo apt install --install-recommends linux-generic-hwe-{line.ubuntu}")
    if line.flavour == "OEM":
        return t("doctor.gpu-os-unsupported.fix.oem",
                 "AMD's supported route: Ubuntu's OEM kernel {kernel}, then reboot.",
                 kernel=line.kernel)
    return t("doctor.gpu-os-unsupported.fix.ga",
             "AMD's supported route: the GA kernel {kernel} of Ubuntu {ubuntu} ({command}), "
             "then reboot.", kernel=line.kernel, ubuntu=line.ubuntu,
             command="sudo apt install linux-generic")


def _systems(row: GpuPlatform) -> str:
    """A family's systems as a reader sees them: "Ubuntu 24.04.5 with the HWE 7.0 kernel; ..."."""
    parts = [t("doctor.gpu-os.ubuntu", "Ubuntu {version} with the {flavour} {kernel} kernel",
               version=line.version, flavour=line.flavour, kernel=line.kernel)
             for line in row.ubuntu]
    for entry in row.other_distros:
        distro_id, _, version = entry.partition("-")
        parts.append(f"{_DISTRO_NAMES.get(distro_id, distro_id)} {version}".strip())
    return t("doctor.list-separator", "; ").join(parts)


def _or() -> str:
    """What joins two alternatives ("HWE 6.17 or OEM 6.17")."""
    return t("doctor.list-or-separator", " or ")


def kernel(ctx: Context, rocm: str | None = None) -> list[Finding]:
    """kernel-old: only on Ubuntu and its derivatives, the only kernels rocm.toml has data for;
    against ``rocm`` (a set-up plan's release, e.g. an older card's last route) where given;
    ``""`` for a plan that names none (TheRock's nightlies: the newest release serving this
    system); None (the doctor): the release a plan with no choices installs
    (release_choice.planned_release), so the doctor and that plan judge one release.

    AMD lists the other distributions (RHEL 8/9 with 4.18/5.14, SLES, Debian, ...) with their own
    vendor kernels, which carry backported amdgpu drivers; Ubuntu's GA kernel numbers say nothing
    about them, and neither do they about rolling distributions.
    """
    facts = ctx.facts
    version = facts.platform.kernel_version
    if not ctx.amd or facts.platform.wsl or version is None:
        return []
    chosen = _chosen(ctx, rocm)
    if chosen is None:
        return []
    release, tested, ubuntu, planned = chosen
    needed = tuple(int(p) for p in tested.split(".")[:2] if p.isdigit())
    if version[:2] >= needed:
        return []
    this_ubuntu = ubuntu_version(ctx.kb, facts.platform)
    if this_ubuntu and this_ubuntu not in release.ubuntu:
        # no kernel made for this Ubuntu reaches the tested one: an HWE kernel would not do
        oldest = min(release.ubuntu, key=_kernel_key)
        fix = t("doctor.kernel-old.fix.upgrade-ubuntu",
                "Upgrade to Ubuntu {ubuntu} or newer ({command}), whose kernels reach {kernel}, "
                "then reboot.", ubuntu=oldest, command="sudo do-release-upgrade", kernel=tested)
    else:
        fix = t("doctor.kernel-old.fix",
                "Install a newer kernel (Ubuntu: {command}) or upgrade the distribution, then "
                "reboot.", command="sudo apt install linux-generic-hwe-$(lsb_release -rs)")
    judged = t("doctor.kernel-old.judged-planned",
               "Judged against ROCm {version}, the release {command} plans for this card. ",
               version=release.version, command="rocmate install") if planned else ""
    return [
        Finding(
            "kernel-old",
            "warning",
            t("doctor.kernel-old.title", "Kernel {kernel} is older than ROCm {version} supports",
              kernel=facts.platform.kernel, version=release.version),
            judged + t("doctor.kernel-old.detail",
              "ROCm {version} is tested on Ubuntu {ubuntu} with kernels {kernel} and newer; the "
              "amdgpu driver of older kernels lacks fixes and support for newer cards.",
              version=release.version, ubuntu=ubuntu, kernel=tested),
            fix,
        )
    ]


def known_bad_stack(ctx: Context) -> list[Finding]:
    """known-bad-stack: the kernel, linux-firmware or ROCm release here is one public reports show
    hanging or crashing this machine's card (resources/data/known_bad.toml)."""
    return known_bad_findings(ctx)


def rocm_multiple(ctx: Context) -> list[Finding]:
    installs = ctx.facts.rocm.installs
    if len({i.version for i in installs}) < 2:
        return []
    listed = t("doctor.list-separator", "; ").join(f"{i.version} ({i.where})" for i in installs)
    return [
        Finding(
            "rocm-multiple",
            "warning",
            t("doctor.rocm-multiple.title", "{count} ROCm versions are installed side by side",
              count=len(installs)),
            t("doctor.rocm-multiple.detail",
              "Found {installs}. Old libraries on the search path mix with new ones and give odd "
              "errors; PyTorch's ROCm wheels bring their own ROCm, so only one system ROCm (or "
              "none) is needed.", installs=listed),
            t("doctor.rocm-multiple.fix",
              "Remove the ones you do not use: {command} (or {other}); rocmate install offers "
              "to do it.", command="sudo amdgpu-install --uninstall --rocmrelease=<ver>",
              other="sudo apt autoremove rocm-core<ver>"),
        )
    ]


DKMS_TREES = "/var/lib/dkms/amdgpu"


@dataclass(frozen=True)
class DkmsLeftovers:
    """What the one rule for a "stale" amdgpu-dkms finds (:func:`dkms_leftovers`)."""

    in_use: bool
    """The running kernel's amdgpu is the DKMS-built one: AMD's supported driver, not a
    leftover."""
    trees: tuple[str, ...]
    """The builds under /var/lib/dkms/amdgpu, as paths, when none of them is in use."""
    crash_files: tuple[str, ...]
    """amdgpu-dkms crash reports under /var/crash."""

    @property
    def stale(self) -> bool:
        """A build the running kernel does not use, or a crash report of a DKMS build while
        the kernel's own driver serves."""
        return bool(self.trees) or (bool(self.crash_files) and not self.in_use)

    @property
    def old_crash_report(self) -> bool:
        """Only a crash report is left, and the DKMS driver it was about now runs."""
        return self.in_use and bool(self.crash_files)

    @property
    def paths(self) -> list[str]:
        """What is left behind, for the detail of a finding or a preflight check."""
        return [*self.trees, *self.crash_files]


def dkms_leftovers(driver: DriverFacts) -> DkmsLeftovers:
    """The one rule for a "stale" amdgpu-dkms, shared by the doctor's ``dkms-leftovers`` and the
    plan's preflight (core.install.planner): an installed amdgpu-dkms whose module the running
    kernel uses (a version file under /sys/module/amdgpu, or modules.dep taking amdgpu.ko from a
    DKMS folder) is AMD's supported driver (ROCm's Linux install guide installs amdgpu-dkms
    for Instinct and Radeon PRO cards), so its trees are not leftovers; a tree nothing uses,
    or a crash report while the kernel's own driver serves, is."""
    in_use = bool(driver.amdgpu_dkms_version) or driver.dkms_module_in_use
    trees = () if in_use else tuple(f"{DKMS_TREES}/{tree}" for tree in driver.dkms_trees)
    return DkmsLeftovers(in_use, trees, tuple(driver.crash_files))


def dkms(ctx: Context) -> list[Finding]:
    driver = ctx.facts.driver
    findings = []
    left = dkms_leftovers(driver)
    if left.old_crash_report:  # the DKMS driver works: only an old crash report is left
        findings.append(
            Finding(
                "dkms-leftovers",
                "info",
                t("doctor.dkms-leftovers.title.crash-report",
                  "An old amdgpu-dkms crash report was left behind"),
                t("doctor.dkms-leftovers.detail.crash-report",
                  "Found {files}. The amdgpu driver that runs is the DKMS-built one, so that "
                  "build has since worked.", files=", ".join(driver.crash_files)),
                "sudo rm -f /var/crash/amdgpu-dkms.*",
            )
        )
    elif left.stale:
        findings.append(
            Finding(
                "dkms-leftovers",
                "warning",
                t("doctor.dkms-leftovers.title",
                  "A failed or stale amdgpu-dkms build was left behind"),
                t("doctor.dkms-leftovers.detail",
                  "Found {files}. A half-built DKMS module breaks the next kernel update; the "
                  "kernel's own amdgpu driver serves consumer cards without DKMS.",
                  files=", ".join(left.paths)),
                "sudo apt purge amdgpu-dkms && sudo rm -f /var/crash/amdgpu-dkms.*",
            )
        )
    if driver.secure_boot and driver.amdgpu_dkms_version:
        findings.append(
            Finding(
                "secure-boot-dkms",
                "info",
                t("doctor.secure-boot-dkms.title", "Secure Boot is on and amdgpu is a DKMS module"),
                t("doctor.secure-boot-dkms.detail",
                  "A DKMS module must be signed with a key enrolled in MOK, or it will not load."),
                t("doctor.secure-boot-dkms.fix", "{command}  (then reboot and enrol the key)",
                  command="sudo mokutil --import /var/lib/dkms/mok.pub"),
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
                t("doctor.wsl-windows-unchecked.title", "The Windows side was not checked"),
                windows.problem_text or "",
                t("doctor.wsl-windows-unchecked.fix",
                  "Make sure the AMD Adrenalin driver with WSL support is installed on Windows."),
            )
        ]
    amd = [g for g in windows.gpus if _is_amd_name(f"{g.vendor or ''} {g.name}")]
    if not amd:
        return [
            Finding(
                "wsl-windows-no-amd",
                "warning",
                t("doctor.wsl-windows-no-amd.title", "Windows reports no AMD GPU"),
                t("doctor.wsl-windows-no-amd.detail", "Windows lists: {gpus}",
                  gpus=", ".join(g.name for g in windows.gpus)),
                t("doctor.wsl-windows-no-amd.fix",
                  "Install the AMD Adrenalin driver on Windows, then restart WSL ({command}).",
                  command="wsl --shutdown"),
            )
        ]
    drivers = t("doctor.list-separator", "; ").join(
        t("doctor.wsl-windows-driver.gpu-driver", "{gpu} driver {version}", gpu=g.name,
          version=g.driver_version or "?")
        for g in amd)
    return [
        Finding(
            "wsl-windows-driver",
            "ok",
            t("doctor.wsl-windows-driver.title", "Windows: {drivers}", drivers=drivers),
        )
    ]


def _is_amd_name(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in ("advanced micro devices", "amd", "radeon", "ati "))


def _chosen(
    ctx: Context, planned: str | None = None
) -> tuple[RocmRelease, str, str, bool] | None:
    """The release a set-up would pick on an Ubuntu-family system, the lowest kernel it is tested
    with, the Ubuntu version(s) that number belongs to ("22.04", or "24.04 and 26.04"), and
    whether the release is a plan's (given, or the one a plan with no choices installs).

    The release is ``planned`` where given, else (None) the one a plan with no choices would
    install here (release_choice.planned_release: the doctor and the plan judge one release);
    where no plan names one ("" or no such release), the newest one serving this Ubuntu, else
    the newest one. Its kernels are those listed for this Ubuntu version (ubuntu_kernels), else
    min_kernel (the GA kernel of its oldest Ubuntu). None on any other distribution: rocm.toml
    has no kernel numbers for them.
    """
    platform = ctx.facts.platform
    if not platform.is_ubuntu_family:
        return None
    rocm = ctx.primary[1].rocm if ctx.primary is not None else ()
    if planned is None:
        planned = planned_release(ctx)  # the release `rocmate install` would plan here
    row = ctx.kb.release(planned) if planned else None
    if row is not None:  # the plan's own release (an older card's route is not the newest)
        candidates = [row]
    else:
        serving = serving_releases(ctx.kb, platform, rocm)
        candidates = serving or releases_for(ctx.kb, rocm)
    with_kernels = [r for r in candidates if r.min_kernel]
    if not with_kernels:
        return None
    release = with_kernels[0]
    ubuntu = ubuntu_version(ctx.kb, platform)
    listed = release.ubuntu_kernels.get(ubuntu, ()) if ubuntu in release.ubuntu else ()
    if listed:
        return release, min(listed, key=_kernel_key), ubuntu, row is not None
    return (release, release.min_kernel or "",
            _listed(sorted(release.ubuntu, key=_kernel_key)), row is not None)


def _kernel_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".") if p.isdigit())
