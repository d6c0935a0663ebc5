"""Load and check rocmate's knowledge base (resources/data/*.toml).

:func:`load_knowledge` reads gpus.toml, rocm.toml, torch.toml, overrides.toml, support.toml,
distros.toml and explain.toml into frozen dataclasses, checks them (unknown keys, missing sources,
malformed gfx and PCI ids, support rows that contradict the release table, ...) and returns one
:class:`Knowledge`. Any problem raises :class:`KnowledgeError` naming the file and the row.
"""

from __future__ import annotations

import importlib.resources
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import tomllib

__all__ = [
    "DistroDerivative",
    "DistroFamily",
    "ErrorPattern",
    "GpuRow",
    "Knowledge",
    "KnowledgeError",
    "NoOverride",
    "OverrideRule",
    "RocmRelease",
    "RocmRepository",
    "TargetSupport",
    "TheRockIndex",
    "TorchIndex",
    "UbuntuRelease",
    "default_data_dir",
    "gfx_base",
    "load_knowledge",
]

GFX_RE = re.compile(r"^gfx[0-9]+[0-9a-f]{2}$")
PCI_RE = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{4}$")
REVISION_RE = re.compile(r"^[0-9a-f]{2}$")
VERSION_RE = re.compile(r"^[0-9]+(\.[0-9]+)+$")
WHEEL_VERSION_RE = re.compile(r"^[0-9]+(\.[0-9]+)+((a|b|rc|\.post|\.dev)[0-9]+)?$")
DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}$")
FINGERPRINT_RE = re.compile(r"^[0-9A-F]{40}$")
HOST_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$")
# An apt URI prefix: https:// with a host, or plain http:// on the loopback address only (the
# helper's tests serve a throwaway signed repository there); a path of safe characters ending in /.
APT_URI_PREFIX_RE = re.compile(
    r"^(https://[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?|http://127\.0\.0\.1(:[0-9]{1,5})?)"
    r"/([A-Za-z0-9._~-]+/)*$"
)

VENDORS = frozenset({"amd", "nvidia", "intel"})
STATUSES = frozenset({"official", "override", "unsupported"})
CONFIDENCES = frozenset({"community", "experimental"})
STREAMS = frozenset({"legacy", "core-sdk"})
PACKAGE_MANAGERS = frozenset({"apt", "dnf", "yum", "zypper", "pacman"})

FILES = (
    "gpus.toml",
    "rocm.toml",
    "torch.toml",
    "overrides.toml",
    "support.toml",
    "distros.toml",
    "explain.toml",
)


class KnowledgeError(ValueError):
    """The knowledge base is missing, unreadable or inconsistent. The message names file and row."""


# --------------------------------------------------------------------------------------------
# rows


@dataclass(frozen=True)
class GpuRow:
    """One product in gpus.toml: a PCI device id (and revisions) with its name and gfx target."""

    pci_id: str
    name: str
    vendor: str
    integrated: bool
    source: str
    revisions: tuple[str, ...] = ()
    """Lowercase two-digit hex revisions; empty = any revision (the fallback row for the id)."""
    gfx: str | None = None
    arch: str | None = None
    family: str | None = None
    vram_gib: float | None = None
    peak_tflops_fp32: float | None = None
    peak_tflops_fp16: float | None = None
    peak_tflops_bf16: float | None = None
    peak_tflops_tf32: float | None = None
    mem_bandwidth_gbs: float | None = None
    note: str | None = None


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
    note: str | None = None

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return _version_tuple(self.version)

    def lists(self, gfx: str) -> bool:
        return gfx_base(gfx) in self.targets


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


@dataclass(frozen=True)
class TorchIndex:
    """A PyTorch wheel index for one ROCm series (download.pytorch.org or AMD's own)."""

    name: str
    url: str
    rocm: str
    torch: tuple[str, ...]
    stable: bool
    source: str
    torchvision: tuple[str, ...] = ()
    arch_list: tuple[str, ...] = ()
    """gfx targets compiled into the wheels; empty = not known."""
    vendor: str = "pytorch"
    device_extra: bool = False
    """True when the wheel needs a per-GPU extra, e.g. ``torch[device-gfx1100]`` (AMD's index)."""
    note: str | None = None

    @property
    def newest_torch(self) -> str | None:
        return max(self.torch, key=_version_tuple) if self.torch else None


@dataclass(frozen=True)
class TheRockIndex:
    """A TheRock (ROCm nightly) pip index for one gfx family."""

    family: str
    url: str
    targets: tuple[str, ...]
    preview: bool
    source: str
    note: str | None = None


@dataclass(frozen=True)
class OverrideRule:
    """An HSA_OVERRIDE_GFX_VERSION value that makes PyTorch run on a target that is not official."""

    gfx: str
    override: str
    confidence: str
    caveat: str
    source: str
    until_rocm: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class NoOverride:
    """A target for which no HSA_OVERRIDE_GFX_VERSION value is known to work."""

    gfx: str
    reason: str
    source: str


