"""Plain text for the terminal (``rocmate report show | compare | list``) and for the
copy-paste block of the Markdown writer. Rendered only from the report's content.

A report may be a stranger's, so every line goes through :func:`fmt.safe`: no control character
or bidi override from it reaches the terminal (a device name cannot set the window title, clear
the screen or fake a colour), and a newline inside a value cannot start a line of its own."""

from __future__ import annotations

from collections.abc import Sequence

from core.report import formatting as fmt
from core.report.compare import Comparison
from core.report.history import HistoryEntry
from core.report.model import Report, SuiteRun
from core.report.references import KIND_TITLES, CardsLikeMine, conditions_text
from core.report.steadiness import cautions


def report_text(report: Report) -> str:
    lines = [f"rocmate {report.tool_version} report, {fmt.when(report.created)}",
             f"  machine: {fmt.platform_text(report)}"]
    soft = ", ".join(f"{k} {v}" for k, v in fmt.software_items(report)[:5])
    if soft:
        lines.append(f"  software: {soft}")
    for run in report.runs:
        lines.append("")
        lines += run_text(run)
    return _join(lines)


def _join(lines: Sequence[str]) -> str:
    return "\n".join(fmt.safe(line) for line in lines)


def run_text(run: SuiteRun) -> list[str]:
    flags = fmt.settings_flags(run.settings)
    out = [f"{run.suite} on {fmt.device_label(run)}{': ' if flags else ''}{', '.join(flags)}"
           f"  [{run.status}]"]
    if run.result is None:
        if run.error and run.status == "interrupted":
            out.append(f"  interrupted: {run.error.message}")
            out.append(f"  advice: {run.error.advice}")
        elif run.error:
            out.append(f"  error ({run.error.kind}): {run.error.message}")
            out.append(f"  advice: {run.error.advice}")
        return out
    r = run.result
    if r.peak_of(r.headline) is not None:
        out.append(f"  {fmt.figure_label(r.headline)}: {fmt.headline(run)}")
    out.append(f"  {'figure':<20}{'median':>12}  {'p10–p90':>21}  {'cv':>7}  unit")
    for name, f in r.figures.items():
        mark = "*" if name == r.headline else " "
        out.append(f" {mark}{name:<20}{fmt.num(f.median):>12}  {fmt.spread(f):>21}  "
                   f"{fmt.cv(f):>7}  {f.unit}")
    out.append(f"  warm-up: {fmt.warmup_text(run)}")
    out.append(f"  measured: {fmt.measure_text(run)}")
    mem = f"  peak memory: {fmt.gib(r.peak_memory_bytes)}"
    if r.peak_memory_reserved_bytes:
        mem += f" (reserved {fmt.gib(r.peak_memory_reserved_bytes)})"
    out.append(mem)
    if run.energy:
        e = run.energy
        power = f" at {e.mean_power_w:.0f} W" if e.mean_power_w else ""
        out.append(f"  energy: {e.per_item_j:.4g} J/{e.item_unit}{power} ({e.method})")
    ref = run.reference
    if ref is not None and ref.fractions:
        out.append(f"  vs datasheet ({ref.name}): " + "; ".join(fmt.datasheet_parts(ref)))
    out += [f"  ! {c.text}" for c in cautions(run)]
    return [fmt.safe(line) for line in out]


def comparison_text(c: Comparison) -> str:
    lines = [f"A = {c.a_label}", f"B = {c.b_label}"]
    for rc in c.runs:
        lines.append("")
        title = rc.suite_a if rc.same_suite else f"{rc.suite_a} vs {rc.suite_b}"
        lines.append(f"{title}: A on {rc.device_a}, B on {rc.device_b}")
        lines += [f"  note: {n}" for n in rc.notes]
        if rc.figures:
            lines.append(f"  {'figure':<20}{'A':>12}  {'B':>12}  {'B/A':>8}  verdict")
            for d in rc.figures:
                lines.append(f"  {d.name:<20}{fmt.num(d.a):>12}  {fmt.num(d.b):>12}  "
                             f"{fmt.ratio(d.ratio):>8}  {d.verdict or '-'}  ({d.unit_text})")
        if rc.settings:
            lines.append("  settings that differ:")
            lines += [f"    {d.key}: {d.a} -> {d.b}" for d in rc.settings]
    for title, diffs in (("software that differs", c.software),
                         ("machine that differs", c.machine)):
        if diffs:
            lines += ["", f"{title}:"] + [f"  {d.key}: {d.a} -> {d.b}" for d in diffs]
    if c.unpaired:
        lines += ["", "runs with no partner: " + ", ".join(c.unpaired)]
    return _join(lines)


def references_text(refs: CardsLikeMine) -> str:
    arch = f" ({refs.arch})" if refs.arch else ""
    lines = [f"Reference results for {refs.suite} on cards like {refs.device}{arch}"]
    lines += [f"  ! {w}" for w in refs.warnings]
    if refs.note:
        lines.append(f"  {refs.note}")
    for m in refs.matches:
        r = m.row
        lines.append("")
        lines.append(f"{r.card} [{m.match}] — {fmt.num(r.value)} {r.unit} ({r.figure}), "
                     f"{KIND_TITLES[r.kind]}")
        if m.yours is not None:
            how = f", {m.how}" if m.how else ""
            lines.append(f"  yours: {fmt.num(m.yours)} {r.unit}{how} = {fmt.ratio(m.ratio)} "
                         f"the reference ({m.verdict})")
        else:
            lines.append(f"  yours: - ({m.how})")
        lines.append(f"  conditions: {conditions_text(r.conditions)}")
        lines += [f"  differs: {d}" for d in m.differences]
        if m.unstated:
            lines.append(f"  not stated by the source: {', '.join(m.unstated)}")
        if r.derived:
            lines.append(f"  worked out: {r.derived}")
        if r.note:
            lines.append(f"  note: {r.note}")
        if r.method:
            lines.append(f"  method: {r.method}")
        lines.append(f"  source: {r.source}")
    return _join(lines)


def history_text(entries: Sequence[HistoryEntry]) -> str:
    if not entries:
        return "no runs in the history yet"
    rows: list[tuple[str, ...]] = [("id", "time", "suite", "device", "result", "status")]
    for e in entries:
        result = f"{fmt.num(e.value)} {e.unit}" if e.value is not None else "-"
        if e.status == "ok" or e.status == e.error_kind:
            status = e.status  # "interrupted: interrupted" says it twice
        else:
            status = f"{e.status}: {e.error_kind or '?'}"
        if e.imported:
            status += f" (imported{': ' + e.origin if e.origin else ''})"
        rows.append(tuple(fmt.safe(str(c)) for c in (  # cells escaped before they are measured
            f"#{e.id}", fmt.when(e.created), e.suite, e.device or "-", result, status)))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r[:5], widths, strict=True))
                     + "  " + r[5] for r in rows)
