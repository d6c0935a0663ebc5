"""Every user-facing core text has an id: words given to a person (a finding's title, detail
and fix; a plan step's title and explanation; an error the app shows; a line the command line
prints) are ``t()`` calls, never bare English. Read from the source with ``ast``, like the
catalogue itself, so a new text without an id fails here before anyone has to notice it in
Chinese."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"

# Run in other processes with no catalogue, or read by programs: English on purpose.
NOT_FOR_PEOPLE = (
    "core/bench/worker/",  # the worker's protocol events (its advice takes a translator)
    "core/install/helper/",  # the root helper: a minimal copy, its output goes to the log
    "core/i18n.py", "core/i18n_catalogue.py",
)

# Keyword arguments that carry words to a person, wherever they are given.
WORD_FIELDS = {"title", "detail", "fix", "explain", "advice", "caution", "note", "reason",
               "hint", "why", "why_nothing", "summary", "message", "words", "text_for_people"}
# Constructors whose positional arguments carry words: name -> positions.
WORD_POSITIONS = {"Finding": (2, 3, 4), "OperationError": (0,), "CheckLine": (1,)}
# Functions that put their first argument in front of a person.
PRINTERS = {"print", "say", "warn", "err", "note_line"}

ENGLISH_ON_PURPOSE = "# i18n: english"
"""A comment on the text's lines or the line above that says why its words stay English (data
a program reads, a protocol)."""
PROSE = re.compile(r"[A-Za-z]{2,}[^\n]*\s[A-Za-z]{2,}")
# Not words but what a person types (a fix that is one command) or the program's name in
# front of a message: the same in every language.
TYPED = re.compile(r"^\s*(?:(?:sudo|rocmate|pip3?|python3?|export|apt|apt-get|dnf|pacman|"
                   r"source|echo)\s\S|rocmate(?: [a-z-]+)?: ?$)")


def _prose(node: ast.expr) -> str | None:
    """The English words in an expression built from literals (a literal, an f-string's fixed
    parts, a concatenation), or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value
        return text if PROSE.search(text) and not TYPED.match(text) else None
    if isinstance(node, ast.JoinedStr):
        fixed = " ".join(v.value for v in node.values
                         if isinstance(v, ast.Constant) and isinstance(v.value, str))
        return fixed if PROSE.search(fixed) and not TYPED.match(fixed) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _prose(node.left) or _prose(node.right)
    return None


def _name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else ""


def bare_words(path: Path) -> Iterator[str]:
    """``file:line: text`` for each word-carrying argument given as bare English."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines()
    where = path.relative_to(ROOT)
    in_cli = where.parts[:2] == ("core", "cli")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node)
        if name == "t":
            continue
        given: list[ast.expr] = [k.value for k in node.keywords if k.arg in WORD_FIELDS]
        given += [node.args[i] for i in WORD_POSITIONS.get(name, ()) if i < len(node.args)]
        if in_cli and name in PRINTERS and node.args:
            given.append(node.args[0])
        for value in given:
            words = _prose(value)
            said = "".join(lines[max(0, value.lineno - 2):value.end_lineno or value.lineno])
            if words is not None and ENGLISH_ON_PURPOSE not in said:
                yield f"{where}:{value.lineno}: {words[:70]!r}"


def test_every_user_facing_core_text_has_an_id() -> None:
    found = [line for path in sorted(CORE.rglob("*.py"))
             if not str(path.relative_to(ROOT)).startswith(NOT_FOR_PEOPLE)
             for line in bare_words(path)]
    assert found == [], "give these texts an id: t('<area>.<name>', '<English>')\n" + \
        "\n".join(found)


def test_the_check_finds_bare_english(tmp_path: Path) -> None:
    source = CORE / "zz_probe_for_the_test.py"
    source.write_text(
        'from core.diagnose.finding import Finding\n'
        'from core.i18n import t\n'
        'A = Finding("x", "error", "The card is too old", t("x.detail", "Fine words"))\n'
        'B = Finding("x", "error", t("x.title", "Fine"), fix=f"Run {1} now please")\n'
        'C = dict(message="" + "plain words here")\n'
        'D = dict(message="English on purpose")  # i18n: english (a protocol)\n',
        encoding="utf-8")
    try:
        found = list(bare_words(source))
    finally:
        source.unlink()
    assert [line.split(": ", 1)[1] for line in found] == [
        "'The card is too old'", "'Run   now please'", "'plain words here'"]