@dataclass(frozen=True)
class TargetSupport:
    """The doctor's policy for one gfx target (support.toml)."""

    gfx: str
    status: str
    note: str
    source: str
    rocm: tuple[str, ...] = ()
    override: str | None = None
    therock: str | None = None


@dataclass(frozen=True)
class ErrorPattern:
    """One `rocmate explain` pattern: regexes (any may match), cause, fix, confirming findings."""

    id: str
    match: tuple[str, ...]
    title: str
    cause: str
    fix: str
    source: str
    findings: tuple[str, ...] = ()
    regexes: tuple[re.Pattern[str], ...] = field(default=(), compare=False, repr=False)

    def matches(self, text: str) -> bool:
        return any(regex.search(text) for regex in self.regexes)


@dataclass(frozen=True)
class UbuntuRelease:
    version: str
    codename: str
    source: str
    lts: bool = False


@dataclass(frozen=True)
class DistroDerivative:
    """An Ubuntu derivative's os-release ID; it carries UBUNTU_CODENAME of its Ubuntu base."""

    id: str
    base: str
    name: str
    source: str
    note: str | None = None


@dataclass(frozen=True)
class DistroFamily:
    """os-release IDs (and ID_LIKE values) of one distro family and its package manager."""

    name: str
    ids: tuple[str, ...]
    id_like: tuple[str, ...]
    package_manager: str
    source: str
    note: str | None = None


# --------------------------------------------------------------------------------------------
# the whole knowledge base


@dataclass(frozen=True)
class Knowledge:
    gpus: tuple[GpuRow, ...]
    releases: tuple[RocmRelease, ...]
    repository: RocmRepository
    torch_indexes: tuple[TorchIndex, ...]
    therock: tuple[TheRockIndex, ...]
    overrides: tuple[OverrideRule, ...]
    no_overrides: tuple[NoOverride, ...]
    targets: tuple[TargetSupport, ...]
    ubuntu: tuple[UbuntuRelease, ...]
    derivatives: tuple[DistroDerivative, ...]
    families: tuple[DistroFamily, ...]
    patterns: tuple[ErrorPattern, ...]
    data_dir: Path

    # -- GPUs ------------------------------------------------------------------------------

    def gpu_by_pci(self, vendor_device: str, revision: str | None = None) -> GpuRow | None:
        """The row for ``"1002:744c"`` and revision ``"c8"`` (exact revision first, then the
        row without revisions). Case, a ``0x`` prefix and a one-digit revision are accepted."""
        key = _norm_pci(vendor_device)
        if key is None:
            return None
        rev = _norm_revision(revision)
        fallback: GpuRow | None = None
        for row in self.gpus:
            if row.pci_id != key:
                continue
            if rev is not None and rev in row.revisions:
                return row
            if not row.revisions and fallback is None:
                fallback = row
        return fallback

    def gpus_by_gfx(self, gfx: str) -> list[GpuRow]:
        wanted = gfx_base(gfx)
        return [row for row in self.gpus if row.gfx == wanted]

    # -- support policy --------------------------------------------------------------------

    def support_for(self, gfx: str) -> TargetSupport | None:
        wanted = gfx_base(gfx)
        return next((row for row in self.targets if row.gfx == wanted), None)

    def override_rule(self, gfx: str) -> OverrideRule | None:
        wanted = gfx_base(gfx)
        return next((row for row in self.overrides if row.gfx == wanted), None)

    def no_override(self, gfx: str) -> NoOverride | None:
        wanted = gfx_base(gfx)
        return next((row for row in self.no_overrides if row.gfx == wanted), None)

    # -- ROCm releases ---------------------------------------------------------------------

    def release(self, version: str) -> RocmRelease | None:
        """The series for ``"6.2"``; a patch version (``"6.2.4"``) finds its series too."""
        wanted = version.strip()
        for row in self.releases:
            if row.version == wanted or wanted in row.patches:
                return row
        return None

    def current_releases(self) -> list[RocmRelease]:
        """Releases marked current in rocm.toml, newest first."""
        return sorted(
            (row for row in self.releases if row.current),
            key=lambda r: r.version_tuple,
            reverse=True,
        )

    def newest_release(self) -> RocmRelease | None:
        """The newest current release (or the newest release at all if none is current)."""
        current = self.current_releases()
        if current:
            return current[0]
        return max(self.releases, key=lambda r: r.version_tuple, default=None)

    # -- distros ---------------------------------------------------------------------------

    def ubuntu_version_for(self, codename: str | None) -> str | None:
        if not codename:
            return None
        wanted = codename.strip().lower()
        return next((row.version for row in self.ubuntu if row.codename == wanted), None)

    def ubuntu_codename_for(self, version: str | None) -> str | None:
        if not version:
            return None
        wanted = ".".join(version.strip().split(".")[:2])
        return next((row.codename for row in self.ubuntu if row.version == wanted), None)

    def derivative(self, distro_id: str | None) -> DistroDerivative | None:
        if not distro_id:
            return None
        wanted = distro_id.strip().lower()
        return next((row for row in self.derivatives if row.id == wanted), None)

    def family_for(self, distro_id: str | None, id_like: Iterable[str] = ()) -> DistroFamily | None:
        """The family of an os-release ID, falling back to its ID_LIKE values in order."""
        candidates = [c.strip().lower() for c in [distro_id or "", *id_like] if c and c.strip()]
        for candidate in candidates:
            for row in self.families:
                if candidate in row.ids:
                    return row
        for candidate in candidates[1:]:
            for row in self.families:
                if candidate in row.id_like:
                    return row
        return None

    # -- wheels ----------------------------------------------------------------------------

    def torch_index_for(self, rocm: str) -> TorchIndex | None:
        """The stable wheel index for a ROCm series (``"6.2"``) or patch (``"6.2.4"``).

        An index named exactly after the patch wins (``rocm6.2.4``); otherwise the stable index
        of that series with the newest torch."""
        wanted = rocm.strip()
        release = self.release(wanted)
        series = release.version if release is not None else wanted
        exact = [] if wanted == series else [
            i for i in self.torch_indexes if i.stable and i.name == f"rocm{wanted}"
        ]
        candidates = exact or [i for i in self.torch_indexes if i.stable and i.rocm == series]
        if not candidates:
            return None
        return max(candidates, key=lambda i: _version_tuple(i.newest_torch or "0"))

    def therock_for(self, gfx: str) -> TheRockIndex | None:
        wanted = gfx_base(gfx)
        support = self.support_for(wanted)
        if support is not None and support.therock:
            named = next((t for t in self.therock if t.family == support.therock), None)
            if named is not None:
                return named
        return next((t for t in self.therock if wanted in t.targets), None)

    # -- errors ----------------------------------------------------------------------------

    def match_errors(self, text: str) -> list[ErrorPattern]:
        """Every pattern with a regex that matches ``text``, in explain.toml's order."""
        return [pattern for pattern in self.patterns if pattern.matches(text)]

    def pattern(self, pattern_id: str) -> ErrorPattern | None:
        return next((p for p in self.patterns if p.id == pattern_id), None)


