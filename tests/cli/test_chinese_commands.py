"""Every command in Simplified Chinese: nothing core has a translation for is left in English.

The check reads core's catalogue: every English phrase of every text (the parts between its
{fields}, of two words or more) that its translation does not itself keep (a command, a
package name) must be absent from what a command prints in zh_CN. It runs over `install
--dry-run` on every replayed machine, `explain`, a real tiny `bench` on the CPU, and `report
show` and `report render md|html` of the recorded reports (one failed run among them)."""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from core import i18n
from core.cli import main
from tests.conftest import machine_dirs

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "tests" / "fixtures" / "reports"
CJK = re.compile(r"[\u4e00-\u9fff]")


@cache
def english_phrases() -> frozenset[str]:
    phrases = set()
    for entry in i18n.read_catalogue(i18n.catalogue_path("zh_CN")).values():
        english = entry.en.replace("{{", "{").replace("}}", "}")
        for part in re.split(r"\{[a-z_]+\}|[.;:!?]\s+|\s+\(|\)\s+", english):
            part = part.strip(" .,:;()")
            if re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", part) and len(part) >= 10 \
                    and part not in entry.text:
                phrases.add(part)
    return frozenset(phrases)


def left_in_english(text: str) -> list[str]:
    return sorted(p for p in english_phrases() if p in text)


@pytest.fixture(autouse=True)
def _english_after() -> Iterator[None]:
    yield
    i18n.set_language(None)


def run(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([*args, "--lang", "zh_CN"])
    assert status in (0, 1), err.getvalue()
    return out.getvalue() + err.getvalue()


def test_the_check_finds_english_it_has_a_translation_for() -> None:
    assert "Run the benchmark again for a full result" in english_phrases()
    assert left_in_english("x Run the benchmark again for a full result y")


@pytest.mark.parametrize("machine", machine_dirs(), ids=lambda p: p.name)
def test_install_dry_run_reads_in_chinese(machine: Path) -> None:
    text = run("install", "--dry-run", "--root", str(machine))
    assert left_in_english(text) == []
    words = [line for line in text.splitlines() if line.strip() and not
             line.strip().startswith(("$", "->", "#"))]
    assert [line for line in words if not CJK.search(line)] == []


@pytest.mark.parametrize("error", ["RuntimeError: HIP error: invalid device function",
                                   "torch.OutOfMemoryError: HIP out of memory.",
                                   "hipErrorNoBinaryForGpu: Unable to find code object"])
def test_explain_reads_in_chinese(error: str) -> None:
    text = run("explain", error, "--root",
               str(ROOT / "tests/fixtures/machines/rx6600-ubuntu2404-fresh"))
    assert CJK.search(text) and left_in_english(text) == []


REPORT_FILES = sorted(REPORTS.glob("*.json")) + sorted(REPORTS.glob("failed/*.json"))


@pytest.mark.parametrize("report", REPORT_FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("how", [("show", "--references"), ("render", "--format", "md"),
                                 ("render", "--format", "html")], ids=["show", "md", "html"])
def test_a_report_reads_in_chinese(report: Path, how: tuple[str, ...]) -> None:
    text = run("report", how[0], str(report), *how[1:])
    assert CJK.search(text) and left_in_english(text) == []


@pytest.mark.slow  # a real worker or app process: not in make check
def test_a_real_tiny_benchmark_reads_in_chinese(tmp_path: Path) -> None:
    text = run("bench", "gemm", "--python", sys.executable, "--device", "cpu", "--size", "tiny",
               "--steps", "2", "--no-history", "--run-file", str(tmp_path / "run.jsonl"))
    assert "gemm" in text and CJK.search(text) and left_in_english(text) == []
