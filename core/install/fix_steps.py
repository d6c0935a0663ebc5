"""The doctor's fixable findings as plan steps (issue 33: one plan with the doctor).

:data:`FIXABLE` maps a finding id to the variables it finds wrong. For each one the plan

* comments out the line of a start-up file in the user's home that exports such a variable
  with another value than the plan's (a step the user must agree to, ``--fix-shell-files``,
  run as the user by core/install/shell_lines.py, which keeps a backup and can undo it);
* says in a note which line of a system file (/etc/environment, /etc/profile.d/...) to change,
  since the root helper has no verb for those files, and how to erase a fish universal
  variable;
* unsets the variable in the environment's own activation (``env_unset``), or sets the plan's
  value there even over an exported one (``env_forced``), so that a shell that activates the
  environment is right whether or not the line was changed.

The planner calls :func:`doctor_fixes` once (make_plan); nothing here reads the machine.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from core.diagnose.context import Context
from core.diagnose.engine import diagnose
from core.diagnose.rules_gpu import visible_indexes
from core.i18n import t
from core.install.plan import Step
from core.probe.environment import ENV_SCRIPT, Setting

OPTION = "--fix-shell-files"
"""The consent a comment-out step needs (``rocmate install --fix-shell-files``; the app's
tick box)."""
MODULE = "core.install.shell_lines"
_OVERRIDE = re.compile(r"^HSA_OVERRIDE_GFX_VERSION(_(0|[1-9][0-9]*))?$", re.ASCII)
LOGIN_FILES = (".profile", ".bash_profile", ".bash_login", ".zprofile", ".pam_environment",
               ".config/environment.d/")
"""Files read once per login, not by every new shell: a change takes effect at the next one."""
FISH_UNIVERSAL = ".config/fish/fish_variables"
"""fish rewrites this file itself; a universal variable is erased with ``set -eU``."""


def _override_names(ctx: Context) -> set[str]:
    env = ctx.facts.environment
    names = set(env.values) | {s.name for s in env.settings}
    return {n for n in names if _OVERRIDE.match(n)}


def _visible_names(ctx: Context) -> set[str]:
    """The device-list variables that filter (the doctor's hip-visible-devices-hides reading:
    ROCR first, then HIP, or CUDA where HIP's is empty; an unused CUDA_VISIBLE_DEVICES, which
    may be for an NVIDIA card, is left alone)."""
    env = ctx.facts.environment
    count = len(ctx.facts.gpus.kfd_nodes) or len(ctx.amd)
    _, used = visible_indexes(count, env.get("ROCR_VISIBLE_DEVICES"),
                              env.get("HIP_VISIBLE_DEVICES"), env.get("CUDA_VISIBLE_DEVICES"))
    return set(used)


FIXABLE: dict[str, Callable[[Context], set[str]]] = {
    "override-wrong": _override_names,
    "hip-visible-devices-hides": _visible_names,
}
"""Finding id -> the variables it finds wrong (the plan comments out, unsets or sets them)."""


@dataclass(frozen=True)
class Fixes:
    steps: tuple[Step, ...] = ()
    notes: tuple[str, ...] = ()
    unset: tuple[str, ...] = ()
    """Variables the environment's activation unsets (the plan sets no value for them)."""
    forced: tuple[str, ...] = ()
    """Variables of the plan's ``env`` it sets even where the shell exports another value."""
    stale: tuple[Setting, ...] = ()
    """The start-up file lines that set a wrong variable (rocmate's own env file left out:
    the plan rewrites it)."""


def wrong_variables(ctx: Context) -> dict[str, set[str]]:
    """Finding id -> the variables it finds wrong, for the fixable findings the doctor shows."""
    shown = {f.id for f in diagnose(ctx) if f.severity in ("error", "warning")}
    return {fid: names(ctx) for fid, names in FIXABLE.items() if fid in shown}


