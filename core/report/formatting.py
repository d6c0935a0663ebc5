"""How numbers, sizes, times and settings read in every writer (text, Markdown, HTML).

One module, so that a figure shows the same digits in the terminal, in a forum post and in the
HTML page, and tests can look for exactly those digits.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from core.i18n import local, t
from core.knowledge.bench_choices import choice_running
from core.report.model import (
    PEAK_SUFFIX,
    Driver,
    Figure,
    Measure,
    Reference,
    Report,
    SuiteRun,
    Warmup,
)

_Phase = TypeVar("_Phase", Warmup, Measure)


def suite_titles() -> dict[str, str]:
    """Each suite's title, in the current language (suite ids stay as they are)."""
    return {
        "resnet50-train": t("report.format.suite.resnet50-train", "ResNet-50 training"),
        "sd15-infer": t("report.format.suite.sd15-infer", "Stable Diffusion 1.5 images"),
        "llm-train": t("report.format.suite.llm-train", "LLM training"),
        "llm-infer": t("report.format.suite.llm-infer", "LLM inference"),
        "gemm": t("report.format.suite.gemm", "GEMM (matrix multiply)"),
        "bandwidth": t("report.format.suite.bandwidth", "Memory bandwidth"),
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


def when_local(iso: str) -> str:
    """``2026-11-30 08:15`` from an ISO 8601 time, in this computer's time zone (a person's
    own clock; the reports and the terminal say UTC). A time without a zone is UTC, as rocmate
    writes them; a time that does not parse is the text itself."""
    try:
        t = _dt.datetime.fromisoformat(iso)
        if t.tzinfo is None:
            t = t.replace(tzinfo=_dt.timezone.utc)
        return t.astimezone().strftime("%Y-%m-%d %H:%M")
    except (ValueError, OverflowError, TypeError, OSError):
        return str(iso)


def value(v: Any) -> str:
    """A setting's or detail's value as text."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return t("report.format.yes", "yes") if v else t("report.format.no", "no")
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
    """A suite's title; a history row of several runs goes by the name of the Benchmark page's
    card that runs them (``gemm+bandwidth``: the quick health check), else names each."""
    choice = choice_running(suite) if "+" in suite else None
    if choice is not None:
        return local(choice.title)
    titles = suite_titles()
    return " + ".join(titles.get(part, part) for part in suite.split("+")) if "+" in suite \
        else titles.get(suite, suite)


def suite_notes(suite: str) -> list[str]:
    """What a reader must know about a suite's figures before setting them beside others', in
    the current language (shown with each run of the suite in every report form)."""
    if suite == "llm-infer":
        return [t("report.note.llm-infer.not-llama-cpp",
                  "These are PyTorch (transformers) figures at batch 1 with random weights. "
                  "llama.cpp, LM Studio and other GGUF runners are another harness "
                  "(quantised weights, their own kernels): their tokens per second are not "
                  "comparable with these.")]
    return []


def attention_text(run: SuiteRun) -> str | None:
    """The attention kernel PyTorch ran (llm-infer's ``details.sdpa``): ``SDPA, prefill and
    decode: cudnn``, or each part's where they differ; on ROCm with AOTriton's experimental kernels
    said. None for a run that did not record it."""
    details = run.result.details if run.result else {}
    sdpa = details.get("sdpa")
    if not isinstance(sdpa, dict):
        return None
    used = {part: ", ".join(str(k) for k in sdpa.get(part) or []) or "-"
            for part in ("prefill", "decode") if part in sdpa}
    if not used:
        return None
    if len(used) == 2 and len(set(used.values())) == 1:
        kernels = t("report.label.attention.same", "prefill and decode: {kernels}",
                    kernels=used["prefill"])
    else:
        kernels = t("doctor.list-separator", "; ").join(
            t("report.label.attention.part", "{part}: {kernels}", kernels=k,
              part=part_label(part))
            for part, k in used.items())
    text = t("report.label.attention", "SDPA, {kernels}", kernels=kernels)
    experimental = details.get("aotriton_experimental")
    if experimental:
        text = t("report.label.attention.aotriton", "{text}; AOTriton experimental kernels on "
                 "({variable}={value})", text=text,
                 variable="TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL", value=str(experimental))
    return text


def figure_label(name: str) -> str:
    """A figure's name as a person reads it (``tflops_bf16_peak``: "bf16 peak"), in the current
    language; a name rocmate does not know (a newer worker's) with its underscores as spaces."""
    known = _figure_words().get(name)
    if known is not None:
        return known
    dtype = re.fullmatch(r"tflops_(\w+?)(_peak)?", name)
    if dtype and dtype[1] in ("bf16", "fp16", "fp32", "fp8", "tf32"):
        if dtype[2]:
            return t("report.figure.dtype-peak", "{dtype} peak", dtype=dtype[1])
        return dtype[1]
    return name.replace("_", " ")


def _figure_words() -> dict[str, str]:
    """The figures the suites report (core/bench/worker/suites), by name."""
    return {
        "throughput": t("report.figure.throughput", "throughput"),
        "throughput_per_gpu": t("report.figure.throughput-per-gpu", "throughput per GPU"),
        "step_time": t("report.figure.step-time", "step time"),
        "prefill_throughput": t("report.figure.prefill-throughput", "prompt processing"),
        "ttft": t("report.figure.ttft", "time to first token"),
        "decode_throughput": t("report.figure.decode-throughput", "generation"),
        "decode_token_time": t("report.figure.decode-token-time", "time per generated token"),
        "tflops": t("report.figure.tflops", "compute rate"),
        "seconds_per_image": t("report.figure.seconds-per-image", "seconds per image"),
        "text_encoder_s": t("report.figure.text-encoder", "text encoder"),
        "unet_it_s": t("report.figure.unet-it-s", "UNet steps per second"),
        "unet_loop_s": t("report.figure.unet-loop", "UNet loop"),
        "unet_tflops": t("report.figure.unet-tflops", "UNet compute rate"),
        "vae_decode_s": t("report.figure.vae-decode", "VAE decode"),
        "d2d_gbs": t("report.figure.d2d", "device to device"),
        "d2h_gbs": t("report.figure.d2h", "device to host"),
        "h2d_gbs": t("report.figure.h2d", "host to device"),
    }


def peak_memory_label(run: SuiteRun) -> str:
    """"peak memory" for the run's device: the GPU's memory, or on the CPU the machine's (the
    Chinese says which: 显存 or 内存)."""
    if run.device is not None and run.device.backend == "cpu":
        return t("report.md.peak-memory.cpu", "peak memory")
    return t("report.md.peak-memory", "peak memory")


def unknown_device() -> str:
    """What a run that failed before its worker said hello ran on, in words."""
    return t("report.format.device-unknown", "device unknown")


UNKNOWN_DEVICE = "device unknown"
""":func:`unknown_device` in English (kept for older callers; show :func:`unknown_device`)."""

# Suites that measure without a batch (matrix products and copies of a fixed size).
_NO_BATCH = frozenset({"gemm", "bandwidth"})


def device_label(run: SuiteRun) -> str:
    d = run.device
    if d is None:
        return unknown_device()
    arch = f", {d.arch}" if d.arch else ""
    return f"{d.name} ({d.backend}{arch})"


def settings_flags(settings: Mapping[str, Any]) -> list[str]:
    """The settings that matter when reading a figure, short: ``amp-bf16``, ``batch 256``."""
    s = settings
    flags: list[str] = []
    if s.get("size") == "tiny":
        flags.append(t("report.format.flag.tiny", "tiny shapes"))
    if s.get("precision"):
        flags.append(str(s["precision"]))
    elif s.get("suite") == "gemm":
        flags.append(t("report.format.flag.each-dtype", "each dtype"))
    if s.get("batch_size") and s.get("suite") not in _NO_BATCH:
        flags.append(f"batch {s['batch_size']}")
    if s.get("channels_last"):
        flags.append("channels_last")
    if s.get("compile"):
        flags.append("torch.compile")
    if s.get("preset"):
        flags.append(t("report.format.flag.preset", "preset {preset}", preset=s["preset"]))
    if s.get("seq_len"):
        flags.append(f"seq {s['seq_len']}")
    if s.get("inference_steps"):
        flags.append(t("report.format.steps", "{steps} steps", steps=s["inference_steps"]))
    if s.get("gpus"):
        flags.append(t("report.format.flag.gpus", "data-parallel ×{gpus}", gpus=s["gpus"]))
    return flags


def settings_items(settings: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every setting that was set, as (its name in words, text)."""
    return [(setting_label(k), value(v)) for k, v in settings.items()
            if v is not None and k not in _QUIET_SETTINGS]


def _setting_words() -> dict[str, str]:
    """The settings, suite details and machine facts a reader meets, in words (the current
    language); the keys are the report's own (``batch_size``, ``details.cudnn_benchmark``)."""
    return {
        "batch_size": t("report.setting.batch-size", "batch size"),
        "precision": t("report.setting.precision", "precision"),
        "size": t("report.setting.size", "shapes"),
        "device": t("report.setting.device", "device"),
        "steps": t("report.setting.steps", "measured steps"),
        "seconds": t("report.setting.seconds", "measured for (s)"),
        "channels_last": t("report.setting.channels-last", "channels_last memory format"),
        "compile": t("report.setting.compile", "torch.compile"),
        "model": t("report.setting.model", "model"),
        "gpus": t("report.setting.gpus", "GPUs (data-parallel)"),
        "preset": t("report.setting.preset", "model preset"),
        "seq_len": t("report.setting.seq-len", "sequence length"),
        "inference_steps": t("report.setting.inference-steps", "denoising steps"),
        "resolution": t("report.setting.resolution", "resolution"),
        "cudnn_benchmark": t("report.setting.cudnn-benchmark",
                             "convolution autotuning (cudnn.benchmark)"),
        "cudnn_allow_tf32": t("report.setting.cudnn-tf32", "TF32 in convolutions"),
        "matmul_allow_tf32": t("report.setting.matmul-tf32", "TF32 in matrix products"),
        "memory_format": t("report.setting.memory-format", "memory format"),
        "dtype": t("report.setting.dtype", "data type"),
        "shape": t("report.setting.shape", "matrix shape"),
        "optimizer": t("report.setting.optimizer", "optimizer"),
        "distro_name": t("report.setting.distro-name", "distribution"),
        "distro_version": t("report.setting.distro-version", "distribution version"),
        "kernel": t("report.setting.kernel", "kernel"),
        "wsl": t("report.setting.wsl", "WSL"),
        "gpus_in_machine": t("report.setting.gpus-in-machine", "GPUs in the machine"),
        "backend": t("report.setting.backend", "backend"),
        "arch": t("report.setting.arch", "GPU architecture"),
        "device memory": t("report.setting.device-memory", "device memory"),
        "driver": t("report.setting.driver", "driver"),
    }


def setting_label(key: str) -> str:
    """A setting's, detail's or machine fact's name as a person reads it: ``batch_size`` is
    "batch size", ``details.cudnn_benchmark`` "convolution autotuning (cudnn.benchmark)". A
    package keeps its name ("transformers (package)"), an environment variable its name (what
    a user types); a key rocmate does not know reads with its underscores as spaces."""
    prefix, _, rest = key.partition(".")
    if rest and prefix == "env":
        return rest
    if rest and prefix == "packages":
        return t("report.setting.package", "{name} (package)", name=rest)
    name = rest if rest and prefix == "details" else key
    words = _setting_words()
    return words.get(name) or name.replace("_", " ")


def headline(run: SuiteRun) -> str:
    """``4,624 images/s``, ``peak 775, sustained 670 TFLOP/s`` (a figure with its peak beside
    it), ``error: oom`` or ``interrupted after 37 steps``."""
    if run.result is not None:
        f = run.result.headline_figure
        peak = run.result.peak_of(run.result.headline)
        if peak is not None:
            return t("report.format.headline.peak", "peak {peak}, sustained {value} {unit}",
                     peak=num(peak.median), value=num(f.median), unit=f.unit)
        return f"{num(f.median)} {f.unit}"
    if run.status == "interrupted":
        if len(run.steps) == 1:
            return t("report.format.headline.interrupted.one", "interrupted after 1 step")
        return t("report.format.headline.interrupted", "interrupted after {steps} steps",
                 steps=f"{len(run.steps):,}")
    return status_text(run)


def status_word(status: str) -> str:
    """A run's status (``ok``, ``error``, ``cancelled``, ``interrupted``) as shown in core's
    writers; an unknown status as it is. (The app's own words, "finished" and "failed", are
    gui.widgets.results_view.status_word's, in the Qt catalogue.)"""
    words = {
        "ok": t("report.label.status.ok", "ok"),
        "error": t("report.label.status.error", "error"),
        "cancelled": t("report.label.status.cancelled", "cancelled"),
        "interrupted": t("report.label.status.interrupted", "interrupted"),
    }
    return words.get(status, status)


def status_text(run: SuiteRun) -> str:
    """``error: oom``, ``cancelled: interrupted``; ``interrupted`` alone (its error kind says
    the same). The status in words, the error kind as it is."""
    if run.error is None or run.error.kind == run.status:
        return status_word(run.status)
    return t("report.format.status", "{status}: {kind}", status=status_word(run.status),
             kind=run.error.kind)


def datasheet_parts(ref: Reference, sep: str = " ") -> list[str]:
    """How close each figure came to the datasheet, the figure by its words
    (:func:`figure_label`): ``fp32 76 % of 66.9``; a figure with its peak beside it (gemm) as
    ``bf16 peak 78 %, sustained 68 % of 989.4``."""
    out: list[str] = []
    for name, fraction in ref.fractions.items():
        base = name.removesuffix(PEAK_SUFFIX)
        if base != name and base in ref.fractions:
            continue  # said with its sustained figure
        datasheet = num(ref.peaks.get(name))
        peak = ref.fractions.get(name + PEAK_SUFFIX)
        if peak is None:
            out.append(t("report.format.datasheet", "{figure}{sep}{fraction} of {datasheet}",
                         figure=figure_label(name), sep=sep, fraction=pct(fraction, 0),
                         datasheet=datasheet))
        else:
            out.append(t("report.format.datasheet.peak",
                         "{figure}{sep}peak {peak}, sustained {fraction} of {datasheet}",
                         figure=figure_label(name), sep=sep, peak=pct(peak, 0),
                         fraction=pct(fraction, 0), datasheet=datasheet))
    return out


def warmup_text(run: SuiteRun) -> str:
    """The warm-up in words; for a run of several parts each part's, ``; `` between them
    (llm-infer's prefill settled in 1 s, its decode took 42 s: the result's is the decode's
    alone)."""
    return t("doctor.list-separator", "; ").join(warmup_lines(run))


def warmup_lines(run: SuiteRun) -> list[str]:
    """The warm-up in words, one line a part for a run of several parts
    (``details.parts.<part>.warmup``, each named by :func:`part_label`), else the result's."""
    if run.result is None:
        return ["-"]
    each = _each_part(run.result.details, "warmup", _warmup)
    if len(each) < 2:
        return [_warmup_words(run.result.warmup)]
    return [t("report.format.warm-up.part", "{part}: {warm_up}", part=part_label(name),
              warm_up=_warmup_words(w)) for name, w in each.items()]


def _each_part(details: Mapping[str, Any], key: str,
               read: Callable[[Mapping[str, Any]], _Phase | None]) -> dict[str, _Phase]:
    """``details.parts.<part>.<key>`` of each part as ``read`` makes it; a part whose entry
    is missing or unreadable (a report from elsewhere) is left out."""
    parts = details.get("parts")
    each: dict[str, _Phase] = {}
    for name, info in (parts.items() if isinstance(parts, dict) else ()):
        raw = info.get(key) if isinstance(info, dict) else None
        phase = read(raw) if isinstance(raw, dict) else None
        if phase is not None:
            each[str(name)] = phase
    return each


def _warmup(raw: Mapping[str, Any]) -> Warmup | None:
    """A part's warm-up as the worker wrote it; None where its steps or seconds are not
    numbers (a report from elsewhere)."""
    steps, secs, first = raw.get("steps"), raw.get("seconds"), raw.get("first_step_s")
    if not isinstance(steps, int) or isinstance(steps, bool) \
            or not isinstance(secs, (int, float)) or isinstance(secs, bool):
        return None
    return Warmup(steps=steps, seconds=float(secs),
                  first_step_s=float(first) if isinstance(first, (int, float))
                  and not isinstance(first, bool) else None,
                  settled=raw.get("settled") is True, forced=raw.get("forced") is True)


def _warmup_words(w: Warmup) -> str:
    if w.forced:
        state = t("report.format.warm-up.fixed", "fixed length")
    elif w.settled:
        state = t("report.format.warm-up.settled", "settled")
    else:
        state = t("report.format.warm-up.not-settled", "did NOT settle")
    if w.first_step_s is not None:
        return t("report.format.warm-up.first-step",
                 "{steps} steps in {seconds}, first step {first} ({state})", steps=w.steps,
                 seconds=seconds(w.seconds), first=seconds(w.first_step_s), state=state)
    return t("report.format.warm-up", "{steps} steps in {seconds} ({state})", steps=w.steps,
             seconds=seconds(w.seconds), state=state)


def part_label(part: str) -> str:
    """A part of a run as a person reads it: llm-infer's ``prefill`` and ``decode`` in the
    current language (the words of their throughput figures, "提示词处理" and "生成" in
    Chinese); other parts (gemm's dtypes, bandwidth's directions) as the worker names them."""
    words = {"prefill": t("report.part.prefill", "prefill"),
             "decode": t("report.part.decode", "decode")}
    return words.get(part, part)


def measure_text(run: SuiteRun) -> str:
    """The measured phase in words; for a run of several parts each part's, ``; `` between
    them (the result's own is its headline part's alone)."""
    return t("doctor.list-separator", "; ").join(measure_lines(run))


def measure_lines(run: SuiteRun) -> list[str]:
    """The measured phase in words, one line a part for a run of several parts
    (``details.parts.<part>.measure``, each named by :func:`part_label`), else the result's."""
    if run.result is None:
        return ["-"]
    each = _each_part(run.result.details, "measure", _measure)
    if len(each) < 2:
        return [_measure_words(run.result.measure)]
    return [t("report.format.measured.part", "{part}: {measured}", part=part_label(name),
              measured=_measure_words(m)) for name, m in each.items()]


def _measure(raw: Mapping[str, Any]) -> Measure | None:
    """A part's measured phase as the worker wrote it; None where a value is not a number of
    the right kind (a report from elsewhere)."""
    steps, secs, items = raw.get("steps"), raw.get("seconds"), raw.get("items")
    if not isinstance(steps, int) or isinstance(steps, bool) \
            or not isinstance(items, int) or isinstance(items, bool) \
            or not isinstance(secs, (int, float)) or isinstance(secs, bool):
        return None
    return Measure(steps=steps, seconds=float(secs), items=items)


def _measure_words(m: Measure) -> str:
    return t("report.format.measured", "{steps} steps in {seconds}, {items} items",
             steps=m.steps, seconds=seconds(m.seconds), items=f"{m.items:,}")


def driver_text(d: Driver | None) -> str | None:
    """``amdgpu 6.10.5 (DKMS)``, ``amdgpu in-tree (kernel 6.8.0-45-generic)``, ``nvidia
    580.159.03``; None when the report has no driver."""
    if d is None:
        return None
    if d.source == "in-tree":  # the kernel's own driver: its version is the kernel's
        driver = f"{d.name} {d.version}" if d.version else d.name
        if d.kernel:
            return t("report.format.driver.in-tree.kernel", "{driver} in-tree (kernel {kernel})",
                     driver=driver, kernel=d.kernel)
        return t("report.format.driver.in-tree", "{driver} in-tree", driver=driver)
    text = f"{d.name} {d.version}" if d.version else t(
        "report.format.driver.version-unknown", "{driver} (version unknown)", driver=d.name)
    if d.source == "dkms":
        return f"{text} (DKMS)"
    return text if d.source in (None, d.name) else f"{text} ({d.source})"


def software_entries(report: Report) -> list[tuple[str, str, str]]:
    """The software a report names, as (key, name shown, version): the key is stable
    (``python``, ``torch``, ``hip``, ``cuda``, ``rocm``, ``driver``, ``packages.<name>``), the
    name is in the current language."""
    s = report.software
    items = [("python", "Python", s.python), ("torch", "PyTorch", s.torch),
             ("hip", "HIP", s.hip), ("cuda", "CUDA", s.cuda), ("rocm", "ROCm", s.rocm),
             ("driver", t("report.format.software.driver", "GPU driver"),
              driver_text(s.driver))]
    out = [(key, name, v) for key, name, v in items if v]
    out += [(f"packages.{k}", k, v) for k, v in s.packages.items()]
    return out


def software_items(report: Report) -> list[tuple[str, str]]:
    """The software a report names, as (name shown, version)."""
    return [(name, v) for _, name, v in software_entries(report)]


def platform_text(report: Report) -> str:
    p = report.machine.platform
    name = p.get("distro_name") or p.get("distro_id") \
        or t("report.format.platform.unknown", "unknown system")
    version = p.get("distro_version") or ""
    parts = [f"{name} {version}".strip()]
    if p.get("kernel"):
        parts.append(t("report.format.platform.kernel", "kernel {kernel}", kernel=p["kernel"]))
    if p.get("wsl"):
        parts.append(f"WSL {p['wsl']}")
    return t("report.format.platform.separator", ", ").join(parts)


def gpu_items(report: Report) -> list[dict[str, str]]:
    out = []
    for g in report.machine.gpus:
        vram = g.get("vram_bytes")
        out.append({
            "name": str(g.get("name") or t("report.format.gpu.unknown", "unknown GPU")),
            "vendor": str(g.get("vendor") or "-"),
            "pci_id": str(g.get("pci_id") or "-"),
            "gfx": str(g.get("gfx") or "-"),
            "vram": gib(vram) if isinstance(vram, (int, float)) else "-",
            "integrated": t("report.format.gpu.integrated", "integrated") if g.get("integrated")
            else t("report.format.gpu.discrete", "discrete"),
        })
    return out


def ratio(r: float | None) -> str:
    return "-" if r is None else f"{num(r, 3)}×"
