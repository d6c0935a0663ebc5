"""How the unprivileged side starts the privileged helper, and what its exit codes mean.

The helper (core/install/helper/) is the only code that runs as root; nothing here imports it.

* From an installed copy: ``pkexec <python> -I -m core.install.helper`` (``-I``: no user site,
  no environment variables, no current folder on the module path), or the installed launcher
  ``/usr/libexec/rocmate-helper`` when there is one, which polkit's action org.rocmate.helper
  names (resources/polkit/org.rocmate.helper.policy).
* From the CLI: ``sudo`` (interactive, so it may ask for a password in the terminal), or the same
  command directly when rocmate already runs as root.
* From the AppImage: ``pkexec /path/to/rocmate-x86_64.AppImage helper`` (root cannot read the
  user's FUSE mount, so root is handed the image *file* and mounts or extracts it anew;
  ``--appimage-extract-and-run`` goes first where root could not mount it: no libfuse2 or no
  /dev/fuse; root then unpacks into its own home, :data:`ROOT_EXTRACT_DIR`, never /tmp, where
  a user could prepare the folder the runtime unpacks into). Which image:
  :func:`core.bundle.appimage_file`, believed only when this process is the frozen program
  inside ``$APPDIR`` (every child of *any* AppImage inherits ``$APPIMAGE``).
  The file must pass :func:`appimage_problems`: a regular file owned by root or by this user,
  that neither its group nor others can change, in folders only root or this user can change
  (sticky folders such as /tmp too). docs/security.md says why that is as safe as the installed
  route and what it trusts.

:func:`helper_route` is what callers use: it finds ``sudo``/``pkexec`` at fixed paths
(/usr/bin, then /bin; never through the user's PATH) and refuses to ask for root when the
interpreter, the ``core`` package, resources/data or the virtual environment that root would
load can be changed by anyone but root. Running as root already needs no route and no check.

The route's argv ends with ``--cancel-on-eof`` (:data:`CANCEL_ON_EOF`; also through the
installed launcher, which passes its arguments on): a user's process may not signal the root
helper that sudo or pkexec started, so the runner sends the plan as one line, keeps the helper's
stdin open, and closes it to cancel; the helper then stops its step and rolls back.

Whichever route, the helper acts only for the user who called it: pkexec and sudo tell it who
(``PKEXEC_UID``, ``SUDO_UID``; nothing here sets them), and the direct route hands rocmate's own
environment on, so ``sudo rocmate install`` still names its caller
(core/install/helper/caller.py).

pkexec exits 126 when the user dismissed the password prompt and 127 when the user is not
authorised (or no polkit agent is running); :func:`explain_exit` says so in words. The helper
itself exits 0 (done), 1 (a step failed, rolled back; the run was cancelled, rolled back; or
another run holds its single-run lock, nothing ran), 2 (refused) or 3 (not root / usage).
"""

from __future__ import annotations

import os
import pwd
import stat
import sys
import sysconfig
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.bundle import appimage_file, frozen
from core.i18n import t
from core.resources import data_dir

__all__ = [
    "CANCEL_ON_EOF",
    "HELPER_MODE",
    "HELPER_MODULE",
    "HELPER_WATCHES_STDIN",
    "INSTALLED_LAUNCHER",
    "TOOL_DIRS",
    "Route",
    "Via",
    "appimage_problems",
    "explain_exit",
    "find_tool",
    "helper_command",
    "helper_files",
    "helper_route",
    "root_problems",
]

Via = Literal["pkexec", "sudo", "direct"]
HELPER_MODULE = "core.install.helper"
HELPER_MODE = "helper"
INSTALLED_LAUNCHER = "/usr/libexec/rocmate-helper"
TOOL_DIRS = ("/usr/bin", "/bin")
"""Where sudo and pkexec are looked for, in order (the user's PATH is never consulted)."""
CANCEL_ON_EOF = "--cancel-on-eof"
"""The helper option that makes the end of its stdin mean "stop and roll back" (see runner.py)."""
HELPER_WATCHES_STDIN = True
"""Whether :func:`helper_route` passes CANCEL_ON_EOF (core/install/helper/ accepts it). Without
it, a cancel reaches a root helper only as a signal, which an unprivileged runner is not allowed
to send."""
EXTRACT_AND_RUN = "--appimage-extract-and-run"
"""The AppImage runtime's option to run without FUSE (it extracts the image to a temporary folder
first)."""
ROOT_EXTRACT_DIR = "/root"
"""Where root unpacks the AppImage when it cannot mount it: a folder only root may write to."""
PKEXEC_DISMISSED = 126
PKEXEC_NOT_AUTHORISED = 127
MAX_PROBLEMS = 3


