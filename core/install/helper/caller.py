"""Who called the root helper: the one user whose groups it may change.

The helper acts only for the user who asked for it (docs/security.md, "Root stays closed"). That
user is told by the program that made the helper root, never by the plan:

* ``pkexec`` (the GUI's route, the installed launcher's and the AppImage's ``pkexec "$APPIMAGE"
  helper``) clears the environment and sets ``PKEXEC_UID`` to the real uid of the process that
  ran it; the caller cannot put anything else there.
* ``sudo`` (the CLI's route, and ``sudo rocmate install``, whose runner then starts the helper
  directly and hands its environment on) always sets ``SUDO_UID`` itself, after applying its
  own environment rules, so that one cannot be forged either.
* Root's own call: the helper runs as root and neither variable is set (a root shell, a script
  root runs). Root could run ``usermod`` itself, so it may name any regular account; a variable
  set to ``0`` (root ran pkexec or sudo itself) means the same.
* Not root (a ``--check`` someone runs by hand): nobody privileged set the variables, so the
  caller is the process's own real uid; a variable that names another uid is a claim the helper
  cannot check, and refuses.

The caller cannot be told, and the whole plan is refused, when a variable is not a plain
decimal uid as pkexec and sudo write it (no sign, space, leading zero, other digits, nothing
past 4294967294: ``(uid_t) -1`` is "no uid"), or when both are set and disagree (one of them was
carried in through an environment that sudo was told to keep). Refusals are one English line,
as all of the helper's reasons are (the helper imports no translations).

Only the standard library: this module runs as root.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["LAUNCHER_VARIABLES", "Caller", "UnknownCaller", "process_caller", "resolve_caller"]

LAUNCHER_VARIABLES = ("PKEXEC_UID", "SUDO_UID")
"""The variables pkexec and sudo set to the uid that ran them, in the order they are read."""
UID_RE = re.compile(r"0|[1-9][0-9]{0,9}")
"""A uid as pkexec and sudo print it (ASCII digits only: ``[0-9]``, never ``\\d``)."""
MAX_UID = 2**32 - 2
"""The largest uid; 2**32 - 1 is ``(uid_t) -1``, which means "no uid"."""
ROOT_UID = 0


class UnknownCaller(ValueError):
    """The helper cannot tell who called it; the message is shown to the user."""


@dataclass(frozen=True)
class Caller:
    """The user the helper acts for: ``uid``, and what said so (``source``: PKEXEC_UID,
    SUDO_UID, "root" for root's own call, "process" for a helper that is not root)."""

    uid: int
    source: str

    @property
    def is_root(self) -> bool:
        """Root's own call: any regular account may be named."""
        return self.uid == ROOT_UID

    def describe(self) -> str:
        """"uid 1000, from PKEXEC_UID" (for refusals)."""
        return f"uid {self.uid}, from {self.source}"


def _uid(name: str, value: str) -> int:
    """The uid in a launcher variable; :class:`UnknownCaller` unless it is a plain uid."""
    if not UID_RE.fullmatch(value) or int(value) > MAX_UID:
        shown = ascii(value[:24]) + ("..." if len(value) > 24 else "")
        raise UnknownCaller(f"cannot tell who called the helper: {name} is {shown}, not a uid")
    return int(value)


def resolve_caller(environ: Mapping[str, str], real_uid: int) -> Caller:
    """The caller of a helper with this environment and real uid (see the module's rules);
    :class:`UnknownCaller` when it cannot be told."""
    said = {name: _uid(name, environ[name]) for name in LAUNCHER_VARIABLES if name in environ}
    if len(set(said.values())) > 1:
        both = " and ".join(f"{name}={uid}" for name, uid in said.items())
        raise UnknownCaller(f"cannot tell who called the helper: {both} disagree")
    if real_uid != ROOT_UID:
        for name, uid in said.items():
            if uid != real_uid:
                raise UnknownCaller(
                    f"cannot tell who called the helper: {name} says uid {uid}, but the helper "
                    f"runs as uid {real_uid} (only pkexec and sudo, as root, say who called)"
                )
        return Caller(real_uid, "process")
    for name, uid in said.items():
        return Caller(uid, name)
    return Caller(ROOT_UID, "root")


def process_caller() -> Caller:
    """The caller of this process (its environment and real uid); :class:`UnknownCaller`."""
    return resolve_caller(os.environ, os.getuid())
