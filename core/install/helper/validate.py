"""The privileged helper's input checks: limits, the closed verb table, strict argument schemas.

:func:`check_input` turns the raw bytes of stdin into a :class:`CheckedPlan`: the actions the helper
would carry out, or the reasons it refuses. Nothing here runs a program or writes a file.

The verbs (each step maps to exactly one; anything else is refused):

=================  ======================================================================
apt-update         ``apt-get update``
apt-install        ``apt-get install -y [--no-install-recommends] PKG...`` (only what plans
                   install: :data:`INSTALLABLE`)
apt-purge          ``apt-get purge -y PKG...`` (only ROCm's own packages, :data:`PURGEABLE`,
                   and only with ``"consent": true``)
usermod            ``usermod -aG GROUPS USER`` or ``usermod -a -G GROUPS USER`` (GROUPS from
                   render, video; USER a regular account of the target, and the calling
                   user's own: :mod:`core.install.helper.caller`)
keyring            /etc/apt/keyrings/rocm.gpg or amdrocm.gpg (:data:`ROCMATE_FILES`), with
                   ``key_fingerprint``
apt-source         one of rocmate's source files in /etc/apt/sources.list.d (:data:`ROCMATE_FILES`)
apt-pin            the file /etc/apt/preferences.d/rocm-pin-600 (the rocm-pin-600 template)
ttm-limit          the file /etc/modprobe.d/rocmate-ttm.conf (:data:`TTM_CONF`): rocmate's header
                   and ``options ttm pages_limit=N page_pool_size=N``, N whole GiB of 4 KiB
                   pages, at most the target's RAM less the floor; what the file held before
                   is kept in :data:`TTM_UNDO`
ttm-restore        ``ttm-restore /etc/modprobe.d/rocmate-ttm.conf``: put back what
                   :data:`TTM_UNDO` kept (the old content, or no file), then remove the record
=================  ======================================================================

The helper writes only the files named in :data:`ROCMATE_FILES`; every other file in the apt
folders (Ubuntu's ubuntu.sources, docker.gpg, another program's pin) belongs to the system or to
another program and is never replaced, even when it is a plain file. ``apt-get install`` runs with
``--no-remove`` (core/install/helper/), so an install can never take a package away; only a
consented ``apt-get purge`` of ROCm's own packages removes any.

``amdgpu-install`` was a verb until no set-up route planned it any more (WSL moved to librocdxg):
a privileged verb nothing uses is only attack surface, so it is refused as any unknown program,
with a word for the plan of an older rocmate (:data:`RETIRED`). What only its route asked for
went with it: the packages amdgpu-install and hsa-runtime-rocr4wsl-amdgpu
(:data:`RETIRED_PACKAGES`), the amdgpu.list/amdgpu.sources files
(core.install.helper.policy.ROCMATE_FILES) and the repo.radeon.com/amdgpu/ repository
(rocm.toml apt_uri_prefixes).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from typing import Any, ClassVar

from core.install.helper.caller import Caller, UnknownCaller, process_caller
from core.install.helper.openpgp import KeyFormatError, parse_key
from core.install.helper.policy import (
    INSTALLABLE_RE,
    KEYRING_DIR,
    MODPROBE_DIR,
    PREFERENCES_DIR,
    PURGEABLE,
    ROCMATE_FILES,
    SCHEMA,
    SOURCES_DIR,
    TTM_CONF,
    TTM_HEADER,
    TTM_LINE,
    TTM_MAX_GIB,
    TTM_PAGES_PER_GIB,
    TTM_UNDO,
    TTM_UNDO_DIR,
    USER_NAME,
    ttm_conf_text,
)
from core.install.helper.target import Policy, Target

__all__ = [
    "Action",
    "AptPackages",
    "AptUpdate",
    "CheckedPlan",
    "Refusal",
    "TtmLimit",
    "TtmRestore",
    "UserGroups",
    "WriteFile",
    "check_input",
]

MAX_INPUT_BYTES = 256 * 1024
MAX_STEPS = 64
MAX_DEPTH = 8
MAX_ARGV = 40
MAX_ARG_LEN = 256
MAX_PACKAGES = 32
MAX_TITLE = 300
MAX_TEXT = 4000
MAX_SOURCE_BYTES = 16 * 1024
MAX_PIN_BYTES = 1024
MAX_TTM_BYTES = 1024
MAX_KEY_B64 = 160 * 1024

STEP_KEYS = frozenset(
    {"id", "privileged", "title", "explain", "kind", "after", "argv", "file",
     "key_fingerprint", "consent"}
)
FILE_KEYS = frozenset({"path", "content", "content_b64", "mode", "append", "source_url"})
KINDS = frozenset({"command", "file", "check", "verify"})
AFTER = frozenset({"relogin", "reboot"})
ALLOWED_GROUPS = ("render", "video")
RETIRED = {
    "amdgpu-install": "an older rocmate planned it; this one does not: plan the set-up again",
}
"""Programs the table once allowed, with the word their refusal adds (still refused)."""
RETIRED_PACKAGES = {
    "amdgpu-install": "only the retired amdgpu-install route installed it: plan the set-up again",
    "hsa-runtime-rocr4wsl-amdgpu": "amdgpu-install's WSL runtime, no longer planned: plan the "
                                   "set-up again",
}
"""Packages the allow-list once held for the retired verb alone, with the word their refusal
adds (still refused; no plan of today's installs them)."""
COMPONENTS = frozenset({"main", "proprietary"})
PIN_PRIORITY = 600

ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
FINGERPRINT_RE = re.compile(r"^[0-9A-Fa-f]{40}$")
SUITE_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
URI_RE = re.compile(r"^https?://[a-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~-]+)*/?$")
SOURCE_LINE_RE = re.compile(
    r"^deb \[arch=amd64 signed-by=(?P<keyring>\S+)\] (?P<uri>\S+) (?P<suite>\S+) "
    r"(?P<component>\S+)$"
)

PACKAGE_RE = INSTALLABLE_RE
"""The install allow-list (core.install.helper.policy.INSTALLABLE: exactly what plans install)."""
SHELL_META = frozenset(";|&$()`<>*?[]{}~!#\\'\" \t\n\r^%")
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


# --------------------------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class Refusal:
    """Why one step (or the whole input, ``index`` None) is refused."""

    reason: str
    index: int | None = None
    id: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The refusal as the ``refused`` list of the --check answer holds it."""
        return {"index": self.index, "id": self.id, "reason": self.reason}


@dataclass(frozen=True)
class Action:
    """A checked step: which verb, for which step."""

    step_id: str
    title: str

    VERB: ClassVar[str] = "?"

    @property
    def verb(self) -> str:
        """The verb's name in the helper's table (apt-update, keyring, ...)."""
        return self.VERB


@dataclass(frozen=True)
class AptUpdate(Action):
    """``apt-get update``."""

    VERB: ClassVar[str] = "apt-update"


@dataclass(frozen=True)
class AptPackages(Action):
    """``apt-get install -y [--no-install-recommends] PKG...`` or ``apt-get purge -y PKG...``."""

    packages: tuple[str, ...] = ()
    no_recommends: bool = False
    purge: bool = False

    @property
    def verb(self) -> str:
        return "apt-purge" if self.purge else "apt-install"


@dataclass(frozen=True)
class UserGroups(Action):
    """``usermod -a -G GROUPS USER``."""

    user: str = ""
    groups: tuple[str, ...] = ()
    VERB: ClassVar[str] = "usermod"


@dataclass(frozen=True)
class WriteFile(Action):
    """A whole-file write of one of :data:`ROCMATE_FILES`."""

    kind: str = ""
    """keyring, apt-source or apt-pin."""
    path: str = ""
    data: bytes = b""
    mode: int = 0o644
    fingerprint: str | None = None
    uris: tuple[str, ...] = ()

    @property
    def verb(self) -> str:
        return self.kind


@dataclass(frozen=True)
class TtmLimit(Action):
    """Write :data:`TTM_CONF` with ``pages`` (the text recomputed from the number), keeping
    what it held before in :data:`TTM_UNDO`."""

    pages: int = 0
    path: str = TTM_CONF
    VERB: ClassVar[str] = "ttm-limit"

    @property
    def data(self) -> bytes:
        """The file's bytes: never the plan's text, always :func:`ttm_conf_text` of the number."""
        return ttm_conf_text(self.pages).encode("ascii")


@dataclass(frozen=True)
class TtmRestore(Action):
    """Put :data:`TTM_CONF` back as :data:`TTM_UNDO` says it was."""

    path: str = TTM_CONF
    VERB: ClassVar[str] = "ttm-restore"


@dataclass(frozen=True)
class CheckedPlan:
    """The outcome of :func:`check_input`: actions when ``ok``, reasons otherwise."""

    actions: tuple[Action, ...] = ()
    refused: tuple[Refusal, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.refused

    @property
    def source_uris(self) -> tuple[str, ...]:
        """Every URI a source file of this plan names (to spot apt-get update's complaints)."""
        return tuple(
            uri for a in self.actions if isinstance(a, WriteFile) for uri in a.uris
        )


class Refused(ValueError):
    """One reason to refuse; the message is shown to the user."""


# --------------------------------------------------------------------------------------------
# decoding


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object without repeated keys (the first would be checked, the last used)."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise Refused(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def _no_constants(name: str) -> Any:
    """NaN and Infinity are not JSON; refuse them."""
    raise Refused(f"{name} is not allowed in the input")


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (stops past MAX_DEPTH)."""
    depth = peak = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            peak = max(peak, depth)
            if peak > MAX_DEPTH:
                break
        elif char in "]}":
            depth -= 1
    return peak


def decode(raw: bytes) -> Any:
    """The JSON document in ``raw``, within the helper's limits; :class:`Refused` otherwise."""
    if len(raw) > MAX_INPUT_BYTES:
        raise Refused(f"the input is larger than {MAX_INPUT_BYTES // 1024} KiB")
    if b"\x00" in raw:
        raise Refused("the input contains a NUL byte")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(f"the input is not UTF-8 (byte {exc.start})") from exc
    if not text.strip():
        raise Refused("the input is empty")
    if _depth(text) > MAX_DEPTH:
        raise Refused(f"the input nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(
            text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants
        )
    except Refused:
        raise
    except (ValueError, RecursionError) as exc:
        raise Refused(f"the input is not valid JSON: {exc}") from exc


def _select(doc: Any) -> list[tuple[int, Any]]:
    """The privileged steps of a plan object or a bare list of steps, with their positions."""
    if isinstance(doc, dict):
        if doc.get("schema") != SCHEMA:
            raise Refused(f'a plan object needs "schema": "{SCHEMA}"')
        steps = doc.get("steps")
        if not isinstance(steps, list):
            raise Refused('a plan object needs a "steps" list')
    elif isinstance(doc, list):
        steps = doc
    else:
        raise Refused("the input must be a plan object or a list of steps")
    if len(steps) > MAX_STEPS:
        raise Refused(f"the plan has {len(steps)} steps; at most {MAX_STEPS} are accepted")
    selected: list[tuple[int, Any]] = []
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            raise Refused(f"step {index} is not an object")
        privileged = step.get("privileged")
        if not isinstance(privileged, bool):
            raise Refused(f'step {index} needs "privileged": true or false')
        if privileged:
            selected.append((index, step))
    return selected


# --------------------------------------------------------------------------------------------
# strings


def _check_text(value: Any, what: str, *, limit: int, required: bool, multiline: bool) -> str:
    """A free text (title, explanation): a string without control or direction characters."""
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise Refused(f"{what} must be a string")
    if required and not value.strip():
        raise Refused(f"{what} must not be empty")
    if len(value) > limit:
        raise Refused(f"{what} is longer than {limit} characters")
    for char in value:
        if multiline and char in "\n\t":
            continue
        if unicodedata.category(char) in ("Cc", "Cs") or char in BIDI or char in "\u2028\u2029":
            raise Refused(f"{what} contains the control character U+{ord(char):04X}")
    return value


def _check_token(value: Any, what: str) -> str:
    """An argv element or name: printable ASCII, no shell metacharacters, bounded."""
    if not isinstance(value, str):
        raise Refused(f"{what} must be a string, not {type(value).__name__}")
    if not value:
        raise Refused(f"{what} is empty")
    if len(value) > MAX_ARG_LEN:
        raise Refused(f"{what} is longer than {MAX_ARG_LEN} characters")
    for char in value:
        if not (" " <= char <= "~") and char not in "\t\n\r":
            raise Refused(f"{what} {value[:60]!r} contains the character U+{ord(char):04X}")
        if char in SHELL_META:
            raise Refused(f"{what} {value[:60]!r} contains the shell metacharacter {char!r}")
    return value


def _check_name(value: str, what: str) -> str:
    """A name given to a program: never an option, never a path step."""
    if value.startswith("-"):
        raise Refused(f"{what} {value!r} starts with '-' (option injection)")
    if ".." in value or "/" in value:
        raise Refused(f"{what} {value!r} contains '..' or '/'")
    return value


def _check_abs_path(value: Any, what: str) -> str:
    """An absolute, normal path: no '..', no '.', no doubled or trailing slash."""
    path = _check_token(value, what)
    if not path.startswith("/"):
        raise Refused(f"{what} {path!r} is not an absolute path")
    if "/../" in path + "/" or "/./" in path + "/" or "//" in path:
        raise Refused(f"{what} {path!r} contains '..', '.' or '//' (path traversal)")
    if path != "/" and (path.endswith("/") or os.path.normpath(path) != path):
        raise Refused(f"{what} {path!r} is not a normalised path")
    return path


def _check_no_links(target: Target, path: str, what: str) -> None:
    """``path`` (an existing folder on the target) has no symbolic link in it."""
    host = target.host(path)
    real_root = target.real_root.rstrip("/")
    if os.path.realpath(host) != real_root + path:
        raise Refused(f"{what} {path} goes through a symbolic link")


# --------------------------------------------------------------------------------------------
# command verbs


def _packages(tokens: list[str], what: str, purge: bool) -> tuple[str, ...]:
    """Package names: 1..32, distinct, never an option, each on the allow-list (to purge: each
    one of ROCm's own, :data:`PURGEABLE`)."""
    if not tokens:
        raise Refused(f"{what} names no package")
    if len(tokens) > MAX_PACKAGES:
        raise Refused(f"{what} names more than {MAX_PACKAGES} packages")
    if len(set(tokens)) != len(tokens):
        raise Refused(f"{what} names a package twice")
    for name in tokens:
        if name.startswith("-"):
            raise Refused(f"{what}: {name!r} is not an allowed option (option injection)")
        if ".." in name or not (PURGEABLE if purge else PACKAGE_RE).fullmatch(name):
            if not purge:
                hint = f" ({RETIRED_PACKAGES[name]})" if name in RETIRED_PACKAGES else ""
                raise Refused(f"{what}: package {name!r} is not on the allow-list{hint}")
            raise Refused(
                f"{what}: package {name!r} may not be purged (only ROCm's own packages: rocm*, "
                "rocminfo, amd-smi-lib, hsa-rocr, hip-runtime-amd, amdrocm*X.Y[-gfxNNNN])"
            )
    return tuple(tokens)


def _apt_get(step_id: str, title: str, argv: list[str], consent: bool | None) -> Action:
    """apt-get update | install -y [--no-install-recommends] PKG... | purge -y PKG..."""
    if len(argv) < 2:
        raise Refused("apt-get needs a command (update, install or purge)")
    command = argv[1]
    if command == "update":
        if len(argv) != 2:
            raise Refused(f"apt-get update takes no arguments, got {argv[2:]}")
        return AptUpdate(step_id, title)
    if command not in ("install", "purge"):
        raise Refused(f"apt-get {command!r} is not allowed; only update, install -y, purge -y")
    allowed = {"-y"} | ({"--no-install-recommends"} if command == "install" else set())
    rest = argv[2:]
    flags: list[str] = []
    while rest and rest[0].startswith("-"):
        if rest[0] not in allowed or rest[0] in flags:
            raise Refused(f"apt-get {command}: option {rest[0]!r} is not allowed")
        flags.append(rest.pop(0))
    if "-y" not in flags:
        raise Refused(f"apt-get {command} needs -y (the helper has no terminal)")
    packages = _packages(rest, f"apt-get {command}", purge=command == "purge")
    if command == "purge" and consent is not True:
        raise Refused('apt-get purge runs only with "consent": true (the user said yes)')
    return AptPackages(
        step_id, title, packages=packages,
        no_recommends="--no-install-recommends" in flags, purge=command == "purge",
    )


def _usermod(
    step_id: str, title: str, argv: list[str], target: Target, caller: Caller
) -> Action:
    """usermod -aG render,video USER (or -a -G): allowed groups, a regular existing user, and
    the caller's own account (any regular one on root's own call)."""
    if len(argv) == 4 and argv[1] == "-aG":
        groups_arg, user = argv[2], argv[3]
    elif len(argv) == 5 and argv[1:3] == ["-a", "-G"]:
        groups_arg, user = argv[3], argv[4]
    else:
        raise Refused("usermod must be: usermod -aG render,video USER")
    groups = groups_arg.split(",")
    if len(set(groups)) != len(groups):
        raise Refused(f"usermod: group list {groups_arg!r} repeats a group")
    for group in groups:
        if group not in ALLOWED_GROUPS:
            raise Refused(f"usermod: group {group!r} is not allowed (only render and video)")
    _check_name(user, "usermod: user")
    if not USER_NAME.match(user):
        raise Refused(f"usermod: {user!r} is not a valid user name")
    entry = target.user(user)
    if entry is None:
        raise Refused(f"usermod: user {user!r} does not exist on this system")
    if not target.is_person(entry):
        raise Refused(f"usermod: {user!r} is a system account (uid {entry.uid})")
    if not caller.is_root and entry.uid != caller.uid:
        raise Refused(
            f"usermod: {user!r} (uid {entry.uid}) is not the calling user ({caller.describe()}); "
            "the helper adds only the user who asked to groups"
        )
    existing = target.groups()
    for group in groups:
        if group not in existing:
            raise Refused(f"usermod: group {group!r} does not exist on this system")
    return UserGroups(step_id, title, user=user, groups=tuple(groups))


def _command(
    step_id: str, title: str, argv: Any, consent: bool | None, target: Target, caller: Caller
) -> Action:
    """The action of an argv step; :class:`Refused` for anything outside the verb table."""
    if not isinstance(argv, list) or not argv:
        raise Refused("argv must be a non-empty list of strings")
    if len(argv) > MAX_ARGV:
        raise Refused(f"argv has more than {MAX_ARGV} elements")
    program = argv[0]
    if not isinstance(program, str):
        raise Refused("argv[0] must be a string")
    verbs = ("apt-get", "usermod", "ttm-restore")
    if program not in verbs:
        name = os.path.basename(program)
        hint = (" (give the bare name, not a path)" if name in verbs
                else f" ({RETIRED[name]})" if name in RETIRED else "")
        raise Refused(
            f"unknown verb {program[:60]!r}{hint}; the helper runs only apt-get update/install/"
            "purge, usermod and ttm-restore"
        )
    tokens = [_check_token(arg, f"argv[{i}]") for i, arg in enumerate(argv)]
    if program == "apt-get":
        return _apt_get(step_id, title, tokens, consent)
    if program == "usermod":
        return _usermod(step_id, title, tokens, target, caller)
    return _ttm_restore(step_id, title, tokens, target)


def _ttm_restore(step_id: str, title: str, argv: list[str], target: Target) -> Action:
    """ttm-restore /etc/modprobe.d/rocmate-ttm.conf: no other path, no other argument. Whether
    there is a record to restore from is the run's to find out (the helper reads it as root)."""
    if len(argv) != 2 or argv[1] != TTM_CONF:
        raise Refused(f"ttm-restore must be: ttm-restore {TTM_CONF} (no other path or argument)")
    _check_destination(target, MODPROBE_DIR, os.path.basename(TTM_CONF))
    _check_destination(target, TTM_UNDO_DIR, os.path.basename(TTM_UNDO))
    return TtmRestore(step_id, title)


# --------------------------------------------------------------------------------------------
# file verbs


@dataclass
class _PlanState:
    """What earlier steps of the plan established (keyrings written, paths, ids)."""

    keyrings: set[str] = field(default_factory=set)
    paths: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)


def _file_content(spec: dict[str, Any], allow_b64: bool) -> bytes:
    """The bytes a file step writes: ASCII ``content``, or base64 ``content_b64`` (keys)."""
    has_text, has_b64 = "content" in spec, "content_b64" in spec
    if has_text == has_b64:
        raise Refused("file needs exactly one of content and content_b64")
    if has_b64:
        if not allow_b64:
            raise Refused("content_b64 is only for keyrings")
        encoded = spec["content_b64"]
        if not isinstance(encoded, str) or len(encoded) > MAX_KEY_B64:
            raise Refused("content_b64 must be a base64 string of at most 160 KiB")
        try:
            return base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise Refused(f"content_b64 is not valid base64: {exc}") from exc
    text = spec["content"]
    if not isinstance(text, str):
        raise Refused("content must be a string")
    try:
        return text.encode("ascii")
    except UnicodeEncodeError as exc:
        raise Refused("content must be ASCII") from exc


def _check_file_spec(spec: Any) -> tuple[str, str, str]:
    """(path, folder, name) of a file spec whose keys and mode are acceptable."""
    if not isinstance(spec, dict):
        raise Refused("file must be an object")
    unknown = sorted(set(spec) - FILE_KEYS)
    if unknown:
        raise Refused(f"file has unknown field(s) {', '.join(unknown)}")
    mode = spec.get("mode", "0644")
    if mode not in ("0644", "644") and not (type(mode) is int and mode == 0o644):
        raise Refused(f"file mode {mode!r} is not allowed (only 0644)")
    if spec.get("append", False) is not False:
        raise Refused("append is not allowed: the helper writes whole files")
    url = spec.get("source_url")
    if url is not None and (
        not isinstance(url, str) or not url.startswith("https://") or len(url) > 512
        or any(c in SHELL_META or not (" " < c <= "~") for c in url)
    ):
        raise Refused("source_url must be a plain https:// URL (it is never fetched here)")
    path = _check_abs_path(spec.get("path"), "file path")
    folder, name = os.path.split(path)
    return path, folder, name


def _check_destination(target: Target, folder: str, name: str) -> None:
    """The folder has no symbolic link in it; the file, if there, is a plain file."""
    parent = os.path.dirname(folder)
    if os.path.lexists(target.host(folder)):
        _check_no_links(target, folder, "folder")
    elif os.path.isdir(target.host(parent)):
        _check_no_links(target, parent, "folder")
    else:
        raise Refused(f"{parent} does not exist on this system")
    path = target.host(os.path.join(folder, name))
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise Refused(f"cannot inspect {folder}/{name}: {exc.strerror}") from exc
    if stat.S_ISLNK(info.st_mode):
        raise Refused(f"{folder}/{name} is a symbolic link; refusing to write through it")
    if not stat.S_ISREG(info.st_mode):
        raise Refused(f"{folder}/{name} exists and is not a plain file")


def _keyring(step: dict[str, Any], path: str, policy: Policy) -> WriteFile:
    """A keyring: one v4 key whose own fingerprint is the step's and is trusted."""
    wanted = step.get("key_fingerprint")
    if not isinstance(wanted, str) or not FINGERPRINT_RE.match(wanted):
        raise Refused("a keyring step needs key_fingerprint: 40 hex digits, no spaces")
    wanted = wanted.upper()
    try:
        key = parse_key(_file_content(step["file"], allow_b64=True))
    except KeyFormatError as exc:
        raise Refused(f"the key is not one OpenPGP public key: {exc}") from exc
    if key.fingerprint != wanted:
        raise Refused(
            f"the key's fingerprint {key.fingerprint} is not the step's key_fingerprint {wanted}"
        )
    if key.fingerprint not in policy.trusted_fingerprints:
        raise Refused(
            f"the key {key.fingerprint} is not trusted (rocm.toml [repository] does not list it)"
        )
    url = step["file"].get("source_url")
    if url is not None and url not in policy.key_urls:
        raise Refused(f"source_url {url!r} is not a key URL rocm.toml pins for its keys")
    return WriteFile(
        step["id"], step["title"], kind="keyring", path=path, data=key.binary,
        fingerprint=key.fingerprint,
    )


def _check_source_fields(
    keyring: str, uri: str, suite: str, component: str, policy: Policy, state: _PlanState
) -> None:
    """One repository entry: bound to a keyring of this plan, allowed URI, suite, component."""
    if keyring not in state.keyrings:
        if not keyring.startswith(KEYRING_DIR + "/"):
            raise Refused(f"signed-by {keyring!r} is not under {KEYRING_DIR}/")
        raise Refused(f"signed-by {keyring} is not written by an earlier keyring step of this plan")
    if not URI_RE.match(uri) or "/../" in uri + "/" or "/./" in uri + "/":
        raise Refused(f"URI {uri!r} is malformed")
    if not any(uri.startswith(prefix) for prefix in policy.uri_prefixes):
        raise Refused(f"URI {uri} is not an allowed repository (rocm.toml apt_uri_prefixes)")
    if not SUITE_RE.match(suite) or suite not in policy.suites:
        raise Refused(f"suite {suite!r} is not a known Ubuntu codename or repository suite")
    if component not in COMPONENTS:
        raise Refused(f"component {component!r} is not allowed (main or proprietary)")


def _source_list(text: str, policy: Policy, state: _PlanState) -> tuple[str, ...]:
    """One-line-style sources: only 'deb [arch=amd64 signed-by=...] URI SUITE COMPONENT'."""
    uris: list[str] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line or (line.startswith("# ") and all(" " <= c <= "~" for c in line)):
            continue
        match = SOURCE_LINE_RE.match(line)
        if not match:
            raise Refused(
                f"source line {number} {line[:80]!r} is not 'deb [arch=amd64 "
                f"signed-by={KEYRING_DIR}/NAME.gpg] URI SUITE COMPONENT'"
            )
        _check_source_fields(
            match["keyring"], match["uri"], match["suite"], match["component"], policy, state
        )
        uris.append(match["uri"])
    return tuple(uris)


DEB822_FIELDS = ("Types", "URIs", "Suites", "Components", "Architectures", "Signed-By")


def _source_deb822(text: str, policy: Policy, state: _PlanState) -> tuple[str, ...]:
    """deb822 sources: exactly Types, URIs, Suites, Components, Architectures, Signed-By."""
    uris: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip("\n")):
        fields: dict[str, str] = {}
        for line in paragraph.split("\n"):
            if line.startswith("#"):
                continue
            key, sep, value = line.partition(": ")
            if not sep or key not in DEB822_FIELDS or key in fields:
                raise Refused(f"deb822 line {line[:80]!r} is not allowed")
            fields[key] = value.strip()
        if set(fields) != set(DEB822_FIELDS):
            raise Refused(f"a deb822 entry needs exactly the fields {', '.join(DEB822_FIELDS)}")
        if fields["Types"] != "deb" or fields["Architectures"] != "amd64":
            raise Refused("deb822 entries must be Types: deb, Architectures: amd64")
        _check_source_fields(
            fields["Signed-By"], fields["URIs"], fields["Suites"], fields["Components"],
            policy, state,
        )
        uris.append(fields["URIs"])
    return tuple(uris)


