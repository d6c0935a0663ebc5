"""support.toml: the doctor's policy for each gfx target (official, override, unsupported).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.knowledge.rows import (
    check_top_level,
    is_version,
    rows,
    unique,
)

STATUSES = frozenset({"official", "override", "unsupported"})


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


def parse_support(data: Mapping[str, Any]) -> tuple[TargetSupport, ...]:
    file = "support.toml"
    check_top_level(file, data, ["target"])
    parsed: list[TargetSupport] = []
    for r in rows(file, data, "target"):
        r.check_keys(["gfx", "status", "note", "source"], ["rocm", "override", "therock"])
        status = r.text("status")
        if status not in STATUSES:
            raise r.fail(f"status must be one of {', '.join(sorted(STATUSES))}")
        override = r.opt_text("override")
        if status == "override" and override is None:
            raise r.fail("status override needs an override value")
        if status != "override" and override is not None:
            raise r.fail("only status override takes an override value")
        rocm = r.str_list("rocm", check=is_version, what="a ROCm version")
        if status == "official" and not rocm:
            raise r.fail("status official needs the rocm releases that list the target")
        parsed.append(TargetSupport(
            gfx=r.gfx(),
            status=status,
            note=r.words("note"),
            source=r.source(),
            rocm=rocm,
            override=override,
            therock=r.opt_text("therock"),
        ))
    unique(file, "target", (x.gfx for x in parsed), "gfx")
    return tuple(parsed)
