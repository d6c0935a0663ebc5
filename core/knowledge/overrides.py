"""overrides.toml: the HSA_OVERRIDE_GFX_VERSION values known to make PyTorch run on a target
that is not official, and the targets for which no value is known.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.knowledge.rows import (
    check_top_level,
    is_version,
    rows,
    unique,
)

CONFIDENCES = frozenset({"community", "experimental"})


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


OVERRIDE_RE = re.compile(r"^[0-9]{1,2}\.[0-9]{1,3}\.[0-9]{1,3}$")


def parse_overrides(
    data: Mapping[str, Any],
) -> tuple[tuple[OverrideRule, ...], tuple[NoOverride, ...]]:
    file = "overrides.toml"
    check_top_level(file, data, ["rule", "no_override"])
    rules: list[OverrideRule] = []
    for r in rows(file, data, "rule"):
        r.check_keys(["gfx", "override", "confidence", "caveat", "source"], ["until_rocm", "note"])
        override = r.text("override")
        if not OVERRIDE_RE.match(override):
            raise r.fail(f"override {override!r} must be major.minor.stepping in decimal")
        confidence = r.text("confidence")
        if confidence not in CONFIDENCES:
            raise r.fail(f"confidence must be one of {', '.join(sorted(CONFIDENCES))}")
        until = r.opt_text("until_rocm")
        if until is not None and not is_version(until):
            raise r.fail(f"until_rocm {until!r} is not a version")
        rules.append(OverrideRule(
            gfx=r.gfx(),
            override=override,
            confidence=confidence,
            caveat=r.words("caveat"),
            source=r.source(),
            until_rocm=until,
            note=r.opt_words("note"),
        ))
    unique(file, "rule", (x.gfx for x in rules), "gfx")
    nos: list[NoOverride] = []
    for r in rows(file, data, "no_override", required=False):
        r.check_keys(["gfx", "reason", "source"], [])
        nos.append(NoOverride(gfx=r.gfx(), reason=r.words("reason"), source=r.source()))
    unique(file, "no_override", (x.gfx for x in nos), "gfx")
    return tuple(rules), tuple(nos)
