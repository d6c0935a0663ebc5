"""The knowledge base (resources/data/*.toml) as one object, and the loader.

:func:`load_knowledge` reads every table through its own module (gpus, releases, wheels,
overrides, support, distros, error_patterns: each checks its rows), runs the checks across tables
(:mod:`core.knowledge.checks`) and returns one :class:`Knowledge`. Any problem raises
:class:`KnowledgeError` naming the file and the row. The folder comes from
:func:`core.resources.data_dir`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from core.knowledge.checks import cross_check
from core.knowledge.distros import DistroDerivative, DistroFamily, UbuntuRelease, parse_distros
from core.knowledge.error_patterns import ErrorPattern, parse_explain
from core.knowledge.gpus import GpuRow, parse_gpus
from core.knowledge.known_bad import KnownBadStack, parse_known_bad
from core.knowledge.names import name_words
from core.knowledge.overrides import NoOverride, OverrideRule, parse_overrides
from core.knowledge.releases import RocmRelease, RocmRepository, parse_rocm
from core.knowledge.rows import (
    KnowledgeError,
    gfx_base,
    norm_pci,
    norm_revision,
    read_table,
    version_tuple,
)
from core.knowledge.support import TargetSupport, parse_support
from core.knowledge.wheels import TheRockIndex, TorchIndex, parse_torch
from core.resources import data_dir

__all__ = ["Knowledge", "KnowledgeError", "load_knowledge"]

FILES = (
    "gpus.toml",
    "rocm.toml",
    "torch.toml",
    "overrides.toml",
    "support.toml",
    "distros.toml",
    "explain.toml",
    "known_bad.toml",
)


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
    known_bad: tuple[KnownBadStack, ...] = ()
    """Kernel, linux-firmware and ROCm releases public reports show hanging some cards."""

    # -- GPUs ------------------------------------------------------------------------------

    def gpu_by_pci(self, vendor_device: str, revision: str | None = None) -> GpuRow | None:
        """The row for ``"1002:744c"`` and revision ``"c8"`` (exact revision first, then the
        row without revisions). Case, a ``0x`` prefix and a one-digit revision are accepted."""
        key = norm_pci(vendor_device)
        if key is None:
            return None
        rev = norm_revision(revision)
        fallback: GpuRow | None = None
        for row in self.gpus:
            if row.pci_id != key:
                continue
            if rev is not None and rev in row.revisions:
                return row
            if not row.revisions and fallback is None:
                fallback = row
        return fallback

    def gpu_by_name(self, name: str, vendor: str | None = None) -> GpuRow | None:
        """The row that names the same card as ``name`` (a Windows adapter or runtime name),
        of ``vendor`` when given.

        Whole names only: the words must be the same, apart from case, punctuation, trademark
        marks and the filler words of :mod:`core.knowledge.names`. No partial match: what a
        name has beyond a row's name ("XT", "XTX", "GRE", "M", "S", "LE", "12GB") is what tells
        two cards apart, so "RX 7600 XT" is not "RX 7600" and "RX 6800M" (gfx1031) is not
        "RX 6800" (gfx1030). Rows that share a name agree on gfx, VRAM and arch."""
        wanted = name_words(name)
        if not wanted:
            return None
        return next((row for row in self.gpus if (vendor is None or row.vendor == vendor)
                     and name_words(row.name) == wanted), None)

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
        return max(candidates, key=lambda i: version_tuple(i.newest_torch or "0"))

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


def _load(folder: Path) -> Knowledge:
    data = {name: read_table(folder, name) for name in FILES}
    gpus = parse_gpus(data["gpus.toml"])
    releases, repository = parse_rocm(data["rocm.toml"])
    indexes, therock = parse_torch(data["torch.toml"])
    rules, no_overrides = parse_overrides(data["overrides.toml"])
    targets = parse_support(data["support.toml"])
    ubuntu, derivatives, families = parse_distros(data["distros.toml"])
    patterns = parse_explain(data["explain.toml"])
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
        known_bad=parse_known_bad(data["known_bad.toml"]),
    )
    cross_check(gpus=gpus, releases=releases, targets=targets, overrides=rules,
                therock=therock, torch_indexes=indexes)
    return kb


@lru_cache(maxsize=1)
def _load_default() -> Knowledge:
    return _load(data_dir())


def load_knowledge(data_dir: Path | None = None) -> Knowledge:
    """Load and check the knowledge base. The default folder (resources/data) is read once."""
    if data_dir is None:
        return _load_default()
    return _load(Path(data_dir))