def dismissed() -> str:
    """What pkexec's 126 means: the password prompt was closed."""
    return t("install.pkexec.dismissed", "You dismissed the password prompt; nothing was changed.")


def not_authorised() -> str:
    """What pkexec's 127 means."""
    return t("install.pkexec.not-authorised",
             "Not authorised (no polkit agent running, or your account may not administer this "
             "machine)")


def system_wide() -> str:
    """How to install rocmate so that root may run its helper."""
    return t("install.route.system-wide",
             "Install rocmate system-wide, owned by root: for example a root-owned checkout in "
             "{source}, {make_venv} and {pip_install}, then run {command}.",
             source="/opt/rocmate-src", make_venv="`sudo python3 -m venv /opt/rocmate`",
             pip_install="`sudo /opt/rocmate/bin/pip install -e /opt/rocmate-src`",
             command="`/opt/rocmate/bin/rocmate install`")


def helper_command(
    python: str,
    appimage: str | None,
    via: Via,
    launcher: str | None = None,
    extract: bool = False,
) -> list[str]:
    """The argv shape that starts the helper; the caller appends ``--check`` to only validate,
    or ``--cancel-on-eof`` (:data:`CANCEL_ON_EOF`, as :func:`helper_route` does) to run it so
    that closing its stdin cancels it.

    ``python`` is the interpreter of this installed copy, ``launcher`` an installed root-owned
    launcher (used with pkexec only, so that polkit shows rocmate's own action). ``appimage``
    is the AppImage file of the packaged program (``extract``: root runs it with
    ``--appimage-extract-and-run``). ``via`` stays a bare name here: :func:`helper_route` puts
    the fixed path in."""
    if via not in ("pkexec", "sudo", "direct"):
        raise ValueError(f"via must be pkexec, sudo or direct, not {via!r}")
    if appimage:
        if not os.path.isabs(appimage):
            raise ValueError(f"the AppImage path must be absolute: {appimage!r}")
        inner = [appimage, *([EXTRACT_AND_RUN] if extract else []), HELPER_MODE]
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
        return dismissed()
    if code == PKEXEC_NOT_AUTHORISED:
        return not_authorised()
    return None


# -- choosing the route ---------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    """How to start the helper: ``argv``, or ``problem`` (in words) when there is no safe way."""

    argv: list[str] | None
    problem: str | None = None


