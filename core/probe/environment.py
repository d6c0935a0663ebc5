"""Environment facts: the variables that steer ROCm and PyTorch, and where each one is set.

A stale ``HSA_OVERRIDE_GFX_VERSION`` left in ~/.bashrc, /etc/profile.d or a fish universal variable
makes every card in the box report the wrong gfx, so besides the values this process sees, the
usual shell start-up files are searched for lines that set them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from core.system import System, UserInfo

WATCHED = (
    "HSA_OVERRIDE_GFX_VERSION",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "PYTORCH_HIP_ALLOC_CONF",
    "PYTORCH_CUDA_ALLOC_CONF",
    "HSA_ENABLE_SDMA",
    "HSA_ENABLE_DXG_DETECTION",
    "ROCM_PATH",
    "HIP_PATH",
    "LD_LIBRARY_PATH",
    "XDG_DATA_HOME",
)
_PER_NODE_OVERRIDE = re.compile(r"^HSA_OVERRIDE_GFX_VERSION_(0|[1-9][0-9]*)$", re.ASCII)
_NAMES = "|".join(re.escape(n) for n in WATCHED)
_ASSIGNMENT = re.compile(
    r"^\s*(?:export\s+|declare\s+-x\s+|setenv\s+|set\s+-[gxU]+\s+|set\s+-x\s+)?"
    rf"(?P<name>(?:{_NAMES})(?:_(?:0|[1-9][0-9]*))?)(?:\s*=\s*|\s+)(?P<value>.*)$"
)
_FISH_UNIVERSAL = re.compile(r"^SETUVAR\s+(?:--export\s+)?(?P<name>[A-Z_0-9]+):(?P<value>.*)$")

USER_FILES = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".pam_environment",
    ".config/fish/config.fish",
    ".config/fish/fish_variables",
)
SYSTEM_FILES = ("/etc/environment", "/etc/profile", "/etc/bash.bashrc", "/etc/zsh/zshenv")
SYSTEM_DIRS = ("/etc/profile.d", "/etc/environment.d")
USER_DIRS = (".config/environment.d",)


@dataclass(frozen=True)
class Setting:
    """A line in a start-up file that sets a watched variable."""

    name: str
    value: str
    path: str
    line: int

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "value": self.value, "path": self.path, "line": self.line}


@dataclass(frozen=True)
class EnvironmentFacts:
    values: dict[str, str]
    """Watched variables as this process sees them (per-node overrides included)."""
    settings: tuple[Setting, ...]
    """Where start-up files set them."""

    def get(self, name: str) -> str | None:
        return self.values.get(name)

    def per_node_overrides(self) -> dict[int, str]:
        """HSA_OVERRIDE_GFX_VERSION_<node> values, by KFD node id."""
        found = {}
        for name, value in self.values.items():
            match = _PER_NODE_OVERRIDE.match(name)
            if match:
                found[int(match.group(1))] = value
        return found

    def origins(self, name: str) -> list[Setting]:
        return [s for s in self.settings if s.name == name]

    def to_json(self) -> dict[str, object]:
        return {
            "values": dict(self.values),
            "settings": [s.to_json() for s in self.settings],
        }


def probe_environment(system: System, user: UserInfo) -> EnvironmentFacts:
    env = system.env()
    values = {
        name: value
        for name, value in env.items()
        if name in WATCHED or _PER_NODE_OVERRIDE.match(name)
    }
    settings: list[Setting] = []
    for path in startup_files(system, user.home):
        settings.extend(scan_file(path, system.read_text(path, limit=256 * 1024) or ""))
    return EnvironmentFacts(values=values, settings=tuple(settings))


def startup_files(system: System, home: str) -> list[str]:
    """The shell start-up files that exist, user files first."""
    home = home.rstrip("/") or ""
    paths = [f"{home}/{name}" for name in USER_FILES]
    for folder in (f"{home}/{d}" for d in USER_DIRS):
        paths += [f"{folder}/{n}" for n in system.list_dir(folder) or [] if n.endswith(".conf")]
    paths += list(SYSTEM_FILES)
    for folder in SYSTEM_DIRS:
        paths += [
            f"{folder}/{n}"
            for n in system.list_dir(folder) or []
            if n.endswith((".sh", ".conf", ".fish"))
        ]
    return [p for p in paths if system.exists(p)]


def scan_file(path: str, text: str) -> list[Setting]:
    """Lines of ``text`` that set a watched variable (comments skipped)."""
    found = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        setting = _fish_universal(line) if line.startswith("SETUVAR") else _assignment(line)
        if setting is not None:
            found.append(Setting(setting[0], setting[1], path, number))
    return found


def _assignment(line: str) -> tuple[str, str] | None:
    match = _ASSIGNMENT.match(line)
    if not match:
        return None
    return match.group("name"), first_word(match.group("value"))


def first_word(text: str) -> str:
    """The value a shell assigns: up to the first unquoted space, ``;``, ``&``, ``|`` or ``#``."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    try:
        token = lexer.get_token()
    except ValueError:  # an unclosed quote: take the text up to the first separator
        token = re.split(r"[\s;&|#]", text.strip().strip("\"'"), maxsplit=1)[0]
    if token is None or token in {";", "&", "|", "&&", "||", ";;"}:
        return ""
    return token


def _fish_universal(line: str) -> tuple[str, str] | None:
    match = _FISH_UNIVERSAL.match(line)
    if not match or not (
        match.group("name") in WATCHED or _PER_NODE_OVERRIDE.match(match.group("name"))
    ):
        return None
    value = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), match.group("value"))
    return match.group("name"), value


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
