"""JSON, HTML and Markdown writers: round trips, every figure present, self-contained HTML,
escaping of hostile text, forum-sized Markdown."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from core.report import formatting as fmt
from core.report.html import render_html
from core.report.model import Report, from_json
from core.report.writers import (
    ExportError,
    format_for,
    load_report_file,
    render,
    write_text,
)
from tests.report.support import ALL_REPORTS, CPU, FAILED, FIXTURES, GEMM, H200, SD15, load

CSP = ('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
       "style-src 'unsafe-inline'; img-src data:\">")


@pytest.mark.parametrize("path", [*sorted(FIXTURES.glob("*.json")), GEMM, SD15, FAILED],
                         ids=lambda p: p.name)
def test_json_model_json_is_byte_identical(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert render(from_json(text), "json") == text
    assert render(from_json(render(from_json(text), "json")), "json") == text


def test_both_recorded_fixtures_are_covered() -> None:
    names = {p.name for p in FIXTURES.glob("*.json")}
    assert CPU.name in names and H200.name in names


def _figure_values(report: Report) -> list[tuple[str, str, float]]:
    out = []
    for run in report.runs:
        if run.result is None:
            continue
        for name, f in run.result.figures.items():
            for stat in ("median", "p10", "p90", "cv"):
                v = getattr(f, stat)
                if v is not None:
                    out.append((name, stat, v))
    return out


@pytest.mark.parametrize("path", ALL_REPORTS, ids=lambda p: p.name)
def test_html_has_every_figure_of_the_json(path: Path) -> None:
    report = load(path)
    html = render(report, "html")
    for run in report.runs:
        if run.result is None:
            continue
        for name, f in run.result.figures.items():
            assert f'data-figure="{name}"' in html
            assert f.unit in html
            for stat in ("median", "mean", "min", "p10", "p90", "max", "cv"):
                v = getattr(f, stat)
                if v is not None:  # the exact value, machine-readable, next to the shown one
                    assert f'<data value="{v!r}">' in html, (name, stat)
            assert fmt.num(f.median) in html and fmt.cv(f) in html
            assert fmt.spread(f).replace("–", "–\u200b") in html


@pytest.mark.parametrize("path", ALL_REPORTS, ids=lambda p: p.name)
def test_markdown_has_every_figure_of_the_json(path: Path) -> None:
    report = load(path)
    md = render(report, "md")
    for run in report.runs:
        if run.result is None:
            continue
        for name, f in run.result.figures.items():
            assert name.replace("_", "\\_") in md
            summary, details = md.split("<details>", 1)
            assert fmt.num(f.median) in summary and fmt.spread(f) in summary
            assert fmt.cv(f) in summary
            for stat in ("median", "mean", "min", "p10", "p90", "max"):
                v = getattr(f, stat)
                if v is not None:
                    assert fmt.num(v, 6) in details, (name, stat)


@pytest.mark.parametrize("path", ALL_REPORTS, ids=lambda p: p.name)
def test_html_and_markdown_show_settings_software_and_machine(path: Path) -> None:
    report = load(path)
    html, md = render(report, "html"), render(report, "md")
    for run in report.runs:
        for key, value in fmt.settings_items(run.settings):
            assert key in html and value in html
            assert key.replace("_", "\\_") in md
    for _, v in fmt.software_items(report):
        assert v in html and v in md
    assert fmt.platform_text(report) in html


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.stack: list[str] = []
        self.errors: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in ("meta", "link", "br", "circle", "line", "rect", "path", "polyline"):
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("circle", "line", "rect", "path", "polyline"):
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unbalanced </{tag}> (open: {self.stack[-3:]})")
        else:
            self.stack.pop()


@pytest.mark.parametrize("path", [H200, FAILED], ids=lambda p: p.name)
def test_html_is_one_self_contained_file(path: Path) -> None:
    html = render(load(path), "html", references=True, baseline=load(CPU))
    assert html.startswith("<!DOCTYPE html>")
    assert CSP in html
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "prefers-color-scheme:dark" in html
    assert "<script" not in html.lower()
    parser = _Collector()
    parser.feed(html)
    assert parser.errors == [] and parser.stack == []
    for tag, attrs in parser.tags:
        for name in ("src", "href", "srcset", "action", "poster", "data"):
            value = attrs.get(name)
            if value is not None:
                assert value.startswith("data:"), (tag, name, value)
        assert not any(a.startswith("on") for a in attrs), (tag, attrs)
    assert "url(" not in html and "@import" not in html
    # the only URL anywhere is the SVG namespace, which is a name, not a request
    urls = set(re.findall(r"https?://[^\s\"'<>]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}


def test_html_of_a_gpu_run_has_the_charts_with_axes_and_units() -> None:
    html = render(load(H200), "html")
    svgs = re.findall(r"<svg .*?</svg>", html, re.S)
    assert len(svgs) == 6  # step time, power, temperature, busy, VRAM, clocks
    for title, unit in (("Step time", ">s<"), ("Board power", ">W<"), ("Temperature", ">°C<"),
                        ("GPU busy", ">%<"), ("VRAM used", ">GiB<"), ("Clocks", ">MHz<")):
        svg = next(s for s in svgs if "<title id=" in s and title in s)
        assert unit in svg and 'class="ax"' in svg and 'class="tk"' in svg
    assert "(off scale)" in html  # the 11 s autotuning step does not squash the chart
    assert ">measured<" in html and ">warm-up<" in html  # the phases shaded
    assert "4,624" in html and "0.1335" in html and "11.6 s" in html  # headline, J/image, warm-up


def test_a_failed_run_shows_its_error_and_advice() -> None:
    report = load(FAILED)
    err = report.runs[0].error
    assert err is not None
    html, md = render(report, "html"), render(report, "md")
    for out in (html, md):
        assert "missing-package" in out
    assert fmt_escape(err.advice) in html and "What to do" in html
    assert "ModuleNotFoundError" in html and "ModuleNotFoundError" in md
    assert "What to do" in md


def fmt_escape(text: str) -> str:
    from html import escape

    return escape(text, quote=True)


HOSTILE = ('<script>alert(1)</script><img src=x onerror=alert(2)> [click](https://evil.example/x)'
           ' ![pix](http://evil.example/p.png) | pipe ` tick </details> </style> &amp;')


def _hostile() -> Report:
    report = load(FAILED)
    run = report.runs[0]
    assert run.error is not None
    run.error.message = HOSTILE
    run.error.advice = HOSTILE
    run.error.detail = HOSTILE + "\n```\nnot the end\n"
    run.settings["note"] = HOSTILE
    report.software.env["WEIRD"] = HOSTILE
    report.machine.platform["distro_name"] = HOSTILE
    return report


def test_html_escapes_everything_from_the_report() -> None:
    html = render(_hostile(), "html")
    assert "<script" not in html and "<img" not in html
    assert "</details> </style>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&amp;amp;" in html
    assert "evil.example" in html  # shown as text ...
    assert 'href="https://evil' not in html and 'src="http://evil' not in html  # ... not a link


def _without_fences(md: str) -> str:
    """The Markdown outside fenced code blocks (inside them everything is literal text)."""
    out, fence = [], None
    for line in md.splitlines():
        m = re.match(r"^(`{3,})", line)
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None:
            out.append(line)
    assert fence is None, "a fence was left open"
    return "\n".join(out)


def test_markdown_cannot_be_made_to_link_embed_or_break_out() -> None:
    full = render(_hostile(), "md")
    md = _without_fences(full)
    assert "````text" in full  # longer than the ``` inside the text, which cannot close it
    assert "<script" not in md and "<img" not in md
    assert "](" not in md.replace("\\](", "")  # no Markdown link or image
    # every URL sits in a code span, so nothing is auto-linked
    for url in re.findall(r"(?:https?|ftp)://\S+", md):
        assert re.search(r"`" + re.escape(url.rstrip("`")), md), url
    assert md.count("<details>") == 1 and md.count("</details>") == 1
    assert md.rstrip().endswith("</details>")
    # table rows keep their cell count despite the pipe in the text
    for line in md.splitlines():
        if line.startswith("| distro") or "WEIRD" in line:
            assert line.count("|") - line.count("\\|") == 3


def test_markdown_is_sized_for_a_post() -> None:
    md = render(load(H200), "md", references=True, baseline=load(CPU))
    summary = md.split("<details>", 1)[0]
    assert len(summary) < 4000 and len(md) < 30000
    assert "<details><summary>" in md and "</summary>\n\n" in md  # blank line: tables render
    assert "```text" in md  # the plain-text copy
    assert "http" not in md.split("<details>", 1)[0]
    assert "![" not in md


def test_a_comparison_and_references_are_added_only_when_asked() -> None:
    h200 = load(H200)
    plain = render(h200, "html")
    assert 'id="comparison"' not in plain and 'id="references"' not in plain
    both = render(h200, "html", baseline=load(CPU), baseline_label="cpu run", label="h200 run",
                  references=True)
    assert 'id="comparison"' in both and 'id="references"' in both
    assert "cpu run" in both and "the rocmate project&#x27;s own measurement" in both
    md = render(h200, "md", baseline=load(CPU), references=True)
    assert "**Compared with**" in md and "**Cards like mine**" in md
    assert json.loads(render(h200, "json", baseline=load(CPU), references=True))["runs"]


def test_format_from_suffix_or_flag() -> None:
    assert format_for("a/b.json") == "json"
    assert format_for("x.HTML") == "html" and format_for("x.htm") == "html"
    assert format_for("x.md") == "md" and format_for("x.markdown") == "md"
    assert format_for("x.txt", "md") == "md"
    with pytest.raises(ExportError, match="cannot tell the format"):
        format_for("x.txt")
    with pytest.raises(ExportError, match="unknown format"):
        format_for("x.md", "pdf")
    with pytest.raises(ExportError, match="unknown format"):
        render(load(CPU), "pdf")


def test_write_is_atomic_and_readable(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match=r"the folder .*deep does not exist"):
        write_text("hello", tmp_path / "deep" / "r.html")  # a typo is not made into folders
    assert not (tmp_path / "deep").exists()
    (tmp_path / "deep").mkdir()
    out = write_text("hello", tmp_path / "deep" / "r.html")
    assert out.read_text() == "hello" and (out.stat().st_mode & 0o777) == 0o644
    assert [p.name for p in out.parent.iterdir()] == ["r.html"]
    (tmp_path / "dir.html").mkdir()
    with pytest.raises(ExportError, match="cannot write"):
        write_text("x", tmp_path / "dir.html")


def test_load_report_file_errors_name_the_file(tmp_path: Path) -> None:
    from core.report.model import ReportError

    cases = {"missing.json": None, "bin.json": b"\xff\xfe\x00", "list.json": b"[1]",
             "doctor.json": b'{"schema": "rocmate.doctor/1"}'}
    messages = {"missing.json": "no such file", "bin.json": "not UTF-8",
                "list.json": "is a list", "doctor.json": "rocmate.doctor/1 file, not a report"}
    for name, data in cases.items():
        if data is not None:
            (tmp_path / name).write_bytes(data)
        with pytest.raises(ReportError, match=messages[name]):
            load_report_file(tmp_path / name)
    with pytest.raises(ReportError, match="folder"):
        load_report_file(tmp_path)
    assert load_report_file(H200).runs


def test_multi_run_reports_render_every_run() -> None:
    report = load(H200)
    gemm = load(GEMM)
    report.runs += gemm.runs + load(FAILED).runs
    html, md = render(report, "html"), render(report, "md")
    assert "3 runs" in html and html.count('<section class="run"') == 3
    for name in ("tflops_bf16", "tflops_fp16", "tflops_fp32", "throughput"):
        assert f'data-figure="{name}"' in html
    assert "measured bf16" in html  # the gemm parts are their own series
    assert md.count("| figure | median |") == 2


def test_markdown_renders_as_a_commonmark_forum_would() -> None:
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py is not installed")
    parser = markdown_it.MarkdownIt("js-default", {"html": True})  # tables on, raw HTML on
    html = parser.render(render(load(H200), "md", references=True, baseline=load(CPU)))
    assert html.count("<table>") >= 8  # the summary, comparison, references and details tables
    assert html.count("<details>") == 1 and "<summary>Details" in html
    assert "<a " not in html and "<img" not in html
    hostile = parser.render(render(_hostile(), "md"))
    assert "<script" not in hostile and "<img" not in hostile and "<a " not in hostile
    assert "&lt;script&gt;" in hostile


def test_a_warm_up_of_several_parts_is_dots_not_a_line_across_them() -> None:
    """Issue 31/15: gemm's warm-ups (bf16, fp16, fp32) lie apart in the step chart; one line
    through them zigzagged across the dtypes' measured steps."""
    gemm = render_html(load(GEMM))
    assert not re.search(r'<polyline class="s6 ln"', gemm)  # the warm-up's colour: no line
    assert 'class="s6' in gemm  # its dots stay
    one = render_html(load(CPU))  # a run of one part keeps its warm-up's line
    assert re.search(r'<polyline class="s6 ln"', one)
