"""A report as one self-contained HTML file: inline CSS, inline SVG charts, no script, no
request of any kind (a strict Content-Security-Policy says so to the browser too), light and
dark, readable on a 380 px phone.

Everything on the page comes from the report's JSON (plus, when given, a comparison with another
report and the reference results); every text from a report is escaped, because a report may
be a stranger's file. Use :func:`core.report.writers.render`, which scrubs names first.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from core.i18n import language, local, t
from core.report import charts
from core.report import formatting as fmt
from core.report.charts import Band, Chart, Rule, Series
from core.report.compare import Comparison, Difference
from core.report.efficiency import of_run
from core.report.interruption import interruption_text
from core.report.model import (
    PEAK_SUFFIX,
    SCHEMA,
    Figure,
    Reference,
    Report,
    SuiteRun,
    Warmup,
)
from core.report.references import KIND_TITLES, CardsLikeMine, conditions_text
from core.report.scaling import scaling_lines
from core.report.steadiness import cautions
from core.report.text import (
    efficiency_lines,
    match_word,
    reference_key_lines,
    reference_where_lines,
    verdict_word,
)
from core.termstyle import display_width

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

# The fonts: the system's own, each stack ending in the CJK fonts of Linux, Windows and macOS,
# so that Chinese shows in a Chinese face wherever one is installed (no web font is loaded).
SANS = ('system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans","Noto Sans CJK SC",'
        '"Source Han Sans SC","WenQuanYi Micro Hei","Microsoft YaHei","PingFang SC",sans-serif')
MONO = ('ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,"Noto Sans Mono CJK SC",'
        '"Source Han Sans SC","WenQuanYi Zen Hei Mono","Microsoft YaHei","PingFang SC",monospace')

CSS = """
:root{--bg:#f5f6f8;--card:#fff;--fg:#1b1f24;--muted:#59636e;--line:#d8dde3;--soft:#eef1f4;
--ok:#1a7f37;--err:#cf222e;--warn:#9a6700;--accent:#b3122e;--band:rgba(37,99,235,.10);
--band2:rgba(107,114,128,.10);--c1:#2563eb;--c2:#d97706;--c3:#059669;--c4:#db2777;
--c5:#7c3aed;--c6:#6b7280}
@media (prefers-color-scheme:dark){:root{--bg:#0e1116;--card:#161b22;--fg:#e6edf3;
--muted:#9aa6b2;--line:#2d333b;--soft:#1f252d;--ok:#3fb950;--err:#f85149;--warn:#d29922;
--accent:#ff6b81;--band:rgba(96,165,250,.14);--band2:rgba(156,163,175,.10);--c1:#60a5fa;
--c2:#fbbf24;--c3:#34d399;--c4:#f472b6;--c5:#a78bfa;--c6:#9ca3af}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);
font:15px/1.5 $SANS}
.wrap{max-width:1060px;margin:0 auto;padding:22px 18px 40px}
header.top{margin-bottom:18px}
.brand{font-size:.78rem;font-weight:700;letter-spacing:.08em;text-transform:uppercase;
color:var(--accent)}
h1{font-size:1.65rem;line-height:1.25;margin:.15rem 0 .3rem}
h2{font-size:1.2rem;margin:0 0 .6rem}
h3{font-size:.78rem;margin:1.5rem 0 .55rem;color:var(--muted);text-transform:uppercase;
letter-spacing:.07em}
.meta,.muted{color:var(--muted)}
.meta{font-size:.9rem;margin:0}
section.run,section.block{background:var(--card);border:1px solid var(--line);
border-radius:12px;padding:18px;margin:0 0 18px}
.runhead{display:flex;flex-wrap:wrap;align-items:center;gap:8px 12px;margin-bottom:8px}
.runhead h2{margin:0}
.badge{display:inline-block;font-size:.75rem;font-weight:700;text-transform:uppercase;
letter-spacing:.05em;padding:2px 9px;border-radius:999px;border:1px solid currentColor}
.badge.ok{color:var(--ok)}.badge.error{color:var(--err)}.badge.cancelled{color:var(--warn)}
.badge.interrupted{color:var(--warn)}
.badge.plain{color:var(--muted)}
.chips{margin:2px 0 12px}
.chip{display:inline-block;padding:1px 10px;margin:0 6px 6px 0;border-radius:999px;
background:var(--soft);border:1px solid var(--line);font-size:.85rem}
.kpis{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:10px}
.kpi{background:var(--soft);border-radius:10px;padding:10px 12px;min-width:0}
.kpi.hero{margin-bottom:10px;background:var(--card);border:2px solid var(--c1);
display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 16px}
.kpi.hero .k{flex-basis:100%}
.kpi .k{font-size:.8rem;color:var(--muted)}
.kpi .v{font-size:1.45rem;font-weight:700;font-variant-numeric:tabular-nums;line-height:1.2}
.kpi.hero .v{font-size:2.4rem}
.kpi.hero .s{font-size:.9rem}
.kpi .u{font-size:.9rem;font-weight:500;color:var(--muted)}
.kpi .s{font-size:.8rem;color:var(--muted);font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:6px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-size:.8rem;color:var(--muted);font-weight:600}
td.n,th.n{text-align:right;white-space:nowrap}
tr.head td:first-child{font-weight:700}
.uin{display:none}td.sp{text-align:right}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(400px,1fr));gap:16px}
figure{margin:0;min-width:0}
figcaption{font-weight:600;font-size:.9rem;margin:0 0 2px}
figcaption .muted{font-weight:400}
svg.chart{width:100%;height:auto;display:block;
font:12px $SANS}
svg .ax{stroke:var(--muted);stroke-width:1}
svg .grid{stroke:var(--line);stroke-width:1}
svg .tk{fill:var(--muted)}
svg .lb{fill:var(--fg);font-weight:600}
svg .ln{fill:none;stroke-width:1.8;stroke-linejoin:round;stroke-linecap:round}
svg .hollow{fill:var(--card);stroke-width:1.4}
svg .rule{stroke-width:1.3;stroke-dasharray:5 4}
svg .band{fill:var(--band)}svg .band2{fill:var(--band2)}
svg .s1{stroke:var(--c1)}svg .s2{stroke:var(--c2)}svg .s3{stroke:var(--c3)}
svg .s4{stroke:var(--c4)}svg .s5{stroke:var(--c5)}svg .s6{stroke:var(--c6)}
svg .f1{fill:var(--c1)}svg .f2{fill:var(--c2)}svg .f3{fill:var(--c3)}
svg .f4{fill:var(--c4)}svg .f5{fill:var(--c5)}svg .f6{fill:var(--c6)}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:18px}
dl.kv{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 16px;margin:0}
dl.kv dt{color:var(--muted)}dl.kv dd{margin:0;overflow-wrap:anywhere}
code,pre{font-family:$MONO;font-size:.85em}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);padding:10px;
border-radius:8px;margin:.5rem 0 0}
details{margin-top:10px}
summary{cursor:pointer;color:var(--muted);font-weight:600}
.errorbox{border-left:4px solid var(--err);background:var(--soft);border-radius:8px;
padding:12px 14px;margin:8px 0 4px}
.errorbox .kind{font-weight:700;color:var(--err)}
.advice{border-left:4px solid var(--ok);padding:6px 12px;margin:10px 0 0;background:var(--card)}
.better{color:var(--ok);font-weight:600}.worse{color:var(--err);font-weight:600}
.same{color:var(--muted)}
.warnline{color:var(--warn)}
.caution{border-left:4px solid var(--warn);padding:6px 12px;margin:8px 0;background:var(--soft);
color:var(--fg)}
ul.diffs{margin:.3rem 0 0;padding-left:1.2rem}
ul.diffs li{color:var(--warn)}
.refs{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:12px}
.ref{border:1px solid var(--line);border-radius:10px;padding:12px;min-width:0}
.ref .title{font-weight:700}
.ref .nums{display:flex;flex-wrap:wrap;gap:6px 18px;margin:6px 0;font-variant-numeric:tabular-nums}
.ref .nums b{font-size:1.15rem}
.ref .src{font-size:.8rem;color:var(--muted);overflow-wrap:anywhere}
footer{color:var(--muted);font-size:.8rem;margin-top:24px}
@media (max-width:560px){body{font-size:14px}.wrap{padding:14px 10px 30px}
h1{font-size:1.3rem}section.run,section.block{padding:12px;border-radius:10px}
.kpi .v{font-size:1.2rem}.kpi.hero .v{font-size:1.7rem}th,td{padding:5px 6px}
dl.kv{grid-template-columns:minmax(0,1fr)}dl.kv dt{margin-top:6px}
.unitcol{display:none}.uin{display:block;font-size:.8em}
svg.chart{font-size:13.5px}
.charts,.grid2,.refs{grid-template-columns:minmax(0,1fr)}}
""".replace("$SANS", SANS).replace("$MONO", MONO)


def e(value: Any) -> str:
    """Escaped text of any value (control characters and bidi overrides shown as escapes)."""
    return escape(fmt.safe(str(value), keep_newlines=True), quote=True)


def render_html(report: Report, *, comparison: Comparison | None = None,
                references: Sequence[CardsLikeMine] = ()) -> str:
    """The page. ``report`` should already be scrubbed (see core.report.writers)."""
    title = page_title(report)
    body = [_header(report, title)]
    for i, run in enumerate(report.runs):
        body.append(_run_section(run, i, multi=len(report.runs) > 1))
    body += [f"<p class=\"scaling\"><strong>{e(line)}</strong></p>"
             for line in scaling_lines(report)]
    if comparison is not None:
        body.append(_comparison_section(comparison))
    for refs in references:
        body.append(_references_section(refs))
    body.append(_machine_software(report))
    body.append(f"<footer>{_footer(comparison is not None, bool(references))}</footer>")
    return "\n".join([
        "<!DOCTYPE html>",
        f'<html lang="{html_lang()}">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="color-scheme" content="light dark">',
        '<meta name="referrer" content="no-referrer">',
        '<link rel="icon" href="data:,">',
        f"<title>{e(title)}</title>",
        f"<style>{CSS}</style>",
        "</head>",
        "<body>",
        '<div class="wrap">',
        *body,
        "</div>",
        "</body>",
        "</html>",
    ]) + "\n"


def html_lang() -> str:
    """The page's ``lang``: the current language as a BCP 47 tag (``zh_CN`` -> ``zh-CN``), so
    that the browser picks Chinese glyphs rather than Japanese ones for the same characters."""
    return language().replace("_", "-")


def _footer(comparison: bool, references: bool) -> str:
    """Where the page's content comes from (HTML: the sources are escaped, the words are ours)."""
    extra = []
    if comparison:
        extra.append(t("report.html.footer.comparison",
                       "the comparison also from the other run's report"))
    if references:
        extra.append(t("report.html.footer.references",
                       "the reference results from rocmate's table of published figures"))
    schema = "rocmate.report/1"
    if extra:
        return t("report.html.footer.also",
                 "Rendered by rocmate from a {schema} file: the run's figures, settings, machine "
                 "and software come from that file ({also}). The page loads nothing from the "
                 "network.", schema=schema,
                 also=e(t("doctor.list-separator", "; ").join(extra)))
    return t("report.html.footer",
             "Rendered by rocmate from a {schema} file: the run's figures, settings, machine and "
             "software come from that file. The page loads nothing from the network.",
             schema=schema)