def _apt_source(
    step: dict[str, Any], path: str, name: str, policy: Policy, state: _PlanState
) -> WriteFile:
    data = _file_content(step["file"], allow_b64=False)
    if len(data) > MAX_SOURCE_BYTES:
        raise Refused("the source file is larger than 16 KiB")
    text = data.decode("ascii")
    odd = next((c for c in text if not (" " <= c <= "~") and c != "\n"), None)
    if odd is not None:
        raise Refused(f"the source file contains the control character U+{ord(odd):04X}")
    parse = _source_deb822 if name.endswith(".sources") else _source_list
    uris = parse(text, policy, state)
    if not uris:
        raise Refused("the source file has no repository line")
    return WriteFile(step["id"], step["title"], kind="apt-source", path=path, data=data, uris=uris)


def _apt_pin(step: dict[str, Any], path: str, policy: Policy) -> WriteFile:
    """The rocm-pin-600 template with an allowed origin, nothing else."""
    data = _file_content(step["file"], allow_b64=False)
    if len(data) > MAX_PIN_BYTES:
        raise Refused("the pin file is too large")
    match = re.fullmatch(
        rf"Package: \*\nPin: release o=(?P<origin>[a-z0-9.-]+)\nPin-Priority: {PIN_PRIORITY}\n?",
        data.decode("ascii"),
    )
    if not match:
        raise Refused(
            f"the pin must be exactly 'Package: *' / 'Pin: release o=ORIGIN' / "
            f"'Pin-Priority: {PIN_PRIORITY}'"
        )
    if match["origin"] not in policy.pin_origins:
        raise Refused(f"pin origin {match['origin']!r} is not allowed (rocm.toml pin_origins)")
    return WriteFile(step["id"], step["title"], kind="apt-pin", path=path, data=data)