def find_tool(name: str, dirs: Sequence[str] = TOOL_DIRS) -> str | None:
    """``name`` (sudo, pkexec) in the fixed folders: the first executable regular file."""
    for folder in dirs:
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def helper_route(
    via: Literal["sudo", "pkexec"] = "sudo",
    *,
    python: str | None = None,
    euid: int | None = None,
    files: Sequence[tuple[str, bool]] | None = None,
    tool_dirs: Sequence[str] = TOOL_DIRS,
    launcher: str = INSTALLED_LAUNCHER,
    image: Path | None = None,
    uid: int | None = None,
    root_can_mount: bool | None = None,
) -> Route:
    """The helper's argv for this process: directly when already root, else through ``via``
    found in ``tool_dirs``, and only when root would load nothing that others can change. It
    ends with :data:`CANCEL_ON_EOF` while :data:`HELPER_WATCHES_STDIN` is set.

    ``files`` are the (path, whole tree?) pairs to check; default :func:`helper_files`. From the
    AppImage (``image``, default :func:`core.bundle.appimage_file`) root runs the image file
    itself, through ``via``, when it passes
    :func:`appimage_problems`; ``root_can_mount`` (default :func:`root_can_mount_fuse`) picks
    the mounted or the extract-and-run start."""
    python = python or sys.executable
    euid = os.geteuid() if euid is None else euid
    extra = [CANCEL_ON_EOF] if HELPER_WATCHES_STDIN else []
    image = appimage_file() if image is None else image
    if euid == 0:
        if frozen() or image is not None:  # the packaged program is its own helper
            return Route([sys.executable, HELPER_MODE, *extra])
        if not python or not os.path.isabs(python):
            return Route(None, _not_absolute(python))
        return Route([*helper_command(python, None, "direct"), *extra])
    tool = find_tool(via, tool_dirs)
    if tool is None:
        looked = t("install.route.paths-and", " and ").join(
            os.path.join(d, via) for d in tool_dirs)
        if via == "pkexec":
            return Route(None, t(
                "install.route.pkexec-missing",
                "{program} is not installed (looked for {looked}); install the {package} "
                "package, or run {command} in a terminal", program=via, looked=looked,
                package="pkexec (policykit-1)", command="`rocmate install`"))
        return Route(None, t("install.route.sudo-missing",
                             "{program} is not installed (looked for {looked}); install "
                             "{program}, or carry out the root steps as root",
                             program=via, looked=looked))
    if image is not None:
        return _appimage_route(tool, via, image, extra, os.getuid() if uid is None else uid,
                               root_can_mount)
    if not python or not os.path.isabs(python):
        return Route(None, _not_absolute(python))
    use_launcher = via == "pkexec" and os.path.isfile(launcher)
    checked = [(launcher, False)] if use_launcher else list(files or helper_files(python))
    problems = root_problems(checked)
    if problems:
        shown = t("doctor.list-separator", "; ").join(problems[:MAX_PROBLEMS])
        more = len(problems) - MAX_PROBLEMS
        if more > 0:
            shown = t("install.route.problems-and-more", "{problems} (and {count} more)",
                      problems=shown, count=more)
        return Route(
            None,
            t("install.route.unsafe-files",
              "rocmate will not ask for root rights to run its helper from files that others "
              "than root can change: {problems}. Anyone who can change them could run their own "
              "code as root. {advice}", problems=shown, advice=system_wide()),
        )
    argv = helper_command(python, None, via, launcher if use_launcher else None)
    return Route([tool, *argv[1:], *extra])


def _appimage_route(tool: str, via: Via, image: Path, extra: list[str], uid: int,
                    root_can_mount: bool | None) -> Route:
    problems = appimage_problems(str(image), uid)
    if problems:
        shown = t("doctor.list-separator", "; ").join(problems[:MAX_PROBLEMS])
        return Route(None, t(
            "install.route.unsafe-appimage",
            "rocmate will not ask for root rights to run {image}: {problems}. Anyone who can "
            "change it could run their own code as root. Move the file into a folder of your "
            "own (for example {folder}), make it yours and writable by you alone "
            "({command}), and start it again.", image=str(image), problems=shown,
            folder="~/Applications", command=f"`chmod 755 {image.name}`"))
    mount = root_can_mount_fuse() if root_can_mount is None else root_can_mount
    argv = helper_command("", str(image), via, extract=not mount)
    if mount:
        return Route([tool, *argv[1:], *extra])
    # The runtime unpacks into $TMPDIR/appimage_extracted_<md5 of the image>, a name anyone who
    # can read the image can work out: in /tmp a user could make that folder first and swap
    # what root unpacks there before it runs. Root unpacks into its own home instead (pkexec
    # clears the environment, so the variable goes through env at its fixed path).
    env_tool = find_tool("env")
    if env_tool is None:
        return Route(None, t("install.route.env-missing",
                             "{program} is missing, which root needs to run the AppImage "
                             "without FUSE; install {package}", program="/usr/bin/env",
                             package="libfuse2t64 (or libfuse2)"))
    return Route([tool, env_tool, f"TMPDIR={ROOT_EXTRACT_DIR}", *argv[1:], *extra])


def root_can_mount_fuse(dev_fuse: str = "/dev/fuse", library: str = "libfuse.so.2") -> bool:
    """Whether root could mount the AppImage: the runtime needs libfuse 2 and /dev/fuse.
    (Without them root runs it with ``--appimage-extract-and-run``: slower, same result.)"""
    if not os.path.exists(dev_fuse):
        return False
    import ctypes

    try:
        ctypes.CDLL(library)
    except OSError:
        return False
    return True