def page_title(report: Report) -> str:
    if len(report.runs) == 1:
        run = report.runs[0]
        where = run.device.name if run.device else fmt.unknown_device()
        return t("report.label.suite-on-device", "{suite} on {device}",
                 suite=fmt.suite_title(run.suite), device=where)
    suites = ", ".join(dict.fromkeys(r.suite for r in report.runs))
    return t("report.html.title.runs", "{count} runs: {suites}", count=len(report.runs),
             suites=suites)


def _header(report: Report, title: str) -> str:
    schema = report.schema or SCHEMA
    brand = e(t("report.html.brand", "rocmate report"))
    return (f'<header class="top"><div class="brand">{brand}</div><h1>{e(title)}</h1>'
            f'<p class="meta">{e(fmt.when(report.created))} · {e(report.tool)} '
            f"{e(report.tool_version)} · {e(fmt.platform_text(report))} · "
            f"<code>{e(schema)}</code></p></header>")


# --- one run ------------------------------------------------------------------------------------


def _run_section(run: SuiteRun, i: int, multi: bool) -> str:
    head = f"<h2>{e(fmt.suite_title(run.suite))}</h2>" if multi else ""
    device = f'<span class="muted">{e(fmt.device_label(run))}</span>'
    parts = [f'<section class="run" id="run-{i + 1}">',
             f'<div class="runhead">{head}<span class="badge {e(run.status)}">'
             f"{e(fmt.status_word(run.status))}</span><code>{e(run.suite)}</code>{device}</div>",
             _chips(run)]
    if run.error is not None:
        parts.append(_error_box(run))
    cut = interruption_text(run)
    if cut:
        parts.append(f'<p class="warnline interrupted">{e(cut)}</p>')
    if run.result is not None:
        parts.append(_kpis(run))
        parts += [f'<p class="warnline caution" data-caution="{e(c.kind)}">{e(c.text)}</p>'
                  for c in cautions(run)]
        parts += [f'<p class="warnline suite-note">{e(n)}</p>' for n in fmt.suite_notes(run.suite)]
        parts.append(_figures_table(run))
    parts.append(_step_chart(run, i))
    parts.append(_telemetry_charts(run, i))
    parts.append(_run_facts(run))
    parts.append(_settings_table(run))
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def _chips(run: SuiteRun) -> str:
    flags = fmt.settings_flags(run.settings)
    if not flags:
        return ""
    return '<div class="chips">' + "".join(f'<span class="chip">{e(f)}</span>'
                                           for f in flags) + "</div>"