def _ttm_limit(step: dict[str, Any], target: Target, policy: Policy) -> TtmLimit:
    """rocmate's ttm file: exactly its header and one options line whose two numbers are the
    same whole number of GiB in 4 KiB pages, at least one GiB and at most the target's RAM less
    the floor. Only the number goes on: the helper writes the text it makes of it."""
    data = _file_content(step["file"], allow_b64=False)
    if len(data) > MAX_TTM_BYTES:
        raise Refused(f"{TTM_CONF} may hold at most {MAX_TTM_BYTES} bytes")
    text = data.decode("ascii")
    if not text.startswith(TTM_HEADER):
        raise Refused(f"{TTM_CONF} must start with rocmate's header comment, as written")
    match = TTM_LINE.fullmatch(text[len(TTM_HEADER):])
    if not match:
        raise Refused(
            f"{TTM_CONF} may hold only 'options ttm pages_limit=N page_pool_size=N' after its "
            "header (N a whole number, no sign, no leading zero, nothing else on any line)"
        )
    pages, pool = int(match["limit"]), int(match["pool"])
    if pool != pages:
        raise Refused(f"page_pool_size={pool} must equal pages_limit={pages}")
    if pages % TTM_PAGES_PER_GIB:
        raise Refused(
            f"pages_limit={pages} is not a whole number of GiB ({TTM_PAGES_PER_GIB} pages of "
            "4 KiB each)"
        )
    gib = pages // TTM_PAGES_PER_GIB
    if gib > TTM_MAX_GIB:
        raise Refused(f"pages_limit={pages} ({gib} GiB) is absurd: at most {TTM_MAX_GIB} GiB")
    ram = target.ram_bytes()
    if ram is None:
        raise Refused("the machine's RAM cannot be read (/proc/meminfo MemTotal), so no GTT size "
                      "can be called safe")
    safe = policy.ttm_safe_bytes(ram)
    if safe is None:
        raise Refused("the knowledge base gives no floor for the system (apu_memory.toml)")
    if pages * 4096 > safe:
        raise Refused(
            f"pages_limit={pages} ({gib} GiB) is more than this machine's RAM less the floor "
            f"({safe // (1 << 30)} GiB of {ram / (1 << 30):.1f} GiB)"
        )
    action = TtmLimit(step["id"], step["title"], pages=pages)
    if action.data != data:  # cannot differ after the match above; never write the plan's text
        raise Refused(f"{TTM_CONF} is not rocmate's text for pages_limit={pages}")
    _check_destination(target, TTM_UNDO_DIR, os.path.basename(TTM_UNDO))
    return action


