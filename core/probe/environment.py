"""Environment facts: the variables that steer ROCm and PyTorch, and where each one is set.

A stale ``HSA_OVERRIDE_GFX_VERSION`` left in ~/.bashrc, /etc/profile.d or a fish universal variable
makes every card in the box report the wrong gfx, so besides the values this process sees, the
usual shell start-up files are searched for lines that set them.

``rocmate install`` writes the variables a card needs into its environment's own
``bin/rocmate-env.sh`` (loaded by ``bin/activate``), not into the user's start-up files. Whatever
rocmate runs in that environment's Python (the torch probe, a benchmark) gets them too, as
sourcing the file would give them: a value this process has wins unless the file forces its own,
and its ``unset`` lines remove a stale export. :func:`applied` reads that file for a Python.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field

from core.probe.managed_env import default_python
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
TUNED = ("TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL", "TORCH_BLAS_PREFER_HIPBLASLT",
         "PYTORCH_TUNABLEOP_ENABLED", "PYTORCH_TUNABLEOP_FILENAME", "MIOPEN_FIND_MODE")
"""The variables ``rocmate tune --keep`` may write into an environment's rocmate-env.sh
(resources/data/tune_variants.toml)."""
_PER_NODE_OVERRIDE = re.compile(r"^HSA_OVERRIDE_GFX_VERSION_(0|[1-9][0-9]*)$", re.ASCII)
_NAMES = "|".join(re.escape(n) for n in WATCHED)
_ASSIGNMENT = re.compile(
    r"^\s*(?:export\s+|declare\s+-x\s+|setenv\s+|set\s+-[gxU]+\s+|set\s+-x\s+)?"
    rf"(?P<name>(?:{_NAMES})(?:_(?:0|[1-9][0-9]*))?)(?:\s*=\s*|\s+)(?P<value>.*)$"
)
_SCRIPT_NAMES = "|".join(re.escape(n) for n in dict.fromkeys((*WATCHED, *TUNED)))
_SCRIPT_ASSIGNMENT = re.compile(_ASSIGNMENT.pattern.replace(_NAMES, _SCRIPT_NAMES, 1))
"""An assignment in rocmate-env.sh: the watched variables and those ``rocmate tune`` keeps."""
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
    text: str = ""
    """The line as it is in the file (a carriage return kept): what a plan that comments it
    out shows, and checks is still there before it changes the file (issue 33)."""

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "value": self.value, "path": self.path, "line": self.line}


ENV_SCRIPT = "rocmate-env.sh"
"""The file ``rocmate install`` writes next to its environment's ``python``."""
APPLIED = ("HSA_OVERRIDE_GFX_VERSION", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
           "PYTORCH_HIP_ALLOC_CONF", *TUNED)
"""The variables taken from it: those the planner writes (and the per-node overrides)."""
REMOVABLE = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")
"""The variables its ``unset`` lines may remove: those the plan unsets where the doctor found
an exported value wrong (core.install.fix_steps)."""
_UNSET = re.compile(r"^unset\s+(?P<name>[A-Z_]+)\s*$")
_PLAIN_VALUE = re.compile(r"^[A-Za-z0-9_.,:=+/-]{1,200}$", re.ASCII)
"""What a value in it may look like (10.3.0, expandable_segments:True, 0,1): no expansion, no
quoting games, nothing that could reach a terminal as a control sequence."""


@dataclass(frozen=True)
class EnvironmentFacts:
    values: dict[str, str]
    """Watched variables as this process sees them (per-node overrides included)."""
    settings: tuple[Setting, ...]
    """Where start-up files (and the environment's rocmate-env.sh) set them."""
    applied: dict[str, str] = field(default_factory=dict)
    """What the chosen Python's rocmate-env.sh sets for rocmate's own runs in that Python: the
    values this process does not have, and those its lines force over this process's."""
    applied_from: str | None = None
    """That file, when it exists."""

    def get(self, name: str) -> str | None:
        """The value a run in the chosen Python sees: the environment's where it sets one for
        the run, else this process's."""
        value = self.applied.get(name)
        return value if value is not None else self.values.get(name)

    def source(self, name: str) -> str | None:
        """Where :meth:`get`'s value comes from: None for this process, else the file."""
        return self.applied_from if name in self.applied else None

    def per_node_overrides(self) -> dict[int, str]:
        """HSA_OVERRIDE_GFX_VERSION_<node> values, by KFD node id."""
        found = {}
        for name, value in {**self.values, **self.applied}.items():
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
            "applied": dict(self.applied),
            "applied_from": self.applied_from,
        }


def _watched(name: str) -> bool:
    return name in WATCHED or bool(_PER_NODE_OVERRIDE.match(name))


def probe_environment(system: System, user: UserInfo, python: str | None = None
                      ) -> EnvironmentFacts:
    """The watched variables, where start-up files set them, and what ``python``'s
    rocmate-env.sh adds (``python`` None: rocmate's managed environment, if it exists)."""
    env = system.env()
    values = {name: value for name, value in env.items() if _watched(name)}
    settings: list[Setting] = []
    for path in startup_files(system, user.home):
        settings.extend(scan_file(path, system.read_text(path, limit=256 * 1024) or ""))
    script, variables = applied_env(system, python)
    if script is not None:
        settings.extend(scan_file(script, system.read_text(script, limit=64 * 1024) or ""))
    return EnvironmentFacts(values=values, settings=tuple(settings), applied=variables,
                            applied_from=script)