# --------------------------------------------------------------------------------------------
# helpers


def gfx_base(gfx: str) -> str:
    """``"gfx90a:sramecc+:xnack-"`` -> ``"gfx90a"`` (feature suffixes stripped, lowercase)."""
    return gfx.strip().split(":", 1)[0].lower()


def _version_tuple(version: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in version.split("."):
        digits = re.match(r"[0-9]+", piece)
        parts.append(int(digits.group(0)) if digits else 0)
    return tuple(parts)


def _norm_pci(vendor_device: str) -> str | None:
    text = vendor_device.strip().lower()
    if ":" not in text:
        return None
    vendor, device = (p.strip().removeprefix("0x") for p in text.split(":", 1))
    key = f"{vendor.zfill(4)}:{device.zfill(4)}"
    return key if PCI_RE.match(key) else None


def _norm_revision(revision: str | None) -> str | None:
    if revision is None:
        return None
    text = revision.strip().lower().removeprefix("0x")
    if not text:
        return None
    return text.zfill(2)


def default_data_dir() -> Path:
    """resources/data beside the packages; else the frozen bundle's or the packaged copy."""
    beside = Path(__file__).resolve().parents[2] / "resources" / "data"
    if beside.is_dir():
        return beside
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle and (Path(bundle) / "resources" / "data").is_dir():
        return Path(bundle) / "resources" / "data"
    packaged = importlib.resources.files("core.knowledge").joinpath("data")
    return Path(str(packaged))


# --------------------------------------------------------------------------------------------
# typed access to one TOML row

class _Row:
    """A TOML table row with typed getters that name file, table and row in every error."""

    def __init__(self, file: str, table: str, index: int, data: object) -> None:
        self.file = file
        self.table = table
        self.index = index
        if not isinstance(data, dict):
            raise KnowledgeError(f"{file}: [[{table}]] row {index + 1} is not a table")
        self.data: dict[str, Any] = data
        label = data.get("id") or data.get("pci_id") or data.get("gfx") or data.get("version")
        label = label or data.get("name") or data.get("family")
        self.where = f"{file}: [[{table}]] row {index + 1}" + (f" ({label})" if label else "")

    def fail(self, message: str) -> KnowledgeError:
        return KnowledgeError(f"{self.where}: {message}")

    def check_keys(self, required: Iterable[str], optional: Iterable[str]) -> None:
        required = tuple(required)
        allowed = set(required) | set(optional)
        unknown = sorted(set(self.data) - allowed)
        if unknown:
            raise self.fail(f"unknown key(s) {', '.join(unknown)}")
        missing = [k for k in required if k not in self.data]
        if missing:
            raise self.fail(f"missing key(s) {', '.join(missing)}")

    def text(self, key: str) -> str:
        value = self.data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{key} must be a non-empty string")
        return value

    def opt_text(self, key: str) -> str | None:
        if key not in self.data:
            return None
        return self.text(key)

    def flag(self, key: str, default: bool | None = None) -> bool:
        if key not in self.data and default is not None:
            return default
        value = self.data.get(key)
        if not isinstance(value, bool):
            raise self.fail(f"{key} must be true or false")
        return value

    def opt_flag(self, key: str) -> bool | None:
        if key not in self.data:
            return None
        return self.flag(key)

    def opt_float(self, key: str) -> float | None:
        if key not in self.data:
            return None
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise self.fail(f"{key} must be a positive number")
        return float(value)

    def str_list(
        self,
        key: str,
        *,
        required: bool = False,
        check: Callable[[str], bool] | None = None,
        what: str = "",
    ) -> tuple[str, ...]:
        if key not in self.data:
            if required:
                raise self.fail(f"missing key {key}")
            return ()
        value = self.data[key]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise self.fail(f"{key} must be a list of non-empty strings")
        items = tuple(str(v) for v in value)
        if check is not None:
            for item in items:
                if not check(item):
                    raise self.fail(f"{key}: {item!r} is not {what or 'valid'}")
        if len(set(items)) != len(items):
            raise self.fail(f"{key} has duplicates")
        return items

    def str_map(self, key: str) -> dict[str, Any]:
        if key not in self.data:
            return {}
        value = self.data[key]
        if not isinstance(value, dict):
            raise self.fail(f"{key} must be an inline table")
        return value

    def source(self) -> str:
        return self.text("source")

    def gfx(self, key: str = "gfx") -> str:
        value = self.text(key)
        if not GFX_RE.match(value):
            raise self.fail(f"{key} {value!r} does not look like a gfx target (gfx1100, gfx90a)")
        return value

    def opt_gfx(self, key: str = "gfx") -> str | None:
        if key not in self.data:
            return None
        return self.gfx(key)

    def version(self, key: str) -> str:
        value = self.text(key)
        if not VERSION_RE.match(value):
            raise self.fail(f"{key} {value!r} is not a version like 6.2 or 6.2.4")
        return value


def _is_gfx(value: str) -> bool:
    return bool(GFX_RE.match(value))


def _is_version(value: str) -> bool:
    return bool(VERSION_RE.match(value))


def _is_apt_uri_prefix(value: str) -> bool:
    return bool(APT_URI_PREFIX_RE.match(value)) and "/../" not in value and "/./" not in value


def _is_wheel_version(value: str) -> bool:
    return bool(WHEEL_VERSION_RE.match(value))


def _rows(file: str, data: Mapping[str, Any], table: str, *, required: bool = True) -> list[_Row]:
    value = data.get(table)
    if value is None:
        if required:
            raise KnowledgeError(f"{file}: no [[{table}]] rows")
        return []
    if not isinstance(value, list):
        raise KnowledgeError(f"{file}: {table} must be an array of tables ([[{table}]])")
    return [_Row(file, table, i, item) for i, item in enumerate(value)]


def _check_top_level(file: str, data: Mapping[str, Any], allowed: Sequence[str]) -> None:
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise KnowledgeError(f"{file}: unknown top-level table(s) {', '.join(unknown)}")


def _unique(file: str, table: str, values: Iterable[str], what: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise KnowledgeError(f"{file}: [[{table}]] {what} {value!r} appears twice")
        seen.add(value)


# --------------------------------------------------------------------------------------------
# per-file parsers

GPU_OPTIONAL = (
    "revisions", "gfx", "arch", "family", "vram_gib", "peak_tflops_fp32", "peak_tflops_fp16",
    "peak_tflops_bf16", "peak_tflops_tf32", "mem_bandwidth_gbs", "note",
)


def _parse_gpus(data: Mapping[str, Any]) -> tuple[GpuRow, ...]:
    file = "gpus.toml"
    _check_top_level(file, data, ["gpu"])
    rows: list[GpuRow] = []
    seen: dict[tuple[str, str], str] = {}
    for r in _rows(file, data, "gpu"):
        r.check_keys(["pci_id", "name", "vendor", "integrated", "source"], GPU_OPTIONAL)
        pci = r.text("pci_id")
        if not PCI_RE.match(pci):
            raise r.fail(f"pci_id {pci!r} must look like 1002:744c (lowercase hex)")
        vendor = r.text("vendor")
        if vendor not in VENDORS:
            raise r.fail(f"vendor {vendor!r} must be one of {', '.join(sorted(VENDORS))}")
        revisions = r.str_list("revisions", check=lambda v: bool(REVISION_RE.match(v)),
                               what="a two-digit lowercase hex revision")
        gfx = r.opt_gfx()
        if vendor == "amd" and gfx is None:
            raise r.fail("AMD rows need a gfx target")
        if vendor != "amd" and gfx is not None:
            raise r.fail("only AMD rows have a gfx target")
        name = r.text("name")
        if name.startswith("AMD "):
            raise r.fail("name is written without the 'AMD ' prefix")
        for rev in revisions or ("",):
            key = (pci, rev)
            if key in seen:
                what = f"revision {rev}" if rev else "a row without revisions"
                raise r.fail(f"{pci} {what} is already used by {seen[key]!r}")
            seen[key] = name
        rows.append(GpuRow(
            pci_id=pci,
            name=name,
            vendor=vendor,
            integrated=r.flag("integrated"),
            source=r.source(),
            revisions=revisions,
            gfx=gfx,
            arch=r.opt_text("arch"),
            family=r.opt_text("family"),
            vram_gib=r.opt_float("vram_gib"),
            peak_tflops_fp32=r.opt_float("peak_tflops_fp32"),
            peak_tflops_fp16=r.opt_float("peak_tflops_fp16"),
            peak_tflops_bf16=r.opt_float("peak_tflops_bf16"),
            peak_tflops_tf32=r.opt_float("peak_tflops_tf32"),
            mem_bandwidth_gbs=r.opt_float("mem_bandwidth_gbs"),
            note=r.opt_text("note"),
        ))
    return tuple(rows)


RELEASE_OPTIONAL = (
    "stream", "date", "targets_complete", "targets_from", "deprecated_targets", "ubuntu_kernels",
    "other_distros", "min_kernel", "wsl", "wsl_targets", "repo_dir", "amdgpu_install_deb",
    "amdgpu_repo_dir",
    "apt_uri_template", "apt_suite", "key_url", "note",
)


def _parse_rocm(data: Mapping[str, Any]) -> tuple[tuple[RocmRelease, ...], RocmRepository]:
    file = "rocm.toml"
    _check_top_level(file, data, ["release", "repository"])
    repo_data = data.get("repository")
    repo_row = _Row(file, "repository", 0, repo_data)
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
            "apt_uri_prefixes", check=_is_apt_uri_prefix, what="an https:// URI prefix ending in /"
        ),
        pin_origins=repo_row.str_list(
            "pin_origins", check=lambda v: bool(HOST_RE.match(v)), what="a host name"
        ),
    )
    releases: list[RocmRelease] = []
    for r in _rows(file, data, "release"):
        r.check_keys(["version", "patches", "targets", "ubuntu", "current", "source"],
                     RELEASE_OPTIONAL)
        version = r.version("version")
        patches = r.str_list("patches", required=True, check=_is_version, what="a version")
        for patch in patches:
            if not (patch == version or patch.startswith(version + ".")):
                raise r.fail(f"patch {patch} does not belong to series {version}")
        date = r.opt_text("date")
        if date is not None and not DATE_RE.match(date):
            raise r.fail(f"date {date!r} must be YYYY-MM")
        stream = r.opt_text("stream") or "legacy"
        if stream not in STREAMS:
            raise r.fail(f"stream {stream!r} must be one of {', '.join(sorted(STREAMS))}")
        targets = r.str_list("targets", required=True, check=_is_gfx, what="a gfx target")
        targets_from: dict[str, str] = {}
        for gfx, patch in r.str_map("targets_from").items():
            if not _is_gfx(gfx) or gfx not in targets:
                raise r.fail(f"targets_from: {gfx!r} is not one of this release's targets")
            if not isinstance(patch, str) or patch not in patches:
                raise r.fail(f"targets_from: {gfx} -> {patch!r} is not one of the patches")
            targets_from[gfx] = patch
        kernels: dict[str, tuple[str, ...]] = {}
        ubuntu = r.str_list("ubuntu", required=True, check=_is_version, what="an Ubuntu version")
        for ubuntu_version, values in r.str_map("ubuntu_kernels").items():
            if ubuntu_version not in ubuntu:
                raise r.fail(f"ubuntu_kernels: {ubuntu_version} is not in ubuntu")
            if not isinstance(values, list) or not all(
                isinstance(v, str) and _is_version(v) for v in values
            ):
                raise r.fail(f"ubuntu_kernels.{ubuntu_version} must be a list of kernel versions")
            kernels[ubuntu_version] = tuple(values)
        min_kernel = r.opt_text("min_kernel")
        if min_kernel is not None and not _is_version(min_kernel):
            raise r.fail(f"min_kernel {min_kernel!r} is not a kernel version")
        wsl = r.opt_flag("wsl")
        wsl_targets = r.str_list("wsl_targets", check=_is_gfx, what="a gfx target")
        if wsl_targets and wsl is not True:
            raise r.fail("wsl_targets given but wsl is not true")
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
            deprecated_targets=r.str_list("deprecated_targets", check=_is_gfx,
                                          what="a gfx target"),
            ubuntu_kernels=kernels,
            other_distros=r.str_list(
                "other_distros",
                check=lambda v: bool(re.match(r"^[a-z][a-z0-9]*(-[0-9.]+)?$", v)),
                what="an id-version like rhel-9.4",
            ),
            min_kernel=min_kernel,
            wsl=wsl,
            wsl_targets=wsl_targets,
            repo_dir=r.opt_text("repo_dir"),
            amdgpu_install_deb=r.opt_text("amdgpu_install_deb"),
            amdgpu_repo_dir=r.opt_text("amdgpu_repo_dir"),
            apt_uri_template=r.opt_text("apt_uri_template"),
            apt_suite=r.opt_text("apt_suite"),
            key_url=r.opt_text("key_url"),
            note=r.opt_text("note"),
        ))
    _unique(file, "release", (r.version for r in releases), "version")
    _unique(file, "release", (p for r in releases for p in r.patches), "patch")
    if not any(r.current for r in releases):
        raise KnowledgeError(f"{file}: no release is marked current")
    return tuple(releases), repository