def _file(
    step: dict[str, Any], target: Target, policy: Policy, state: _PlanState
) -> Action:
    """The action of a file step; :class:`Refused` unless it is one of rocmate's files."""
    path, folder, name = _check_file_spec(step["file"])
    if folder not in (KEYRING_DIR, SOURCES_DIR, PREFERENCES_DIR, MODPROBE_DIR):
        raise Refused(
            f"{path} is outside {KEYRING_DIR}/, {SOURCES_DIR}/, {PREFERENCES_DIR}/ and "
            f"{MODPROBE_DIR}/"
        )
    kind = ROCMATE_FILES.get(path)
    if kind is None:
        ours = ", ".join(n for n in ROCMATE_FILES if os.path.dirname(n) == folder)
        raise Refused(
            f"{path} is not one of rocmate's files ({ours}); the helper never replaces the "
            "system's or another program's files"
        )
    if path in state.paths:
        raise Refused(f"{path} is written twice in this plan")
    if kind != "keyring" and "key_fingerprint" in step:
        raise Refused("key_fingerprint belongs only on a keyring step")
    _check_destination(target, folder, name)
    if kind == "ttm-limit":
        state.paths.add(path)
        return _ttm_limit(step, target, policy)
    if kind == "keyring":
        state.keyrings.add(path)  # even if refused below: no second, confusing refusal
        action: WriteFile = _keyring(step, path, policy)
    elif kind == "apt-source":
        action = _apt_source(step, path, name, policy, state)
    else:
        action = _apt_pin(step, path, policy)
    state.paths.add(path)
    return action


