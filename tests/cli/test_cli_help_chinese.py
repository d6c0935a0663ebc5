"""Every command's ``--help`` in Simplified Chinese, argparse's own words included (the usage
prefix, the section titles, ``-h``'s line, its errors), while option names, metavars, commands
and paths stay as typed; and in English every word argparse writes is exactly argparse's."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
from collections.abc import Callable, Iterator

import pytest

from core import i18n
from core.cli import COMMANDS, build_parser, main
from core.cli.argwords import Parser, said, wrap
from core.termstyle import display_width
from tests.cli.test_chinese_commands import CJK, left_in_english

# English prose: a word followed by a lower-case word (an option's or metavar's name never is)
PROSE = re.compile(r"[A-Za-z]{2,} [a-z]{2,}")


@pytest.fixture(autouse=True)
def _fixed_layout(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("COLUMNS", "100")
    yield
    i18n.set_language(None)


def _command_lines() -> list[list[str]]:
    """``rocmate``, every command, and every command's own commands (``report list``)."""
    lines: list[list[str]] = [[]]
    for command in COMMANDS:
        lines.append([command])
        parser = build_parser(command)
        assert parser._subparsers is not None
        own = parser._subparsers._group_actions[0].choices[command]  # type: ignore[index]
        if own._subparsers is not None:
            lines += [[command, name] for name in own._subparsers._group_actions[0].choices]
    return [*lines, ["gui"]]


def _run(words: list[str]) -> tuple[int, str, str]:
    from gui.launcher import main as rocmate  # `rocmate gui` is the launcher's

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = rocmate(words) if words[:1] == ["gui"] else main(words)
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
    return status, out.getvalue(), err.getvalue()


def _english_left(text: str) -> list[str]:
    """The catalogue's English phrases in ``text``, but for the commands' names (the catalogue
    has the words "rocmate report"; ``rocmate report show`` is a command)."""
    names = "|".join([*COMMANDS, "gui"])
    return left_in_english(re.sub(rf"\brocmate (?=(?:{names})\b)", "rocmate-", text))


def _untranslated(text: str) -> list[str]:
    """The lines of a help text a Chinese reader would find English."""
    bad = []
    for line in text.splitlines():
        parts = re.split(r" {2,}", line.strip(), maxsplit=1)
        option_line = line.startswith("  ") and len(parts) == 2
        if option_line and not CJK.search(parts[1]):
            bad.append(line)  # an option's (or a command's) help
        elif PROSE.search(line) and not CJK.search(line):
            bad.append(line)  # a description, an epilog, a title
    return bad


@pytest.mark.parametrize("words", _command_lines(), ids=lambda w: " ".join(w) or "rocmate")
def test_every_commands_help_reads_in_chinese(words: list[str]) -> None:
    status, out, err = _run([*words, "--help", "--lang", "zh_CN"])
    assert status == 0, err
    assert out.startswith("用法：rocmate"), out
    assert "选项：\n" in out and "-h, --help" in out
    assert _untranslated(out) == [], out
    assert _english_left(out) == [], out
    for option in ("usage:", "options:", "show this help message", "positional arguments"):
        assert option not in out


def test_options_metavars_and_paths_stay_as_typed() -> None:
    _, out, _ = _run(["bench", "--help", "--lang", "zh_CN"])
    for typed in ("--startup-timeout S", "--run-file FILE.jsonl", "$XDG_DATA_HOME/rocmate/runs",
                  "{resnet50-train,sd15-infer,llm-train,llm-infer,gemm,bandwidth}",
                  "--lang {en,zh_CN}", "torch.compile", "cuda:0"):
        assert typed in out, typed


def test_a_long_chinese_help_is_wrapped_by_columns() -> None:
    _, out, _ = _run(["report", "show", "--help", "--lang", "zh_CN"])
    assert max(display_width(line) for line in out.splitlines() if CJK.search(line)) <= 100
    _, out, _ = _run(["explain", "--help", "--lang", "zh_CN"])
    description = out.split("\n\n")[1].splitlines()
    assert len(description) > 1 and all(display_width(line) <= 98 for line in description)