def _parse_torch(
    data: Mapping[str, Any],
) -> tuple[tuple[TorchIndex, ...], tuple[TheRockIndex, ...]]:
    file = "torch.toml"
    _check_top_level(file, data, ["index", "therock"])
    indexes: list[TorchIndex] = []
    for r in _rows(file, data, "index"):
        r.check_keys(["name", "url", "rocm", "torch", "stable", "source"],
                     ["torchvision", "arch_list", "vendor", "device_extra", "note"])
        url = r.text("url")
        if not url.startswith("https://"):
            raise r.fail("url must start with https://")
        vendor = r.opt_text("vendor") or "pytorch"
        if vendor not in ("pytorch", "amd"):
            raise r.fail("vendor must be pytorch or amd")
        indexes.append(TorchIndex(
            name=r.text("name"),
            url=url,
            rocm=r.version("rocm"),
            torch=r.str_list("torch", required=True, check=_is_wheel_version, what="a version"),
            stable=r.flag("stable"),
            source=r.source(),
            torchvision=r.str_list("torchvision", check=_is_wheel_version, what="a version"),
            arch_list=r.str_list("arch_list", check=_is_gfx, what="a gfx target"),
            vendor=vendor,
            device_extra=r.flag("device_extra", default=False),
            note=r.opt_text("note"),
        ))
    _unique(file, "index", (i.name for i in indexes), "name")
    therock: list[TheRockIndex] = []
    for r in _rows(file, data, "therock"):
        r.check_keys(["family", "url", "targets", "preview", "source"], ["note"])
        url = r.text("url")
        if not url.startswith("https://"):
            raise r.fail("url must start with https://")
        therock.append(TheRockIndex(
            family=r.text("family"),
            url=url,
            targets=r.str_list("targets", required=True, check=_is_gfx, what="a gfx target"),
            preview=r.flag("preview"),
            source=r.source(),
            note=r.opt_text("note"),
        ))
    _unique(file, "therock", (t.family for t in therock), "family")
    return tuple(indexes), tuple(therock)