def env_script_for(python: str) -> str | None:
    """The rocmate-env.sh beside ``python`` (a path); None for a bare name such as python3."""
    if "/" not in python:
        return None
    return os.path.join(os.path.dirname(python), ENV_SCRIPT)


def parse_env_script(text: str) -> dict[str, str]:
    """The variables of :data:`APPLIED` a rocmate-env.sh sets (``export NAME="${NAME-value}"``
    or ``export NAME="value"`` lines; the last assignment wins). Anything else in it is
    ignored: it is a shell file, not ours to run."""
    return {name: value for name, (value, _forced) in _script_settings(text).items()}


def _script_settings(text: str) -> dict[str, tuple[str, bool]]:
    """:func:`parse_env_script`'s variables, each with whether its line sets it over a value
    the shell has (``export NAME="value"``, which the plan writes where the doctor found the
    exported value wrong) rather than only where the shell has none (``${NAME-value}``)."""
    found: dict[str, tuple[str, bool]] = {}
    for setting in scan_file(ENV_SCRIPT, text, _SCRIPT_ASSIGNMENT):
        name = setting.name
        ours = name in APPLIED or bool(_PER_NODE_OVERRIDE.match(name))
        if ours and _PLAIN_VALUE.match(setting.value):
            defaulted = f"${{{name}-" in setting.text or f"${{{name}:-" in setting.text
            found[name] = (setting.value, not defaulted)
    return found


def script_unsets(text: str) -> list[str]:
    """The variables of :data:`REMOVABLE` a rocmate-env.sh removes (``unset NAME`` lines)."""
    names = (_UNSET.match(line.strip()) for line in shell_lines(text))
    return [m.group("name") for m in names if m and m.group("name") in REMOVABLE]


@dataclass(frozen=True)
class AppliedEnv:
    """What an environment's rocmate-env.sh changes for a run in its Python, as sourcing it
    after this process's environment would: the values it sets where this process has none
    (or over this process's, for a line that forces it), and the variables it unsets that
    this process has."""

    script: str | None = None
    variables: dict[str, str] = field(default_factory=dict)
    removed: tuple[str, ...] = ()

    def for_run(self) -> dict[str, str | None]:
        """The changes as a child's ``extra_env`` (None: removed)."""
        return {**self.variables, **dict.fromkeys(self.removed)}

    def over(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` (this process's) as the run sees it, with the changes made."""
        return {k: v for k, v in {**env, **self.variables}.items() if k not in self.removed}


def applied(system: System, python: str | None) -> AppliedEnv:
    """:class:`AppliedEnv` for a run in ``python``; empty when there is no such file."""
    script = env_script_for(python or default_python(system))
    if script is None or not system.exists(script):
        return AppliedEnv()
    text = system.read_text(script, limit=64 * 1024)
    if text is None:
        return AppliedEnv()
    present: Mapping[str, str] = system.env()
    unset = script_unsets(text)  # the plan writes them first: a default after one applies
    variables = {k: v for k, (v, forced) in _script_settings(text).items()
                 if forced or k not in present or k in unset}
    removed = tuple(k for k in unset if k in present and k not in variables)
    return AppliedEnv(script, variables, removed)


def applied_env(system: System, python: str | None) -> tuple[str | None, dict[str, str]]:
    """(the env script, the variables it sets for a run in ``python``: :func:`applied`'s,
    without what it removes); (None, {}) when there is no such file."""
    found = applied(system, python)
    return found.script, found.variables


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


def shell_lines(text: str) -> list[str]:
    """Lines as a shell reads them: split at newlines only (a carriage return of a file saved
    with Windows line endings stays on its line)."""
    return text.split("\n")


def scan_file(path: str, text: str, pattern: re.Pattern[str] | None = None) -> list[Setting]:
    """Lines of ``text`` that set a watched variable (comments skipped; ``pattern``: another
    assignment pattern, the env script's). A line that ends in a carriage return (Windows line
    endings) gives its value with that ``\r``, as a shell exports it: ``10.3.0\r``, which the
    ROCm runtime refuses."""
    found = []
    for number, raw in enumerate(shell_lines(text), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("SETUVAR"):
            setting = _fish_universal(line)
        else:
            setting = _assignment(line, pattern or _ASSIGNMENT)
            if setting is not None and raw.endswith("\r") and setting[1]:
                setting = (setting[0], setting[1] + "\r")
        if setting is not None:
            found.append(Setting(setting[0], setting[1], path, number, raw))
    return found


_DEFAULTED = re.compile(r"^\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*):?-(?P<value>[^}$`]*)\}$")


def _assignment(line: str, pattern: re.Pattern[str]) -> tuple[str, str] | None:
    match = pattern.match(line)
    if not match:
        return None
    name, value = match.group("name"), first_word(match.group("value"))
    defaulted = _DEFAULTED.match(value)  # K="${K-10.3.0}": 10.3.0 unless K is set already
    if defaulted and defaulted.group("name") == name:
        value = defaulted.group("value")
    return name, value


def written_value(line: str) -> str | None:
    """The value of an assignment line as it is written, quotes and ``$`` references kept
    (``"$HOME/rocm"``), up to the first unquoted space or separator; None for another line."""
    match = _ASSIGNMENT.match(line.strip())
    if not match:
        return None
    text, end, quote = match.group("value"), 0, ""
    while end < len(text):
        char = text[end]
        if quote:
            if char == "\\" and quote == '"':
                end += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "\\":
            end += 1
        elif char.isspace() or char in ";&|#":
            break
        end += 1
    return None if quote else text[:end]


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