def _error_box(run: SuiteRun) -> str:
    err = run.error
    assert err is not None
    if run.status == "interrupted":
        reported = t("report.html.error.reported-by.run-file",
                     "Reported by rocmate, from the run file it had written up to then.")
    elif err.source == "worker":
        reported = t("report.html.error.reported-by.worker", "Reported by the worker.")
    else:
        reported = t("report.html.error.reported-by.rocmate",
                     "Reported by rocmate (the worker died without a word).")
    what = t("report.md.what-to-do", "What to do:")
    out = [f'<div class="errorbox"><div class="kind">{e(fmt.status_text(run))}</div>',
           f"<p>{e(err.message)}</p>",
           f'<div class="advice"><strong>{e(what)}</strong>{_gap_after(what)}{e(err.advice)}'
           "</div>",
           f'<p class="muted">{e(reported)}</p>']
    if err.detail:
        out.append(f"<details><summary>{e(t('report.html.details', 'Details'))}</summary>"
                   f"<pre>{e(err.detail)}</pre></details>")
    out.append("</div>")
    return "\n".join(out)


def _gap_after(label: str) -> str:
    """The space after a label: none where it ends in a wide character, a full-width mark
    (``怎么做：``, which has its room in it) or a Chinese one (``峰值775``: Chinese takes no
    space before a number)."""
    return "" if display_width(label[-1:]) == 2 else " "


def _kpi(label: str, value: str, unit: str = "", sub: str = "", hero: bool = False,
         exact: float | None = None) -> str:
    v = e(value) if exact is None else f'<data value="{e(repr(exact))}">{e(value)}</data>'
    u = f' <span class="u">{e(unit)}</span>' if unit else ""
    s = f'<div class="s">{e(sub)}</div>' if sub else ""
    return (f'<div class="kpi{" hero" if hero else ""}"><div class="k">{e(label)}</div>'
            f'<div class="v">{v}{u}</div>{s}</div>')


def _figure_sub(f: Figure) -> str:
    parts = []
    if f.p10 is not None and f.p90 is not None:
        parts.append(f"p10–p90 {fmt.spread(f)}")
    if f.cv is not None:
        parts.append(f"cv {fmt.cv(f)}")
    return " · ".join(parts)


