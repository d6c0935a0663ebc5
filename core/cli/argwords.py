"""argparse's own words in the user's language: the ``usage:`` prefix, the section titles, the
``-h`` line and the errors argparse writes. Python ships no Chinese catalogue for them, so every
parser rocmate builds is a :class:`Parser`, which says them through :func:`core.i18n.t` (argparse
itself is left as it is). In English everything reads exactly as argparse writes it.

A parser is built after the language is chosen (core.cli.main), never at import time.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from core.i18n import t
from core.termstyle import display_width

# the characters that take two columns: where a text has one, it is wrapped by columns
_WIDE_CHARS = ("\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f"
               "\uff00-\uff60\uffe0-\uffe6")
_WIDE = re.compile(f"[{_WIDE_CHARS}]")
# a token of a line to wrap: spaces, one wide character, or a run of anything else
_TOKEN = re.compile(f" +|[{_WIDE_CHARS}]|[^ {_WIDE_CHARS}]+")
_NOT_FIRST = set("，。、；：！？）》」』】〉…—,.;:!?)]")  # never starts a line
_NOT_LAST = set("（《「『【〈([")  # never ends a line


def wrap(text: str, width: int) -> list[str]:
    """``text`` (whitespace already single spaces) in lines of at most ``width`` columns; a
    line breaks at a space or between two Chinese characters, never before a closing mark or
    after an opening one, and never inside a Latin word, command or path."""
    tokens: list[str] = []
    for token in _TOKEN.findall(text):
        if tokens and tokens[-1] != " " and token != " " and \
                (token[0] in _NOT_FIRST or tokens[-1][-1] in _NOT_LAST):
            tokens[-1] += token
        else:
            tokens.append(" " if token.startswith(" ") else token)
    lines: list[str] = []
    line, gap = "", ""
    for token in tokens:
        if token == " ":
            gap = " " if line else ""
            continue
        if line and display_width(line + gap + token) > width:
            lines.append(line)
            line, gap = "", ""
        line += gap + token
        gap = ""
    if line:
        lines.append(line)
    return lines


class Formatter(argparse.HelpFormatter):
    """argparse's help layout with the usage prefix in the user's language, and text holding
    Chinese wrapped by terminal columns (a Chinese character takes two)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wide_headings: set[str] = set()

    def add_usage(self, usage: str | None, actions: Iterable[argparse.Action],
                  groups: Iterable[argparse._MutuallyExclusiveGroup],
                  prefix: str | None = None) -> None:
        if prefix is None:
            prefix = t("cli.help.argparse.usage", "usage: ")
        super().add_usage(usage, actions, groups, prefix)

    def _format_usage(self, usage: str | None, actions: Iterable[argparse.Action],
                      groups: Iterable[argparse._MutuallyExclusiveGroup],
                      prefix: str | None) -> str:
        if prefix is None or not _WIDE.search(prefix):
            return super()._format_usage(usage, actions, groups, prefix)
        # argparse counts characters: lay the usage out after blanks as wide as the prefix,
        # then put the prefix in their place
        blank = " " * display_width(prefix)
        text = super()._format_usage(usage, actions, groups, blank)
        return prefix + text[len(blank):]

    def start_section(self, heading: str | None) -> None:
        if heading and _WIDE.search(heading):
            self._wide_headings.add(heading)
        super().start_section(heading)

    def format_help(self) -> str:
        text = super().format_help()
        for heading in self._wide_headings:  # argparse ends a title with ":"; Chinese has "："
            text = re.sub(rf"(?m)^ *{re.escape(heading)}:$", lambda found: found[0][:-1] + "：",
                          text)
        return text

    def _split_lines(self, text: str, width: int) -> list[str]:
        if not _WIDE.search(text):
            return super()._split_lines(text, width)
        return wrap(self._whitespace_matcher.sub(" ", text).strip(), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if not _WIDE.search(text):
            return super()._fill_text(text, width, indent)
        lines = wrap(self._whitespace_matcher.sub(" ", text).strip(),
                     max(width - len(indent), 11))
        return "\n".join(indent + line for line in lines)


def _errors() -> list[tuple[re.Pattern[str], Callable[..., str]]]:
    """argparse's error messages (Python 3.10 to 3.13), each as a pattern and its words; the
    English of each is exactly argparse's, so that English output is unchanged."""
    return [
        (re.compile(r"argument (?P<argument>.+?): (?P<message>.*)", re.S),
         lambda argument, message: t(
             "cli.help.argparse.error.argument", "argument {argument}: {message}",
             argument=argument, message=said(message))),
        (re.compile(r"the following arguments are required: (?P<arguments>.*)", re.S),
         lambda arguments: t(
             "cli.help.argparse.error.required",
             "the following arguments are required: {arguments}", arguments=arguments)),
        (re.compile(r"unrecognized arguments: (?P<arguments>.*)", re.S),
         lambda arguments: t(
             "cli.help.argparse.error.unrecognized", "unrecognized arguments: {arguments}",
             arguments=arguments)),
        (re.compile(r"invalid choice: (?P<value>.*) \(choose from (?P<choices>.*)\)", re.S),
         lambda value, choices: t(
             "cli.help.argparse.error.invalid-choice",
             "invalid choice: {value} (choose from {choices})", value=value, choices=choices)),
        (re.compile(r"expected one argument"),
         lambda: t("cli.help.argparse.error.expected-one", "expected one argument")),
        (re.compile(r"expected at most one argument"),
         lambda: t("cli.help.argparse.error.expected-at-most-one",
                   "expected at most one argument")),
        (re.compile(r"expected at least one argument"),
         lambda: t("cli.help.argparse.error.expected-at-least-one",
                   "expected at least one argument")),
        (re.compile(r"expected (?P<count>[0-9]+) argument"),
         lambda count: t("cli.help.argparse.error.expected-count.one",
                         "expected {count} argument", count=count)),
        (re.compile(r"expected (?P<count>[0-9]+) arguments"),
         lambda count: t("cli.help.argparse.error.expected-count",
                         "expected {count} arguments", count=count)),
        (re.compile(r"invalid (?P<kind>\S+) value: (?P<value>.*)", re.S),
         lambda kind, value: t(
             "cli.help.argparse.error.invalid-value", "invalid {kind} value: {value}",
             kind=kind, value=value)),
        (re.compile(r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)", re.S),
         lambda option, matches: t(
             "cli.help.argparse.error.ambiguous", "ambiguous option: {option} could match "
             "{matches}", option=option, matches=matches)),
        (re.compile(r"not allowed with argument (?P<argument>.*)", re.S),
         lambda argument: t(
             "cli.help.argparse.error.not-allowed-with", "not allowed with argument {argument}",
             argument=argument)),
        (re.compile(r"ignored explicit argument (?P<value>.*)", re.S),
         lambda value: t(
             "cli.help.argparse.error.ignored-explicit", "ignored explicit argument {value}",
             value=value)),
        (re.compile(r"one of the arguments (?P<arguments>.*) is required", re.S),
         lambda arguments: t(
             "cli.help.argparse.error.one-required",
             "one of the arguments {arguments} is required", arguments=arguments)),
    ]


def said(message: str) -> str:
    """One of argparse's error messages in the user's language; one it does not know (a
    rocmate type's own message, already in the user's language) as it is."""
    for pattern, words in _errors():
        found = pattern.fullmatch(message)
        if found:
            return words(**found.groupdict())
    return message


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that says argparse's words in the user's language: the section
    titles, ``-h``'s line, the usage prefix (through :class:`Formatter`, its default) and the
    errors. Its sub-commands' parsers are Parsers too (argparse makes them of the parent's
    class)."""

    def __init__(self, *, parents: Sequence[argparse.ArgumentParser] = (),
                 formatter_class: type[argparse.HelpFormatter] = Formatter,
                 **kwargs: Any) -> None:
        super().__init__(formatter_class=formatter_class, **kwargs)
        self._positionals.title = t("cli.help.argparse.positionals", "positional arguments")
        self._optionals.title = t("cli.help.argparse.options", "options")
        for action in self._actions:
            if isinstance(action, argparse._HelpAction):
                action.help = t("cli.help.argparse.help", "show this help message and exit")
        # a parent's options join the sections of the same title: the titles above first
        for parent in parents:
            self._add_container_actions(parent)
            self._defaults.update(parent._defaults)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, t("cli.help.argparse.error", "{prog}: error: {message}",
                       prog=self.prog, message=said(message)) + "\n")


def version_help() -> str:
    """``--version``'s line (argparse's own words)."""
    return t("cli.help.argparse.version", "show program's version number and exit")


def retell(parser: argparse.ArgumentParser, helps: Sequence[tuple[str, str, str]]) -> None:
    """Put the help of options defined elsewhere in the user's language: ``helps`` holds
    (dest, the English help, its words now); an option whose help is no longer that English
    keeps its own."""
    for action in parser._actions:
        for dest, english, words in helps:
            if action.dest == dest and action.help == english:
                action.help = words