OVERRIDE_RE = re.compile(r"^[0-9]{1,2}\.[0-9]{1,3}\.[0-9]{1,3}$")


def _parse_overrides(
    data: Mapping[str, Any],
) -> tuple[tuple[OverrideRule, ...], tuple[NoOverride, ...]]:
    file = "overrides.toml"
    _check_top_level(file, data, ["rule", "no_override"])
    rules: list[OverrideRule] = []
    for r in _rows(file, data, "rule"):
        r.check_keys(["gfx", "override", "confidence", "caveat", "source"], ["until_rocm", "note"])
        override = r.text("override")
        if not OVERRIDE_RE.match(override):
            raise r.fail(f"override {override!r} must be major.minor.stepping in decimal")
        confidence = r.text("confidence")
        if confidence not in CONFIDENCES:
            raise r.fail(f"confidence must be one of {', '.join(sorted(CONFIDENCES))}")
        until = r.opt_text("until_rocm")
        if until is not None and not _is_version(until):
            raise r.fail(f"until_rocm {until!r} is not a version")
        rules.append(OverrideRule(
            gfx=r.gfx(),
            override=override,
            confidence=confidence,
            caveat=r.text("caveat"),
            source=r.source(),
            until_rocm=until,
            note=r.opt_text("note"),
        ))
    _unique(file, "rule", (x.gfx for x in rules), "gfx")
    nos: list[NoOverride] = []
    for r in _rows(file, data, "no_override", required=False):
        r.check_keys(["gfx", "reason", "source"], [])
        nos.append(NoOverride(gfx=r.gfx(), reason=r.text("reason"), source=r.source()))
    _unique(file, "no_override", (x.gfx for x in nos), "gfx")
    return tuple(rules), tuple(nos)