# --------------------------------------------------------------------------------------------
# steps and plans


def _step(
    step: dict[str, Any], target: Target, policy: Policy, state: _PlanState, caller: Caller
) -> Action:
    """Check one privileged step's fields, then map it to exactly one verb."""
    unknown = sorted(set(step) - STEP_KEYS)
    if unknown:
        raise Refused(f"unknown field(s) {', '.join(k[:40] for k in unknown)}")
    step_id = step.get("id")
    if not isinstance(step_id, str) or not ID_RE.fullmatch(step_id):  # not match: "$" lets "a\n" in
        raise Refused("id must be lowercase letters, digits, '.', '_' or '-' (at most 64)")
    if step_id in state.ids:
        raise Refused(f"id {step_id!r} appears twice")
    state.ids.add(step_id)
    title = _check_text(step.get("title"), "title", limit=MAX_TITLE, required=True,
                        multiline=False)
    _check_text(step.get("explain"), "explain", limit=MAX_TEXT, required=False, multiline=True)
    kind, after = step.get("kind"), step.get("after")  # a list or an object is not hashable
    if kind is not None and (not isinstance(kind, str) or kind not in KINDS):
        raise Refused(f"kind must be one of {', '.join(sorted(KINDS))}")
    if after is not None and (not isinstance(after, str) or after not in AFTER):
        raise Refused("after must be relogin or reboot")
    consent = step.get("consent")
    if consent is not None and not isinstance(consent, bool):
        raise Refused("consent must be true or false")
    if consent is False:
        raise Refused("the user did not consent to this step")
    if ("argv" in step) == ("file" in step):
        raise Refused("a step needs exactly one of argv and file")
    if "argv" in step:
        if "key_fingerprint" in step:
            raise Refused("key_fingerprint belongs only on a keyring step")
        return _command(step_id, title, step["argv"], consent, target, caller)
    return _file(step, target, policy, state)


def check_input(
    raw: bytes, target: Target, policy: Policy, caller: Caller | None = None
) -> CheckedPlan:
    """Decode and check the helper's whole input for ``caller`` (default: this process's,
    :func:`core.install.helper.caller.process_caller`). Runs nothing, writes nothing."""
    try:
        caller = caller or process_caller()
        selected = _select(decode(raw))
    except (Refused, UnknownCaller) as exc:
        return CheckedPlan(refused=(Refusal(str(exc)),))
    state = _PlanState()
    actions: list[Action] = []
    refused: list[Refusal] = []
    for index, step in selected:
        step_id = step.get("id") if isinstance(step.get("id"), str) else None
        try:
            actions.append(_step(step, target, policy, state, caller))
        except Refused as exc:
            shown = step_id[:64] if step_id else None
            refused.append(Refusal(f"step {shown or index}: {exc}", index, shown))
    if refused:
        return CheckedPlan(refused=tuple(refused))
    return CheckedPlan(actions=tuple(actions))
