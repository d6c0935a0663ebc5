"""rocm.toml: ROCm release series (targets, Ubuntu versions and kernels, WSL, apt locations)
and AMD's apt repository with its pinned signing key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.knowledge.rows import (
    DATE_RE,
    FINGERPRINT_RE,
    HOST_RE,
    KnowledgeError,
    Row,
    check_top_level,
    gfx_base,
    is_apt_uri_prefix,
    is_gfx,
    is_version,
    rows,
    unique,
    version_tuple,
)

STREAMS = frozenset({"legacy", "core-sdk"})

GPU_GROUPS = frozenset({"instinct", "radeon", "ryzen"})
"""AMD's three device families, each with its own operating-system list in os-support.yaml."""

KERNEL_FLAVOURS = frozenset({"GA", "HWE", "OEM"})

_UBUNTU_ENTRY = re.compile(r"^(?P<version>[0-9]+\.[0-9]+(?:\.[0-9]+)?) (?P<flavour>[A-Z]+) "
                           r"(?P<kernel>[0-9]+\.[0-9]+)$")
_KERNEL = re.compile(r"^([0-9]+)\.([0-9]+)")


@dataclass(frozen=True)
class UbuntuKernel:
    """One Ubuntu line of os-support.yaml: the point release and the kernel AMD validated on it
    ("24.04.4" with the "OEM" "6.17" kernel)."""

    version: str
    """The point release AMD names ("24.04.4", "26.04"); os-release only says "24.04"."""
    flavour: str
    """"GA" (the release's own kernel), "HWE" (Ubuntu's hardware-enablement kernel) or "OEM"."""
    kernel: str
    """major.minor of the kernel ("6.17")."""

    @property
    def ubuntu(self) -> str:
        """The release as os-release names it ("24.04")."""
        return ".".join(self.version.split(".")[:2])

    def fits(self, ubuntu: str, kernel_release: str) -> bool:
        """Whether Ubuntu ``ubuntu`` running ``kernel_release`` (``uname -r``) is this line:
        the same release and kernel major.minor, and for OEM an OEM kernel ("-oem"). An unknown
        kernel ("") is not held against the machine."""
        if ubuntu != self.ubuntu:
            return False
        if not kernel_release:
            return True
        match = _KERNEL.match(kernel_release)
        if match is None or f"{match.group(1)}.{match.group(2)}" != self.kernel:
            return False
        return self.flavour != "OEM" or "oem" in kernel_release.lower().split("-")


@dataclass(frozen=True)
class GpuPlatform:
    """The operating systems one device family is supported on in one release (AMD's
    os-support.yaml lists them per GPU: Radeon and Ryzen get fewer than Instinct)."""

    group: str
    targets: tuple[str, ...]
    ubuntu: tuple[UbuntuKernel, ...]
    other_distros: tuple[str, ...] = ()
    """id-version entries like rhel-10.2 (as RocmRelease.other_distros)."""

    def serves_distro(self, distro_id: str, version: str) -> bool:
        """Whether a non-Ubuntu distribution (os-release ID and VERSION_ID) is on the list."""
        major = version.split(".")[0]
        for entry in self.other_distros:
            entry_id, _, entry_version = entry.partition("-")
            if entry_id == distro_id and (
                entry_version == version or ("." not in entry_version and entry_version == major)
            ):
                return True
        return False


@dataclass(frozen=True)
class RocmRelease:
    """One ROCm minor series in rocm.toml (e.g. "6.2" covering 6.2.0 .. 6.2.4)."""

    version: str
    patches: tuple[str, ...]
    targets: tuple[str, ...]
    ubuntu: tuple[str, ...]
    current: bool
    source: str
    stream: str = "legacy"
    date: str | None = None
    targets_complete: bool = True
    targets_from: Mapping[str, str] = field(default_factory=dict, hash=False)
    """gfx -> the first patch release of the series that lists it (e.g. gfx1201 -> 6.4.1)."""
    deprecated_targets: tuple[str, ...] = ()
    ubuntu_kernels: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    other_distros: tuple[str, ...] = ()
    min_kernel: str | None = None
    wsl: bool | None = None
    """True/False where a source says so; None = not known."""
    wsl_targets: tuple[str, ...] = ()
    repo_dir: str | None = None
    amdgpu_install_deb: str | None = None
    amdgpu_repo_dir: str | None = None
    """The directory under repo.radeon.com/amdgpu/ (from 7.0 on a driver number, e.g. 30.30)."""
    apt_uri_template: str | None = None
    apt_suite: str | None = None
    key_url: str | None = None
    key_fingerprint: str | None = None
    """The signing key's fingerprint where a primary source pins it (Core SDK rows)."""
    note: str | None = None
    platforms: tuple[GpuPlatform, ...] = ()
    """Per-family operating systems where the release states them (os-support.yaml)."""

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return version_tuple(self.version)

    def lists(self, gfx: str) -> bool:
        return gfx_base(gfx) in self.targets

    def platform_for(self, gfx: str) -> GpuPlatform | None:
        """The family row that names ``gfx``, None where the release has no per-family list."""
        base = gfx_base(gfx)
        return next((p for p in self.platforms if base in p.targets), None)


