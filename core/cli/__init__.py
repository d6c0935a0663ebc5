"""Command line: ``rocmate doctor | snapshot | explain | bench | tune | install | env | report``.

Thin commands over core.operations: each module here defines a command's options and prints
what its operation returns. Without a sub-command rocmate runs the doctor in the terminal.
"""

from __future__ import annotations

import _signal  # the C module: `signal` itself takes milliseconds to import (enum)

# Ctrl-C while Python still loads rocmate (the first tens of milliseconds): end quietly, as a
# program that has not started yet, instead of a KeyboardInterrupt traceback from the import
# machinery. main() takes Ctrl-C back as soon as it can answer it in words (quiet_start_over).
_signal.signal(_signal.SIGINT, _signal.SIG_DFL)

import argparse  # noqa: E402 (after the line above: the imports are the window it closes)
import difflib  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import sys  # noqa: E402
from typing import NoReturn  # noqa: E402

from core import __version__  # noqa: E402

# the words rocmate speaks (core.i18n.LANGUAGES; that module is imported once a command runs,
# so that Ctrl-C while Python still starts rocmate finds main() ready to catch it)
LANGUAGES = ("en", "zh_CN")

# The module under core.cli that defines each command. Only the one a command line names is
# imported (``rocmate explain`` answers in well under half a second); ``--help`` loads them all.
MODULES = {"doctor": "doctor", "snapshot": "doctor", "explain": "doctor", "bench": "bench",
           "install": "install", "env": "install", "report": "report", "gui": "gui",
           "memory": "memory", "tune": "tune"}
COMMANDS = tuple(MODULES)


# Options of the doctor (what plain `rocmate` runs) that take a value: their value is never a
# command (`rocmate --root report` replays the folder "report").
_VALUE_OPTIONS = ("--root", "--python", "--torch-timeout", "--color")


def command_word(words: list[str]) -> tuple[int, str] | None:
    """The first word that is neither an option nor an option's value, and where it is."""
    skip = False
    for i, word in enumerate(words):
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in _VALUE_OPTIONS
        else:
            return i, word
    return None


def take_lang(words: list[str]) -> tuple[list[str], str | None]:
    """``--lang X`` (or ``--lang=X``) taken out of a command line, wherever it stands; ValueError
    for a language rocmate does not speak or a missing value."""
    rest: list[str] = []
    lang = None
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            rest += words[i:]
            break
        if word == "--lang" or word.startswith("--lang="):
            if word == "--lang":
                if i + 1 >= len(words):
                    raise ValueError("--lang needs a language: " + ", ".join(LANGUAGES))
                value, i = words[i + 1], i + 2
            else:
                value, i = word.split("=", 1)[1], i + 1
            if value not in LANGUAGES:
                raise ValueError(f"unknown language {value!r} for --lang: use one of "
                                 f"{', '.join(LANGUAGES)}")
            lang = value
            continue
        rest.append(word)
        i += 1
    return rest, lang


def quiet_start_over() -> None:
    """From here on Ctrl-C is a KeyboardInterrupt that the commands answer ("interrupted", 130)
    instead of the silent end it is while rocmate loads (the top of this module)."""
    if _signal.getsignal(_signal.SIGINT) == _signal.SIG_DFL:
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)


def by_ctrl_c(exc: BaseException) -> bool:
    """Whether ``exc`` is Ctrl-C: a KeyboardInterrupt, or an error Python raised because one
    came in the middle of making a class (a module still importing: "Error calling
    __set_name__" with the KeyboardInterrupt as its cause)."""
    seen: set[int] = set()
    at: BaseException | None = exc
    while at is not None and id(at) not in seen:
        if isinstance(at, KeyboardInterrupt):
            return True
        seen.add(id(at))
        at = at.__cause__ or at.__context__
    return False


