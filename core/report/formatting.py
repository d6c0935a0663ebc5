"""How numbers, sizes, times and settings read in every writer (text, Markdown, HTML).

One module, so that a figure shows the same digits in the terminal, in a forum post and in the
HTML page, and tests can look for exactly those digits.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Mapping
from typing import Any

from core.report.model import PEAK_SUFFIX, Driver, Figure, Reference, Report, SuiteRun

SUITE_TITLES = {
    "resnet50-train": "ResNet-50 training",
    "sd15-infer": "Stable Diffusion 1.5 inference",
    "llm-train": "LLM training",
    "gemm": "GEMM (matrix multiply)",
    "bandwidth": "Memory bandwidth",
}

# Setting keys that every run has and that say nothing about the measurement itself.
_QUIET_SETTINGS = ("suite",)

# What a terminal (or a reader) must never get raw from a report: C0 and C1 control characters
# (escape sequences set titles, clear the screen, fake colours) and the bidirectional overrides
# and isolates that reorder what is shown (U+202A-202E, U+2066-2069; also U+061C, U+200E/F).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def safe(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with every control character and bidi override shown as an escape (``\\u001b``,
    ``\\n``), so nothing from a report can drive the terminal or reorder what it shows.
    ``keep_newlines`` keeps newlines and tabs (a whole page of output). The escapes are valid
    inside JSON strings, so JSON text stays JSON with the same meaning."""
    def repl(m: re.Match[str]) -> str:
        c = m.group(0)
        if keep_newlines and c in "\n\t":
            return c
        return _NAMED.get(c) or f"\\u{ord(c):04x}"

    return _UNSAFE.sub(repl, text)


def num(v: float | None, digits: int = 4) -> str:
    """``4,624`` for large values, else ``digits`` significant digits (``0.05536``)."""
    if v is None:
        return "-"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if v == 0:
        return "0"
    return f"{v:.{digits}g}" if abs(v) >= 1e-4 else f"{v:.{digits - 1}e}"


def pct(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v * 100:.{digits}f} %"


def cv(f: Figure) -> str:
    return pct(f.cv)


def spread(f: Figure) -> str:
    """``4,599–4,636`` (p10–p90), or ``-``."""
    if f.p10 is None or f.p90 is None:
        return "-"
    return f"{num(f.p10)}–{num(f.p90)}"


def gib(n: float | None) -> str:
    return "-" if n is None else f"{n / 2**30:.2f} GiB"


def seconds(s: float | None) -> str:
    if s is None:
        return "-"
    if not math.isfinite(s):
        return f"{s} s"
    if s < 60:
        return f"{s:.3g} s" if s < 10 else f"{s:.1f} s"
    minutes, rest = divmod(round(s), 60)  # round first: 119.6 s is 2 min 0 s, not 1 min 60 s
    return f"{minutes} min {rest} s"


