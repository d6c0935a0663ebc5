"""What a plan checks before anything runs: the environment folder (refused at once where a
shell script could not hold it or it is the system's own), and the pre-flight list the plan
carries: python3's venv and its fit with the pinned torch, the kernel driver and its release,
AMD's systems for the card, DKMS leftovers, Secure Boot and disk space.
"""

from __future__ import annotations

import os
import re

from core.diagnose.context import Context
from core.diagnose.rules_system import distro as distro_rule
from core.diagnose.rules_system import dkms_leftovers
from core.diagnose.rules_system import kernel as kernel_rule
from core.i18n import t
from core.install.plan import Preflight
from core.install.plan_builder import Choices, PlanError
from core.install.system_steps import apt_family
from core.knowledge.torch_python import TorchPython, load_torch_python, release_of
from core.probe.facts import Facts
from core.probe.managed_env import managed_venv

# Download and install sizes, for the disk check (a ROCm torch wheel set unpacks to ~10 GB).
VENV_BYTES = 12 << 30
APT_BYTES = {"runtime": 6 << 30, "sdk": 20 << 30}
UNSAFE_IN_SCRIPTS = re.compile(r"[\"'$`\\!\n\r]")
"""Characters a path may not hold to be pasted into sh, fish and csh scripts as it is."""


# The file system hierarchy's own trees (FHS 3.0, https://refspecs.linuxfoundation.org/FHS_3.0/
# fhs/index.html, chapters 3 and 4): nothing of a Python environment belongs inside them, and a
# folder directly under / is never one environment's own.
_SYSTEM_TREES = ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc",
                 "/run", "/sbin", "/sys", "/usr")


def system_folder(venv: str, home: str) -> bool:
    """Whether ``venv`` is / or a folder directly under it, lies in one of the system's own
    trees (/usr/local included: pip's own environments go elsewhere), or is the home itself."""
    path = os.path.normpath(venv)
    if path.count("/") <= 1 or path == os.path.normpath(home or "/"):
        return True
    return any(path == tree or path.startswith(tree + "/") for tree in _SYSTEM_TREES)


def venv_folder(facts: Facts, choices: Choices) -> str:
    """The environment folder: the one chosen, else rocmate's managed one; PlanError where
    it cannot be written into shell scripts or is a folder of the system or the home."""
    venv = choices.venv or managed_venv(
        facts.permissions.user.home, facts.environment.values.get("XDG_DATA_HOME")
    )
    if not venv.startswith("/") or UNSAFE_IN_SCRIPTS.search(venv):
        raise PlanError(t(
            "plan.error.venv-unsafe",
            "the environment folder {venv} must be an absolute path without quotes, "
            "'$', '`', '\\', '!' or line breaks (it is written into shell scripts)",
            venv=repr(venv),
        ))
    if system_folder(venv, facts.permissions.user.home):
        raise PlanError(t(
            "plan.error.venv-system-folder",
            "the environment folder {venv} is a folder of the system or your home itself: a "
            "Python environment there would mix its bin/ and lib/ with the system's; choose a "
            "folder of its own, such as {example}", venv=venv,
            example=f"{facts.permissions.user.home.rstrip('/')}/venvs/torch"))
    return venv


def _venv_check(ctx: Context) -> Preflight | None:
    """Whether ``python3 -m venv`` can work here (None: not known, nothing said)."""
    ensurepip = ctx.facts.ensurepip
    if ensurepip is None:
        return None
    if ensurepip:
        return Preflight("python-venv", True, t(
            "plan.preflight.python-venv.title",
            "The system's python3 can make a virtual environment ({module} is there)",
            module="ensurepip"))
    return Preflight(
        "python-venv", False,
        t("plan.preflight.python-venv.title.missing",
          "The system's python3 has no {module}: {command} would fail",
          module="ensurepip", command="python3 -m venv"),
        t("plan.preflight.python-venv.detail.apt", "The plan installs {package} first.",
          package="python3-venv")
        if apt_family(ctx) else
        t("plan.preflight.python-venv.detail.other",
          "Install your distribution's Python venv package, then plan again."),
    )


NIXOS_ERROR = "libstdc++.so.6: cannot open shared object file"
"""The error pip's PyTorch gives on NixOS (explain.toml's libstdcxx-not-found, with its fix and
sources: kavehtehrani/speech2text-extension#20)."""


def _nixos_check(ctx: Context, torch_packages: list[str] | tuple[str, ...]) -> Preflight | None:
    """On NixOS, where a plan installs PyTorch's pip wheels: they look for the C++ runtime
    where other distributions keep it, so ``import torch`` fails until the environment is
    given it (a warning that points to explain's fix; the plan can still run)."""
    if ctx.facts.platform.distro_id != "nixos" or not torch_packages:
        return None
    return Preflight(
        "nixos-libraries", False,
        t("plan.preflight.nixos-libraries.title",
          "On NixOS, the pip wheels of PyTorch do not find the C++ runtime ({library}) by "
          "themselves: 'import torch' fails until the environment is given it",
          library="libstdc++.so.6"),
        t("plan.preflight.nixos-libraries.detail",
          "Before the last step, put the C++ runtime of your system on the loader path of the "
          "environment, or use python3Packages.torchWithRocm of nixpkgs instead: {command} "
          "shows how", command=f'rocmate explain "{NIXOS_ERROR}"'))


