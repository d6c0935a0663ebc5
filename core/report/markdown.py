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

from core.i18n import local, t
from core.report import formatting as fmt
from core.report.compare import Comparison, Difference
from core.report.html import page_title
from core.report.interruption import interruption_text
from core.report.model import Report, SuiteRun
from core.report.references import KIND_TITLES, CardsLikeMine, conditions_text
from core.report.scaling import scaling_lines
from core.report.steadiness import cautions
from core.report.text import (
    efficiency_lines,
    energy_text,
    match_word,
    memory_text,
    reference_key_lines,
    reference_where_lines,
    report_text,
    verdict_word,
)

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
    out += [f"**{md(line)}**" for line in scaling_lines(report)]
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
        out.append(t("report.md.run-title", "{suite} on {device} — {headline}",
                     suite=f"**{md(fmt.suite_title(run.suite))}**",
                     device=md(fmt.device_label(run)), headline=md(fmt.headline(run))))
    if run.error is not None:
        err = run.error
        out.append(f"**{md(fmt.status_text(run))}** — {md(err.message)}")
        out.append(f"> **{t('report.md.what-to-do', 'What to do:')}** {md(err.advice)}")
    cut = interruption_text(run)
    if cut:
        out.append(f"**{md(cut)}**")
    if run.result is not None:
        r = run.result
        rows = []
        for name, f in r.figures.items():
            label = md(fmt.figure_label(name))
            median = md(fmt.num(f.median))
            if name == r.headline:
                label, median = f"**{label}**", f"**{median}**"
            rows.append([label, median, md(fmt.spread(f)), md(fmt.cv(f)), md(f.unit)])
        out.append(_table([t("report.label.figure", "figure"), t("report.label.median", "median"),
                           "p10–p90", "CV", t("report.label.unit", "unit")], rows,
                          right=(1, 2, 3)))
        note = t("report.md.note", "Note:")
        out += [f"> **{note}** {md(c.text)}" for c in cautions(run)]
        out += [f"> **{note}** {md(n)}" for n in fmt.suite_notes(run.suite)]
    return "\n\n".join(out)


def _footer_line(report: Report) -> str:
    bits: list[str] = []
    for run in report.runs[:1]:
        bits += fmt.settings_flags(run.settings)
        bits.append(fmt.device_label(run))
    bits += [f"{name} {v}" for key, name, v in fmt.software_entries(report)
             if key in ("torch", "rocm", "hip", "cuda", "driver")]  # by key: names are words
    bits.append(fmt.platform_text(report))
    bits.append(f"rocmate {report.tool_version}, {fmt.when(report.created)}")
    # fixed text first: whatever a setting says, this line stays a paragraph
    return f"**{t('report.md.footer', 'Run:')}** " + " · ".join(md(b) for b in bits)


def _comparison_summary(c: Comparison) -> str:
    out = [t("report.md.compared-with", "**Compared with** {label} (A; this report is B)",
             label=md(c.a_label))]
    for rc in c.runs:
        out += [f"*{md(n)}*" for n in rc.notes]
        if rc.figures:
            rows = [[md(fmt.figure_label(d.name)), md(fmt.num(d.a)), md(fmt.num(d.b)),
                     md(fmt.ratio(d.ratio)), md(verdict_word(d.shown_verdict) or "-"),
                     md(d.unit_text)] for d in rc.figures]
            out.append(_table([t("report.label.figure", "figure"), "A", "B", "B/A",
                               t("report.md.b-is", "B is"), t("report.label.unit", "unit")],
                              rows, right=(1, 2, 3)))
    return "\n\n".join(out)