def test_the_language_comes_from_the_environment_too(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    _, out, _ = _run(["report", "--help"])
    assert out.startswith("用法：") and "历史记录" in out


@pytest.mark.parametrize("words, said_in_chinese", [
    (["doctor", "--color", "bad"], "参数 --color：无效的选择：'bad'"),
    (["doctor", "--torch-timeout", "soon"], "参数 --torch-timeout："),
    (["doctor", "--t", "3"], "选项有歧义：--t"),
    (["doctor", "--root"], "参数 --root：需要一个值"),
    (["doctor", "extra"], "无法识别的参数：extra"),
    (["report", "export", "1"], "缺少必需的参数：-o/--out"),
    (["bench", "gemm", "--steps", "x"], "参数 --steps：无效的 int 值：'x'"),
    (["gui", "--bogus"], "rocmate gui: 错误：无法识别的参数：--bogus"),
])
def test_argparse_errors_read_in_chinese(words: list[str], said_in_chinese: str) -> None:
    status, out, err = _run([*words, "--lang", "zh_CN"])
    assert status == 2 and out == ""
    assert err.startswith("用法：rocmate") and ": 错误：" in err and said_in_chinese in err, err
    assert _english_left(err) == [], err


# --- English: exactly argparse's words -----------------------------------------------------------


def _define(make: Callable[..., argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """One parser with every kind of option argparse words an error for."""
    parser = make(prog="demo", description="A parser to compare.", epilog="The end, 100%.")
    parser.add_argument("--version", action="version", version="demo 1")
    parser.add_argument("thing", metavar="THING", help="a positional")
    parser.add_argument("--count", type=int, default=3, help="how many (default %(default)s)")
    parser.add_argument("--colour", choices=["red", "blue"])
    parser.add_argument("--colours", nargs="+")
    parser.add_argument("--maybe", nargs="?")
    parser.add_argument("--pair", nargs=2)
    parser.add_argument("--one", nargs=1)
    parser.add_argument("--flag", action="store_true")
    parser.add_argument("--flat", action="store_true")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--left", action="store_true")
    group.add_argument("--right", action="store_true")
    sub = parser.add_subparsers(dest="command")
    child = sub.add_parser("child", help="a sub-command")
    child.add_argument("--need", required=True)
    return parser


@pytest.mark.parametrize("words", [
    ["--help"], ["x", "child", "--help"], [], ["x", "--count", "many"], ["x", "--colour", "red!"],
    ["x", "--colours"], ["x", "--pair", "1"], ["x", "--one"], ["x", "--fla"],
    ["x", "--flag=yes"], ["x", "--left", "--right"], ["x", "extra", "words"],
    ["x", "child"], ["x", "nobody"], ["x", "--maybe", "1", "--count"],
])
def test_english_is_exactly_argparses(words: list[str]) -> None:
    i18n.set_language("en")
    outputs = []
    for make in (argparse.ArgumentParser, Parser):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                pytest.raises(SystemExit) as exited:
            _define(make).parse_args(words)
        outputs.append((exited.value.code, out.getvalue(), err.getvalue()))
    assert outputs[0] == outputs[1]


def test_a_message_argparse_did_not_write_is_left_as_it_is() -> None:
    i18n.set_language("zh_CN")
    assert said("something else: entirely") == "something else: entirely"
    assert said("argument --x: in the user's words") == "参数 --x：in the user's words"


def test_wrapping_breaks_between_chinese_characters_and_at_spaces_only() -> None:
    text = ("与 --references 一起使用：列出这个测试任务所有显卡的结果（默认：$XDG_DATA_HOME/x），"
            "而不只是这张显卡的")
    for width in range(12, 60):
        lines = wrap(text, width)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        for line in lines:
            assert line == line.strip()
            assert display_width(line) <= width or (" " not in line and not CJK.search(line))
            assert line[0] not in "，。：；）、"
            assert line[-1] != "（"
