"""Plain text for the terminal (``rocmate report show | compare | list``) and for the
copy-paste block of the Markdown writer. Rendered only from the report's content.

A report may be a stranger's, so every line goes through :func:`fmt.safe`: no control character
or bidi override from it reaches the terminal (a device name cannot set the window title, clear
the screen or fake a colour), and a newline inside a value cannot start a line of its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.i18n import t
from core.report import formatting as fmt
from core.report import gemm_windows
from core.report.compare import Comparison
from core.report.efficiency import of_run, source_text, why_not
from core.report.history import HistoryEntry
from core.report.interruption import interrupted_words, interruption_text
from core.report.model import Efficiency, Report, SuiteRun
from core.report.references import (
    KIND_TITLES,
    CardsLikeMine,
    ReferenceMatch,
    ReferenceRow,
    conditions_text,
    key_text,
    spread_text,
    standing_word,
)
from core.report.scaling import scaling_lines
from core.report.steadiness import cautions
from core.termstyle import display_width, pad_left, pad_right


def report_text(report: Report) -> str:
    lines = [t("report.text.heading", "rocmate {version} report, {when}",
               version=report.tool_version, when=fmt.when(report.created)),
             "  " + t("report.text.machine", "machine: {machine}",
                      machine=fmt.platform_text(report))]
    soft = ", ".join(f"{k} {v}" for k, v in fmt.software_items(report)[:5])
    if soft:
        lines.append("  " + t("report.text.software", "software: {software}", software=soft))
    for run in report.runs:
        lines.append("")
        lines += run_text(run)
    scaled = scaling_lines(report)
    lines += ["", *scaled] if scaled else []
    return _join(lines)


def _join(lines: Sequence[str]) -> str:
    return "\n".join(fmt.safe(line) for line in lines)


# The words for values a report or a comparison holds as contracts (a verdict,
# how close a reference card is): the value chooses the words, an unknown value is shown as it is.

def verdict_word(verdict: str | None) -> str | None:
    """A comparison's or a reference's verdict (``better``, ``faster``, ``about the same``
    ...) as shown; None stays None."""
    words = {
        "better": t("report.label.verdict.better", "better"),
        "worse": t("report.label.verdict.worse", "worse"),
        "faster": t("report.label.verdict.faster", "faster"),
        "slower": t("report.label.verdict.slower", "slower"),
        "more": t("report.label.verdict.more", "more"),
        "less": t("report.label.verdict.less", "less"),
        "about the same": t("report.label.verdict.about-the-same", "about the same"),
        "within the noise": t("report.label.verdict.within-noise", "within the noise"),
    }
    return words.get(verdict, verdict) if verdict is not None else None


def match_word(match: str) -> str:
    """How close a reference's card is to yours (``same card``, ``same chip``, ``other card``)
    as shown."""
    words = {
        "same card": t("report.label.match.same-card", "same card"),
        "same chip": t("report.label.match.same-chip", "same chip"),
        "other card": t("report.label.match.other-card", "other card"),
    }
    return words.get(match, match)


def energy_text(per_item: str, unit: str, power_w: float | None, method: str) -> str:
    """``0.4 J/image at 310 W (energy counter)``: ``per_item`` as the writer formats it."""
    if power_w:
        return t("report.label.energy.power", "{energy} J/{unit} at {power} W ({method})",
                 energy=per_item, unit=unit, power=f"{power_w:.0f}", method=method)
    return t("report.label.energy", "{energy} J/{unit} ({method})", energy=per_item, unit=unit,
             method=method)


def efficiency_text(e: Efficiency, energy: bool = True) -> str:
    """``7.56 images/s per W, 0.132 J/image at 612 W``: a figure per watt, in words (without
    the joules per item with ``energy=False``: where the report's energy line says them)."""
    rate = t("report.label.per-watt", "{value} {unit} per W", value=fmt.num(e.per_watt),
             unit=e.unit.removesuffix("/W"))
    if e.part:
        rate = t("report.label.per-watt.part", "{part}: {rate}", part=fmt.part_label(e.part),
                 rate=rate)
    if energy and e.per_item_j is not None and e.item_unit:
        return t("report.label.per-watt.energy", "{rate}, {energy} J/{unit} at {power} W",
                 rate=rate, energy=fmt.num(e.per_item_j), unit=e.item_unit,
                 power=f"{e.mean_power_w:.0f}")
    return t("report.label.per-watt.power", "{rate} at {power} W", rate=rate,
             power=f"{e.mean_power_w:.0f}")


def efficiency_how(e: Efficiency) -> str:
    """Where the power came from and over which window."""
    method = (t("report.label.per-watt.counter", "energy counter")
              if e.method == "energy-counter"
              else t("report.label.per-watt.samples", "power samples"))
    return t("report.label.per-watt.how", "{source}, {method}; the measured {seconds} (warm-up "
             "left out), {samples} samples", source=source_text(e), method=method,
             seconds=fmt.seconds(e.window_s), samples=e.samples)


def efficiency_missing(reason: str | None) -> str | None:
    """Why a run has no figure per watt, in words; None when that needs no saying (a CPU run,
    a suite with no rate)."""
    words = {
        "no-power": t("report.label.per-watt.no-power",
                      "not known: no board power was read during the run"),
        "too-few-samples": t("report.label.per-watt.too-few",
                             "not known: too few power samples in the measured steps"),
        "not-covered": t("report.label.per-watt.not-covered",
                         "not known: the power samples cover too little of the measured steps"),
    }
    return words.get(reason or "")


def efficiency_lines(run: SuiteRun) -> list[str]:
    """One line per figure per watt, each with its source; or why there is none."""
    found = of_run(run)
    if found:  # the joules per item where the energy line does not say them already
        return [f"{efficiency_text(e, run.energy is None or e.part is not None)} "
                f"({efficiency_how(e)})" for e in found]
    missing = efficiency_missing(why_not(run))
    return [missing] if missing else []


def memory_text(peak: str, reserved: str | None) -> str:
    """The peak memory, with what the allocator reserved beside it when the report has it."""
    if reserved is None:
        return peak
    return t("report.label.memory.reserved", "{peak} (reserved {reserved})", peak=peak,
             reserved=reserved)


def window_lines(run: SuiteRun) -> list[str]:
    """gemm: the card's clock and power during each dtype's burst and its sustained phase
    (core.report.gemm_windows), a line per window."""
    out = []
    for c in gemm_windows.of_run(run):
        state = [f"{fmt.num(c.clock_mhz)} MHz" if c.clock_mhz is not None else None,
                 f"{fmt.num(c.power_w)} W" if c.power_w is not None else None]
        said = ", ".join(x for x in state if x)
        if c.after_s is not None:
            how = t("report.text.gemm-window.after", "the first sample after it began, "
                    "{seconds} s after its end", seconds=f"{c.after_s:.1f}")
        elif c.samples == 1:
            how = t("report.text.gemm-window.one", "1 sample")
        else:
            how = t("report.text.gemm-window.samples", "median of {count} samples",
                    count=c.samples)
        if c.window == "burst":
            out.append(t("report.text.gemm-window.burst", "{part} burst: {state} ({how})",
                         part=c.part, state=said, how=how))
        else:
            out.append(t("report.text.gemm-window.sustained", "{part} sustained: {state} "
                         "({how})", part=c.part, state=said, how=how))
    return out


def _per_part(labelled: Callable[[str], str], lines: list[str]) -> list[str]:
    """``labelled(words)`` on one line; for a run of several parts (gemm's three dtypes) the
    label alone, then a line a part under it, not one line of 200 characters."""
    if len(lines) < 2:
        return ["  " + labelled(lines[0] if lines else "-")]
    return ["  " + labelled("").rstrip()] + ["    " + line for line in lines]


def run_text(run: SuiteRun) -> list[str]:
    flags = fmt.settings_flags(run.settings)
    if flags:
        title = t("report.text.run.settings", "{suite} on {device}: {settings}",
                  suite=fmt.suite_title(run.suite),
                  device=fmt.device_label(run), settings=", ".join(flags))
    else:
        title = t("report.label.suite-on-device", "{suite} on {device}",
                  suite=fmt.suite_title(run.suite), device=fmt.device_label(run))
    out = [f"{title}  [{fmt.status_word(run.status)}]"]
    cut = interruption_text(run)
    if cut:
        out.append("  " + cut)
    if run.result is None:
        if run.error and run.status == "interrupted":
            out.append("  " + t("report.text.interrupted", "interrupted: {message}",
                                message=run.error.message))
            out.append("  " + t("report.text.advice", "advice: {advice}",
                                advice=run.error.advice))
        elif run.error:
            out.append("  " + t("report.text.error", "error ({kind}): {message}",
                                kind=run.error.kind, message=run.error.message))
            out.append("  " + t("report.text.advice", "advice: {advice}",
                                advice=run.error.advice))
        return out
    r = run.result
    if r.peak_of(r.headline) is not None:
        out.append(f"  {fmt.figure_label(r.headline)}: {fmt.headline(run)}")
    out += ["  " + line for line in window_lines(run)]
    labels = {name: fmt.figure_label(name) for name in r.figures}
    width = max([20] + [display_width(label) + 1 for label in labels.values()])
    out.append(f"  {pad_left(t('report.label.figure', 'figure'), width)}"
               f"{pad_right(t('report.label.median', 'median'), 12)}  {'p10–p90':>21}  {'cv':>7}  "
               f"{t('report.label.unit', 'unit')}")
    for name, f in r.figures.items():
        mark = "*" if name == r.headline else " "
        out.append(f" {mark}{pad_left(labels[name], width)}{fmt.num(f.median):>12}  "
                   f"{fmt.spread(f):>21}  {fmt.cv(f):>7}  {f.unit}")
    out += _per_part(lambda words: t("report.text.warm-up", "warm-up: {warm_up}",
                                     warm_up=words), fmt.warmup_lines(run))
    out += _per_part(lambda words: t("report.text.measured", "measured: {measured}",
                                     measured=words), fmt.measure_lines(run))
    reserved = fmt.gib(r.peak_memory_reserved_bytes) if r.peak_memory_reserved_bytes else None
    memory = memory_text(fmt.gib(r.peak_memory_bytes), reserved)
    if run.device is not None and run.device.backend == "cpu":  # the machine's memory
        out.append("  " + t("report.text.peak-memory.cpu", "peak memory: {memory}",
                            memory=memory))
    else:
        out.append("  " + t("report.text.peak-memory", "peak memory: {memory}", memory=memory))
    if run.energy:
        e = run.energy
        out.append("  " + t("report.text.energy", "energy: {energy}", energy=energy_text(
            f"{e.per_item_j:.4g}", e.item_unit, e.mean_power_w, e.method)))
    out += ["  " + t("report.text.per-watt", "per watt: {efficiency}", efficiency=line)
            for line in efficiency_lines(run)]
    attention = fmt.attention_text(run)
    if attention:
        out.append("  " + t("report.text.attention", "attention: {attention}",
                            attention=attention))
    ref = run.reference
    if ref is not None and ref.fractions:
        out.append("  " + t("report.text.vs-datasheet", "vs datasheet ({name}): {parts}",
                            name=ref.name, parts=t("doctor.list-separator", "; ").join(
                                fmt.datasheet_parts(ref))))
    out += [f"  ! {c.text}" for c in cautions(run)]
    out += ["  " + t("report.label.note", "note: {note}", note=n)
            for n in fmt.suite_notes(run.suite)]
    return [fmt.safe(line) for line in out]


def comparison_text(c: Comparison) -> str:
    lines = [f"A = {c.a_label}", f"B = {c.b_label}"]
    for rc in c.runs:
        lines.append("")
        title = (fmt.suite_title(rc.suite_a) if rc.same_suite
                 else t("report.text.suites", "{a} vs {b}", a=fmt.suite_title(rc.suite_a),
                        b=fmt.suite_title(rc.suite_b)))
        lines.append(t("report.text.compared-runs", "{title}: A on {device_a}, B on {device_b}",
                       title=title, device_a=rc.device_a, device_b=rc.device_b))
        lines += ["  " + t("report.label.note", "note: {note}", note=n) for n in rc.notes]
        if rc.figures:
            lines.append(f"  {pad_left(t('report.label.figure', 'figure'), 20)}{'A':>12}  "
                         f"{'B':>12}  {'B/A':>8}  {t('report.text.verdict', 'verdict')}")
            for d in rc.figures:
                lines.append(f"  {pad_left(fmt.figure_label(d.name), 20)}{fmt.num(d.a):>12}  "
                             f"{fmt.num(d.b):>12}  "
                             f"{fmt.ratio(d.ratio):>8}  {verdict_word(d.shown_verdict) or '-'}  "
                             f"({d.unit_text})")
        if rc.settings:
            lines.append("  " + t("report.text.settings-differ", "settings that differ:"))
            lines += [f"    {fmt.setting_label(d.key)}: {d.a} -> {d.b}" for d in rc.settings]
    for title, diffs in ((t("report.text.software-differs", "software that differs:"),
                          c.software),
                         (t("report.text.machine-differs", "machine that differs:"), c.machine)):
        if diffs:
            lines += ["", title] + [f"  {fmt.setting_label(d.key)}: {d.a} -> {d.b}"
                                    for d in diffs]
    if c.unpaired:
        lines += ["", t("report.text.unpaired", "runs with no partner: {runs}",
                        runs=", ".join(c.unpaired))]
    return _join(lines)


def references_text(refs: CardsLikeMine) -> str:
    suite = fmt.suite_title(refs.suite)
    if refs.on_cpu:
        heading = t("report.text.references.cpu", "Reference results for {suite}", suite=suite)
    elif refs.arch:
        heading = t("report.text.references.arch",
                    "Reference results for {suite} on cards like {device} ({arch})",
                    suite=suite, device=refs.device, arch=refs.arch)
    else:
        heading = t("report.text.references", "Reference results for {suite} on cards like "
                    "{device}", suite=suite, device=refs.device)
    lines = [heading]
    lines += [f"  ! {w}" for w in refs.warnings]
    if refs.note:
        lines.append(f"  {refs.note}")
    if refs.others and not refs.matches:
        lines.append("  " + t("report.text.references.all-cards", "(show them with {option})",
                              option="--all-cards"))
    for m in refs.matches:
        r = m.row
        lines.append("")
        lines.append(f"{r.card} [{match_word(m.match)}] — {fmt.num(r.value)} {r.unit} "
                     f"({r.figure}), {KIND_TITLES[r.kind]}")
        lines += ["  " + line for line in reference_key_lines(m)]
        if m.yours is not None:
            if m.how:
                yours = t("report.text.yours.how",
                          "yours: {yours} {unit}, {how} = {ratio} the reference ({verdict})",
                          yours=fmt.num(m.yours), unit=r.unit, how=m.how,
                          ratio=fmt.ratio(m.ratio), verdict=verdict_word(m.verdict))
            else:
                yours = t("report.text.yours",
                          "yours: {yours} {unit} = {ratio} the reference ({verdict})",
                          yours=fmt.num(m.yours), unit=r.unit, ratio=fmt.ratio(m.ratio),
                          verdict=verdict_word(m.verdict))
            lines.append("  " + yours)
        else:
            lines.append("  " + t("report.text.yours.none", "yours: - ({how})", how=m.how))
        lines.append("  " + t("report.label.conditions", "conditions: {conditions}",
                              conditions=conditions_text(r.conditions)))
        lines += ["  " + t("report.label.differs", "differs: {difference}", difference=d)
                  for d in m.differences]
        if m.unstated:
            lines.append("  " + t("report.label.unstated", "not stated by the source: {keys}",
                                  keys=", ".join(m.unstated)))
        if r.derived:
            lines.append("  " + t("report.label.worked-out", "worked out: {derived}",
                                  derived=r.derived))
        if r.note:
            lines.append("  " + t("report.label.note", "note: {note}", note=r.note))
        if r.method:
            lines.append("  " + t("report.label.method", "method: {method}", method=r.method))
        lines.append("  " + t("report.label.source", "source: {source}", source=r.source))
        lines += ["  " + line for line in reference_where_lines(r)]
    return _join(lines)


def reference_key_lines(m: ReferenceMatch) -> list[str]:
    """Whether a reference is a comparison or a hint (and why), and its key."""
    out = [standing_word(m) if not m.hint else t(
        "report.label.hint", "{standing}: {why}", standing=standing_word(m),
        why=t("doctor.list-separator", "; ").join(m.hint))]
    out.append(t("report.label.key", "harness, backend, OS: {key}", key=key_text(m.row)))
    return out


def reference_where_lines(r: ReferenceRow) -> list[str]:
    """n and spread, the date and the address of a reference, where its row has them."""
    out = []
    spread = spread_text(r)
    if spread:
        out.append(t("report.label.results", "results: {spread}", spread=spread))
    if r.date or r.url:
        out.append(t("report.label.where", "{date} {url}", date=r.date or "",
                     url=r.url or "").strip())
    return out


def history_text(entries: Sequence[HistoryEntry]) -> str:
    if not entries:
        return t("report.text.history.empty", "no runs in the history yet")
    rows: list[tuple[str, ...]] = [(
        t("report.text.history.id", "id"), t("report.text.history.time", "time"),
        t("report.text.history.suite", "suite"), t("report.text.history.device", "device"),
        t("report.text.history.result", "result"), t("report.text.history.status", "status"))]
    for e in entries:
        result = f"{fmt.num(e.value)} {e.unit}" if e.value is not None else "-"
        if e.interrupted is not None:  # a result made of the steps of a run cut short
            status = interrupted_words(*e.interrupted)
        elif e.status == "ok" or e.status == e.error_kind:
            status = fmt.status_word(e.status)  # "interrupted: interrupted" says it twice
        else:
            status = f"{fmt.status_word(e.status)}: {e.error_kind or '?'}"
        if e.imported and e.origin:
            status = t("report.text.history.imported-from", "{status} (imported: {origin})",
                       status=status, origin=e.origin)
        elif e.imported:
            status = t("report.text.history.imported", "{status} (imported)", status=status)
        rows.append(tuple(fmt.safe(str(c)) for c in (  # cells escaped before they are measured
            f"#{e.id}", fmt.when(e.created), e.suite, e.device or "-", result, status)))
    widths = [max(display_width(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(pad_left(c, w) for c, w in zip(r[:5], widths, strict=True))
                     + "  " + r[5] for r in rows)
