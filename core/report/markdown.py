"""A report as Markdown sized for a forum post or a GitHub issue: a heading and a summary
table that fit on one screen, then everything else (all statistics, settings, software, machine,
telemetry summary, a plain-text copy) in a collapsed ``<details>`` block.

No links and no images come from the template, and a report's own text is escaped so it cannot
make any: HTML and Markdown specials are escaped, and anything that looks like a URL is put in a
code span (where nothing is auto-linked). Rendered only from the report's content (plus, when
given, a comparison and the reference results). Use :func:`core.report.writers.render`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import Any

from core.report import formatting as fmt
from core.report.compare import Comparison, Difference
from core.report.html import page_title
from core.report.model import Report, SuiteRun
from core.report.references import KIND_TITLES, CardsLikeMine, conditions_text
from core.report.steadiness import cautions
from core.report.text import report_text

_URL = re.compile(r"(?:https?|ftp|file)://[^\s`|<>\\]+|www\.[^\s`|<>\\]+", re.IGNORECASE)
_SPECIALS = re.compile(r"([\\`*_\[\]|~#])")
# What starts a list or a rule at the start of a line: "- ", "+ ", "1. ", "1) ", "---" (``*``
# and ``#`` are escaped everywhere, ``>`` becomes ``&gt;``); "-5 °C" and "100.3" are left alone.
_BLOCK_START = re.compile(r"^(?:([-+])(?=[ \t]|-)|([0-9]{1,9})([.)])(?=[ \t]|$))")
SUMMARY_REFERENCES = 5  # reference rows in the summary; all of them are in the details


def md(value: Any) -> str:
    """A report's text, safe in a Markdown paragraph or table cell, and at the start of a line:
    nothing in it can make a link, an image, a heading, a list or a quote."""
    text = fmt.safe(" ".join(str(value).split()))
    out: list[str] = []
    pos = 0
    for m in _URL.finditer(text):
        out.append(_escape_plain(text[pos:m.start()]))
        out.append(f"`{m.group(0)}`")
        pos = m.end()
    out.append(_escape_plain(text[pos:]))
    return _BLOCK_START.sub(_block_escape, "".join(out))


def _block_escape(m: re.Match[str]) -> str:
    return f"\\{m.group(1)}" if m.group(1) else f"{m.group(2)}\\{m.group(3)}"


def _escape_plain(text: str) -> str:
    return _SPECIALS.sub(r"\\\1", escape(text, quote=False))


def fence(text: str, info: str = "text") -> str:
    """A fenced code block that no backtick run inside ``text`` can close (control characters
    shown as escapes)."""
    text = fmt.safe(text, keep_newlines=True)
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    align = ["--:" if i in right else "---" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def render_markdown(report: Report, *, comparison: Comparison | None = None,
                    references: Sequence[CardsLikeMine] = ()) -> str:
    """The post. ``report`` should already be scrubbed (see core.report.writers)."""
    out = [_heading(report)]
    for run in report.runs:
        out.append(_summary(run, multi=len(report.runs) > 1))
    out.append(_footer_line(report))
    if comparison is not None:
        out.append(_comparison_summary(comparison))
    for refs in references:
        out.append(_references_summary(refs))
    out.append(_details(report, comparison, references))
    return "\n\n".join(p for p in out if p) + "\n"


def _heading(report: Report) -> str:
    title = md(page_title(report))
    if len(report.runs) == 1:
        run = report.runs[0]
        return f"### rocmate: {title} — **{md(fmt.headline(run))}**"
    return f"### rocmate: {title}"


def _summary(run: SuiteRun, multi: bool) -> str:
    out: list[str] = []
    if multi:
        out.append(f"**{md(fmt.suite_title(run.suite))}** on {md(fmt.device_label(run))} — "
                   f"{md(fmt.headline(run))}")
    if run.error is not None:
        err = run.error
        out.append(f"**{md(fmt.status_text(run))}** — {md(err.message)}")
        out.append(f"> **What to do:** {md(err.advice)}")
    if run.result is not None:
        r = run.result
        rows = []
        for name, f in r.figures.items():
            label = md(fmt.figure_label(name))
            median = md(fmt.num(f.median))
            if name == r.headline:
                label, median = f"**{label}**", f"**{median}**"
            rows.append([label, median, md(fmt.spread(f)), md(fmt.cv(f)), md(f.unit)])
        out.append(_table(["figure", "median", "p10–p90", "CV", "unit"], rows, right=(1, 2, 3)))
        out += [f"> **Note:** {md(c.text)}" for c in cautions(run)]
    return "\n\n".join(out)


def _footer_line(report: Report) -> str:
    bits: list[str] = []
    for run in report.runs[:1]:
        bits += fmt.settings_flags(run.settings)
        bits.append(fmt.device_label(run))
    bits += [f"{k} {v}" for k, v in fmt.software_items(report)
             if k in ("PyTorch", "ROCm", "HIP", "CUDA", "GPU driver")]
    bits.append(fmt.platform_text(report))
    bits.append(f"rocmate {report.tool_version}, {fmt.when(report.created)}")
    # fixed text first: whatever a setting says, this line stays a paragraph
    return "**Run:** " + " · ".join(md(b) for b in bits)


def _comparison_summary(c: Comparison) -> str:
    out = [f"**Compared with** {md(c.a_label)} (A; this report is B)"]
    for rc in c.runs:
        out += [f"*{md(n)}*" for n in rc.notes]
        if rc.figures:
            rows = [[md(fmt.figure_label(d.name)), md(fmt.num(d.a)), md(fmt.num(d.b)),
                     md(fmt.ratio(d.ratio)), md(d.verdict or "-"), md(d.unit_text)]
                    for d in rc.figures]
            out.append(_table(["figure", "A", "B", "B/A", "B is", "unit"], rows,
                              right=(1, 2, 3)))
    return "\n\n".join(out)


def _references_summary(refs: CardsLikeMine) -> str:
    arch = f" ({md(refs.arch)})" if refs.arch else ""
    out = [f"**Cards like mine** — {md(refs.suite)} on {md(refs.device)}{arch}"]
    out += [f"*{md(w)}*" for w in refs.warnings]
    if refs.note:
        out.append(md(refs.note))
    rows = []
    for m in refs.matches[:SUMMARY_REFERENCES]:
        r = m.row
        ours = md(fmt.num(m.yours)) if m.yours is not None else "-"
        differs = ", ".join(d.split(":")[0] for d in m.differences) or "same"
        rows.append([md(r.card), md(m.match), f"{md(fmt.num(r.value))} {md(r.unit)}", ours,
                     md(fmt.ratio(m.ratio)), md(m.verdict or "-"), md(KIND_TITLES[r.kind]),
                     md(differs)])
    if rows:
        out.append(_table(["card", "match", "reference", "yours", "ratio", "yours is", "kind",
                           "conditions that differ"], rows, right=(2, 3, 4)))
    if len(refs.matches) > SUMMARY_REFERENCES:
        out.append(f"*{len(refs.matches) - SUMMARY_REFERENCES} more, and every source, in the "
                   "details below.*")
    return "\n\n".join(out)


# --- the details block --------------------------------------------------------------------------


def _details(report: Report, comparison: Comparison | None,
             references: Sequence[CardsLikeMine]) -> str:
    parts: list[str] = []
    for run in report.runs:
        parts += _run_details(run, multi=len(report.runs) > 1)
    parts += _machine_software(report)
    if comparison is not None:
        parts += _comparison_details(comparison)
    for refs in references:
        parts += _references_details(refs)
    parts += ["**Plain text**", fence(report_text(report))]
    return ("<details><summary>Details: settings, software, machine, all statistics</summary>"
            "\n\n" + "\n\n".join(parts) + "\n\n</details>")


def _run_details(run: SuiteRun, multi: bool) -> list[str]:
    out = [f"#### {md(fmt.suite_title(run.suite))}" if multi else "#### Run"]
    facts = [("started", fmt.when(run.started)), ("duration", fmt.seconds(run.duration_s)),
             ("device", fmt.device_label(run))]
    if run.result is not None:
        r = run.result
        facts += [("warm-up", fmt.warmup_text(run)), ("measured", fmt.measure_text(run)),
                  ("peak memory", fmt.gib(r.peak_memory_bytes)
                   + (f" (reserved {fmt.gib(r.peak_memory_reserved_bytes)})"
                      if r.peak_memory_reserved_bytes else ""))]
    if run.energy is not None:
        en = run.energy
        power = f" at {en.mean_power_w:.0f} W" if en.mean_power_w else ""
        facts.append(("energy", f"{fmt.num(en.per_item_j)} J/{en.item_unit}{power} "
                                f"({en.method})"))
    ref = run.reference
    if ref is not None:
        parts = fmt.datasheet_parts(ref)
        facts.append(("vs datasheet", f"{ref.name or '?'}: {'; '.join(parts) or ref.note}"))
    out.append(_table(["what", "value"], [[md(k), md(v)] for k, v in facts]))
    if run.error is not None and run.error.detail:
        out += ["**Error detail**", fence(run.error.detail)]
    if run.result is not None:
        rows = [[md(name), str(f.n), md(fmt.num(f.median, 6)),
                 md(fmt.num(f.mean, 6)), md(fmt.num(f.min, 6)), md(fmt.num(f.p10, 6)),
                 md(fmt.num(f.p90, 6)), md(fmt.num(f.max, 6)), md(fmt.num(f.cv, 4)), md(f.unit)]
                for name, f in run.result.figures.items()]
        out += ["**All statistics**",
                _table(["figure", "n", "median", "mean", "min", "p10", "p90", "max", "cv",
                        "unit"], rows, right=(1, 2, 3, 4, 5, 6, 7, 8))]
    out += ["**Settings**",
            _table(["setting", "value"],
                   [[md(k), md(v)] for k, v in fmt.settings_items(run.settings)] or [["-", "-"]])]
    if run.result is not None and run.result.details:
        out += ["**Suite details**",
                _table(["detail", "value"],
                       [[md(k), md(fmt.value(v))] for k, v in run.result.details.items()])]
    out += _telemetry(run)
    return out


def _telemetry(run: SuiteRun) -> list[str]:
    tel = run.telemetry
    if not tel:
        return []
    series: list[tuple[str, list[float], str]] = [
        ("power", [t.power_w for t in tel if t.power_w is not None], "W"),
        ("GPU busy", [t.busy_pct for t in tel if t.busy_pct is not None], "%"),
        ("VRAM used", [t.vram_used_bytes / 2**30 for t in tel if t.vram_used_bytes is not None],
         "GiB"),
    ]
    for k in dict.fromkeys(k for t in tel for k in t.temps_c):
        series.append((f"temperature {k}", [t.temps_c[k] for t in tel if k in t.temps_c], "°C"))
    for k in dict.fromkeys(k for t in tel for k in t.clocks_mhz):
        series.append((f"clock {k}", [t.clocks_mhz[k] for t in tel if k in t.clocks_mhz], "MHz"))
    rows = [[md(name), md(fmt.num(min(v))), md(fmt.num(sum(v) / len(v))), md(fmt.num(max(v))),
             md(unit)] for name, v, unit in series if v]
    return [f"**Telemetry** ({len(tel)} samples, whole run)",
            _table(["series", "min", "mean", "max", "unit"], rows, right=(1, 2, 3))]


def _machine_software(report: Report) -> list[str]:
    out = ["#### Machine and software"]
    facts = [("system", fmt.platform_text(report))]
    facts += [(f"GPU {i + 1}", f"{g['name']} ({g['vendor']}, {g['pci_id']}, gfx {g['gfx']}, "
                               f"{g['vram']})") for i, g in enumerate(fmt.gpu_items(report))]
    facts += fmt.software_items(report)
    facts += [(f"env {k}", v) for k, v in sorted(report.software.env.items())]
    out.append(_table(["what", "value"], [[md(k), md(v)] for k, v in facts]))
    return out


def _diffs(title: str, diffs: list[Difference]) -> list[str]:
    if not diffs:
        return []
    return [f"**{md(title)}**",
            _table(["what", "A", "B"], [[md(d.key), md(d.a), md(d.b)] for d in diffs])]


def _comparison_details(c: Comparison) -> list[str]:
    out = ["#### Comparison", f"A = {md(c.a_label)}  \nB = {md(c.b_label)}"]
    for rc in c.runs:
        out += _diffs(f"Settings that differ ({rc.suite_a})", rc.settings)
    out += _diffs("Software that differs", c.software)
    out += _diffs("Machine that differs", c.machine)
    return out


def _references_details(refs: CardsLikeMine) -> list[str]:
    out = ["#### Reference results: sources and conditions"]
    for m in refs.matches:
        r = m.row
        lines = [f"- **{md(r.card)}**, {md(fmt.figure_label(r.figure))} {md(fmt.num(r.value))} "
                 f"{md(r.unit)} ({md(KIND_TITLES[r.kind])})",
                 f"  - conditions: {md(conditions_text(r.conditions))}"]
        if m.how and m.yours is not None:
            lines.append(f"  - yours = {md(m.how)}")
        lines += [f"  - differs: {md(d)}" for d in m.differences]
        if m.unstated:
            lines.append(f"  - not stated by the source: {md(', '.join(m.unstated))}")
        if r.derived:
            lines.append(f"  - worked out: {md(r.derived)}")
        if r.note:
            lines.append(f"  - note: {md(r.note)}")
        if r.method:
            lines.append(f"  - method: {md(r.method)}")
        lines.append(f"  - source: {md(r.source)}")
        out.append("\n".join(lines))
    return out
