"""Reference results ("cards like mine"): published figures and the seed blogs' claims, each
with its source and conditions, set against a run.

The rows live in ``resources/data/references.toml`` (its header documents every field).
:func:`load_references` reads and validates them (every row has a source; blog claims have no
method; units are the figure's units), raising :class:`ReferencesError` naming the row.
:func:`cards_like_mine` matches a run's card (by name, then by gfx target / CUDA arch) and suite,
works out the run's value in the reference's terms, and lists in plain words every condition
that differs or that the source does not state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import tomllib

from core.report.formatting import UNKNOWN_DEVICE, num
from core.report.model import Report, SuiteRun

KINDS = ("measured", "published", "community", "crowd", "blog-claim")
KIND_TITLES = {
    "measured": "measured by this project",
    "published": "published benchmark",
    "community": "user report with its method",
    "crowd": "crowd-sourced median",
    "blog-claim": "blog claim, no method given",
}
PRECISIONS = ("fp32", "tf32", "amp-fp16", "amp-bf16", "fp16", "bf16")
UNSTATED = ("not stated", "n/a")
REQUIRED_CONDITIONS = ("precision", "batch", "resolution", "steps", "software")
OPTIONAL_CONDITIONS = ("memory_format", "compile", "data", "shape", "model")

SUITE_FIGURES: dict[str, dict[str, str]] = {
    "resnet50-train": {"throughput": "images/s", "step_time": "s", "tflops": "TFLOP/s"},
    "sd15-infer": {"seconds_per_image": "s/image", "throughput": "images/s", "unet_it_s": "it/s",
                   "text_encoder_s": "s", "unet_loop_s": "s", "vae_decode_s": "s",
                   "unet_tflops": "TFLOP/s"},
    "llm-train": {"throughput": "tokens/s", "step_time": "s", "tflops": "TFLOP/s"},
    "gemm": {"tflops_bf16": "TFLOP/s", "tflops_fp16": "TFLOP/s", "tflops_fp32": "TFLOP/s"},
    "bandwidth": {"d2d_gbs": "GB/s", "h2d_gbs": "GB/s", "d2h_gbs": "GB/s"},
}
# Figures worked out from a run: unit and the suites they apply to.
DERIVED_FIGURES: dict[str, tuple[str, tuple[str, ...]]] = {
    "iterations_per_s": ("it/s", ("resnet50-train", "llm-train")),
    "end_to_end_it_s": ("it/s", ("sd15-infer",)),
    "vram_gb": ("GB", tuple(SUITE_FIGURES)),
    "power_w": ("W", tuple(SUITE_FIGURES)),
}
SAME_BAND = 0.03  # within ±3 %: "about the same"

_ROW_KEYS = {"id", "card", "arch", "suite", "figure", "value", "unit", "kind", "source", "method",
             "derived", "note", "conditions"}
_NAME_NOISE = {"amd", "nvidia", "ati", "radeon", "geforce", "tesla", "instinct", "graphics",
               "generation", "gpu", "pcie", "sxm", "sxm2", "sxm4", "sxm5", "gen5", "hbm2",
               "hbm2e", "hbm3", "hbm3e", "nvl", "dgx", "the"}


class ReferencesError(ValueError):
    """references.toml is missing or a row is malformed (the message names the row)."""


@dataclass(frozen=True)
class Conditions:
    precision: str | None = None  # None: the source does not state it (or n/a)
    batch: int | None = None
    resolution: int | None = None
    steps: int | None = None
    software: str | None = None
    memory_format: str | None = None
    compile: bool | None = None
    data: str | None = None
    shape: str | None = None
    model: str | None = None
    unstated: tuple[str, ...] = ()  # required conditions given as "not stated"


@dataclass(frozen=True)
class ReferenceRow:
    id: str
    card: str
    arch: str | None
    suite: str
    figure: str
    value: float
    unit: str
    kind: str
    source: str
    conditions: Conditions
    method: str | None = None
    derived: str | None = None
    note: str | None = None


# --- loading ------------------------------------------------------------------------------------


def default_path() -> Path:
    from core.resources import data_dir

    return data_dir() / "references.toml"


@lru_cache(maxsize=4)
def _load_cached(path: str) -> tuple[ReferenceRow, ...]:
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReferencesError(f"{path}: cannot read reference results: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ReferencesError(f"{path}: not valid TOML: {exc}") from None
    return tuple(parse_references(data, Path(path).name))


def load_references(path: Path | None = None) -> list[ReferenceRow]:
    """The reference rows, validated."""
    return list(_load_cached(str(path or default_path())))


def parse_references(data: dict[str, Any], where: str = "references.toml") -> list[ReferenceRow]:
    rows_data = data.get("reference")
    if not isinstance(rows_data, list) or not rows_data:
        raise ReferencesError(f"{where}: no [[reference]] rows")
    rows: list[ReferenceRow] = []
    seen: set[str] = set()
    for i, raw in enumerate(rows_data):
        row = _row(raw, f"{where}: reference #{i + 1}")
        if row.id in seen:
            raise ReferencesError(f"{where}: reference id {row.id!r} appears twice")
        seen.add(row.id)
        rows.append(row)
    return rows


def _row(raw: Any, where: str) -> ReferenceRow:
    if not isinstance(raw, dict):
        raise ReferencesError(f"{where}: not a table")
    if raw.get("id"):
        where = f"{where} ({raw['id']})"
    unknown = set(raw) - _ROW_KEYS
    if unknown:
        raise ReferencesError(f"{where}: unknown keys {sorted(unknown)}")

    def text(key: str, required: bool = True) -> str | None:
        v = raw.get(key)
        if v is None and not required:
            return None
        if not isinstance(v, str) or not v.strip():
            raise ReferencesError(f"{where}: '{key}' must be a non-empty string")
        return v.strip()

    suite, figure, unit, kind = (text("suite"), text("figure"), text("unit"), text("kind"))
    assert suite and figure and unit and kind
    if suite not in SUITE_FIGURES:
        raise ReferencesError(f"{where}: unknown suite {suite!r}")
    expected = SUITE_FIGURES[suite].get(figure)
    if expected is None and figure in DERIVED_FIGURES and suite in DERIVED_FIGURES[figure][1]:
        expected = DERIVED_FIGURES[figure][0]
    if expected is None:
        raise ReferencesError(f"{where}: {figure!r} is not a figure of {suite}")
    if unit != expected:
        raise ReferencesError(f"{where}: {figure} is in {expected!r}, not {unit!r}")
    if kind not in KINDS:
        raise ReferencesError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    method = text("method", required=False)
    if kind == "blog-claim" and method:
        raise ReferencesError(f"{where}: a blog claim has no method (the post gives none)")
    if kind != "blog-claim" and not method:
        raise ReferencesError(f"{where}: a {kind} figure needs its 'method'")
    value = raw.get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ReferencesError(f"{where}: 'value' must be a positive number")
    arch = text("arch", required=False)
    if arch and not re.fullmatch(r"gfx[0-9a-f]{3,4}|sm_[0-9]{2,3}", arch):
        raise ReferencesError(f"{where}: arch {arch!r} is neither a gfx target nor sm_NN")
    return ReferenceRow(
        id=str(text("id")), card=str(text("card")), arch=arch, suite=suite, figure=figure,
        value=float(value), unit=unit, kind=kind, source=str(text("source")),
        conditions=_conditions(raw.get("conditions"), where), method=method,
        derived=text("derived", required=False), note=text("note", required=False))


def _conditions(raw: Any, where: str) -> Conditions:
    if not isinstance(raw, dict):
        raise ReferencesError(f"{where}: 'conditions' table missing")
    unknown = set(raw) - set(REQUIRED_CONDITIONS) - set(OPTIONAL_CONDITIONS)
    if unknown:
        raise ReferencesError(f"{where}: unknown conditions {sorted(unknown)}")
    missing = [k for k in REQUIRED_CONDITIONS if k not in raw]
    if missing:
        raise ReferencesError(f"{where}: conditions lack {', '.join(missing)} "
                              "(write \"not stated\" or \"n/a\")")
    unstated = tuple(k for k in REQUIRED_CONDITIONS if raw[k] == "not stated")
    values: dict[str, Any] = {}
    for key in ("batch", "resolution", "steps"):
        v = raw[key]
        if v in UNSTATED:
            values[key] = None
        elif isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ReferencesError(f"{where}: conditions.{key} must be a positive integer, "
                                  "\"not stated\" or \"n/a\"")
        else:
            values[key] = v
    precision = raw["precision"]
    if precision not in PRECISIONS and precision not in UNSTATED:
        raise ReferencesError(f"{where}: conditions.precision {precision!r} is not one of "
                              f"{', '.join(PRECISIONS)}")
    software = raw["software"]
    if not isinstance(software, str) or not software:
        raise ReferencesError(f"{where}: conditions.software must be a string")
    fmt = raw.get("memory_format")
    if fmt is not None and fmt not in ("nchw", "channels_last"):
        raise ReferencesError(f"{where}: conditions.memory_format is nchw or channels_last")
    compiled = raw.get("compile")
    if compiled is not None and not isinstance(compiled, bool):
        raise ReferencesError(f"{where}: conditions.compile is true or false")
    for key in ("data", "shape", "model"):
        if key in raw and not isinstance(raw[key], str):
            raise ReferencesError(f"{where}: conditions.{key} must be a string")
    return Conditions(
        precision=None if precision in UNSTATED else precision, software=software,
        memory_format=fmt, compile=compiled, data=raw.get("data"), shape=raw.get("shape"),
        model=raw.get("model"), unstated=unstated, **values)


def conditions_text(c: Conditions) -> str:
    """``amp-fp16, batch 64, 224 px, channels_last; torch 2.0``: the conditions in one line."""
    parts = [c.precision or "precision not stated"]
    if c.batch:
        parts.append(f"batch {c.batch}")
    elif "batch" in c.unstated:
        parts.append("batch not stated")
    if c.resolution:
        parts.append(f"{c.resolution} px")
    if c.steps:
        parts.append(f"{c.steps} steps")
    if c.memory_format:
        parts.append(c.memory_format)
    if c.compile is not None:
        parts.append("torch.compile" if c.compile else "eager")
    if c.shape:
        parts.append(c.shape)
    if c.model:
        parts.append(c.model)
    if c.data:
        parts.append(f"data: {c.data}")
    return ", ".join(parts) + (f"; {c.software}" if c.software else "")


# --- matching a run ----------------------------------------------------------------------------


@dataclass
class ReferenceMatch:
    row: ReferenceRow
    match: str  # "same card" | "same chip" | "other card"
    yours: float | None  # the run's value in the reference's unit
    how: str | None  # how ``yours`` was worked out, when it is not a figure as measured
    ratio: float | None  # yours / reference
    verdict: str | None  # faster | slower | about the same | more | less
    differences: list[str] = field(default_factory=list)  # conditions that differ, in words
    unstated: list[str] = field(default_factory=list)  # conditions the source does not state


@dataclass
class CardsLikeMine:
    suite: str
    device: str
    arch: str | None
    matches: list[ReferenceMatch]
    note: str | None = None  # said when nothing matches, or the run cannot be compared
    warnings: list[str] = field(default_factory=list)  # about the run itself (tiny shapes)


def model_key(name: str) -> frozenset[str]:
    """The words that name a card's model: ``AMD Radeon RX 7900 XTX`` -> {rx, 7900, xtx}."""
    name = re.sub(r"\([^()]*\)", " ", name.lower())  # [^()]: linear, whatever the name
    words = re.split(r"[^a-z0-9]+", name)
    return frozenset(w for w in words
                     if w and w not in _NAME_NOISE and not re.fullmatch(r"\d+gb", w))