def _wheel_pythons(
    ctx: Context, torch_packages: list[str] | tuple[str, ...], torch_url: str | None
) -> TorchPython | None:
    """The Python versions the plan's torch wheels exist for: the pinned torch release's
    (torch_python.toml), else those of the TheRock index the plan installs from (torch.toml's
    [[therock]] python_min/python_max: its torch is unpinned, a nightly); None where neither
    is known."""
    rows = load_torch_python(ctx.kb.data_dir)
    release = next((r for r in (release_of(rows, p) for p in torch_packages) if r), None)
    if release is not None:
        return release
    family = next((f for f in ctx.kb.therock if f.url == torch_url), None)
    if family is None or not (family.python_min and family.python_max):
        return None
    return TorchPython(
        torch=t("plan.preflight.python-version.therock", "of TheRock's {family} index",
                family=family.family),
        python_min=family.python_min, python_max=family.python_max, experimental=(),
        source=family.python_source or family.source)


def _python_check(
    ctx: Context, torch_packages: list[str] | tuple[str, ...], torch_url: str | None = None
) -> Preflight | None:
    """Whether the system's python3 (which makes the environment) has the plan's torch wheels
    (_wheel_pythons); None where the version or the wheels' Pythons are not known (nothing
    said)."""
    have = ctx.facts.python3
    if not have:
        return None
    release = _wheel_pythons(ctx, torch_packages, torch_url)
    if release is None:
        return None
    minor = ".".join(have.split(".")[:2])
    if release.fits(have):
        return Preflight("python-version", True, t(
            "plan.preflight.python-version.title",
            "The system's python3 is {python}: torch {torch} has wheels for it (Python "
            "{versions})", python=minor, torch=release.torch, versions=release.versions))
    return Preflight(
        "python-version", False,
        t("plan.preflight.python-version.title.unfit",
          "The system's python3 is {python}, but torch {torch} has wheels only for Python "
          "{versions}: pip would find none, so this plan cannot be carried out",
          python=minor, torch=release.torch, versions=release.versions),
        t("plan.preflight.python-version.detail.unfit",
          "Upgrade to a release of your distribution whose python3 is {versions}, then plan "
          "again. Source: {source}", versions=release.versions, source=release.source),
        stops=True,
    )


def checks(ctx: Context, strategy: str, choices: Choices, venv: str,
           torch_packages: list[str] | tuple[str, ...] = (),
           rocm: str | None = None, torch_url: str | None = None) -> list[Preflight]:
    """The plan's pre-flight list for ``strategy`` (``rocm``: the plan's own release, which the
    kernel check is held against; ``torch_url``: the index the wheels come from)."""
    facts = ctx.facts
    driver = facts.driver
    checks = []
    venv_check = _venv_check(ctx)
    if venv_check is not None:
        checks.append(venv_check)
    python_check = _python_check(ctx, torch_packages, torch_url)
    if python_check is not None:
        checks.append(python_check)
    nixos = _nixos_check(ctx, torch_packages)
    if nixos is not None:
        checks.append(nixos)
    if strategy != "wsl":
        loaded = driver.amdgpu_loaded or facts.permissions.kfd.exists
        checks.append(
            Preflight(
                "kernel-driver",
                loaded,
                t("plan.preflight.kernel-driver.title",
                  "The kernel's amdgpu driver serves (no DKMS needed)")
                if loaded
                else t("plan.preflight.kernel-driver.title.not-loaded",
                       "The amdgpu driver is not loaded"),
                "" if loaded else t("plan.preflight.kernel-driver.detail.not-loaded",
                                    "See the doctor's {finding} finding before installing.",
                                    finding="kfd-missing"),
            )
        )
        # the doctor's kernel-old, in the same words, against the plan's own release (an older
        # card's route is not 10.x); "" where the plan names none (TheRock's nightlies)
        old = kernel_rule(ctx, rocm or "")
        if old:
            checks.append(Preflight("kernel-old", False, old[0].title, old[0].fix))
        if strategy == "rocm-apt":
            # AMD's per-family systems (os-support.yaml: Ryzen APUs and Radeon on fewer Ubuntu
            # kernels), in the doctor's words: what the official route needs
            for limit in distro_rule(ctx):
                if limit.id == "gpu-os-unsupported":
                    checks.append(Preflight("gpu-os", False, limit.title, limit.fix))
        missing = driver.kernels_without_headers()
        checks.append(
            Preflight(
                "kernel-headers",
                True,
                t("plan.preflight.kernel-headers.title",
                  "Kernel headers: only a DKMS module needs them, and none is planned"),
                t("plan.preflight.kernel-headers.detail", "No headers for {kernels}",
                  kernels=", ".join(missing)) if missing else "",
            )
        )
        left = dkms_leftovers(driver)  # the doctor's dkms-leftovers rule
        stale = left.stale
        checks.append(
            Preflight(
                "dkms-leftovers",
                not stale,
                t("plan.preflight.dkms-leftovers.title", "No stale {package} builds",
                  package="amdgpu-dkms")
                if not stale
                else t("plan.preflight.dkms-leftovers.title.found", "Stale {package} builds found",
                       package="amdgpu-dkms"),
                ", ".join(left.paths) if stale else "",
            )
        )
        checks.append(
            Preflight(
                "secure-boot",
                True,
                t("plan.preflight.secure-boot.title.on", "Secure Boot is on")
                if driver.secure_boot
                else t("plan.preflight.secure-boot.title.off", "Secure Boot is off or unknown"),
                t("plan.preflight.secure-boot.detail",
                  "Only matters for DKMS modules, which this plan does not install."),
            )
        )
    disk = facts.disk_free
    needed = VENV_BYTES + (APT_BYTES.get(choices.package_set, 0) if strategy == "rocm-apt" else 0)
    if isinstance(disk, dict) and disk:
        free = min(disk.values())
        checks.append(
            Preflight(
                "disk-space",
                free >= needed,
                t("plan.preflight.disk-space.title", "{free} GiB free, about {needed} GiB needed",
                  free=f"{free / (1 << 30):.0f}", needed=f"{needed / (1 << 30):.0f}"),
            )
        )
    return checks

