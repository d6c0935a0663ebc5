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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import tomllib

from core.i18n import LANGUAGES, Localized, local, t
from core.knowledge.rows import KnowledgeError, Row
from core.report.formatting import num, suite_title, unknown_device
from core.report.model import Report, SuiteRun

KINDS = ("measured", "published", "community", "crowd", "blog-claim")


def kind_titles() -> dict[str, str]:
    """What each kind of source is, in words (the current language)."""
    return {
        "measured": t("report.refs.kind.measured", "measured by this project"),
        "published": t("report.refs.kind.published", "published benchmark"),
        "community": t("report.refs.kind.community", "user report with its method"),
        "crowd": t("report.refs.kind.crowd", "crowd-sourced median"),
        "blog-claim": t("report.refs.kind.blog-claim", "blog claim, no method given"),
    }


def kind_title(kind: str) -> str:
    """A reference's kind in words; an unknown kind as it is."""
    return kind_titles().get(kind, kind)


class _KindTitles(Mapping[str, str]):
    """``KIND_TITLES[kind]``: :func:`kind_title`, looked up when read (the language is chosen
    after import); kept for older callers."""

    def __getitem__(self, kind: str) -> str:
        return kind_titles()[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(KINDS)

    def __len__(self) -> int:
        return len(KINDS)


KIND_TITLES: Mapping[str, str] = _KindTitles()
PRECISIONS = ("fp32", "tf32", "amp-fp16", "amp-bf16", "fp16", "bf16", "gguf-q4_0", "gguf-q4_k_m")
UNSTATED = ("not stated", "n/a")
REQUIRED_CONDITIONS = ("precision", "batch", "resolution", "steps", "software")
OPTIONAL_CONDITIONS = ("memory_format", "compile", "data", "shape", "model")

SUITE_FIGURES: dict[str, dict[str, str]] = {
    "resnet50-train": {"throughput": "images/s", "step_time": "s", "tflops": "TFLOP/s"},
    "sd15-infer": {"seconds_per_image": "s/image", "throughput": "images/s", "unet_it_s": "it/s",
                   "text_encoder_s": "s", "unet_loop_s": "s", "vae_decode_s": "s",
                   "unet_tflops": "TFLOP/s"},
    "llm-train": {"throughput": "tokens/s", "step_time": "s", "tflops": "TFLOP/s"},
    "llm-infer": {"prefill_throughput": "tokens/s", "ttft": "s", "decode_throughput": "tokens/s",
                  "decode_token_time": "s"},
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

# Texts for people: each may have its translations beside it (note_zh_CN), read as Localized.
_WORDS = ("source", "method", "derived", "note")
_CONDITION_WORDS = ("software", "data", "model")
_ROW_KEYS = {"id", "card", "arch", "suite", "figure", "value", "unit", "kind", "source", "method",
             "derived", "note", "conditions", "harness", "backend", "os", "n", "spread", "url",
             "date", "timing"}
# The key a reference must share with a run to be a comparison rather than a hint (added in
# 1.x; a row without them is a hint): the harness, backend and OS, beside the conditions'
# precision, batch and denoising steps.
TIMINGS = ("burst", "sustained")  # how a rate with a peak beside it was timed (ReferenceRow)
HARNESSES = ("rocmate", "pytorch", "diffusers", "sdnext", "a1111", "llama.cpp", "lambda",
             "other")
# rocmate's suites and a plain PyTorch loop of the same model and method measure alike (the
# project's own H200 checks: docs/bench.md); every other harness times something else.
LIKE_ROCMATE = ("rocmate", "pytorch")
BACKENDS = ("rocm", "cuda", "zluda", "vulkan", "directml")
SYSTEMS = ("linux", "windows", "wsl")
_RUN_BACKENDS = {"hip": "rocm", "cuda": "cuda"}
_ROW_KEYS |= {f"{key}_{lang}" for key in _WORDS for lang in LANGUAGES if lang != "en"}
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
    software: str | None = None  # software, data, model: Localized (see conditions_text)
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
    source: str  # source, method, derived, note: Localized (show them with core.i18n.local)
    conditions: Conditions
    method: str | None = None
    derived: str | None = None
    note: str | None = None
    harness: str | None = None  # None: not stated (the row is then a hint)
    backend: str | None = None
    os: str | None = None
    n: int | None = None  # how many results the value is the median of
    spread: tuple[float, float] | None = None  # the lowest and highest of them
    url: str | None = None
    date: str | None = None  # when measured or published: 2025-11, 2025-11-21, 2025-01..2026-01
    timing: str | None = None
    """How a rate with a peak beside it (gemm's TFLOP/s) was timed: "burst" (a few products
    after a few warm-ups, compared with the run's burst) or "sustained" (a long loop, compared
    with the run's sustained figure); None: not stated, the row is then a hint (issue 39)."""


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

    def words(key: str, required: bool = True) -> Localized | None:
        english = text(key, required)
        return None if english is None else _words(raw, key, english, where)

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
    method = words("method", required=False)
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
    harness, backend, system = (text(k, required=False) for k in ("harness", "backend", "os"))
    for key, v, allowed in (("harness", harness, HARNESSES), ("backend", backend, BACKENDS),
                            ("os", system, SYSTEMS)):
        if v is not None and v not in allowed:
            raise ReferencesError(f"{where}: {key} {v!r} is not one of {', '.join(allowed)}")
    n = raw.get("n")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ReferencesError(f"{where}: 'n' must be a positive integer")
    spread = _spread(raw.get("spread"), float(value), where)
    if spread is not None and n is None:
        raise ReferencesError(f"{where}: a spread needs 'n', how many results it spans")
    url = text("url", required=False)
    if url is not None and not url.startswith("https://"):
        raise ReferencesError(f"{where}: 'url' must be an https:// address")
    timing = text("timing", required=False)
    if timing is not None and timing not in TIMINGS:
        raise ReferencesError(f"{where}: timing {timing!r} is not one of {', '.join(TIMINGS)}")
    date = text("date", required=False)
    if date is not None and not re.fullmatch(r"\d{4}-\d{2}(-\d{2})?(\.\.\d{4}-\d{2}(-\d{2})?)?",
                                             date):
        raise ReferencesError(f"{where}: 'date' is YYYY-MM[-DD], or a range FROM..TO")
    return ReferenceRow(
        id=str(text("id")), card=str(text("card")), arch=arch, suite=suite, figure=figure,
        value=float(value), unit=unit, kind=kind, source=words("source") or "",
        conditions=_conditions(raw.get("conditions"), where), method=method,
        derived=words("derived", required=False), note=words("note", required=False),
        harness=harness, backend=backend, os=system, n=n, spread=spread, url=url, date=date,
        timing=timing)


def _spread(raw: Any, value: float, where: str) -> tuple[float, float] | None:
    """``spread = [low, high]``: the lowest and highest result, around the value."""
    if raw is None:
        return None
    if (not isinstance(raw, list) or len(raw) != 2
            or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in raw)):
        raise ReferencesError(f"{where}: 'spread' is [lowest, highest]")
    low, high = float(raw[0]), float(raw[1])
    if not 0 < low <= value <= high:
        raise ReferencesError(f"{where}: 'spread' must hold the value: {low} <= {value} <= "
                              f"{high}")
    return low, high


def _words(raw: dict[str, Any], key: str, english: str, where: str) -> Localized:
    """``english`` (the row's ``key``, stripped) with its translations beside it
    (``<key>_zh_CN``), read as every knowledge table reads them (:meth:`Row.words`)."""
    row = Row("references.toml", "reference", 0, raw)
    row.where = where
    try:
        found = row.words(key)
    except KnowledgeError as exc:
        raise ReferencesError(str(exc)) from None
    return Localized(english, {lang: text.strip()
                               for lang, text in found.translations.items()})


def _conditions(raw: Any, where: str) -> Conditions:
    if not isinstance(raw, dict):
        raise ReferencesError(f"{where}: 'conditions' table missing")
    translated = {f"{key}_{lang}" for key in _CONDITION_WORDS for lang in LANGUAGES
                  if lang != "en"}
    unknown = set(raw) - set(REQUIRED_CONDITIONS) - set(OPTIONAL_CONDITIONS) - translated
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
    software = _words(raw, "software", software, f"{where}: conditions")
    fmt = raw.get("memory_format")
    if fmt is not None and fmt not in ("nchw", "channels_last"):
        raise ReferencesError(f"{where}: conditions.memory_format is nchw or channels_last")
    compiled = raw.get("compile")
    if compiled is not None and not isinstance(compiled, bool):
        raise ReferencesError(f"{where}: conditions.compile is true or false")
    for key in ("data", "shape", "model"):
        if key in raw and not isinstance(raw[key], str):
            raise ReferencesError(f"{where}: conditions.{key} must be a string")
    data, model = raw.get("data"), raw.get("model")
    if data:
        data = _words(raw, "data", data, f"{where}: conditions")
    if model:
        model = _words(raw, "model", model, f"{where}: conditions")
    return Conditions(
        precision=None if precision in UNSTATED else precision, software=software,
        memory_format=fmt, compile=compiled, data=data, shape=raw.get("shape"),
        model=model, unstated=unstated, **values)


def conditions_text(c: Conditions) -> str:
    """``amp-fp16, batch 64, 224 px, channels_last; torch 2.0``: the conditions in one line, in
    the current language."""
    parts = [c.precision or t("report.refs.conditions.precision-unstated",
                              "precision not stated")]
    if c.batch:
        parts.append(f"batch {c.batch}")
    elif "batch" in c.unstated:
        parts.append(t("report.refs.conditions.batch-unstated", "batch not stated"))
    if c.resolution:
        parts.append(f"{c.resolution} px")
    if c.steps:
        parts.append(t("report.format.steps", "{steps} steps", steps=c.steps))
    if c.memory_format:
        parts.append(c.memory_format)
    if c.compile is not None:
        parts.append("torch.compile" if c.compile else "eager")
    if c.shape:
        parts.append(c.shape)
    if c.model:
        parts.append(local(c.model))
    if c.data:
        parts.append(t("report.refs.conditions.data", "data: {data}", data=c.data))
    return ", ".join(parts) + (f"; {local(c.software)}" if c.software else "")


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
    standing: str = "hint"  # comparison (the key matches the run) | hint
    hint: list[str] = field(default_factory=list)  # why only a hint: the key's differences


@dataclass
class CardsLikeMine:
    suite: str
    device: str
    arch: str | None
    matches: list[ReferenceMatch]
    note: str | None = None  # said when nothing matches, or the run cannot be compared
    warnings: list[str] = field(default_factory=list)  # about the run itself (tiny shapes)
    on_cpu: bool = False  # the run measured the CPU: the references are for GPUs
    others: int = 0  # references for other cards, left out (shown with ``all_cards``)


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
    device = names[0] if names else unknown_device()
    out = CardsLikeMine(suite=run.suite, device=device, arch=arch, matches=[])
    suite = suite_title(run.suite)
    if run.settings.get("size") == "tiny":
        out.warnings.append(t("report.refs.tiny", "This run used tiny shapes (a smoke test): "
                              "its figures are not comparable with any reference."))
    if run.device is not None and run.device.backend == "cpu":
        out.on_cpu = True
        out.note = t("report.refs.cpu", "A CPU run: the reference results are for GPUs.")
        if not all_cards:
            return out
    suite_rows = [r for r in rows if r.suite == run.suite]
    order = {"same card": 0, "same chip": 1, "other card": 2}
    for row in suite_rows:
        how_close = _match(row, names, arch)
        if how_close == "other card" and not all_cards:
            continue
        out.matches.append(_compare_row(row, how_close, run, report))
    out.matches.sort(key=lambda m: (m.standing != "comparison", order[m.match],
                                    len(m.differences)))  # comparisons first, then closest
    if not out.matches and out.note is None:
        out.others = len(suite_rows)
        if arch:
            out.note = t("report.refs.none.arch.others", "No reference results for {device} "
                         "({arch}) in {suite}; {count} for other cards.",
                         device=device, arch=arch, suite=suite, count=out.others)
        else:
            out.note = t("report.refs.none.others", "No reference results for {device} in "
                         "{suite}; {count} for other cards.", device=device, suite=suite,
                         count=out.others)
    return out


def _compare_row(row: ReferenceRow, how_close: str, run: SuiteRun,
                 report: Report) -> ReferenceMatch:
    yours, how, higher = your_value(run, row.figure, row.unit, sustained=row.timing == "sustained")
    ratio = yours / row.value if yours is not None and row.value else None
    differences, unstated = condition_differences(row, run, report)
    hint = key_differences(row, run, report)
    return ReferenceMatch(row=row, match=how_close, yours=yours, how=how, ratio=ratio,
                          verdict=verdict(ratio, higher), differences=differences,
                          unstated=unstated, standing="hint" if hint else "comparison",
                          hint=hint)


def run_key(run: SuiteRun, report: Report) -> dict[str, Any]:
    """The run's side of the key: rocmate's harness, its backend, OS, precision, batch, steps."""
    platform = report.machine.platform or {}
    steps = run.settings.get("inference_steps") or (
        run.result.details.get("inference_steps") if run.result else None)
    return {"harness": "rocmate",
            "backend": _RUN_BACKENDS.get(run.device.backend if run.device else ""),
            "os": "wsl" if platform.get("wsl") else "linux",
            "precision": _norm_precision(run.settings.get("precision")
                                         if isinstance(run.settings.get("precision"), str)
                                         else None),
            "batch": run.settings.get("batch_size"),
            "steps": steps if isinstance(steps, int) else None}


def key_differences(row: ReferenceRow, run: SuiteRun, report: Report) -> list[str]:
    """Why ``row`` is only a hint for ``run``, in words: each part of the key (harness, backend,
    OS, precision, batch, denoising steps) that differs or that the source does not state;
    empty when the key matches and the row is a comparison."""
    mine = run_key(run, report)
    out: list[str] = []
    if row.harness is None:
        out.append(t("report.refs.hint.harness-unstated", "the source does not name its harness"))
    elif row.harness == "llama.cpp":
        out.append(t("report.refs.hint.llama-cpp", "llama.cpp with GGUF weights: another "
                     "harness, not comparable with a PyTorch run"))
    elif row.harness not in LIKE_ROCMATE:
        out.append(t("report.refs.hint.harness", "another harness ({harness}): it times "
                     "something other than rocmate's steps", harness=harness_title(row.harness)))
    for key, theirs, title in (("backend", row.backend, t("report.refs.key.backend", "backend")),
                               ("os", row.os, t("report.refs.key.os", "OS"))):
        if theirs is None:
            out.append(t("report.refs.hint.unstated", "{key} not stated", key=title))
        elif mine[key] and theirs != mine[key]:
            out.append(t("report.refs.hint.differs", "{key}: reference {reference}, yours "
                         "{yours}", key=title, reference=key_word(theirs),
                         yours=key_word(mine[key])))
    out += timing_differences(row, run)
    c = row.conditions
    theirs_p = _norm_precision(c.precision)
    if theirs_p is None and "precision" in c.unstated:
        out.append(t("report.refs.hint.unstated", "{key} not stated",
                     key=t("report.refs.key.precision", "precision")))
    elif theirs_p and mine["precision"] and theirs_p != mine["precision"]:
        out.append(t("report.refs.hint.differs", "{key}: reference {reference}, yours {yours}",
                     key=t("report.refs.key.precision", "precision"), reference=c.precision,
                     yours=run.settings.get("precision")))
    for name, count, title in (("batch", c.batch, t("report.refs.key.batch", "batch")),
                               ("steps", c.steps, t("report.refs.key.steps", "denoising steps"))):
        if count is None and name in c.unstated:
            out.append(t("report.refs.hint.unstated", "{key} not stated", key=title))
        elif count is not None and mine[name] is not None and count != mine[name]:
            out.append(t("report.refs.hint.differs", "{key}: reference {reference}, yours "
                         "{yours}", key=title, reference=count, yours=mine[name]))
    return out


def timing_differences(row: ReferenceRow, run: SuiteRun) -> list[str]:
    """For a figure the run measures both as a burst and sustained (gemm): why the row is only
    a hint when it was timed another way than the figure it is set against."""
    res = run.result
    if res is None or res.peak_of(row.figure) is None:
        return []
    if row.timing is None:
        return [t("report.refs.hint.timing-unstated", "the source does not say how it timed "
                  "the products (a short burst or a long loop)")]
    if row.timing == "burst" and not res.peak_is_burst(row.figure):
        return [t("report.refs.hint.timing-window", "the reference is a short burst; your peak "
                  "is the best steps of the measured phase (an older rocmate), which a card at "
                  "its power limit reaches lower")]
    return []


def harness_title(harness: str) -> str:
    """A harness by the name its users know."""
    return {"rocmate": "rocmate", "pytorch": t("report.refs.harness.pytorch",
                                               "a plain PyTorch loop"),
            "diffusers": "diffusers", "sdnext": "SD.Next", "a1111": "AUTOMATIC1111",
            "llama.cpp": "llama.cpp", "lambda": "Lambda's benchmark",
            "other": t("report.refs.harness.other", "another program")}.get(harness, harness)


def key_word(value: str) -> str:
    """A backend or OS as people write it."""
    return {"rocm": "ROCm", "cuda": "CUDA", "zluda": "ZLUDA", "vulkan": "Vulkan",
            "directml": "DirectML", "linux": "Linux", "windows": "Windows",
            "wsl": "WSL 2"}.get(value, value)


def key_text(row: ReferenceRow) -> str:
    """``SD.Next, ROCm, Windows``: the row's harness, backend and OS as stated."""
    unstated = t("report.refs.key.unstated", "not stated")
    return ", ".join([harness_title(row.harness) if row.harness else unstated,
                      key_word(row.backend) if row.backend else unstated,
                      key_word(row.os) if row.os else unstated])


def spread_text(row: ReferenceRow) -> str | None:
    """``n = 3, 17.00–18.98``: how many results the value is the median of, and their range."""
    if row.n is None:
        return None
    if row.spread is None or row.n == 1:
        return t("report.refs.n", "n = {n}", n=row.n)
    return t("report.refs.n.spread", "n = {n}, lowest–highest {low}–{high}", n=row.n,
             low=num(row.spread[0]), high=num(row.spread[1]))


def standing_word(m: ReferenceMatch) -> str:
    """``a comparison`` or ``a hint``."""
    return (t("report.refs.standing.comparison", "a comparison: the key matches this run")
            if m.standing == "comparison"
            else t("report.refs.standing.hint", "a hint, not a comparison"))


def verdict(ratio: float | None, higher_is_better: bool | None) -> str | None:
    """Yours against theirs in a word (within ±3 %: about the same)."""
    if ratio is None:
        return None
    if abs(ratio - 1) <= SAME_BAND:
        return "about the same"
    if higher_is_better is None:
        return "more" if ratio > 1 else "less"
    return "faster" if (ratio > 1) == higher_is_better else "slower"


def your_value(run: SuiteRun, figure: str, unit: str, *,
               sustained: bool = False) -> tuple[float | None, str | None, bool | None]:
    """The run's value for ``figure`` in ``unit``: (value, how it was worked out, higher is
    better); value None when the run cannot give it. A figure with a peak beside it (gemm)
    gives the peak, or with ``sustained`` the sustained figure (a reference timed as a long
    loop)."""
    res = run.result
    if res is None:
        if run.status == "interrupted":
            return None, t("report.refs.yours.unfinished", "the run did not finish"), None
        return None, t("report.refs.yours.failed", "the run failed"), None
    if figure in res.figures:
        f = res.figures[figure]
        if f.unit != unit:
            return None, t("report.refs.yours.other-unit",
                           "your {figure} is in {unit}, the reference in {reference_unit}",
                           figure=figure, unit=f.unit, reference_unit=unit), None
        burst = None if sustained else res.peak_of(figure)
        if burst is not None and burst.unit == unit:  # published matmul rates are short bursts
            if res.peak_is_burst(figure):
                words = t("report.refs.yours.burst", "your burst (the first {steps} steps on a "
                          "rested card; sustained {sustained})", steps=burst.n,
                          sustained=num(f.median))
            else:
                words = t("report.refs.yours.peak", "your peak (the best {steps} steps in a "
                          "row; sustained {sustained})", steps=burst.n, sustained=num(f.median))
            return burst.median, words, f.higher_is_better
        return f.median, None, f.higher_is_better
    if figure == "iterations_per_s":
        step = res.figures.get("step_time")
        if step and step.median > 0:
            return 1.0 / step.median, t("report.refs.yours.per-step", "1 / median step time"), \
                True
        return None, t("report.refs.yours.no-step-time", "the run has no step time"), None
    if figure == "end_to_end_it_s":
        per_image = res.figures.get("seconds_per_image")
        steps = run.settings.get("inference_steps") or res.details.get("inference_steps")
        if per_image and per_image.median > 0 and isinstance(steps, (int, float)):
            return float(steps) / per_image.median, t(
                "report.refs.yours.per-image", "{steps} steps / median s per image",
                steps=steps), True
        return None, t("report.refs.yours.no-per-image", "the run has no seconds per image"), \
            None
    if figure == "vram_gb":
        peak = res.peak_memory_reserved_bytes or res.peak_memory_bytes
        if peak and res.peak_memory_reserved_bytes:
            return peak / 1e9, t("report.refs.yours.memory-reserved",
                                 "peak memory reserved by PyTorch"), None
        if peak:
            return peak / 1e9, t("report.refs.yours.memory-allocated",
                                 "peak memory allocated by PyTorch"), None
        return None, t("report.refs.yours.no-memory", "the run recorded no peak memory"), None
    if figure == "power_w":
        if run.energy and run.energy.mean_power_w:
            return run.energy.mean_power_w, t("report.refs.yours.power-measured",
                                              "mean board power over the measured phase"), None
        samples = [s.power_w for s in run.telemetry if s.power_w is not None]
        if samples:
            return sum(samples) / len(samples), t("report.refs.yours.power-sampled",
                                                  "mean sampled board power over the run"), None
        return None, t("report.refs.yours.no-power", "no power was sampled"), None
    return None, t("report.refs.yours.no-figure", "the run has no {figure}", figure=figure), None


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
        if c.precision == "tf32" and mine_p == "fp32":
            out.append(t("report.refs.differs.precision.tf32",
                         "precision: reference {reference}, yours {yours} (fp32 convolutions "
                         "may use TF32 on NVIDIA cards)", reference=c.precision, yours=mine_p))
        else:
            out.append(t("report.refs.differs.precision",
                         "precision: reference {reference}, yours {yours}",
                         reference=c.precision, yours=mine_p))
    if c.batch and s.get("batch_size") and c.batch != s.get("batch_size"):
        out.append(t("report.refs.differs.batch", "batch: reference {reference}, yours {yours}",
                     reference=c.batch, yours=s.get("batch_size")))
    res = details.get("resolution")
    if c.resolution and isinstance(res, int) and c.resolution != res:
        out.append(t("report.refs.differs.resolution",
                     "resolution: reference {reference} px, yours {yours} px",
                     reference=c.resolution, yours=res))
    steps = s.get("inference_steps") or details.get("inference_steps")
    if c.steps and isinstance(steps, int) and c.steps != steps:
        out.append(t("report.refs.differs.steps",
                     "denoising steps: reference {reference}, yours {yours}",
                     reference=c.steps, yours=steps))
    if c.memory_format and run.suite in ("resnet50-train", "sd15-infer"):
        mine_f = "channels_last" if s.get("channels_last") else "nchw"
        if mine_f != c.memory_format:
            out.append(t("report.refs.differs.memory-format",
                         "memory format: reference {reference}, yours {yours}",
                         reference=c.memory_format, yours=mine_f))
    if c.compile is not None and bool(s.get("compile")) != c.compile:
        out.append(t("report.refs.differs.compile",
                     "torch.compile: reference {reference}, yours {yours}",
                     reference=_on_off(c.compile), yours=_on_off(bool(s.get("compile")))))
    shape = details.get("shape")
    if c.shape and isinstance(shape, str) and shape != c.shape:
        out.append(t("report.refs.differs.shape", "matrix size: reference {reference}, "
                     "yours {yours}", reference=c.shape, yours=shape))
    if c.model:
        mine_m = t("report.format.flag.preset", "preset {preset}", preset=s["preset"]) \
            if s.get("preset") else t("report.refs.default-model", "rocmate's default model")
        out.append(t("report.refs.differs.model", "model: reference {reference}, yours {yours}",
                     reference=c.model, yours=mine_m))
    if c.data and not c.data.startswith("synthetic"):
        out.append(t("report.refs.differs.data",
                     "data: reference {reference}; rocmate uses synthetic data on the device",
                     reference=c.data))
    if row.kind == "blog-claim":
        out.append(t("report.refs.differs.blog-claim",
                     "a blog claim: the post does not say how it was measured"))
    return out, list(c.unstated)


def _on_off(on: bool) -> str:
    return t("report.refs.on", "on") if on else t("report.refs.off", "off")