def _parse_support(data: Mapping[str, Any]) -> tuple[TargetSupport, ...]:
    file = "support.toml"
    _check_top_level(file, data, ["target"])
    rows: list[TargetSupport] = []
    for r in _rows(file, data, "target"):
        r.check_keys(["gfx", "status", "note", "source"], ["rocm", "override", "therock"])
        status = r.text("status")
        if status not in STATUSES:
            raise r.fail(f"status must be one of {', '.join(sorted(STATUSES))}")
        override = r.opt_text("override")
        if status == "override" and override is None:
            raise r.fail("status override needs an override value")
        if status != "override" and override is not None:
            raise r.fail("only status override takes an override value")
        rocm = r.str_list("rocm", check=_is_version, what="a ROCm version")
        if status == "official" and not rocm:
            raise r.fail("status official needs the rocm releases that list the target")
        rows.append(TargetSupport(
            gfx=r.gfx(),
            status=status,
            note=r.text("note"),
            source=r.source(),
            rocm=rocm,
            override=override,
            therock=r.opt_text("therock"),
        ))
    _unique(file, "target", (x.gfx for x in rows), "gfx")
    return tuple(rows)


def _parse_distros(
    data: Mapping[str, Any],
) -> tuple[tuple[UbuntuRelease, ...], tuple[DistroDerivative, ...], tuple[DistroFamily, ...]]:
    file = "distros.toml"
    _check_top_level(file, data, ["ubuntu", "derivative", "family"])
    ubuntu: list[UbuntuRelease] = []
    for r in _rows(file, data, "ubuntu"):
        r.check_keys(["version", "codename", "source"], ["lts"])
        codename = r.text("codename")
        if codename != codename.lower() or not codename.isalpha():
            raise r.fail(f"codename {codename!r} must be one lowercase word")
        ubuntu.append(UbuntuRelease(
            version=r.version("version"),
            codename=codename,
            source=r.source(),
            lts=r.flag("lts", default=False),
        ))
    _unique(file, "ubuntu", (u.version for u in ubuntu), "version")
    _unique(file, "ubuntu", (u.codename for u in ubuntu), "codename")
    derivatives: list[DistroDerivative] = []
    for r in _rows(file, data, "derivative"):
        r.check_keys(["id", "base", "name", "source"], ["note"])
        derivatives.append(DistroDerivative(
            id=r.text("id"), base=r.text("base"), name=r.text("name"), source=r.source(),
            note=r.opt_text("note"),
        ))
    _unique(file, "derivative", (d.id for d in derivatives), "id")
    families: list[DistroFamily] = []
    for r in _rows(file, data, "family"):
        r.check_keys(["name", "ids", "id_like", "package_manager", "source"], ["note"])
        manager = r.text("package_manager")
        if manager not in PACKAGE_MANAGERS:
            raise r.fail(f"package_manager must be one of {', '.join(sorted(PACKAGE_MANAGERS))}")
        families.append(DistroFamily(
            name=r.text("name"),
            ids=r.str_list("ids", required=True),
            id_like=r.str_list("id_like"),
            package_manager=manager,
            source=r.source(),
            note=r.opt_text("note"),
        ))
    _unique(file, "family", (i for f in families for i in f.ids), "id")
    return tuple(ubuntu), tuple(derivatives), tuple(families)