def _kpis(run: SuiteRun) -> str:
    r = run.result
    assert r is not None
    f = r.headline_figure
    ref = run.reference
    peak = r.peak_of(r.headline)
    if peak is None:
        hero = _kpi(t("report.html.kpi.median", "{figure} (median)",
                      figure=fmt.figure_label(r.headline)), fmt.num(f.median), f.unit,
                    _figure_sub(f), hero=True, exact=f.median)
    else:
        hero = _peak_hero(r.headline, peak, f, ref, r.peak_is_burst(r.headline))
    tiles: list[str] = []
    shown = [k for k in r.figures
             if k != r.headline and not _beside_its_figure(k, r.figures)][:2]
    for name in shown:
        g = r.figures[name]
        sub = _figure_sub(g)
        g_peak = r.peak_of(name)
        if ref is not None and name + PEAK_SUFFIX in ref.fractions:
            sub = t("report.html.kpi.peak-of-datasheet",
                    "peak {peak}: {fraction} of the datasheet's {datasheet}",
                    peak=fmt.num(g_peak.median if g_peak else None),
                    fraction=fmt.pct(ref.fractions[name + PEAK_SUFFIX], 0),
                    datasheet=fmt.num(ref.peaks.get(name)))
        elif ref is not None and name in ref.fractions:
            sub = t("report.html.kpi.of-datasheet", "{fraction} of the datasheet's {datasheet}",
                    fraction=fmt.pct(ref.fractions[name], 0),
                    datasheet=fmt.num(ref.peaks.get(name)))
        elif g_peak is not None:
            sub = t("report.html.kpi.peak", "peak {peak}", peak=fmt.num(g_peak.median))
        label = fmt.figure_label(name)
        if g_peak is not None:
            label = t("report.html.kpi.sustained", "{figure} (sustained)", figure=label)
        tiles.append(_kpi(label, fmt.num(g.median), g.unit, sub, exact=g.median))
    if r.peak_memory_bytes is not None:
        sub = (t("report.html.kpi.reserved", "reserved {reserved}",
                 reserved=fmt.gib(r.peak_memory_reserved_bytes))
               if r.peak_memory_reserved_bytes else "")
        tiles.append(_kpi(fmt.peak_memory_label(run), fmt.gib(r.peak_memory_bytes), "", sub))
    if run.energy is not None:
        en = run.energy
        sub = (t("report.html.kpi.mean-power", "at {power} W mean",
                 power=f"{en.mean_power_w:.0f}") if en.mean_power_w else en.method)
        tiles.append(_kpi(t("report.md.energy", "energy"), fmt.num(en.per_item_j),
                          f"J/{en.item_unit}", sub))
    for e in of_run(run)[:1]:  # the headline's rate per watt
        sub = (t("report.html.kpi.per-watt", "{energy} J/{unit} at {power} W",
                 energy=fmt.num(e.per_item_j), unit=e.item_unit, power=f"{e.mean_power_w:.0f}")
               if e.per_item_j is not None and run.energy is None else
               t("report.html.kpi.mean-power", "at {power} W mean",
                 power=f"{e.mean_power_w:.0f}"))
        tiles.append(_kpi(t("report.md.per-watt", "per watt"), fmt.num(e.per_watt),
                          e.unit.removesuffix("/W") + " " + t("report.html.kpi.per-w", "per W"),
                          sub, exact=e.per_watt))
    tiles.append(_kpi(t("report.md.warm-up", "warm-up"), fmt.seconds(r.warmup.seconds), "",
                      _warmup_state(r.warmup)))
    return hero + '<div class="kpis">' + "".join(tiles) + "</div>"


def _warmup_state(w: Warmup) -> str:
    """``40 steps, settled``: how long the warm-up was and how it ended."""
    if w.forced:
        return t("report.html.kpi.warm-up.fixed", "{steps} steps, fixed length", steps=w.steps)
    if w.settled:
        return t("report.html.kpi.warm-up.settled", "{steps} steps, settled", steps=w.steps)
    return t("report.html.kpi.warm-up.not-settled", "{steps} steps, did not settle",
             steps=w.steps)


def _beside_its_figure(name: str, figures: dict[str, Figure]) -> bool:
    """A peak figure whose sustained figure is there too (shown with it, not on its own)."""
    base = name.removesuffix(PEAK_SUFFIX)
    return base != name and base in figures


def _peak_hero(name: str, peak: Figure, f: Figure, ref: Reference | None,
               burst: bool = False) -> str:
    """The headline as ``peak 775 · sustained 670 TFLOP/s``, the datasheet's share under it;
    ``burst``: the peak is a burst on a rested card (SuiteResult.peak_is_burst)."""
    label = (t("report.html.kpi.burst-and-sustained",
               "{figure}: peak (a burst: the first {steps} steps on a rested card) and "
               "sustained (median)", figure=fmt.figure_label(name), steps=peak.n) if burst else
             t("report.html.kpi.peak-and-sustained",
               "{figure}: peak (best {steps} steps) and sustained (median)",
               figure=fmt.figure_label(name), steps=peak.n))
    peak_word = e(t("report.html.kpi.peak-word", "peak"))
    sustained_word = e(t("report.html.kpi.sustained-word", "sustained"))
    value = (f'<span class="u">{peak_word}</span>{_gap_after(peak_word)}'
             f'<data value="{e(repr(peak.median))}">{e(fmt.num(peak.median))}</data> '
             f'<span class="u">· {sustained_word}</span>{_gap_after(sustained_word)}'
             f'<data value="{e(repr(f.median))}">{e(fmt.num(f.median))}</data>'
             f' <span class="u">{e(f.unit)}</span>')
    sub = _figure_sub(f)
    if ref is not None and name + PEAK_SUFFIX in ref.fractions:
        share = t("report.html.kpi.peak-share", "peak {fraction} of the datasheet's {datasheet}",
                  fraction=fmt.pct(ref.fractions[name + PEAK_SUFFIX], 0),
                  datasheet=fmt.num(ref.peaks.get(name)))
        sub = share + (f" · {sub}" if sub else "")
    s = f'<div class="s">{e(sub)}</div>' if sub else ""
    return (f'<div class="kpi hero"><div class="k">{e(label)}</div>'
            f'<div class="v">{value}</div>{s}</div>')