def appimage_problems(path: str, uid: int) -> list[str]:
    """Why root should not run the AppImage at ``path`` for user ``uid``: it must be a regular
    file owned by root or ``uid`` that its group and others cannot change, and every folder
    above it must be one that only root or ``uid`` can change (a sticky folder, such as /tmp,
    lets others add files but not replace this one). [] when it is safe."""
    problems: list[str] = []
    try:
        info = os.lstat(path)
    except OSError as exc:
        return [t("install.route.cannot-check", "{path} cannot be checked ({reason})",
                  path=path, reason=exc.strerror or exc)]
    if not stat.S_ISREG(info.st_mode):
        problems.append(t("install.route.appimage-not-file", "{path} is not a plain file",
                          path=path))
    for entry in _chain(os.path.abspath(path)):
        try:
            entry_info = os.lstat(entry)
        except OSError as exc:
            problems.append(t("install.route.cannot-check", "{path} cannot be checked "
                              "({reason})", path=entry, reason=exc.strerror or exc))
            continue
        sticky_dir = stat.S_ISDIR(entry_info.st_mode) and entry_info.st_mode & stat.S_ISVTX
        if entry_info.st_uid not in (0, uid):
            problems.append(t("install.route.not-root-owned", "{path} belongs to {owner}",
                              path=entry, owner=_owner(entry_info.st_uid)))
        elif entry_info.st_mode & 0o022 and not sticky_dir:
            problems.append(t("install.route.writable-by-group", "{path} can be changed by its "
                              "group", path=entry) if not entry_info.st_mode & 0o002 else
                            t("install.route.writable-by-others", "{path} can be changed by "
                              "its group and others", path=entry))
    return problems


def _not_absolute(python: str | None) -> str:
    return t("install.route.python-not-absolute",
             "rocmate's interpreter path is not absolute: {python}", python=repr(python))


def helper_files(python: str) -> list[tuple[str, bool]]:
    """What root loads when it runs ``python -I -m core.install.helper``: (path, whole tree?).

    The interpreter, its standard library folder, the ``core`` package and resources/data, and
    the virtual environment (site-packages, ``.pth`` files, pyvenv.cfg) when this is one."""

    core_dir = Path(__file__).resolve().parents[1]
    files: list[tuple[str, bool]] = [
        (python, False),
        (str(core_dir), True),
        (str(data_dir()), True),
    ]
    stdlib = sysconfig.get_path("stdlib")
    if stdlib:
        files.append((stdlib, False))
    this_python = os.path.realpath(python) == os.path.realpath(sys.executable)
    if this_python and sys.prefix != sys.base_prefix:
        files.append((sys.prefix, True))
    return files


def root_problems(files: Sequence[tuple[str, bool]]) -> list[str]:
    """Why root should not load these files: each one (and each folder above it, and what a
    link points to) must belong to root and be writable by nobody else. [] when all are safe."""
    problems: list[str] = []
    seen: set[str] = set()
    for path, tree in files:
        for entry in _entries(path, tree):
            if entry in seen:
                continue
            seen.add(entry)
            problem = _problem(entry)
            if problem:
                problems.append(problem)
    return problems


def _entries(path: str, tree: bool) -> Iterator[str]:
    """``path``, the folders above it, where it really is, and (``tree``) everything below."""
    yield from _chain(os.path.abspath(path))
    real = os.path.realpath(path)
    yield from _chain(real)
    if not tree or not os.path.isdir(real):
        return
    for folder, dirs, names in os.walk(real, onerror=None, followlinks=False):
        for name in (*dirs, *names):
            entry = os.path.join(folder, name)
            yield entry
            if os.path.islink(entry):
                yield from _chain(os.path.realpath(entry))


def _chain(path: str) -> Iterator[str]:
    current = path
    while True:
        yield current
        parent = os.path.dirname(current)
        if parent == current:
            return
        current = parent


def _problem(path: str) -> str | None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None  # a link to nothing, or a file that went away: nothing there to load
    except OSError as exc:
        return t("install.route.cannot-check", "{path} cannot be checked ({reason})",
                 path=path, reason=exc.strerror or exc)
    if stat.S_ISLNK(info.st_mode):
        return None  # the folder holding it and the place it points to are checked
    if info.st_uid != 0:
        return t("install.route.not-root-owned", "{path} belongs to {owner}", path=path,
                 owner=_owner(info.st_uid))
    if info.st_mode & 0o002:
        return t("install.route.writable-by-others", "{path} can be changed by its group and "
                 "others", path=path)
    if info.st_mode & 0o022:
        return t("install.route.writable-by-group", "{path} can be changed by its group",
                 path=path)
    return None


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"