def _references_summary(refs: CardsLikeMine) -> str:
    suite = md(fmt.suite_title(refs.suite))
    if refs.on_cpu:
        title, which = t("report.md.references.cpu", "Reference results"), suite
    elif refs.arch:
        title = t("report.md.cards-like-mine", "Cards like mine")
        which = t("report.md.cards-like-mine.arch", "{suite} on {device} ({arch})",
                  suite=suite, device=md(refs.device), arch=md(refs.arch))
    else:
        title = t("report.md.cards-like-mine", "Cards like mine")
        which = t("report.label.suite-on-device", "{suite} on {device}", suite=suite,
                  device=md(refs.device))
    out = [f"**{title}** — {which}"]
    out += [f"*{md(w)}*" for w in refs.warnings]
    if refs.note:
        out.append(md(refs.note))
    rows = []
    for m in refs.matches[:SUMMARY_REFERENCES]:
        r = m.row
        ours = md(fmt.num(m.yours)) if m.yours is not None else "-"
        differs = ", ".join(re.split("[:：]", d, maxsplit=1)[0] for d in m.differences) or t(
            "report.md.conditions-same", "same")
        rows.append([md(r.card), md(match_word(m.match)), f"{md(fmt.num(r.value))} {md(r.unit)}",
                     ours, md(fmt.ratio(m.ratio)), md(verdict_word(m.verdict) or "-"),
                     md(KIND_TITLES[r.kind]), md(differs)])
    if rows:
        out.append(_table([t("report.md.card", "card"), t("report.md.match", "match"),
                           t("report.md.reference", "reference"), t("report.md.yours", "yours"),
                           t("report.md.ratio", "ratio"), t("report.md.yours-is", "yours is"),
                           t("report.md.kind", "kind"),
                           t("report.md.conditions-differ", "conditions that differ")], rows,
                          right=(2, 3, 4)))
    if len(refs.matches) > SUMMARY_REFERENCES:
        out.append("*" + t("report.md.more-references",
                           "{count} more, and every source, in the details below.",
                           count=len(refs.matches) - SUMMARY_REFERENCES) + "*")
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
    parts += [f"**{t('report.md.plain-text', 'Plain text')}**", fence(report_text(report))]
    summary = t("report.md.details", "Details: settings, software, machine, all statistics")
    return (f"<details><summary>{summary}</summary>"
            "\n\n" + "\n\n".join(parts) + "\n\n</details>")


def _run_details(run: SuiteRun, multi: bool) -> list[str]:
    out = [f"#### {md(fmt.suite_title(run.suite))}" if multi
           else f"#### {t('report.md.run-heading', 'Run')}"]
    facts = [(t("report.md.started", "started"), fmt.when(run.started)),
             (t("report.md.duration", "duration"), fmt.seconds(run.duration_s)),
             (t("report.md.device", "device"), fmt.device_label(run))]
    if run.result is not None:
        r = run.result
        reserved = fmt.gib(r.peak_memory_reserved_bytes) if r.peak_memory_reserved_bytes \
            else None
        facts += [(t("report.md.warm-up", "warm-up"), fmt.warmup_text(run)),
                  (t("report.md.measured", "measured"), fmt.measure_text(run)),
                  (fmt.peak_memory_label(run),
                   memory_text(fmt.gib(r.peak_memory_bytes), reserved))]
    if run.energy is not None:
        en = run.energy
        facts.append((t("report.md.energy", "energy"), energy_text(
            fmt.num(en.per_item_j), en.item_unit, en.mean_power_w, en.method)))
    facts += [(t("report.md.per-watt", "per watt"), line) for line in efficiency_lines(run)]
    attention = fmt.attention_text(run)
    if attention:
        facts.append((t("report.html.fact.attention", "attention"), attention))
    ref = run.reference
    if ref is not None:
        parts = t("doctor.list-separator", "; ").join(fmt.datasheet_parts(ref))
        facts.append((t("report.md.vs-datasheet", "vs datasheet"),
                      f"{ref.name or '?'}: {parts or ref.note}"))
    out.append(_table(_what_value(), [[md(k), md(v)] for k, v in facts]))
    if run.error is not None and run.error.detail:
        out += [f"**{t('report.md.error-detail', 'Error detail')}**", fence(run.error.detail)]
    if run.result is not None:
        rows = [[md(name), str(f.n), md(fmt.num(f.median, 6)),
                 md(fmt.num(f.mean, 6)), md(fmt.num(f.min, 6)), md(fmt.num(f.p10, 6)),
                 md(fmt.num(f.p90, 6)), md(fmt.num(f.max, 6)), md(fmt.num(f.cv, 4)), md(f.unit)]
                for name, f in run.result.figures.items()]
        out += [f"**{t('report.md.all-statistics', 'All statistics')}**",
                _table([t("report.label.figure", "figure"), "n", t("report.label.median", "median"),
                        t("report.md.mean", "mean"), t("report.md.min", "min"), "p10", "p90",
                        t("report.md.max", "max"), "cv", t("report.label.unit", "unit")], rows,
                       right=(1, 2, 3, 4, 5, 6, 7, 8))]
    value = t("report.md.value", "value")
    out += [f"**{t('report.md.settings', 'Settings')}**",
            _table([t("report.md.setting", "setting"), value],
                   [[md(k), md(v)] for k, v in fmt.settings_items(run.settings)] or [["-", "-"]])]
    if run.result is not None and run.result.details:
        out += [f"**{t('report.md.suite-details', 'Suite details')}**",
                _table([t("report.md.detail", "detail"), value],
                       [[md(k), md(fmt.value(v))] for k, v in run.result.details.items()])]
    out += _telemetry(run)
    return out