def _num_cell(v: float | None, digits: int = 4, unit: str = "") -> str:
    if v is None:
        return '<td class="n">-</td>'
    u = f' <span class="uin muted">{e(unit)}</span>' if unit else ""
    return f'<td class="n"><data value="{e(repr(v))}">{e(fmt.num(v, digits))}</data>{u}</td>'


def _figures_table(run: SuiteRun) -> str:
    r = run.result
    assert r is not None
    rows = []
    for name, f in r.figures.items():
        cls = ' class="head"' if name == r.headline else ""
        spread = e(fmt.spread(f)).replace("–", "–\u200b")  # may wrap after the dash
        rows.append(f'<tr{cls} data-figure="{e(name)}"><td>{e(fmt.figure_label(name))}</td>'
                    f"{_num_cell(f.median, unit=f.unit)}"
                    f'<td class="sp">{spread}</td><td class="n">{e(fmt.cv(f))}</td>'
                    f'<td class="unitcol">{e(f.unit)}</td></tr>')
    full = []
    for name, f in r.figures.items():
        better = (t("report.html.stats.higher", "higher") if f.higher_is_better
                  else t("report.html.stats.lower", "lower"))
        full.append(f"<tr><td><code>{e(name)}</code></td><td class=\"n\">{f.n}</td>"
                    f"{_num_cell(f.median, 6)}{_num_cell(f.mean, 6)}{_num_cell(f.min, 6)}"
                    f"{_num_cell(f.p10, 6)}{_num_cell(f.p90, 6)}{_num_cell(f.max, 6)}"
                    f"{_num_cell(f.cv, 4)}<td>{e(f.unit)}</td><td>{e(better)}</td></tr>")
    figure = e(t("report.label.figure", "figure"))
    median = e(t("report.label.median", "median"))
    unit = e(t("report.label.unit", "unit"))
    return "\n".join([
        f"<h3>{e(t('report.html.figures', 'Figures'))}</h3>",
        f'<div class="scroll"><table><thead><tr><th>{figure}</th><th class="n">{median}</th>'
        f'<th class="n">p10–p90</th><th class="n">CV</th><th class="unitcol">{unit}</th></tr>'
        "</thead><tbody>",
        *rows, "</tbody></table></div>",
        f"<details><summary>{e(t('report.md.all-statistics', 'All statistics'))}</summary>",
        f'<div class="scroll"><table><thead><tr><th>{figure}</th><th class="n">n</th>'
        f'<th class="n">{median}</th><th class="n">{e(t("report.md.mean", "mean"))}</th>'
        f'<th class="n">{e(t("report.md.min", "min"))}</th>'
        f'<th class="n">p10</th><th class="n">p90</th>'
        f'<th class="n">{e(t("report.md.max", "max"))}</th><th class="n">cv</th>'
        f"<th>{unit}</th><th>{e(t('report.html.stats.better', 'better'))}</th></tr></thead>"
        "<tbody>",
        *full, "</tbody></table></div></details>",
    ])


# --- charts -------------------------------------------------------------------------------------


def _figure_html(svg: str, caption: str, note: str = "") -> str:
    if not svg:
        return ""
    extra = f' <span class="muted">{e(note)}</span>' if note else ""
    return f"<figure><figcaption>{e(caption)}{extra}</figcaption>{svg}</figure>"


def _step_chart(run: SuiteRun, i: int) -> str:
    steps = run.steps
    if not steps:
        return ""
    parts = list(dict.fromkeys(s.part for s in steps))
    series: list[Series] = []
    warm: list[tuple[float, float]] = []
    measured: dict[str | None, list[tuple[float, float]]] = {p: [] for p in parts}
    for n, s in enumerate(steps, start=1):
        (warm if s.phase == "warmup" else measured[s.part]).append((float(n), s.seconds))
    if warm:  # with several parts (gemm's dtypes) their warm-ups are apart: dots, no line
        series.append(Series(t("report.md.warm-up", "warm-up"), warm, color=6, dots=True,
                             hollow=True, line=len(parts) == 1))
    for k, (part, pts) in enumerate(p for p in measured.items() if p[1]):
        label = (t("report.html.chart.measured-part", "measured {part}",
                   part=fmt.part_label(part)) if part
                 else t("report.md.measured", "measured"))
        series.append(Series(label, pts, color=1 + k % 5, dots=len(pts) <= 150))
    rules: list[Rule] = []
    times = [s.seconds for s in steps if s.phase != "warmup"]
    if len(parts) == 1 and times:
        med = statistics.median(times)
        rules.append(Rule(med, t("report.html.chart.median", "median {value} s",
                                 value=fmt.num(med)), color=2))
    cap = None
    if times and warm and max(y for _, y in warm) > 1.6 * max(times):
        cap = max(times) * 1.35
    svg = charts.render(Chart(title=t("report.html.chart.step-time", "Step time, {suite}",
                                      suite=fmt.suite_title(run.suite)),
                              x_label=t("report.html.chart.step", "step"), y_unit="s",
                              series=series, rules=rules, y_cap=cap, chart_id=f"r{i}-steps"))
    note = t("report.html.chart.step-time.note",
             "each step timed between device synchronisations")
    caption = t("report.html.chart.step-time.caption", "Step time per step")
    return (f'<h3>{e(t("report.html.step-times", "Step times"))}</h3><div class="charts">'
            + _figure_html(svg, caption, note) + "</div>")


