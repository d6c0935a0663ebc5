"""Hostile reports: someone else's file, every field chosen to break a reader. Each one goes
through the real path (from_json, load_report_file, render, the CLI) and ends in a one-line
refusal or correct output: never a traceback, a hang, unbounded memory or raw escape sequences
on the terminal."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from core.cli import main as rocmate
from core.report import formatting as fmt
from core.report import model
from core.report.charts import nice_ticks
from core.report.compare import compare, convert
from core.report.history import History
from core.report.markdown import md
from core.report.model import ReportError, from_json
from core.report.privacy import Identity, scrub_data, scrub_text
from core.report.text import comparison_text
from core.report.writers import MAX_BYTES, load_report_file, render
from tests.report.support import ALL_REPORTS, CPU, GEMM, H200, load

Data = dict[str, Any]


def main(argv: list[str]) -> int:
    """``rocmate report ARGV``."""
    return rocmate(["report", *argv])


def _gemm() -> Data:
    data: Data = json.loads(GEMM.read_text())
    return data


def _text(change: Callable[[Data], Any] | None = None) -> str:
    data = _gemm()
    if change is not None:
        change(data)
    return json.dumps(data, indent=2)


def _file(tmp_path: Path, text: str, name: str = "theirs.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line(err: str) -> None:
    assert err.startswith("rocmate report: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


# --- 1. charts: ticks where the step is below the float spacing ---------------------------------


@pytest.mark.timeout(20)
@pytest.mark.parametrize(("lo", "hi"), [
    (1.7e308, 1.7e308), (1e16, 1e16 + 2), (-1e308, 1e308), (1e15, 1e15 + 0.25),
    (1e300, 1.7e308), (0.0, 5e-324), (-1.7e308, -1e300),
])
def test_nice_ticks_end_and_stay_few(lo: float, hi: float) -> None:
    ticks = nice_ticks(lo, hi)
    assert 1 <= len(ticks) <= 50
    assert all(t == t and abs(t) != float("inf") for t in ticks)  # finite, no NaN


@pytest.mark.timeout(30)
def test_a_chart_of_values_below_the_float_spacing_renders(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]
                                                            ) -> None:
    big = 1e15 - 1  # about the largest a report may hold: its float spacing is 0.125, so a
    #                 round tick step for a span of 0.25 (0.05) is lost when added to it

    def change(d: Data) -> None:
        run = d["runs"][0]
        run["telemetry"] = [{"t": big, "temps_c": {"edge": big}, "power_w": big},
                            {"t": big + 0.25, "temps_c": {"edge": big + 0.25}, "power_w": big}]
        run["steps"] = [{"phase": "measure", "index": i, "seconds": big + i * 0.125, "items": 1,
                         "t": big + i * 0.125} for i in range(3)]
    path = _file(tmp_path, _text(change))
    for fmt_ in ("html", "md"):
        code, _, err = _cli(capsys, "render", str(path), "--format", fmt_)
        assert code == 0 and err == "", err
    assert "<svg" in render(load_report_file(path), "html")


# --- 2. the privacy scrub is linear --------------------------------------------------------------

_UNITS = ["a", "a.", "a@", "a@a.", "/home/", "/home/a", "~a", "1.", "1:", "::", "0.0.0.",
          "serial ", "unique_id ", "\\", "\\\\wsl$\\", "\\home\\", "C:\\Users\\", "x@y.", " ",
          "GPU-", "aa:", "%", "1.1.1.1."]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("unit", _UNITS)
def test_scrubbing_100k_characters_of_anything_is_quick(unit: str) -> None:
    text = (unit * (100_000 // len(unit) + 1))[:100_000]
    identity = Identity(frozenset({"zelda"}), frozenset({"zelda-box"}))
    started = time.perf_counter()
    scrub_text(text, identity)
    scrub_data({"settings": {"x": text, text[:200]: 1}}, identity)
    assert time.perf_counter() - started < 2.0  # the old e-mail pattern took 22 s on "a" * 80000


@pytest.mark.timeout(60)
def test_a_long_settings_value_renders_quickly() -> None:
    report = from_json(_text(lambda d: d["runs"][0]["settings"].update(note="a" * 80_000)))
    started = time.perf_counter()
    for kind in ("json", "md", "html"):
        render(report, kind)
    assert time.perf_counter() - started < 5.0


# --- 3. odd numbers and structures are refused in one line --------------------------------------


def _set(path: str, value: Any) -> Callable[[Data], None]:
    """A change that sets ``runs.0.result.figures.tflops_bf16.n``-style paths."""
    def change(d: Data) -> None:
        node: Any = d
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[keys[-1]] = value
    return change


def _nested(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = [v]
    return v


BIG_INT = "9" * 400
HOSTILE_JSON: list[tuple[str, str, str]] = [
    ("nan-n", _text().replace('"n": 5', '"n": NaN', 1), "NaN is not a number JSON allows"),
    ("infinity-steps", _text().replace('"steps": 5', '"steps": Infinity', 1), "Infinity"),
    ("minus-infinity", _text().replace('"steps": 5', '"steps": -Infinity', 1), "-Infinity"),
    ("1e400", _text().replace('"steps": 5', '"steps": 1e400', 1), r"inf is out of range"),
    ("400-digit int", _text().replace('"peak_memory_bytes": 599056384',
                                      f'"peak_memory_bytes": {BIG_INT}'),
     "an integer of 400 digits"),
    ("1.7e308 seconds", _text(lambda d: d["runs"][0].update(steps=[
        {"phase": "measure", "index": 0, "seconds": 1.7e308, "items": 1}])),
     r"report\.runs\[0\]\.steps\[0\]\.seconds: 1\.700e\+308 is out of range"),
    ("1e16 temperature", _text(lambda d: d["runs"][0].update(telemetry=[
        {"t": 0, "temps_c": {"edge": 1e16}}, {"t": 1, "temps_c": {"edge": 1e16 + 2}}])),
     r"telemetry\[0\]\.temps_c\.edge: 1\.000e\+16 is out of range"),
    ("1e16 t", _text(lambda d: d["runs"][0].update(telemetry=[{"t": 1e16}, {"t": 1e16 + 2}])),
     r"telemetry\[0\]\.t: .* is out of range"),
    ("superscript schema", _text(_set("schema", "rocmate.report/²")), "unknown report schema"),
    ("5000-digit schema", _text(_set("schema", "rocmate.report/" + "1" * 5000)),
     "unknown report schema"),
    ("5000 brackets", "[" * 5000, "nested too deeply"),
    ("deep settings", _text(_set("runs.0.settings.x", _nested(900))),
     r"runs\[0\]\.settings\.x(\[0\])+: nested more than 32 levels deep"),
    ("year 1 in +05:00", _text(_set("created", "0001-01-01T00:00:00+05:00")),
     r"report\.created: '0001-01-01T00:00:00\+05:00' is not an ISO 8601 time"),
    ("year 9999 in -05:00", _text(_set("runs.0.started", "9999-12-31T23:00:00-05:00")),
     r"runs\[0\]\.started: .* is not an ISO 8601 time"),
    ("not a time", _text(_set("runs.0.started", "last tuesday")), "is not an ISO 8601 time"),
    ("duplicate key", _text().replace('"median":', '"median": 1, "median":', 1),
     "the key 'median' appears twice in one object"),
]


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("text", "message"), [(t, m) for _, t, m in HOSTILE_JSON],
                         ids=[i for i, _, _ in HOSTILE_JSON])
def test_hostile_json_is_refused_saying_where(text: str, message: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ReportError, match=message) as caught:
        from_json(text)
    assert len(str(caught.value)) < 400  # a 5000-digit schema is not echoed whole
    path = _file(tmp_path, text)
    db = str(tmp_path / "h.sqlite")
    for args in (["import", str(path)], ["show", str(path)], ["render", str(path)],
                 ["compare", str(GEMM), str(path)]):
        code, out, err = _cli(capsys, "--db", db, *args)
        assert code == 2 and out == "", args
        _one_line(err)
    assert not Path(db).exists()  # nothing was stored


def test_a_created_time_at_the_edge_of_the_range_is_refused_not_stored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "h.sqlite")
    path = _file(tmp_path, _text(_set("created", "0001-01-01T00:00:00+05:00")))
    code, _, err = _cli(capsys, "--db", db, "import", str(GEMM), str(path))
    assert code == 2 and "is not an ISO 8601 time" in err
    code, out, err = _cli(capsys, "--db", db, "list")  # the history still lists
    assert code == 0 and err == "" and "gemm" in out


def test_a_bad_row_stored_earlier_does_not_break_list(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "h.sqlite"
    with History(db, identity=Identity()) as h:
        h.insert(load(GEMM))
    con = sqlite3.connect(db)  # as an older rocmate could have stored it, or a hand edit
    con.execute("UPDATE runs SET created = '0001-01-01T00:00:00+05:00', value = 'fast', "
                "device = 'x\x1b[2Jy'")
    con.commit()
    con.close()
    code, out, err = _cli(capsys, "--db", str(db), "list")
    assert code == 0 and err == ""
    assert "0001-01-01T00:00:00+05:00" in out  # the time as given
    assert "\x1b" not in out and "x\\u001b[2Jy" in out
    code, out, err = _cli(capsys, "--db", str(db), "list", "--json")
    assert code == 0 and json.loads(out)[0]["value"] is None
    code, out, err = _cli(capsys, "--db", str(db), "show", "1")  # its report is still fine
    assert code == 0 and "GEMM (matrix multiply)" in out


def test_a_reference_with_a_fraction_but_no_peak_renders(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    path = _file(tmp_path, _text(_set("runs.0.reference",
                                      {"fractions": {"tflops_fp16": 0.5}, "peaks": {}})))
    for args in (["render", str(path), "--format", "html"], ["render", str(path), "--format", "md"],
                 ["show", str(path)]):
        code, out, err = _cli(capsys, *args)
        assert code == 0 and err == "", (args, err)
        assert "50 %" in out


@pytest.mark.parametrize("precision", [["fp16"], {"a": 1}, 16, True])
def test_a_precision_that_is_not_text_renders_with_references(
        precision: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(CPU.read_text())  # resnet50-train: its references state a precision
    _set("runs.0.settings.precision", precision)(data)
    path = _file(tmp_path, json.dumps(data))
    for args in (["render", str(path), "--references", "--all-cards"],
                 ["show", str(path), "--references", "--all-cards"],
                 ["compare", str(path), "--references", "--all-cards"]):
        code, _, err = _cli(capsys, *args)
        assert code == 0 and err == "", (args, err)


def test_the_cli_turns_an_unexpected_error_from_a_report_into_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import core.operations.reports as cli

    for exc in (ValueError("Out of range float"), OverflowError("date value out of range"),
                RecursionError("maximum recursion depth exceeded")):
        def boom(*_: object, exc: Exception = exc) -> str:
            raise exc
        monkeypatch.setattr(cli, "report_text", boom)
        code, out, err = _cli(capsys, "show", str(GEMM))
        assert code == 1 and out == ""
        _one_line(err)
        assert type(exc).__name__ in err


# --- 4. reading a file is bounded ----------------------------------------------------------------


@pytest.mark.timeout(30)
def test_dev_zero_is_refused_after_max_bytes() -> None:
    with pytest.raises(ReportError, match="more than 32 MiB, far too large"):
        load_report_file("/dev/zero")


@contextlib.contextmanager
def fed_fifo(tmp_path: Path, feed: Callable[[IO[bytes], threading.Event], object]
             ) -> Iterator[Path]:
    """A FIFO whose writer (``feed(stream, stop)`` in a thread) is there before the test reads
    it, as with `show <(cat report.json)`. A reader that never reads lets the writer open at
    once; opened before any writer, a FIFO reads as empty (test_a_pipe_nobody_writes_to...)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    stop, writing = threading.Event(), threading.Event()

    def write() -> None:
        try:
            with open(fifo, "wb") as f:
                writing.set()
                feed(f, stop)
        except BrokenPipeError:
            pass

    idle_reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        assert writing.wait(timeout=10)
        yield fifo
    finally:
        stop.set()
        os.close(idle_reader)
        writer.join(timeout=10)


