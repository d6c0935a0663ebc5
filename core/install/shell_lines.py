"""Comment out one line of a user's shell start-up file, and put it back (issue 33).

A plan step that the user agreed to runs this as the user (never as root), as
``python -m core.install.shell_lines comment --path FILE --line N --expect TEXT``:

* it reads the file again and refuses when line N is no longer exactly TEXT (the file changed
  since the plan showed it), when the file is not the user's own, or not a regular file;
* it keeps the file as it was beside it (``FILE.rocmate-backup``, or ``-2``, ``-3`` ... when
  that name is taken), then writes the new text to a temporary file in the same folder with the
  same mode and group and renames it over the file: a reader sees the old file or the new one,
  never half of one. A link (dotfiles kept elsewhere) is followed: its target is changed;
* the line becomes ``# rocmate: TEXT``; every other byte stays as it was;
* what it did goes as one JSON line to ``$XDG_STATE_HOME/rocmate/shell-edits.jsonl`` and to
  stdout.

``python -m core.install.shell_lines undo --path FILE`` puts the last such line of FILE back
the same way (refusing when the commented line is gone or changed: the backup is then named).
Exit status: 0 done (or already done), 1 refused, 2 a usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

PREFIX = b"# rocmate: "
SCHEMA = "rocmate.shell-edit/1"
MAX_BYTES = 4 << 20


class Refused(Exception):
    """Why the file is left as it is (one sentence)."""


def record_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                            ".local/state")
    return Path(base) / "rocmate" / "shell-edits.jsonl"


def commented(text: bytes) -> bytes:
    """What line ``text`` becomes."""
    return PREFIX + text


def comment_out(path: str, line: int, expect: str) -> dict[str, Any]:
    """Comment out line ``line`` (1-based) of ``path`` if it is exactly ``expect``."""
    real, lines, info = _read(path)
    want = os.fsencode(expect)
    if not 1 <= line <= len(lines):
        raise Refused(f"{path} has no line {line} any more: it changed since the plan was made;"
                      " plan again")
    if lines[line - 1] == commented(want):
        return {"ok": True, "already": True, "path": path, "line": line}
    if lines[line - 1] != want:
        raise Refused(f"line {line} of {path} is no longer {expect!r} (it reads "
                      f"{os.fsdecode(lines[line - 1])!r}): the file changed since the plan was "
                      "made; plan again")
    backup = _backup(real, info)
    lines[line - 1] = commented(want)
    _write(real, b"\n".join(lines), info)
    done = {"schema": SCHEMA, "action": "comment", "path": path, "real": real, "line": line,
            "before": expect, "after": os.fsdecode(commented(want)), "backup": backup,
            "time": _now()}
    _remember(done)
    return {"ok": True, **done}


def undo(path: str) -> dict[str, Any]:
    """Put back the last line of ``path`` that :func:`comment_out` changed."""
    edit = _last_edit(path)
    if edit is None:
        raise Refused(f"rocmate has commented out no line of {path} (nothing in "
                      f"{record_path()})")
    real, lines, info = _read(path)
    before, after = os.fsencode(edit["before"]), os.fsencode(edit["after"])
    number = int(edit["line"])
    if not (1 <= number <= len(lines) and lines[number - 1] == after):
        places = [i for i, text in enumerate(lines, start=1) if text == after]
        if len(places) != 1:
            raise Refused(f"{path} no longer holds the line rocmate commented out "
                          f"({edit['after']!r}); its copy from before is {edit['backup']}")
        number = places[0]
    lines[number - 1] = before
    _write(real, b"\n".join(lines), info)
    done = {"schema": SCHEMA, "action": "undo", "path": path, "real": real, "line": number,
            "before": edit["after"], "after": edit["before"], "backup": edit["backup"],
            "time": _now()}
    _remember(done)
    return {"ok": True, **done}


def _read(path: str) -> tuple[str, list[bytes], os.stat_result]:
    if not os.path.isabs(path):
        raise Refused(f"{path} is not an absolute path")
    real = os.path.realpath(path)
    try:
        info = os.stat(real)
    except OSError as exc:
        raise Refused(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise Refused(f"{path} is not a regular file")
    if info.st_uid != os.geteuid():
        raise Refused(f"{path} is not yours (owner uid {info.st_uid}): change it yourself")
    if info.st_size > MAX_BYTES:
        raise Refused(f"{path} is larger than {MAX_BYTES >> 20} MiB: not a start-up file")
    try:
        data = Path(real).read_bytes()
    except OSError as exc:
        raise Refused(f"cannot read {path}: {exc.strerror or exc}") from exc
    return real, data.split(b"\n"), info


def _backup(real: str, info: os.stat_result) -> str:
    """A copy of ``real`` as it is now, beside it, under a name not yet taken."""
    data = Path(real).read_bytes()
    for number in range(1, 1000):
        name = f"{real}.rocmate-backup" + (f"-{number}" if number > 1 else "")
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, stat.S_IMODE(info.st_mode))
        except FileExistsError:
            continue
        except OSError as exc:
            raise Refused(f"cannot keep a copy of {real} beside it: {exc.strerror or exc}") \
                from exc
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        return name
    raise Refused(f"too many copies of {real} beside it already")


def _write(real: str, data: bytes, info: os.stat_result) -> None:
    """``data`` into ``real`` at once: a temporary file beside it with the same mode and
    group, renamed over it."""
    folder, name = os.path.split(real)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.rocmate-", dir=folder)
    except OSError as exc:
        raise Refused(f"cannot write in {folder}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))
            if os.fstat(handle.fileno()).st_gid != info.st_gid:
                os.fchown(handle.fileno(), -1, info.st_gid)
            os.fsync(handle.fileno())
        os.replace(tmp, real)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise Refused(f"cannot write {real}: {exc.strerror or exc}") from exc


def _remember(done: dict[str, Any]) -> None:
    path = record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(done) + "\n")


def _last_edit(path: str) -> dict[str, Any] | None:
    """The last comment of ``path`` that no later undo put back."""
    try:
        text = record_path().read_text(encoding="utf-8")
    except OSError:
        return None
    open_edits: list[dict[str, Any]] = []
    for raw in text.splitlines():
        try:
            entry = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("path") != path:
            continue
        if entry.get("action") == "comment":
            open_edits.append(entry)
        elif entry.get("action") == "undo" and open_edits:
            open_edits = [e for e in open_edits if e.get("before") != entry.get("after")]
    return open_edits[-1] if open_edits else None


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m core.install.shell_lines")
    sub = parser.add_subparsers(dest="action", required=True)
    comment = sub.add_parser("comment", help="comment out one line of a start-up file")
    comment.add_argument("--path", required=True)
    comment.add_argument("--line", type=int, required=True)
    comment.add_argument("--expect", required=True, help="the line as the plan showed it")
    back = sub.add_parser("undo", help="put back the line rocmate commented out last")
    back.add_argument("--path", required=True)
    args = parser.parse_args(argv)
    try:
        if args.action == "comment":
            result = comment_out(args.path, args.line, args.expect)
        else:
            result = undo(args.path)
    except Refused as exc:
        print(json.dumps({"ok": False, "error": str(exc)}), flush=True)
        print(f"rocmate: {exc}", file=sys.stderr, flush=True)  # the line a runner shows
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