def _phase_bands(run: SuiteRun) -> list[Band]:
    bands: list[Band] = []
    for phase, label, css in (("warmup", t("report.md.warm-up", "warm-up"), "band2"),
                              ("measure", t("report.md.measured", "measured"), "band")):
        ts = [(s.t - s.seconds, s.t) for s in run.steps if s.phase == phase and s.t is not None]
        if ts:
            bands.append(Band(min(a for a, _ in ts), max(b for _, b in ts), label, css))
    return bands


def _telemetry_charts(run: SuiteRun, i: int) -> str:
    tel = run.telemetry
    if not tel:
        return ""
    bands = _phase_bands(run)
    figs: list[str] = []

    def add(key: str, caption: str, unit: str, series: list[Series], note: str = "",
            rules: Sequence[Rule] = (), y_min: float | None = 0.0,
            y_max: float | None = None) -> None:
        if not any(s.points for s in series):
            return
        svg = charts.render(Chart(title=caption, x_label=t(
                                      "report.html.chart.seconds", "seconds since the run started"),
                                  y_unit=unit, series=series, bands=list(bands),
                                  rules=list(rules), y_min=y_min, y_max=y_max,
                                  chart_id=f"r{i}-{key}"))
        figs.append(_figure_html(svg, caption, note))

    power = [(s.t, s.power_w) for s in tel if s.power_w is not None]
    rules = []
    if run.energy and run.energy.mean_power_w:
        rules.append(Rule(run.energy.mean_power_w,
                          t("report.html.chart.mean-power", "mean {power} W (measured)",
                            power=f"{run.energy.mean_power_w:.0f}"), color=2))
    add("power", t("report.html.chart.board-power", "Board power"), "W",
        [Series(t("report.md.power", "power"), power, color=4)], rules=rules)
    sensors = list(dict.fromkeys(k for s in tel for k in s.temps_c))
    add("temp", t("report.html.chart.temperature", "Temperature"), "°C",
        [Series(k, [(s.t, s.temps_c[k]) for s in tel if k in s.temps_c], color=2 + n % 5)
         for n, k in enumerate(sensors)], y_min=None)
    busy = [(s.t, s.busy_pct) for s in tel if s.busy_pct is not None]
    add("busy", t("report.md.gpu-busy", "GPU busy"), "%",
        [Series(t("report.html.chart.busy", "busy"), busy, color=3)], y_max=100.0)
    vram = [(s.t, s.vram_used_bytes / 2**30) for s in tel if s.vram_used_bytes is not None]
    total = next((s.vram_total_bytes for s in tel if s.vram_total_bytes), None)
    add("vram", t("report.md.vram-used", "VRAM used"), "GiB",
        [Series(t("report.html.chart.used", "used"), vram, color=5)],
        note=t("report.html.chart.vram-of", "of {total}", total=fmt.gib(total)) if total else "")
    clocks = list(dict.fromkeys(k for s in tel for k in s.clocks_mhz))
    add("clocks", t("report.html.chart.clocks", "Clocks"), "MHz",
        [Series(k, [(s.t, s.clocks_mhz[k]) for s in tel if k in s.clocks_mhz], color=1 + n % 5)
         for n, k in enumerate(clocks)])
    if not figs:
        return ""
    heading = e(t("report.html.telemetry", "Telemetry"))
    note = e(t("report.html.telemetry.note",
               "Sampled every 0.5 s; shaded: warm-up and the measured phase."))
    return (f'<h3>{heading}</h3><p class="muted">{note}</p><div class="charts">'
            + "".join(figs) + "</div>")


# --- facts --------------------------------------------------------------------------------------


def _dl(items: Iterable[tuple[str, str]]) -> str:
    rows = "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in items)
    if rows:
        return f'<dl class="kv">{rows}</dl>'
    return f'<p class="muted">{e(t("report.html.none-recorded", "none recorded"))}</p>'