@dataclass(frozen=True)
class RocmRepository:
    """The [repository] table of rocm.toml: AMD's apt signing key for repo.radeon.com."""

    key_url: str
    key_fingerprint: str
    source: str
    note: str | None = None
    trusted_fingerprints: tuple[str, ...] = ()
    """Further signing keys the privileged helper accepts besides ``key_fingerprint``."""
    apt_uri_prefixes: tuple[str, ...] = ()
    """URI prefixes an apt source line written by the helper may use (repo.radeon.com paths)."""
    pin_origins: tuple[str, ...] = ()
    """Origins (``Pin: release o=...``) an apt pin written by the helper may name."""

    @property
    def trusted(self) -> frozenset[str]:
        """Every fingerprint the helper accepts for a keyring: the pinned key and the extras."""
        return frozenset((self.key_fingerprint, *self.trusted_fingerprints))

    @property
    def key_id(self) -> str:
        """The long key id apt prints (last 16 hex digits of the fingerprint)."""
        return self.key_fingerprint[-16:]


RELEASE_OPTIONAL = (
    "stream", "date", "targets_complete", "targets_from", "deprecated_targets", "ubuntu_kernels",
    "other_distros", "min_kernel", "wsl", "wsl_targets", "repo_dir", "amdgpu_install_deb",
    "amdgpu_repo_dir",
    "apt_uri_template", "apt_suite", "key_url", "key_fingerprint", "note", "platform",
)


def parse_rocm(data: Mapping[str, Any]) -> tuple[tuple[RocmRelease, ...], RocmRepository]:
    file = "rocm.toml"
    check_top_level(file, data, ["release", "repository"])
    repo_data = data.get("repository")
    repo_row = Row(file, "repository", 0, repo_data)
    repo_row.where = f"{file}: [repository]"
    repo_row.check_keys(
        ["key_url", "key_fingerprint", "source"],
        ["note", "trusted_fingerprints", "apt_uri_prefixes", "pin_origins"],
    )
    fingerprint = repo_row.text("key_fingerprint")
    if not FINGERPRINT_RE.match(fingerprint):
        raise repo_row.fail("key_fingerprint must be 40 uppercase hex digits")
    repository = RocmRepository(
        key_url=repo_row.text("key_url"),
        key_fingerprint=fingerprint,
        source=repo_row.source(),
        note=repo_row.opt_text("note"),
        trusted_fingerprints=repo_row.str_list(
            "trusted_fingerprints",
            check=lambda v: bool(FINGERPRINT_RE.match(v)),
            what="40 uppercase hex digits",
        ),
        apt_uri_prefixes=repo_row.str_list(
            "apt_uri_prefixes", check=is_apt_uri_prefix, what="an https:// URI prefix ending in /"
        ),
        pin_origins=repo_row.str_list(
            "pin_origins", check=lambda v: bool(HOST_RE.match(v)), what="a host name"
        ),
    )
    releases: list[RocmRelease] = []
    for r in rows(file, data, "release"):
        r.check_keys(["version", "patches", "targets", "ubuntu", "current", "source"],
                     RELEASE_OPTIONAL)
        version = r.version("version")
        patches = r.str_list("patches", required=True, check=is_version, what="a version")
        for patch in patches:
            if not (patch == version or patch.startswith(version + ".")):
                raise r.fail(f"patch {patch} does not belong to series {version}")
        date = r.opt_text("date")
        if date is not None and not DATE_RE.match(date):
            raise r.fail(f"date {date!r} must be YYYY-MM")
        stream = r.opt_text("stream") or "legacy"
        if stream not in STREAMS:
            raise r.fail(f"stream {stream!r} must be one of {', '.join(sorted(STREAMS))}")
        targets = r.str_list("targets", required=True, check=is_gfx, what="a gfx target")
        targets_from: dict[str, str] = {}
        for gfx, patch in r.str_map("targets_from").items():
            if not is_gfx(gfx) or gfx not in targets:
                raise r.fail(f"targets_from: {gfx!r} is not one of this release's targets")
            if not isinstance(patch, str) or patch not in patches:
                raise r.fail(f"targets_from: {gfx} -> {patch!r} is not one of the patches")
            targets_from[gfx] = patch
        kernels: dict[str, tuple[str, ...]] = {}
        ubuntu = r.str_list("ubuntu", required=True, check=is_version, what="an Ubuntu version")
        for ubuntu_version, values in r.str_map("ubuntu_kernels").items():
            if ubuntu_version not in ubuntu:
                raise r.fail(f"ubuntu_kernels: {ubuntu_version} is not in ubuntu")
            if not isinstance(values, list) or not all(
                isinstance(v, str) and is_version(v) for v in values
            ):
                raise r.fail(f"ubuntu_kernels.{ubuntu_version} must be a list of kernel versions")
            kernels[ubuntu_version] = tuple(values)
        min_kernel = r.opt_text("min_kernel")
        if min_kernel is not None and not is_version(min_kernel):
            raise r.fail(f"min_kernel {min_kernel!r} is not a kernel version")
        wsl = r.opt_flag("wsl")
        wsl_targets = r.str_list("wsl_targets", check=is_gfx, what="a gfx target")
        if wsl_targets and wsl is not True:
            raise r.fail("wsl_targets given but wsl is not true")
        key_fingerprint = r.opt_text("key_fingerprint")
        if key_fingerprint is not None:
            if not FINGERPRINT_RE.match(key_fingerprint):
                raise r.fail("key_fingerprint must be 40 uppercase hex digits")
            if r.opt_text("key_url") is None:
                raise r.fail("key_fingerprint given without key_url")
        other_distros = r.str_list(
            "other_distros",
            check=lambda v: bool(re.match(r"^[a-z][a-z0-9]*(-[0-9.]+)?$", v)),
            what="an id-version like rhel-9.4",
        )
        platforms = _platforms(r, targets, ubuntu, other_distros)
        releases.append(RocmRelease(
            version=version,
            patches=patches,
            targets=targets,
            ubuntu=ubuntu,
            current=r.flag("current"),
            source=r.source(),
            stream=stream,
            date=date,
            targets_complete=r.flag("targets_complete", default=True),
            targets_from=targets_from,
            deprecated_targets=r.str_list("deprecated_targets", check=is_gfx,
                                          what="a gfx target"),
            ubuntu_kernels=kernels,
            other_distros=other_distros,
            min_kernel=min_kernel,
            wsl=wsl,
            wsl_targets=wsl_targets,
            repo_dir=r.opt_text("repo_dir"),
            amdgpu_install_deb=r.opt_text("amdgpu_install_deb"),
            amdgpu_repo_dir=r.opt_text("amdgpu_repo_dir"),
            apt_uri_template=r.opt_text("apt_uri_template"),
            apt_suite=r.opt_text("apt_suite"),
            key_url=r.opt_text("key_url"),
            key_fingerprint=key_fingerprint,
            note=r.opt_text("note"),
            platforms=platforms,
        ))
    unique(file, "release", (r.version for r in releases), "version")
    unique(file, "release", (p for r in releases for p in r.patches), "patch")
    if not any(r.current for r in releases):
        raise KnowledgeError(f"{file}: no release is marked current")
    return tuple(releases), repository