def _telemetry(run: SuiteRun) -> list[str]:
    tel = run.telemetry
    if not tel:
        return []
    series: list[tuple[str, list[float], str]] = [
        (t("report.md.power", "power"), [s.power_w for s in tel if s.power_w is not None], "W"),
        (t("report.md.gpu-busy", "GPU busy"),
         [s.busy_pct for s in tel if s.busy_pct is not None], "%"),
        (t("report.md.vram-used", "VRAM used"),
         [s.vram_used_bytes / 2**30 for s in tel if s.vram_used_bytes is not None], "GiB"),
    ]
    for k in dict.fromkeys(k for s in tel for k in s.temps_c):
        series.append((t("report.md.temperature", "temperature {sensor}", sensor=k),
                       [s.temps_c[k] for s in tel if k in s.temps_c], "°C"))
    for k in dict.fromkeys(k for s in tel for k in s.clocks_mhz):
        series.append((t("report.md.clock", "clock {clock}", clock=k),
                       [s.clocks_mhz[k] for s in tel if k in s.clocks_mhz], "MHz"))
    rows = [[md(name), md(fmt.num(min(v))), md(fmt.num(sum(v) / len(v))), md(fmt.num(max(v))),
             md(unit)] for name, v, unit in series if v]
    return [t("report.md.telemetry", "**Telemetry** ({count} samples, whole run)",
              count=len(tel)),
            _table([t("report.md.series", "series"), t("report.md.min", "min"),
                    t("report.md.mean", "mean"), t("report.md.max", "max"),
                    t("report.label.unit", "unit")], rows, right=(1, 2, 3))]


def _machine_software(report: Report) -> list[str]:
    out = [f"#### {t('report.md.machine-and-software', 'Machine and software')}"]
    facts = [(t("report.md.system", "system"), fmt.platform_text(report))]
    facts += [(t("report.md.gpu", "GPU {number}", number=i + 1),
               f"{g['name']} ({g['vendor']}, {g['pci_id']}, gfx {g['gfx']}, {g['vram']})")
              for i, g in enumerate(fmt.gpu_items(report))]
    facts += fmt.software_items(report)
    facts += [(t("report.md.env", "env {variable}", variable=k), v)
              for k, v in sorted(report.software.env.items())]
    out.append(_table(_what_value(), [[md(k), md(v)] for k, v in facts]))
    return out


def _what_value() -> list[str]:
    """The head of a table of facts."""
    return [t("report.md.what", "what"), t("report.md.value", "value")]


def _diffs(title: str, diffs: list[Difference]) -> list[str]:
    if not diffs:
        return []
    return [f"**{md(title)}**",
            _table([t("report.md.what", "what"), "A", "B"],
                   [[md(fmt.setting_label(d.key)), md(d.a), md(d.b)] for d in diffs])]


def _comparison_details(c: Comparison) -> list[str]:
    out = [f"#### {t('report.md.comparison', 'Comparison')}",
           f"A = {md(c.a_label)}  \nB = {md(c.b_label)}"]
    for rc in c.runs:
        out += _diffs(t("report.md.settings-differ", "Settings that differ ({suite})",
                        suite=fmt.suite_title(rc.suite_a)), rc.settings)
    out += _diffs(t("report.md.software-differs", "Software that differs"), c.software)
    out += _diffs(t("report.md.machine-differs", "Machine that differs"), c.machine)
    return out


def _references_details(refs: CardsLikeMine) -> list[str]:
    out = [f"#### {t('report.md.references', 'Reference results: sources and conditions')}"]
    for m in refs.matches:
        r = m.row
        lines = [f"- **{md(r.card)}**, {md(fmt.figure_label(r.figure))} {md(fmt.num(r.value))} "
                 f"{md(r.unit)} ({md(KIND_TITLES[r.kind])})",
                 "  - " + t("report.label.conditions", "conditions: {conditions}",
                            conditions=md(conditions_text(r.conditions)))]
        lines += ["  - " + md(line) for line in reference_key_lines(m)]
        if m.how and m.yours is not None:
            lines.append("  - " + t("report.md.yours-how", "yours = {how}", how=md(m.how)))
        lines += ["  - " + t("report.label.differs", "differs: {difference}", difference=md(d))
                  for d in m.differences]
        if m.unstated:
            lines.append("  - " + t("report.label.unstated", "not stated by the source: {keys}",
                                    keys=md(", ".join(m.unstated))))
        if r.derived:
            lines.append("  - " + t("report.label.worked-out", "worked out: {derived}",
                                    derived=md(local(r.derived))))
        if r.note:
            lines.append("  - " + t("report.label.note", "note: {note}", note=md(local(r.note))))
        if r.method:
            lines.append("  - " + t("report.label.method", "method: {method}",
                                    method=md(local(r.method))))
        lines.append("  - " + t("report.label.source", "source: {source}",
                                source=md(local(r.source))))
        lines += ["  - " + md(line) for line in reference_where_lines(r)]
        out.append("\n".join(lines))
    return out