def _parse_explain(data: Mapping[str, Any]) -> tuple[ErrorPattern, ...]:
    file = "explain.toml"
    _check_top_level(file, data, ["pattern"])
    patterns: list[ErrorPattern] = []
    for r in _rows(file, data, "pattern"):
        r.check_keys(["id", "match", "title", "cause", "fix", "source"], ["findings"])
        pattern_id = r.text("id")
        if not re.match(r"^[a-z0-9]+(-[a-z0-9]+)*$", pattern_id):
            raise r.fail(f"id {pattern_id!r} must be lowercase-with-dashes")
        match = r.str_list("match", required=True)
        if not match:
            raise r.fail("match needs at least one regex")
        regexes: list[re.Pattern[str]] = []
        for expression in match:
            try:
                regexes.append(re.compile(expression, re.IGNORECASE))
            except re.error as exc:
                raise r.fail(f"regex {expression!r} does not compile: {exc}") from exc
        patterns.append(ErrorPattern(
            id=pattern_id,
            match=match,
            title=r.text("title"),
            cause=r.text("cause"),
            fix=r.text("fix"),
            source=r.source(),
            findings=r.str_list("findings"),
            regexes=tuple(regexes),
        ))
    _unique(file, "pattern", (p.id for p in patterns), "id")
    return tuple(patterns)