def _platforms(
    release: Row, targets: tuple[str, ...], ubuntu: tuple[str, ...], other: tuple[str, ...]
) -> tuple[GpuPlatform, ...]:
    """The [[release.platform]] rows of one release: each family's targets and systems, which
    must be among the release's own."""
    value = release.data.get("platform", [])
    if not isinstance(value, list):
        raise release.fail("platform must be an array of tables ([[release.platform]])")
    found: list[GpuPlatform] = []
    for index, item in enumerate(value):
        row = Row(release.file, "release.platform", index, item)
        row.where = f"{release.where} [[release.platform]] row {index + 1}"
        row.check_keys(["gpus", "targets", "ubuntu", "source"], ["other_distros"])
        row.source()
        group = row.text("gpus")
        if group not in GPU_GROUPS:
            raise row.fail(f"gpus {group!r} must be one of {', '.join(sorted(GPU_GROUPS))}")
        row_targets = row.str_list("targets", required=True, check=is_gfx, what="a gfx target")
        for gfx in row_targets:
            if gfx not in targets:
                raise row.fail(f"target {gfx} is not one of the release's targets")
        lines = []
        for entry in row.str_list("ubuntu", required=True):
            match = _UBUNTU_ENTRY.match(entry)
            if match is None or match.group("flavour") not in KERNEL_FLAVOURS:
                raise row.fail(f"ubuntu: {entry!r} is not like '24.04.4 HWE 6.17' "
                               f"(GA, HWE or OEM)")
            line = UbuntuKernel(match.group("version"), match.group("flavour"),
                                match.group("kernel"))
            if line.ubuntu not in ubuntu:
                raise row.fail(f"ubuntu: {line.ubuntu} is not in the release's ubuntu list")
            lines.append(line)
        distros = row.str_list("other_distros")
        for distro in distros:
            if distro not in other:
                raise row.fail(f"other_distros: {distro} is not in the release's other_distros")
        found.append(GpuPlatform(group, row_targets, tuple(lines), distros))
    table = f"release.platform of {release.data.get('version')}"
    unique(release.file, table, (g for p in found for g in p.targets), "target")
    unique(release.file, table, (p.group for p in found), "gpus")
    return tuple(found)