def _names_and_arch(report: Report, run: SuiteRun) -> tuple[list[str], str | None]:
    names: list[str] = []
    arch = run.device.arch if run.device else None
    pci = run.device.pci_id if run.device else None
    if run.device:
        names.append(run.device.name)
    for g in report.machine.gpus:
        if pci and g.get("pci_id") and g.get("pci_id") != pci:
            continue
        if g.get("name"):
            names.append(str(g["name"]))
        if not arch and g.get("gfx"):
            arch = str(g["gfx"])
    return names, arch


def _match(row: ReferenceRow, names: list[str], arch: str | None) -> str:
    key = model_key(row.card)
    if key and any(key <= model_key(n) for n in names):
        return "same card"
    if row.arch and arch and row.arch == arch:
        return "same chip"
    return "other card"


def cards_like_mine(report: Report, run_index: int = 0, *,
                    rows: list[ReferenceRow] | None = None,
                    all_cards: bool = False) -> CardsLikeMine:
    """References for the run's suite on the run's card (or chip); every card with
    ``all_cards``. Nothing is left out for looking wrong: the notes say why."""
    run = report.runs[run_index]
    rows = load_references() if rows is None else rows
    names, arch = _names_and_arch(report, run)
    device = names[0] if names else UNKNOWN_DEVICE
    out = CardsLikeMine(suite=run.suite, device=device, arch=arch, matches=[])
    if run.settings.get("size") == "tiny":
        out.warnings.append("This run used tiny shapes (a smoke test): its figures are not "
                            "comparable with any reference.")
    if run.device is not None and run.device.backend == "cpu":
        out.note = "A CPU run: the reference results are for GPUs."
        if not all_cards:
            return out
    suite_rows = [r for r in rows if r.suite == run.suite]
    order = {"same card": 0, "same chip": 1, "other card": 2}
    for row in suite_rows:
        how_close = _match(row, names, arch)
        if how_close == "other card" and not all_cards:
            continue
        out.matches.append(_compare_row(row, how_close, run, report))
    out.matches.sort(key=lambda m: (order[m.match], len(m.differences)))  # closest first
    if not out.matches and out.note is None:
        others = len(suite_rows)
        out.note = (f"No reference results for {device}"
                    f"{f' ({arch})' if arch else ''} in {run.suite}; "
                    f"{others} for other cards (show them with --all-cards).")
    return out