def _run_facts(run: SuiteRun) -> str:
    items = [(t("report.md.started", "started"), fmt.when(run.started)),
             (t("report.md.duration", "duration"), fmt.seconds(run.duration_s))]
    if run.result is not None:
        items += [(t("report.md.warm-up", "warm-up"), fmt.warmup_text(run)),
                  (t("report.md.measured", "measured"), fmt.measure_text(run))]
    if run.device is not None:
        d = run.device
        items.append((t("report.md.device", "device"), fmt.device_label(run)))
        if d.total_memory_bytes:
            items.append((t("report.html.fact.device-memory", "device memory"),
                          fmt.gib(d.total_memory_bytes)))
        if d.pci_id:
            items.append((t("report.html.pci-id", "PCI id"), d.pci_id))
    if run.energy is not None:
        en = run.energy
        items.append((t("report.md.energy", "energy"), t(
            "report.html.fact.energy",
            "{joules} J in the measured phase, {per_item} J/{unit} ({method})",
            joules=fmt.num(en.joules), per_item=fmt.num(en.per_item_j), unit=en.item_unit,
            method=en.method)))
    items += [(t("report.md.per-watt", "per watt"), line) for line in efficiency_lines(run)]
    attention = fmt.attention_text(run)
    if attention:
        items.append((t("report.html.fact.attention", "attention"), attention))
    ref = run.reference
    if ref is not None:
        text = t("doctor.list-separator", "; ").join(fmt.datasheet_parts(ref, sep=": ")) \
            or t("report.html.fact.no-peak", "no peak known")
        items.append((t("report.md.vs-datasheet", "vs datasheet"), f"{ref.name or '?'}: {text}"))
        if ref.note:
            items.append((t("report.html.fact.datasheet-note", "datasheet note"), ref.note))
        if ref.source:
            items.append((t("report.html.fact.datasheet-source", "datasheet source"),
                          ref.source))
    return f"<h3>{e(t('report.md.run-heading', 'Run'))}</h3>" + _dl(items)


def _settings_table(run: SuiteRun) -> str:
    settings = fmt.settings_items(run.settings)
    details = [(k, fmt.value(v)) for k, v in (run.result.details if run.result else {}).items()]
    out = [f"<h3>{e(t('report.md.settings', 'Settings'))}</h3>", _dl(settings)]
    if details:
        summary = e(t("report.md.suite-details", "Suite details"))
        out.append(f"<details><summary>{summary}</summary>" + _dl(details) + "</details>")
    return "\n".join(out)


def _machine_software(report: Report) -> str:
    p = report.machine.platform
    machine = [(t("report.md.system", "system"), fmt.platform_text(report))]
    machine += [(k, fmt.value(v)) for k, v in p.items()
                if k not in ("distro_name", "distro_version", "kernel") and v not in (None, "")]
    gpus = fmt.gpu_items(report)
    gpu_rows = "".join(
        f"<tr><td>{e(g['name'])}</td><td>{e(g['vendor'])}</td><td><code>{e(g['pci_id'])}</code>"
        f"</td><td>{e(g['gfx'])}</td><td class=\"n\">{e(g['vram'])}</td></tr>" for g in gpus)
    if gpus:
        gpu_table = (f'<div class="scroll"><table><thead><tr>'
                     f'<th>{e(t("report.html.gpus.gpu", "GPU"))}</th>'
                     f'<th>{e(t("report.html.gpus.vendor", "vendor"))}</th>'
                     f'<th>{e(t("report.html.pci-id", "PCI id"))}</th><th>gfx</th>'
                     f'<th class="n">{e(t("report.html.gpus.vram", "VRAM"))}</th></tr></thead>'
                     f"<tbody>{gpu_rows}</tbody></table></div>")
    else:
        gpu_table = f'<p class="muted">{e(t("report.html.gpus.none", "no GPU recorded"))}</p>'
    env = report.software.env
    if env:
        env_block = _dl(sorted(env.items()))
    else:
        env_block = ('<p class="muted">'
                     f'{e(t("report.html.env.none", "no relevant variables set"))}</p>')
    return "\n".join([
        '<section class="block"><div class="grid2"><div>'
        f'<h2>{e(t("report.html.machine", "Machine"))}</h2>', _dl(machine),
        f'<h3>{e(t("report.html.gpus", "GPUs"))}</h3>', gpu_table,
        f'</div><div><h2>{e(t("report.html.software", "Software"))}</h2>',
        _dl(fmt.software_items(report)),
        f'<h3>{e(t("report.html.environment", "Environment"))}</h3>', env_block,
        "</div></div></section>",
    ])


# --- comparison and references ------------------------------------------------------------------


def _diff_table(title: str, diffs: list[Difference], a: str = "A", b: str = "B") -> str:
    if not diffs:
        return ""
    rows = "".join(f"<tr><td>{e(fmt.setting_label(d.key))}</td><td>{e(d.a)}</td>"
                   f"<td>{e(d.b)}</td></tr>" for d in diffs)
    what = e(t("report.md.what", "what"))
    return (f"<h3>{e(title)}</h3><div class=\"scroll\"><table><thead><tr><th>{what}</th>"
            f"<th>{e(a)}</th><th>{e(b)}</th></tr></thead><tbody>{rows}</tbody></table></div>")