@pytest.mark.timeout(30)
def test_an_endless_pipe_is_refused_after_max_bytes(tmp_path: Path) -> None:
    def endless(f: IO[bytes], stop: threading.Event) -> None:
        while not stop.is_set():
            f.write(b" " * 65536)

    with fed_fifo(tmp_path, endless) as fifo, pytest.raises(ReportError, match="far too large"):
        load_report_file(fifo)  # st_size says 0


@pytest.mark.timeout(30)
def test_a_pipe_nobody_writes_to_is_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ReportError, match="not JSON"):
        load_report_file(fifo)


def test_a_pipe_with_a_report_is_read(tmp_path: Path) -> None:
    text = GEMM.read_bytes()
    with fed_fifo(tmp_path, lambda f, _stop: f.write(text)) as fifo:
        assert load_report_file(fifo) == load(GEMM)


@pytest.mark.parametrize(("key", "limit", "what"), [("steps", "MAX_STEPS", "steps"),
                                                    ("telemetry", "MAX_SAMPLES",
                                                     "telemetry samples")])
def test_too_many_steps_or_samples_are_refused(key: str, limit: str, what: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(model, limit, 10)  # the same check as at 200,000, smaller
    item = ({"phase": "measure", "index": 0, "seconds": 1.0, "items": 1} if key == "steps"
            else {"t": 0.0})
    path = _file(tmp_path, _text(_set(f"runs.0.{key}", [item] * 11)))
    code, _, err = _cli(capsys, "import", "--db", str(tmp_path / "h.sqlite"), str(path))
    assert code == 2
    _one_line(err)
    assert f"report.runs[0].{key}: 11 {what}, more than the 10 a report may hold" in err
    _file(tmp_path, _text(_set(f"runs.0.{key}", [item] * 10)), "ok.json")
    assert len(getattr(load_report_file(tmp_path / "ok.json").runs[0], key)) == 10


def test_the_limits_hold_the_largest_report_the_harness_writes(tmp_path: Path) -> None:
    # a timed phase stops at 100,000 measured steps (core.bench.worker.harness.Workload.max_steps),
    # plus up to 50 warm-up steps; every real report must stay readable
    assert model.MAX_STEPS >= 100_050 and model.MAX_SAMPLES >= 100_000
    report = load(H200)
    run = report.runs[0]
    run.steps = (run.steps * (100_050 // len(run.steps) + 1))[:100_050]
    run.telemetry = (run.telemetry * 200)[:7200]  # an hour at 0.5 s
    text = model.to_json(report)
    assert len(text.encode()) < MAX_BYTES
    path = _file(tmp_path, text)
    assert len(load_report_file(path).runs[0].steps) == 100_050
    for real in ALL_REPORTS:
        assert load_report_file(real) == load(real)


# --- 5. nothing from a report drives the terminal -------------------------------------------------

EVIL = "\x1b]0;pwned\x07\x1b[2J\x1b[31mFAKE GPU\x1b[0m\u202egnp.exe\u2066\x9b1m\r"
RAW = ("\x1b", "\x07", "\u202e", "\u2066", "\x9b", "\r")


def _evil(d: Data) -> None:
    d["runs"][0]["device"]["name"] = EVIL
    d["runs"][0]["settings"]["note"] = EVIL
    d["runs"][0]["result"]["figures"][EVIL] = d["runs"][0]["result"]["figures"]["tflops_fp16"]
    d["machine"]["platform"]["kernel"] = EVIL
    d["software"]["packages"]["evil"] = EVIL


def _clean(out: str) -> None:
    for c in RAW:
        assert c not in out, repr(c)


def test_escape_sequences_never_reach_the_terminal(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = _file(tmp_path, _text(_evil))
    db = str(tmp_path / "h.sqlite")
    runs = [["import", str(path)], ["list"], ["list", "--json"], ["show", "1"],
            ["show", str(path)], ["show", str(path), "--format", "md"],
            ["show", str(path), "--format", "json"], ["show", str(path), "--format", "html"],
            ["compare", str(GEMM), str(path)], ["compare", str(path), "--references"],
            ["render", str(path), "--format", "md"], ["export", "1", "-o",
                                                      str(tmp_path / "x.md")]]
    for args in runs:
        code, out, err = _cli(capsys, "--db", db, *args)
        assert code == 0 and err == "", (args, err)
        _clean(out)
    code, out, _ = _cli(capsys, "--db", db, "show", "1")
    assert "\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[31mFAKE GPU" in out  # shown, harmless
    code, out, _ = _cli(capsys, "--db", db, "list", "--json")
    assert json.loads(out)[0]["device"] == EVIL  # still JSON, meaning the same
    code, out, _ = _cli(capsys, "--db", db, "show", str(path), "--format", "json")
    assert json.loads(out)["runs"][0]["device"]["name"] == EVIL


def test_escape_sequences_in_an_error_message_are_shown_not_sent(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def change(d: Data) -> None:
        figures = d["runs"][0]["result"]["figures"]
        figures[EVIL] = {**figures["tflops_fp16"], "median": "fast"}
    path = _file(tmp_path, _text(change), name=f"x{EVIL[:10]}.json")
    for args in (["show", str(path)], ["import", "--db", str(tmp_path / "h"), str(path)]):
        code, out, err = _cli(capsys, *args)
        assert code == 2 and out == ""
        _one_line(err)
        _clean(err)
        assert "\\u001b]0;pwned" in err and "expected a number" in err


def test_every_terminal_writer_escapes_control_characters() -> None:
    report = from_json(_text(_evil))
    a = from_json(_text())
    text = comparison_text(compare(a, report, "A", f"B{EVIL}"))
    _clean(text)
    assert fmt.safe("a\nb\tc\x00\x7f\x85\u200f") == "a\\nb\\tc\\u0000\\u007f\\u0085\\u200f"
    assert fmt.safe("a\nb\tc\x1b", keep_newlines=True) == "a\nb\tc\\u001b"
    assert fmt.safe("Radeon™ 7900 — 東京 ü") == "Radeon™ 7900 — 東京 ü"  # text stays text


# --- 6. Markdown: a setting cannot become a heading or a list ------------------------------------


@pytest.mark.parametrize("value", ["# Verified by AMD", "- fake item", "1. first", "+ plus",
                                   "---", "2) second", "> quoted"])
def test_a_setting_cannot_make_markdown_blocks(value: str) -> None:
    report = from_json(_text(_set("runs.0.settings.precision", value)))
    text = render(report, "md")
    ours = ("### rocmate: ", "#### ", "| ", "|-", "<details>", "</details>", "**", "> **What",
            "> **Note:**", "- **", "  - ", "*")
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif line and not fenced and not line[0].isalnum() and not line.startswith(ours):
            pytest.fail(f"a line starts with report text: {line!r}")
    footer = [p for p in text.split("\n\n") if "precision" in p or "Run:" in p]
    assert footer and footer[0].startswith("**Run:** ")
    assert md(value)[0] in "\\&" or md(value)[1] == "\\", md(value)


def test_md_escapes_block_markers_but_not_numbers() -> None:
    assert md("# Verified by AMD") == "\\# Verified by AMD"
    assert md("- x") == "\\- x" and md("+ y") == "\\+ y" and md("1. z") == "1\\. z"
    assert md("100.3 images/s") == "100.3 images/s" and md("-5 °C") == "-5 °C"
    assert md("a # b") == "a \\# b"


# --- 7. privacy: the names that got through ----------------------------------------------------

ZELDA = ["zelda", "zelda2", "zelda3", "zelda4", "zelda5", "zelda-box", "ZX81-0042",
         "203.0.113.9", "2001:db8::7", "hf_secret_value", "s3cr3t", "cookie-value"]


def test_names_in_urls_unc_paths_keys_and_addresses_are_scrubbed() -> None:
    def change(d: Data) -> None:
        run = d["runs"][0]
        run["settings"].update({
            "model": "file:///home/zelda/models/sd15.safetensors",
            "cache": "//home/zelda2/cache",
            "wsl": "\\\\wsl.localhost\\Ubuntu\\home\\zelda4\\x",
            "wsl2": "\\\\wsl$\\Ubuntu\\home\\zelda3\\y",
            "tilde": "~zelda5/x",
            "peer": "talking to 203.0.113.9 and [2001:db8::7]:22",
            "zelda-box_temp": 40,
        })
        d["machine"]["platform"].update(hostname_fqdn="zelda-box.example.org")
        d["machine"]["gpus"] = [{"name": "AMD Radeon RX 7900 XTX", "board_sn": "ZX81-0042",
                                 "boardSN": "ZX81-0042"}]
        d["software"]["env"].update({
            "HOSTNAME": "zelda-box", "HF_TOKEN": "hf_secret_value", "DB_PASSWORD": "s3cr3t",
            "HTTP_COOKIE": "cookie-value", "WANDB_API_KEY": "s3cr3t",
            "MIOPEN_USER_DB_PATH": "/home/zelda/.config/miopen", "MASTER_ADDR": "127.0.0.1"})
        d["runs"][0]["result"]["details"].update(tokens_per_step=512, host_to_device=1)
    report = from_json(_text(change))
    for kind in ("json", "md", "html"):
        text = render(report, kind)
        leaked = [s for s in ZELDA if s.lower() in text.lower()]
        assert not leaked, (kind, leaked)
    out = json.loads(render(report, "json"))
    run = out["runs"][0]
    assert run["settings"]["model"] == "file://~/models/sd15.safetensors"
    assert run["settings"]["tilde"] == "~/x" and run["settings"]["wsl"] == "~\\x"
    assert run["settings"]["peer"] == "talking to <ip> and [<ip>]:22"
    assert "<host>_temp" in run["settings"]
    env = out["software"]["env"]
    assert env["MIOPEN_USER_DB_PATH"] == "~/.config/miopen"  # kept: it matters, and is clean
    assert env["MASTER_ADDR"] == "127.0.0.1"  # loopback names no one
    assert not {"HF_TOKEN", "DB_PASSWORD", "HTTP_COOKIE", "WANDB_API_KEY"} & set(env)
    assert run["result"]["details"]["tokens_per_step"] == 512  # not a token
    assert run["result"]["details"]["host_to_device"] == 1  # not a host name


def test_versions_are_not_taken_for_addresses() -> None:
    data = scrub_data({"software": {"packages": {"cudnn": "9.1.0.70"}, "torch": "2.4.1.0"},
                       "driver": {"version": "1.2.3.4"}, "note": "from 10.0.0.8"})
    assert data["software"]["packages"]["cudnn"] == "9.1.0.70"
    assert data["software"]["torch"] == "2.4.1.0" and data["driver"]["version"] == "1.2.3.4"
    assert data["note"] == "from <ip>"


# --- 8. units and durations ---------------------------------------------------------------------


def _with_figure(unit: str, value: float) -> model.Report:
    def change(d: Data) -> None:
        f = d["runs"][0]["result"]["figures"]["tflops_bf16"]
        f.update(unit=unit, median=value, p10=value, p90=value, mean=value, min=value, max=value)
    return from_json(_text(change))


def test_figures_in_multiples_of_one_unit_are_converted() -> None:
    a, b = _with_figure("TFLOP/s", 10.0), _with_figure("GFLOP/s", 9000.0)
    (d, *_) = compare(a, b).runs[0].figures
    assert d.unit == "TFLOP/s" and d.b == pytest.approx(9.0) and d.ratio == pytest.approx(0.9)
    assert d.verdict == "worse" and d.unit_text == "TFLOP/s (B: 9,000 GFLOP/s)"
    text = comparison_text(compare(a, b))
    line = next(x for x in text.splitlines() if x.startswith("  bf16 "))
    assert line.split()[1:4] == ["10", "9", "0.9×"], line
    assert convert(250.0, "ms", "s") == pytest.approx(0.25)
    assert convert(1.0, "GB/s", "MB/s") == pytest.approx(1000.0)


def test_figures_in_unrelated_units_show_each_unit_and_no_ratio() -> None:
    a, b = _with_figure("TFLOP/s", 10.0), _with_figure("images/s", 9000.0)
    (d, *_) = compare(a, b).runs[0].figures
    assert d.ratio is None and d.verdict is None and d.b == 9000.0
    assert d.unit_text == "A in TFLOP/s, B in images/s"
    for kind in ("md", "html"):
        assert "A in TFLOP/s, B in images/s" in render(b, kind, baseline=a)


@pytest.mark.parametrize(("s", "text"), [(119.6, "2 min 0 s"), (59.4, "59.4 s"),
                                         (60.4, "1 min 0 s"), (3599.5, "60 min 0 s"),
                                         (125.0, "2 min 5 s"), (9.5, "9.5 s")])
def test_durations_round_before_splitting(s: float, text: str) -> None:
    assert fmt.seconds(s) == text


def test_a_duration_just_under_two_minutes_reads_right_in_every_writer() -> None:
    report = from_json(_text(_set("runs.0.duration_s", 119.6)))
    for kind in ("md", "html"):
        out = render(report, kind)
        assert "2 min 0 s" in out and "60 s" not in out


# --- 9. duplicate keys -------------------------------------------------------------------------


def test_a_duplicate_key_is_refused_naming_it(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    text = _text().replace('"device": {', '"device": {"name": "Radeon", "name": "H200", ', 1)
    path = _file(tmp_path, text)
    code, _, err = _cli(capsys, "import", "--db", str(tmp_path / "h"), str(path))
    assert code == 2
    _one_line(err)
    assert re.search(r"the key 'name' appears twice in one object", err)

