"""known_bad.toml: kernel, linux-firmware and ROCm releases that public reports show hanging or
crashing some AMD GPUs, each row with the cards it hits and its sources."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.knowledge.rows import check_top_level, is_gfx, rows, unique, version_tuple

COMPONENTS = ("kernel", "linux-firmware", "rocm")


@dataclass(frozen=True)
class KnownBadStack:
    id: str
    component: str
    """"kernel", "linux-firmware" or "rocm" (:data:`COMPONENTS`)."""
    versions: tuple[str, ...]
    """Exact bad versions (linux-firmware: upstream dates); empty where a range is given."""
    since: str | None
    """The first bad version of a range (``from`` in the file)."""
    before: str | None
    """The first good version after it; None: not known to be fixed."""
    targets: tuple[str, ...]
    packages: tuple[str, ...]
    """linux-firmware: the package names the row is about (empty: any)."""
    title: str
    detail: str
    fix: str
    source: str

    def covers(self, version: str) -> bool:
        """Whether ``version`` (a kernel release "6.14.3-300.fc42", a firmware date, a ROCm or
        HIP version "7.1.25424") is one of the bad ones."""
        if self.versions:
            return version in self.versions
        have = version_tuple(version)
        if not have or self.since is None:
            return False
        return have >= version_tuple(self.since) and (
            self.before is None or have < version_tuple(self.before))


def parse_known_bad(data: Mapping[str, Any]) -> tuple[KnownBadStack, ...]:
    file = "known_bad.toml"
    check_top_level(file, data, ["stack"])
    stacks: list[KnownBadStack] = []
    for r in rows(file, data, "stack"):
        r.check_keys(["id", "component", "targets", "title", "detail", "fix", "source"],
                     ["versions", "from", "before", "packages"])
        component = r.text("component")
        if component not in COMPONENTS:
            raise r.fail(f"component must be one of {', '.join(COMPONENTS)}")
        versions = r.str_list("versions")
        since = r.opt_text("from")
        before = r.opt_text("before")
        if bool(versions) == (since is not None):
            raise r.fail("give either versions or from (with before where it is fixed)")
        if before is not None and since is None:
            raise r.fail("before needs from")
        for version in (*versions, *(v for v in (since, before) if v)):
            if not version_tuple(version):
                raise r.fail(f"version {version!r} has no numbers")
        if since and before and version_tuple(before) <= version_tuple(since):
            raise r.fail("before must come after from")
        packages = r.str_list("packages")
        if packages and component != "linux-firmware":
            raise r.fail("packages is for linux-firmware rows")
        stacks.append(KnownBadStack(
            id=r.text("id"),
            component=component,
            versions=versions,
            since=since,
            before=before,
            targets=r.str_list("targets", required=True, check=is_gfx, what="gfx target"),
            packages=packages,
            title=r.words("title"),
            detail=r.words("detail"),
            fix=r.words("fix"),
            source=r.source(),
        ))
    unique(file, "stack", (s.id for s in stacks), "id")
    return tuple(stacks)