def when(iso: str) -> str:
    """``2026-11-30 07:15 UTC`` from an ISO 8601 time (the text itself when it does not parse,
    or names a time that cannot be shown in UTC, as a history row stored by an older rocmate
    may)."""
    try:
        t = _dt.datetime.fromisoformat(iso)
        if t.tzinfo is not None:
            return t.astimezone(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        return t.strftime("%Y-%m-%d %H:%M")
    except (ValueError, OverflowError, TypeError):
        return str(iso)


def value(v: Any) -> str:
    """A setting's or detail's value as text."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return num(v, 6)
    if isinstance(v, int) and abs(v) >= 10000:
        return f"{v:,}"
    if isinstance(v, (list, tuple)):
        return ", ".join(value(x) for x in v) or "-"
    if isinstance(v, Mapping):
        return "; ".join(f"{k}: {value(x)}" for k, x in v.items()) or "-"
    return str(v)


def suite_title(suite: str) -> str:
    return SUITE_TITLES.get(suite, suite)


def figure_label(name: str) -> str:
    return name.replace("_", " ")


UNKNOWN_DEVICE = "device unknown"
"""What a run that failed before its worker said hello ran on, in words."""

# Suites that measure without a batch (matrix products and copies of a fixed size).
_NO_BATCH = frozenset({"gemm", "bandwidth"})


def device_label(run: SuiteRun) -> str:
    d = run.device
    if d is None:
        return UNKNOWN_DEVICE
    arch = f", {d.arch}" if d.arch else ""
    return f"{d.name} ({d.backend}{arch})"


def settings_flags(settings: Mapping[str, Any]) -> list[str]:
    """The settings that matter when reading a figure, short: ``amp-bf16``, ``batch 256``."""
    s = settings
    flags: list[str] = []
    if s.get("size") == "tiny":
        flags.append("tiny shapes")
    if s.get("precision"):
        flags.append(str(s["precision"]))
    elif s.get("suite") == "gemm":
        flags.append("each dtype")
    if s.get("batch_size") and s.get("suite") not in _NO_BATCH:
        flags.append(f"batch {s['batch_size']}")
    if s.get("channels_last"):
        flags.append("channels_last")
    if s.get("compile"):
        flags.append("torch.compile")
    if s.get("preset"):
        flags.append(f"preset {s['preset']}")
    if s.get("seq_len"):
        flags.append(f"seq {s['seq_len']}")
    if s.get("inference_steps"):
        flags.append(f"{s['inference_steps']} steps")
    return flags


def settings_items(settings: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every setting that was set, as (key, text)."""
    return [(k, value(v)) for k, v in settings.items()
            if v is not None and k not in _QUIET_SETTINGS]


def headline(run: SuiteRun) -> str:
    """``4,624 images/s``, ``peak 775, sustained 670 TFLOP/s`` (a figure with its peak beside
    it), ``error: oom`` or ``interrupted after 37 steps``."""
    if run.result is not None:
        f = run.result.headline_figure
        peak = run.result.peak_of(run.result.headline)
        if peak is not None:
            return f"peak {num(peak.median)}, sustained {num(f.median)} {f.unit}"
        return f"{num(f.median)} {f.unit}"
    if run.status == "interrupted":
        return f"interrupted after {count(len(run.steps), 'step')}"
    return status_text(run)


def status_text(run: SuiteRun) -> str:
    """``error: oom``, ``cancelled: interrupted``; ``interrupted`` alone (its error kind says
    the same)."""
    if run.error is None or run.error.kind == run.status:
        return run.status
    return f"{run.status}: {run.error.kind}"


def count(n: int, noun: str) -> str:
    """``1 step``, ``37 steps``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def datasheet_parts(ref: Reference, sep: str = " ") -> list[str]:
    """How close each figure came to the datasheet: ``tflops_fp32 76 % of 66.9``; a figure with
    its peak beside it (gemm) as ``tflops_bf16 peak 78 %, sustained 68 % of 989.4``."""
    out: list[str] = []
    for name, fraction in ref.fractions.items():
        base = name.removesuffix(PEAK_SUFFIX)
        if base != name and base in ref.fractions:
            continue  # said with its sustained figure
        of = f"of {num(ref.peaks.get(name))}"
        peak = ref.fractions.get(name + PEAK_SUFFIX)
        if peak is None:
            out.append(f"{name}{sep}{pct(fraction, 0)} {of}")
        else:
            out.append(f"{name}{sep}peak {pct(peak, 0)}, sustained {pct(fraction, 0)} {of}")
    return out


def warmup_text(run: SuiteRun) -> str:
    if run.result is None:
        return "-"
    w = run.result.warmup
    state = "fixed length" if w.forced else ("settled" if w.settled else "did NOT settle")
    first = f", first step {seconds(w.first_step_s)}" if w.first_step_s is not None else ""
    return f"{w.steps} steps in {seconds(w.seconds)}{first} ({state})"


def measure_text(run: SuiteRun) -> str:
    if run.result is None:
        return "-"
    m = run.result.measure
    return f"{m.steps} steps in {seconds(m.seconds)}, {m.items:,} items"


def driver_text(d: Driver | None) -> str | None:
    """``amdgpu 6.10.5 (DKMS)``, ``amdgpu in-tree (kernel 6.8.0-45-generic)``, ``nvidia
    580.159.03``; None when the report has no driver."""
    if d is None:
        return None
    if d.source == "in-tree":  # the kernel's own driver: its version is the kernel's
        version = f" {d.version}" if d.version else ""
        kernel = f" (kernel {d.kernel})" if d.kernel else ""
        return f"{d.name}{version} in-tree{kernel}"
    text = f"{d.name} {d.version or '(version unknown)'}"
    if d.source == "dkms":
        return f"{text} (DKMS)"
    return text if d.source in (None, d.name) else f"{text} ({d.source})"


def software_items(report: Report) -> list[tuple[str, str]]:
    s = report.software
    items = [("Python", s.python), ("PyTorch", s.torch), ("HIP", s.hip), ("CUDA", s.cuda),
             ("ROCm", s.rocm), ("GPU driver", driver_text(s.driver))]
    out = [(k, v) for k, v in items if v]
    out += [(k, v) for k, v in s.packages.items()]
    return out


def platform_text(report: Report) -> str:
    p = report.machine.platform
    name = p.get("distro_name") or p.get("distro_id") or "unknown system"
    version = p.get("distro_version") or ""
    parts = [f"{name} {version}".strip()]
    if p.get("kernel"):
        parts.append(f"kernel {p['kernel']}")
    if p.get("wsl"):
        parts.append(f"WSL {p['wsl']}")
    return ", ".join(parts)


def gpu_items(report: Report) -> list[dict[str, str]]:
    out = []
    for g in report.machine.gpus:
        vram = g.get("vram_bytes")
        out.append({
            "name": str(g.get("name") or "unknown GPU"),
            "vendor": str(g.get("vendor") or "-"),
            "pci_id": str(g.get("pci_id") or "-"),
            "gfx": str(g.get("gfx") or "-"),
            "vram": gib(vram) if isinstance(vram, (int, float)) else "-",
            "integrated": "integrated" if g.get("integrated") else "discrete",
        })
    return out


def ratio(r: float | None) -> str:
    return "-" if r is None else f"{num(r, 3)}×"
