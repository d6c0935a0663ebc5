"""How the unprivileged side starts the privileged helper, and what its exit codes mean.

The helper (core/install/helper.py) is the only code that runs as root; nothing here imports it.

* From the AppImage: ``pkexec "$APPIMAGE" helper`` (root cannot read the user's FUSE mount, so it
  runs the AppImage file itself, which starts the helper in its "helper" mode).
* From an installed copy: ``pkexec <python> -I -m core.install.helper`` (``-I``: no user site,
  no environment variables, no current folder on the module path), or the installed launcher
  ``/usr/libexec/rocmate-helper`` when there is one, which polkit's action org.rocmate.helper
  names (resources/polkit/org.rocmate.helper.policy).
* From the CLI: ``sudo`` (interactive, so it may ask for a password in the terminal), or the same
  command directly when rocmate already runs as root.

pkexec exits 126 when the user dismissed the password prompt and 127 when the user is not
authorised (or no polkit agent is running); :func:`explain_exit` says so in words. The helper
itself exits 0 (done), 1 (a step failed, rolled back; or another run holds its single-run lock,
nothing ran), 2 (refused) or 3 (not root / usage).
"""

from __future__ import annotations

import os
from typing import Literal

__all__ = [
    "HELPER_MODE",
    "HELPER_MODULE",
    "INSTALLED_LAUNCHER",
    "Via",
    "explain_exit",
    "helper_command",
]

Via = Literal["pkexec", "sudo", "direct"]
HELPER_MODULE = "core.install.helper"
HELPER_MODE = "helper"
INSTALLED_LAUNCHER = "/usr/libexec/rocmate-helper"
PKEXEC_DISMISSED = 126
PKEXEC_NOT_AUTHORISED = 127
DISMISSED = "You dismissed the password prompt; nothing was changed."
NOT_AUTHORISED = (
    "Not authorised (no polkit agent running, or your account may not administer this machine)"
)


def helper_command(
    python: str,
    appimage: str | None,
    via: Via,
    launcher: str | None = None,
) -> list[str]:
    """The argv that starts the helper; the caller appends ``--check`` to only validate.

    ``python`` is the interpreter of this installed copy, ``appimage`` the AppImage file when
    running from one (``$APPIMAGE``), ``launcher`` an installed root-owned launcher (used with
    pkexec only, so that polkit shows rocmate's own action)."""
    if via not in ("pkexec", "sudo", "direct"):
        raise ValueError(f"via must be pkexec, sudo or direct, not {via!r}")
    if appimage:
        if not os.path.isabs(appimage):
            raise ValueError(f"the AppImage path must be absolute: {appimage!r}")
        inner = [appimage, HELPER_MODE]
    elif via == "pkexec" and launcher:
        if not os.path.isabs(launcher):
            raise ValueError(f"the launcher path must be absolute: {launcher!r}")
        inner = [launcher]
    else:
        if not os.path.isabs(python):
            raise ValueError(f"pkexec and sudo need an absolute interpreter path: {python!r}")
        inner = [python, "-I", "-m", HELPER_MODULE]
    if via == "direct":
        return inner
    return [via, *inner]


def explain_exit(code: int, via: str) -> str | None:
    """Words for an exit code that pkexec, not the helper, produced (None: the helper's own code;
    its last event says what happened).

    ``via`` is "pkexec", "sudo" or "direct" (or the first element of the helper's argv). sudo's
    own failure (1) cannot be told from a failed step by the code alone: the helper always ends
    with a ``done`` event, sudo does not."""
    if os.path.basename(via) != "pkexec":
        return None
    if code == PKEXEC_DISMISSED:
        return DISMISSED
    if code == PKEXEC_NOT_AUTHORISED:
        return NOT_AUTHORISED
    return None