def _comparison_section(c: Comparison) -> str:
    heading = e(t("report.html.compared", "Compared with another run"))
    out = [f'<section class="block" id="comparison"><h2>{heading}</h2>',
           _dl([(t("report.html.compared.a", "A (baseline)"), c.a_label),
                (t("report.html.compared.b", "B (this report)"), c.b_label)])]
    for rc in c.runs:
        title = (fmt.suite_title(rc.suite_a) if rc.same_suite
                 else t("report.text.suites", "{a} vs {b}", a=fmt.suite_title(rc.suite_a),
                        b=fmt.suite_title(rc.suite_b)))
        out.append(f"<h3>{e(title)}</h3>")
        out.append(_dl([("A", rc.device_a), ("B", rc.device_b)]))
        out += [f'<p class="warnline">{e(n)}</p>' for n in rc.notes]
        if rc.figures:
            rows = []
            for d in rc.figures:
                cls = {"better": "better", "worse": "worse"}.get(d.shown_verdict or "", "same")
                rows.append(f"<tr><td>{e(fmt.figure_label(d.name))}</td>{_num_cell(d.a)}"
                            f"{_num_cell(d.b)}<td class=\"n\">{e(fmt.ratio(d.ratio))}</td>"
                            f'<td class="{cls}">{e(verdict_word(d.shown_verdict) or "-")}</td>'
                            f"<td>{e(d.unit_text)}</td></tr>")
            out.append(f'<div class="scroll"><table><thead><tr>'
                       f'<th>{e(t("report.label.figure", "figure"))}</th><th class="n">A'
                       '</th><th class="n">B</th><th class="n">B/A</th>'
                       f'<th>{e(t("report.md.b-is", "B is"))}</th>'
                       f'<th>{e(t("report.label.unit", "unit"))}</th>'
                       "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")
        out.append(_diff_table(t("report.html.settings-differ", "Settings that differ"),
                               rc.settings))
    out.append(_diff_table(t("report.md.software-differs", "Software that differs"), c.software))
    out.append(_diff_table(t("report.md.machine-differs", "Machine that differs"), c.machine))
    if c.unpaired:
        unpaired = t("report.html.unpaired", "Runs with no partner: {runs}",
                     runs=", ".join(c.unpaired))
        out.append(f'<p class="muted">{e(unpaired)}</p>')
    out.append("</section>")
    return "\n".join(p for p in out if p)


def _references_section(refs: CardsLikeMine) -> str:
    if refs.on_cpu:
        heading = t("report.html.references.cpu", "Reference results: {suite}",
                    suite=e(fmt.suite_title(refs.suite)))
    elif refs.arch:
        heading = t("report.html.references.arch", "Cards like mine: {suite} on {device} ({arch})",
                    suite=e(fmt.suite_title(refs.suite)), device=e(refs.device), arch=e(refs.arch))
    else:
        heading = t("report.html.references", "Cards like mine: {suite} on {device}",
                    suite=e(fmt.suite_title(refs.suite)), device=e(refs.device))
    intro = e(t("report.html.references.intro.key",
                "Published figures and blog claims, each with its source and conditions. A "
                "reference is compared only where its harness, backend, OS, precision, batch "
                "and steps match this run; any other is a hint."))
    out = ['<section class="block" id="references">', f"<h2>{heading}</h2>",
           f'<p class="muted">{intro}</p>']
    out += [f'<p class="warnline">{e(w)}</p>' for w in refs.warnings]
    if refs.note:
        out.append(f"<p>{e(refs.note)}</p>")
    cards = []
    yours_word = e(t("report.md.yours", "yours"))
    yours_word += _gap_after(yours_word)
    reference_word = e(t("report.md.reference", "reference"))
    reference_word += _gap_after(reference_word)
    conditions = t("report.html.references.conditions", "conditions:")
    for m in refs.matches:
        r = m.row
        if m.yours is not None:
            cls = {"faster": "better", "slower": "worse"}.get(m.verdict or "", "same")
            ratio = t("report.html.references.ratio", "yours ÷ reference {ratio} · {verdict}",
                      ratio=fmt.ratio(m.ratio), verdict=verdict_word(m.verdict) or "")
            yours = (f'<span>{yours_word}<b>{e(fmt.num(m.yours))}</b> {e(r.unit)}</span>'
                     f'<span class="{cls}">{e(ratio)}</span>')
        else:
            none = t("report.text.yours.none", "yours: - ({how})", how=m.how or "")
            yours = f'<span class="muted">{e(none)}</span>'
        how = (f'<div class="muted">{e(t("report.md.yours-how", "yours = {how}", how=m.how))}'
               "</div>" if m.how and m.yours else "")
        diffs = "".join(f"<li>{e(d)}</li>" for d in m.differences)
        unstated = t("report.label.unstated", "not stated by the source: {keys}",
                     keys=", ".join(m.unstated))
        worked_out = t("report.label.worked-out", "worked out: {derived}", derived=r.derived)
        method = t("report.label.method", "method: {method}", method=r.method)
        source = t("report.label.source", "source: {source}", source=r.source)
        lines = [
            f'<div class="ref"><div class="title">{e(r.card)} '
            f'<span class="badge plain">{e(match_word(m.match))}</span></div>',
            f'<div class="muted">{e(fmt.figure_label(r.figure))} · {e(KIND_TITLES[r.kind])}</div>',
            "".join(f'<div class="{"" if m.standing == "comparison" else "warnline"}">'
                    f"{e(line)}</div>" for line in reference_key_lines(m)),
            f'<div class="nums"><span>{reference_word}<b>{e(fmt.num(r.value))}</b> '
            f"{e(r.unit)}</span>{yours}</div>{how}",
            f'<div><span class="muted">{e(conditions)}</span>{_gap_after(conditions)}'
            f"{e(conditions_text(r.conditions))}</div>",
            f'<ul class="diffs">{diffs}</ul>' if diffs else "",
            f'<div class="muted">{e(unstated)}</div>' if m.unstated else "",
            f"<div>{e(worked_out)}</div>" if r.derived else "",
            f"<div>{e(local(r.note))}</div>" if r.note else "",
            f'<div class="src">{e(method)}</div>' if r.method else "",
            f'<div class="src">{e(source)}</div>',
            "".join(f'<div class="src">{e(line)}</div>' for line in reference_where_lines(r)),
            "</div>",
        ]
        cards.append("".join(lines))
    if cards:
        out.append('<div class="refs">' + "".join(cards) + "</div>")
    out.append("</section>")
    return "\n".join(out)