def _compare_row(row: ReferenceRow, how_close: str, run: SuiteRun,
                 report: Report) -> ReferenceMatch:
    yours, how, higher = your_value(run, row.figure, row.unit)
    ratio = yours / row.value if yours is not None and row.value else None
    differences, unstated = condition_differences(row, run, report)
    return ReferenceMatch(row=row, match=how_close, yours=yours, how=how, ratio=ratio,
                          verdict=verdict(ratio, higher), differences=differences,
                          unstated=unstated)


def verdict(ratio: float | None, higher_is_better: bool | None) -> str | None:
    """Yours against theirs in a word (within ±3 %: about the same)."""
    if ratio is None:
        return None
    if abs(ratio - 1) <= SAME_BAND:
        return "about the same"
    if higher_is_better is None:
        return "more" if ratio > 1 else "less"
    return "faster" if (ratio > 1) == higher_is_better else "slower"


def your_value(run: SuiteRun, figure: str,
               unit: str) -> tuple[float | None, str | None, bool | None]:
    """The run's value for ``figure`` in ``unit``: (value, how it was worked out, higher is
    better); value None when the run cannot give it."""
    res = run.result
    if res is None:
        return None, ("the run did not finish" if run.status == "interrupted"
                      else "the run failed"), None
    if figure in res.figures:
        f = res.figures[figure]
        if f.unit != unit:
            return None, f"your {figure} is in {f.unit}, the reference in {unit}", None
        burst = res.peak_of(figure)
        if burst is not None and burst.unit == unit:  # published matmul rates are short bursts
            return (burst.median, f"your peak (the best {burst.n} steps in a row; sustained "
                                  f"{num(f.median)})", f.higher_is_better)
        return f.median, None, f.higher_is_better
    if figure == "iterations_per_s":
        step = res.figures.get("step_time")
        if step and step.median > 0:
            return 1.0 / step.median, "1 / median step time", True
        return None, "the run has no step time", None
    if figure == "end_to_end_it_s":
        per_image = res.figures.get("seconds_per_image")
        steps = run.settings.get("inference_steps") or res.details.get("inference_steps")
        if per_image and per_image.median > 0 and isinstance(steps, (int, float)):
            return float(steps) / per_image.median, f"{steps} steps / median s per image", True
        return None, "the run has no seconds per image", None
    if figure == "vram_gb":
        peak = res.peak_memory_reserved_bytes or res.peak_memory_bytes
        which = "reserved" if res.peak_memory_reserved_bytes else "allocated"
        if peak:
            return peak / 1e9, f"peak memory {which} by PyTorch", None
        return None, "the run recorded no peak memory", None
    if figure == "power_w":
        if run.energy and run.energy.mean_power_w:
            return run.energy.mean_power_w, "mean board power over the measured phase", None
        samples = [t.power_w for t in run.telemetry if t.power_w is not None]
        if samples:
            return sum(samples) / len(samples), "mean sampled board power over the run", None
        return None, "no power was sampled", None
    return None, f"the run has no {figure}", None