def doctor_fixes(ctx: Context, env: dict[str, str], consent: bool) -> Fixes:
    """What the plan does about the variables the doctor finds wrong; ``env`` is the plan's,
    ``consent`` whether the user agreed to have start-up files changed."""
    wrong = wrong_variables(ctx)
    names = set().union(*wrong.values()) if wrong else set()
    if not names:
        return Fixes()
    facts = ctx.facts.environment
    home = ctx.facts.permissions.user.home.rstrip("/")
    stale = [s for s in facts.settings if s.name in names and env.get(s.name) != s.value
             and s.path != facts.applied_from and not s.path.endswith("/" + ENV_SCRIPT)]
    exported = {n for n in names if n in facts.values and facts.values[n] != env.get(n)}
    touched = exported | {s.name for s in stale}
    steps: list[Step] = []
    notes: list[str] = []
    for setting in stale:
        finding = next(fid for fid, found in wrong.items() if setting.name in found)
        if setting.path == f"{home}/{FISH_UNIVERSAL}":
            notes.append(t(
                "plan.note.fish-universal",
                "fish keeps {setting} as a universal variable ({path}), which the doctor finds "
                "wrong ({finding}): erase it in fish with {command}.",
                setting=f"{setting.name}={setting.value}", path=setting.path, finding=finding,
                command=f"set -eU {setting.name}"))
        elif home and setting.path.startswith(home + "/"):
            steps.append(_comment_step(len(steps) + 1, setting, finding, home, consent))
        else:
            notes.append(t(
                "plan.note.system-file-line",
                "Line {line} of {path} sets {setting}, which the doctor finds wrong ({finding}): "
                "{text}. "
                "rocmate's root helper does not change that file; as root (for example with "
                "{command}) put {mark} before that line, then log in again.",
                line=setting.line, path=setting.path,
                setting=f"{setting.name}={setting.value}", finding=finding,
                text=setting.text.strip(), command=f"sudoedit {setting.path}", mark="#"))
    from_files = {s.name for s in facts.settings}
    for name in sorted(exported - from_files):
        notes.append(t(
            "plan.note.exported-elsewhere",
            "{setting} is exported where rocmate was started, and no start-up file rocmate "
            "reads sets it: the environment's activation {action}; in other shells run {command}.",
            setting=f"{name}={facts.values[name]}",
            action=t("plan.note.exported-elsewhere.sets", "sets {setting}",
                     setting=f"{name}={env[name]}") if name in env else
            t("plan.note.exported-elsewhere.unsets", "unsets it"),
            command=f"unset {name}"))
    return Fixes(
        steps=tuple(steps),
        notes=tuple(notes),
        unset=tuple(sorted(n for n in touched if n not in env)),
        forced=tuple(sorted(n for n in touched if n in env)),
        stale=tuple(stale),
    )


def _comment_step(number: int, setting: Setting, finding: str, home: str,
                  consent: bool) -> Step:
    undo = f"{sys.executable} -m {MODULE} undo --path {setting.path}"
    login = any(setting.path.startswith(f"{home}/{name}") for name in LOGIN_FILES)
    return Step(
        "comment-out-export" + (f"-{number}" if number > 1 else ""),
        t("plan.comment-out-export.title", "Comment out line {line} of {path}",
          line=setting.line, path=setting.path),
        t("plan.comment-out-export.explain",
          "{text} — the doctor finds this value wrong ({finding}), and every shell that reads "
          "the file gets it. rocmate puts {mark} before the line and keeps a copy of the file "
          "beside it ({backup}); it changes nothing if the line is no longer the same. To put "
          "it back: {undo}. Runs only if you agree ({option}).",
          text=setting.text.strip(), finding=finding, mark='"# rocmate: "',
          backup=f"{setting.path}.rocmate-backup", undo=undo, option=OPTION),
        argv=(sys.executable, "-m", MODULE, "comment", "--path", setting.path,
              "--line", str(setting.line), "--expect", setting.text),
        consent=consent,
        consent_option=OPTION,
        after="relogin" if login else None,
    )