def main(argv: list[str] | None = None) -> int:
    quiet_start_over()
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        words, lang = take_lang(words)
    except ValueError as exc:
        print(f"rocmate: {exc}", file=sys.stderr)
        return 2
    found = command_word(words)
    command = found[1] if found else None
    if command is not None and command not in COMMANDS:
        from core.i18n import set_language, t

        set_language(lang)
        close = difflib.get_close_matches(command, COMMANDS, n=1, cutoff=0.7)
        said = t("cli.unknown-command.close", "unknown command '{command}'; did you mean "
                 "'{close}'?", command=command, close=close[0]) if close else t(
            "cli.unknown-command", "unknown command '{command}' (commands: {commands})",
            command=command, commands=", ".join(COMMANDS))
        print(f"rocmate: {said}", file=sys.stderr)
        return 2
    if command is None and not {"-h", "--help", "--version"} & set(words):
        words, command = ["doctor", *words], "doctor"  # plain `rocmate` checks the machine
    elif found and found[0] > 0:  # options written before the command: theirs
        words = [command or "doctor", *words[:found[0]], *words[found[0] + 1:]]
    try:
        from core.i18n import set_language
        from core.knowledge.rows import KnowledgeError

        set_language(lang)  # None: the environment's (LANGUAGE, LC_ALL, LC_MESSAGES, LANG)
        args = parse(build_parser(command), words)
    except (KeyboardInterrupt, RuntimeError) as exc:  # Ctrl-C while the command still loads
        if not by_ctrl_c(exc):
            raise
        print("rocmate: interrupted", file=sys.stderr)  # i18n: english
        return 130
    if getattr(args, "json", False):
        set_language("en")  # JSON is for programs: its texts in English, whatever the language
    from core.i18n import t

    try:
        return int(args.func(args))
    except KnowledgeError as exc:
        print("rocmate: " + t("cli.knowledge-broken", "its knowledge base is broken: {error}",
                              error=exc), file=sys.stderr)
        return 3
    except (KeyboardInterrupt, RuntimeError) as exc:
        if not by_ctrl_c(exc):
            raise
        print("rocmate: " + t("cli.interrupted", "interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def parse(parser: argparse.ArgumentParser, words: list[str]) -> argparse.Namespace:
    """``words`` parsed; a word no option takes is refused with the usage of the command it
    was written for (``rocmate doctor --bogus`` shows doctor's usage, not every command's)."""
    args, extra = parser.parse_known_args(words)
    if extra:
        said = "unrecognized arguments: " + " ".join(extra)  # argparse's words, translated
        _command_parser(parser, args).error(said)
    return args


def _command_parser(parser: argparse.ArgumentParser,
                    args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the command ``args`` ran (its sub-command's, for ``report list``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            if chosen is not None:
                return _command_parser(chosen, args)
    return parser


def end(status: int) -> NoReturn:
    """End the rocmate process with ``status``. Everything the command made goes with the
    process, so the cycle collector's last walk over it at exit is skipped (``gc.freeze``):
    after a 20 MB report was read, that walk alone took a third of a second."""
    gc.freeze()
    raise SystemExit(status)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command, or with ``command``'s module alone (a quick start). Its
    words are in the current language: build it after :func:`core.i18n.set_language`."""
    from core.cli.argwords import Parser, version_help
    from core.i18n import t

    parser = Parser(
        prog="rocmate",
        description=t("cli.help.rocmate.description", "Gets PyTorch running on your AMD GPU with "
                      "ROCm, then benchmarks it."),
        epilog=t("cli.help.rocmate.epilog", "Without a command: the desktop app on a desktop, "
                 "else rocmate doctor. Exit status: 0 done; 1 the answer is no (each command's "
                 "--help says what that means for it); 2 a usage or input error (an option, "
                 "folder, file or run that cannot be used); 3 rocmate's knowledge base is broken; "
                 "4 (doctor) Not supported; 130 interrupted."),
    )
    parser.add_argument("--version", action="version", version=f"rocmate {__version__}",
                        help=version_help())
    _lang_option(parser)
    sub = parser.add_subparsers(dest="command")
    names = [MODULES[command]] if command in MODULES else list(dict.fromkeys(MODULES.values()))
    for name in names:
        module = importlib.import_module(f"core.cli.{name}")
        module.add_parsers(sub)
    for each in sub.choices.values():
        _lang_option(each)
    return parser


def _lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang`` in every command's help (main() takes it out of the line before parsing, so
    it works anywhere on it)."""
    from core.i18n import t

    parser.add_argument("--lang", choices=LANGUAGES, metavar="{en,zh_CN}",
                        help=t("cli.help.common.lang", "the language to answer in (default: from "
                               "LANGUAGE, LC_ALL, LC_MESSAGES or LANG; --json output is always "
                               "English)"))