def _norm_precision(p: str | None) -> str | None:
    return {"fp16": "amp-fp16", "bf16": "amp-bf16"}.get(p or "", p)


def condition_differences(row: ReferenceRow, run: SuiteRun,
                          report: Report) -> tuple[list[str], list[str]]:
    """Plain sentences for each condition that differs, and the conditions not stated."""
    c = row.conditions
    s = run.settings
    details = run.result.details if run.result else {}
    out: list[str] = []
    mine_p = s.get("precision")
    if not isinstance(mine_p, str):  # a stranger's report may hold anything here
        mine_p = None
    if c.precision and mine_p and _norm_precision(c.precision) != _norm_precision(mine_p):
        extra = ""
        if c.precision == "tf32" and mine_p == "fp32":
            extra = " (fp32 convolutions may use TF32 on NVIDIA cards)"
        out.append(f"precision: reference {c.precision}, yours {mine_p}{extra}")
    if c.batch and s.get("batch_size") and c.batch != s.get("batch_size"):
        out.append(f"batch: reference {c.batch}, yours {s.get('batch_size')}")
    res = details.get("resolution")
    if c.resolution and isinstance(res, int) and c.resolution != res:
        out.append(f"resolution: reference {c.resolution} px, yours {res} px")
    steps = s.get("inference_steps") or details.get("inference_steps")
    if c.steps and isinstance(steps, int) and c.steps != steps:
        out.append(f"denoising steps: reference {c.steps}, yours {steps}")
    if c.memory_format and run.suite in ("resnet50-train", "sd15-infer"):
        mine_f = "channels_last" if s.get("channels_last") else "nchw"
        if mine_f != c.memory_format:
            out.append(f"memory format: reference {c.memory_format}, yours {mine_f}")
    if c.compile is not None and bool(s.get("compile")) != c.compile:
        out.append(f"torch.compile: reference {'on' if c.compile else 'off'}, "
                   f"yours {'on' if s.get('compile') else 'off'}")
    shape = details.get("shape")
    if c.shape and isinstance(shape, str) and shape != c.shape:
        out.append(f"matrix size: reference {c.shape}, yours {shape}")
    if c.model:
        mine_m = f"preset {s['preset']}" if s.get("preset") else "rocmate's default model"
        out.append(f"model: reference {c.model}, yours {mine_m}")
    if c.data and not c.data.startswith("synthetic"):
        out.append(f"data: reference {c.data}; rocmate uses synthetic data on the device")
    if row.kind == "blog-claim":
        out.append("a blog claim: the post does not say how it was measured")
    return out, list(c.unstated)
