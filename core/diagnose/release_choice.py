"""Which ROCm release fits a machine: the releases that support a card, and those serving a distro.

Shared by the doctor (distro-unsupported, kernel-old) and the install planner.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.i18n import t
from core.knowledge.loader import Knowledge
from core.knowledge.releases import RocmRelease
from core.probe.platform import PlatformFacts


def releases_for(kb: Knowledge, rocm: Iterable[str] = ()) -> list[RocmRelease]:
    """Current releases (newest first) among ``rocm``; all current ones when ``rocm`` is empty."""
    current = kb.current_releases()
    wanted = set(rocm)
    chosen = [r for r in current if r.version in wanted]
    return chosen or current


def ubuntu_version(kb: Knowledge, platform: PlatformFacts) -> str:
    """The Ubuntu release a machine is (or is based on), "" when not Ubuntu-like."""
    if not platform.is_ubuntu_family:
        return ""
    by_codename = kb.ubuntu_version_for(platform.ubuntu_codename)
    if by_codename:
        return by_codename
    return platform.distro_version if platform.distro_id == "ubuntu" else ""


def serves(release: RocmRelease, kb: Knowledge, platform: PlatformFacts) -> bool:
    """Whether AMD's packages of ``release`` are made for this distribution and version."""
    if platform.is_ubuntu_family:
        return ubuntu_version(kb, platform) in release.ubuntu
    major = platform.distro_version.split(".")[0]
    for entry in release.other_distros:
        distro_id, _, version = entry.partition("-")
        if distro_id == platform.distro_id and (
            version == platform.distro_version or ("." not in version and version == major)
        ):
            return True
    return False


def serving_releases(
    kb: Knowledge, platform: PlatformFacts, rocm: Iterable[str] = ()
) -> list[RocmRelease]:
    """Current releases supporting the card (``rocm``) whose packages serve this distribution."""
    return [r for r in releases_for(kb, rocm) if serves(r, kb, platform)]


def describe_distro(platform: PlatformFacts, ubuntu: str) -> str:
    """The distribution as a person reads it, in the current language."""
    if platform.is_ubuntu_family:
        shown = f"Ubuntu {ubuntu or platform.ubuntu_codename or '?'}"
        if platform.distro_id != "ubuntu":
            shown = t("probe.distro.based-on", "{distro} (based on {base})",
                      distro=platform.distro_name, base=shown)
        return shown
    return f"{platform.distro_name} {platform.distro_version}".strip()
