"""The ``rocm-apt`` route: AMD's apt repository for Ubuntu 22.04/24.04 and their derivatives,
then the wheel (core.install.python_steps).

Which release serves this Ubuntu (:func:`choose_release`), the Ubuntu codename its source line
names (:func:`ubuntu_codename`), and the system steps (:func:`add_steps`): ROCm packages of other
releases removed with consent, the repository (repo.radeon.com: the pinned keyring, a
``signed-by`` source line and an apt pin; a Core SDK release: core.install.core_sdk_route), the
package lists read, and the packages installed. The WSL route (core.install.wsl_route) plans its
ROCm packages through :func:`add_steps` too.
"""

from __future__ import annotations

from core.diagnose.context import Support
from core.diagnose.release_choice import serving_releases, ubuntu_version
from core.i18n import t
from core.install import core_sdk_route

# what the helper accepts is the authority for what a plan names
from core.install.helper.policy import KEYRING, PIN, SOURCES
from core.install.plan import FileSpec, Step
from core.install.plan_builder import PlanBuilder, PlanError
from core.install.system_steps import apt_update, remove_old, signing_key
from core.knowledge.loader import Knowledge
from core.knowledge.releases import RocmRelease
from core.probe.facts import Facts
from core.probe.platform import PlatformFacts

PIN_CONTENT = "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n"
PACKAGE_SETS = {
    "runtime": ("rocm-hip-runtime", "rocminfo"),
    "sdk": ("rocm-hip-sdk", "rocminfo", "rocm-developer-tools"),
}


def ubuntu_codename(kb: Knowledge, platform: PlatformFacts) -> str:
    """The Ubuntu codename AMD's repository line needs (a derivative's base); PlanError if none."""
    if platform.ubuntu_codename and kb.ubuntu_version_for(platform.ubuntu_codename):
        return platform.ubuntu_codename
    if platform.codename and kb.ubuntu_version_for(platform.codename):
        return platform.codename
    by_version = kb.ubuntu_codename_for(platform.distro_version)
    if platform.distro_id == "ubuntu" and by_version:
        return by_version
    raise PlanError(t(
        "plan.error.ubuntu-release-unknown",
        "cannot tell which Ubuntu release {distro} {version} is "
        "(no {codename} or {version_codename} in {file})",
        distro=platform.distro_name, version=platform.distro_version,
        codename="UBUNTU_CODENAME", version_codename="VERSION_CODENAME", file="/etc/os-release",
    ))


def _plannable(kb: Knowledge, release: RocmRelease) -> bool:
    """Whether a rocm-apt plan can be made for ``release``."""
    if release.stream == "legacy":
        return bool(release.repo_dir)
    return core_sdk_route.core_sdk_route(kb, release)


def choose_release(kb: Knowledge, facts: Facts, support: Support, rocm: str | None) -> RocmRelease:
    """The release of AMD's apt repositories that serves this Ubuntu: ``rocm`` where asked for,
    else the newest of the legacy repository (repo.radeon.com), else the newest Core SDK
    release (stable.repo.amd.com) whose key and repository rocm.toml pins."""
    serving = [
        r for r in serving_releases(kb, facts.platform, support.rocm) if _plannable(kb, r)
    ]
    if rocm:
        serving = [r for r in serving if r.version == rocm]
    # legacy first (the route plans made before the Core SDK), newest first within each stream
    serving.sort(key=lambda r: r.stream != "legacy")
    if not serving:
        version = ubuntu_version(kb, facts.platform) or facts.platform.distro_version
        raise PlanError(t(
            "plan.error.no-apt-release",
            "no ROCm release with a pinned signing key serves Ubuntu {version} for this card "
            "(use {option})",
            version=version, option="--strategy pip-only",
        ))
    return serving[0]


def add_steps(builder: PlanBuilder, release: RocmRelease) -> None:
    """ROCm ``release`` from AMD's repository: old releases' packages removed with consent, the
    repository set up, the package set installed."""
    builder.apt_release = release
    remove_old(builder)
    codename = ubuntu_codename(builder.ctx.kb, builder.facts.platform)
    core_sdk = release.stream == "core-sdk"
    if core_sdk:
        core_sdk_route.add_source(builder, release, codename)
    else:
        _add_radeon_source(builder, release, codename)
    package_set = builder.choices.package_set
    if package_set not in PACKAGE_SETS:
        raise PlanError(t("plan.error.unknown-package-set",
                          "unknown package set {name}: {runtime} or {sdk}",
                          name=repr(package_set), runtime="runtime", sdk="sdk"))
    packages = core_sdk_route.packages(builder, release) if core_sdk else PACKAGE_SETS[package_set]
    builder.packages = list(packages)
    builder.add(
        Step(
            "apt-install",
            t("plan.apt-install.title", "Install ROCm {version} ({package_set})",
              version=release.version, package_set=package_set),
            t("plan.apt-install.explain",
              "The ROCm user-space libraries and tools. No kernel module (DKMS): the kernel's "
              "own amdgpu driver serves."),
            privileged=True,
            argv=("apt-get", "install", "-y", "--no-install-recommends", *packages),
        )
    )
    if core_sdk:
        core_sdk_route.add_layout_note(builder, release)


def _add_radeon_source(builder: PlanBuilder, release: RocmRelease, codename: str) -> None:
    """repo.radeon.com's repository for ``release``: the pinned keyring, one ``signed-by``
    source line and an apt pin, then its package lists."""
    repo = builder.ctx.kb.repository
    signing_key(builder, repo.key_url, KEYRING, repo.key_fingerprint)
    line = (
        f"deb [arch=amd64 signed-by={KEYRING}] https://repo.radeon.com/rocm/apt/"
        f"{release.repo_dir} {codename} main\n"
    )
    builder.add(
        Step(
            "apt-source",
            t("plan.apt-source.title", "Add AMD's ROCm {version} repository for {codename}",
              version=release.version, codename=codename),
            t("plan.apt-source.explain", "One source line, bound to AMD's key with {option}.",
              option="signed-by"),
            privileged=True,
            file=FileSpec(SOURCES, content=line),
            kind="file",
        )
    )
    builder.add(
        Step(
            "apt-pin",
            t("plan.apt-pin.title", "Prefer AMD's packages over the distribution's"),
            t("plan.apt-pin.explain",
              "An apt pin (priority {priority}), so Ubuntu's own older ROCm packages do not "
              "mix in.", priority=600),
            privileged=True,
            file=FileSpec(PIN, content=PIN_CONTENT),
            kind="file",
        )
    )
    apt_update(builder)