# --------------------------------------------------------------------------------------------
# cross-file checks


def _cross_check(kb: Knowledge) -> None:
    releases = {r.version: r for r in kb.releases}
    all_versions = set(releases) | {p for r in kb.releases for p in r.patches}
    support = {t.gfx: t for t in kb.targets}
    therock = {t.family: t for t in kb.therock}
    rules = {r.gfx: r for r in kb.overrides}

    for gpu in kb.gpus:
        if gpu.gfx is not None and gpu.gfx not in support:
            raise KnowledgeError(
                f"gpus.toml: {gpu.name} ({gpu.pci_id}) has target {gpu.gfx}, "
                f"but support.toml has no [[target]] row for it"
            )
    for target in kb.targets:
        where = f"support.toml: [[target]] {target.gfx}"
        for version in target.rocm:
            release = releases.get(version)
            if release is None:
                raise KnowledgeError(f"{where}: rocm {version} is not a release in rocm.toml")
            if target.gfx not in release.targets:
                raise KnowledgeError(
                    f"{where}: rocm.toml release {version} does not list {target.gfx}"
                )
        listed = [r.version for r in kb.releases if target.gfx in r.targets]
        missing = sorted(set(listed) - set(target.rocm), key=_version_tuple)
        if missing:
            raise KnowledgeError(
                f"{where}: rocm.toml releases {', '.join(missing)} list {target.gfx} "
                f"but the row's rocm list does not"
            )
        current = [v for v in target.rocm if releases[v].current]
        if target.status == "official" and not current:
            raise KnowledgeError(f"{where}: official, but no current release lists it")
        if target.status != "official" and current:
            raise KnowledgeError(
                f"{where}: current release(s) {', '.join(current)} list it, so it is official"
            )
        if target.status == "override":
            rule = rules.get(target.gfx)
            if rule is None or rule.override != target.override:
                raise KnowledgeError(
                    f"{where}: override {target.override} has no matching overrides.toml rule"
                )
        if target.therock is not None:
            family = therock.get(target.therock)
            if family is None:
                raise KnowledgeError(
                    f"{where}: therock family {target.therock} is not in torch.toml"
                )
            if target.gfx not in family.targets:
                raise KnowledgeError(
                    f"{where}: torch.toml therock family {target.therock} "
                    f"does not list {target.gfx}"
                )
    for rule in kb.overrides:
        if rule.until_rocm is not None and rule.until_rocm not in all_versions:
            raise KnowledgeError(
                f"overrides.toml: [[rule]] {rule.gfx}: until_rocm {rule.until_rocm} "
                f"is not a release or patch in rocm.toml"
            )
    for index in kb.torch_indexes:
        if index.rocm not in releases:
            raise KnowledgeError(
                f"torch.toml: [[index]] {index.name}: rocm {index.rocm} is not in rocm.toml"
            )


# --------------------------------------------------------------------------------------------
# loading


def _read(folder: Path, name: str) -> dict[str, Any]:
    path = folder / name
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError as exc:
        raise KnowledgeError(f"{name}: missing from {folder}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise KnowledgeError(f"{name}: not valid TOML: {exc}") from exc


def _load(folder: Path) -> Knowledge:
    data = {name: _read(folder, name) for name in FILES}
    gpus = _parse_gpus(data["gpus.toml"])
    releases, repository = _parse_rocm(data["rocm.toml"])
    indexes, therock = _parse_torch(data["torch.toml"])
    rules, no_overrides = _parse_overrides(data["overrides.toml"])
    targets = _parse_support(data["support.toml"])
    ubuntu, derivatives, families = _parse_distros(data["distros.toml"])
    patterns = _parse_explain(data["explain.toml"])
    kb = Knowledge(
        gpus=gpus,
        releases=releases,
        repository=repository,
        torch_indexes=indexes,
        therock=therock,
        overrides=rules,
        no_overrides=no_overrides,
        targets=targets,
        ubuntu=ubuntu,
        derivatives=derivatives,
        families=families,
        patterns=patterns,
        data_dir=folder,
    )
    _cross_check(kb)
    return kb


@lru_cache(maxsize=1)
def _load_default() -> Knowledge:
    return _load(default_data_dir())


def load_knowledge(data_dir: Path | None = None) -> Knowledge:
    """Load and check the knowledge base. The default folder (resources/data) is read once."""
    if data_dir is None:
        return _load_default()
    return _load(Path(data_dir))
