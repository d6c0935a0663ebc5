"""explain.toml: the error patterns of ``rocmate explain`` (regexes, cause, fix, the doctor
findings that confirm them), and where a row has them the cause, fix and findings under WSL 2
(AMD's WSL runtime over /dev/dxg and the Windows driver, not the Linux kernel driver).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.knowledge.rows import (
    check_top_level,
    rows,
    unique,
)

WSL_TEXT = re.compile(
    r"WSL environment detected|/sources/wsl/|thunk_proxy|No WDDM adapters|librocdxg|/dev/dxg"
    r"|microsoft-standard-WSL2",
    re.IGNORECASE)
"""Lines that only a ROCm program under WSL 2 prints (rocminfo's "WSL environment detected.",
the WSL runtime's source paths ./sources/wsl/... and thunk_proxy, librocdxg's "No WDDM adapters
found": ROCm/legacy-rocm-build#3677, #3413, #4460, #5900), or a WSL kernel's name: a pasted text
with one of them is from WSL whatever machine explain runs on."""

FAILURE_KINDS = ("no-binary-for-gpu", "oom", "no-gpu", "gpu-fault")
"""The benchmark worker's error kinds that a text decides (core/bench/worker/errors.py), in the
order a text is sorted by; gpu-fault is reported as "other" with advice about the override."""


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
    kind: str | None = None
    cause_wsl: str | None = None
    """The cause under WSL 2 (None: :attr:`cause` holds there too)."""
    fix_wsl: str | None = None
    """The fix under WSL 2: the Windows driver and AMD's WSL runtime, never the render group or
    the Linux kernel driver (None: :attr:`fix` holds there too)."""
    findings_wsl: tuple[str, ...] | None = None
    """The findings that confirm it under WSL 2 (None: :attr:`findings`)."""
    """What a benchmark failure with this text is (:data:`FAILURE_KINDS`); None: not one."""
    regexes: tuple[re.Pattern[str], ...] = field(default=(), compare=False, repr=False)

    def matches(self, text: str) -> bool:
        return any(regex.search(text) for regex in self.regexes)

    def cause_for(self, wsl: bool) -> str:
        return self.cause_wsl if wsl and self.cause_wsl is not None else self.cause

    def fix_for(self, wsl: bool) -> str:
        return self.fix_wsl if wsl and self.fix_wsl is not None else self.fix

    def findings_for(self, wsl: bool) -> tuple[str, ...]:
        return self.findings_wsl if wsl and self.findings_wsl is not None else self.findings


def parse_explain(data: Mapping[str, Any]) -> tuple[ErrorPattern, ...]:
    file = "explain.toml"
    check_top_level(file, data, ["pattern"])
    patterns: list[ErrorPattern] = []
    for r in rows(file, data, "pattern"):
        r.check_keys(["id", "match", "title", "cause", "fix", "source"],
                     ["findings", "kind", "cause_wsl", "fix_wsl", "findings_wsl"])
        kind = r.opt_text("kind")
        if kind is not None and kind not in FAILURE_KINDS:
            raise r.fail(f"kind must be one of {', '.join(FAILURE_KINDS)}")
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
            title=r.words("title"),
            cause=r.words("cause"),
            fix=r.words("fix"),
            source=r.source(),
            findings=r.str_list("findings"),
            kind=kind,
            cause_wsl=r.opt_words("cause_wsl"),
            fix_wsl=r.opt_words("fix_wsl"),
            findings_wsl=r.str_list("findings_wsl") if "findings_wsl" in r.data else None,
            regexes=tuple(regexes),
        ))
    unique(file, "pattern", (p.id for p in patterns), "id")
    return tuple(patterns)
