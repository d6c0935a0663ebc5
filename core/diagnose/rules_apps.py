"""The apps' Python environments (core.probe.app_envs): whether the PyTorch each holds can reach
the card, as far as its build tells, and a finding with the repair command where it cannot.

The build alone can say "no" (a CPU or CUDA build; a ROCm build whose wheels carry no code for
the card, per resources/data/torch.toml); it never says "yes": only the kernel check run in
that Python does (the doctor with ``--python``), so an app without one is "not checked"."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any

from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.i18n import t
from core.knowledge.rows import gfx_base, version_tuple
from core.probe.app_envs import AppEnv
from core.probe.parse.python_dist import split_version

YES, NO, NOT_CHECKED = "yes", "no", "not-checked"
WRONG_BUILD = ("cpu-build", "cuda-build", "pypi-build", "arch-missing")
"""The reasons that only a repair of the torch family fixes."""


@dataclass(frozen=True)
class AppCheck:
    """What rocmate can say of one app's PyTorch on this machine."""

    env: AppEnv
    reaches: str
    """``yes`` (the doctor's kernel check ran in that Python and passed), ``no``, or
    ``not-checked``."""
    reason: str
    """Why: ``checked`` (the doctor's check of that Python), ``no-gpu-seen`` (that PyTorch saw
    no GPU), ``no-torch``, ``cpu-build``, ``cuda-build``, ``pypi-build``, ``arch-missing``,
    ``rocm-build`` (a ROCm build that names the card: not checked yet), ``other-build``,
    ``no-card`` (no AMD GPU rocmate could serve)."""
    gfx: str | None = None
    """The target the runtime loads code for (``arch-missing``)."""
    targets: tuple[str, ...] = ()
    """The targets the wheel carries (``arch-missing``)."""

    @property
    def repairable(self) -> bool:
        return self.reaches == NO and self.reason in WRONG_BUILD

    @property
    def repair_command(self) -> str:
        return f"rocmate install --repair {shlex.quote(self.env.python)}"

    def why(self) -> str:
        """The reason in words (the current language)."""
        words = {
            "checked": t("doctor.apps.why.checked", "the kernel check ran in it and passed"),
            "no-gpu-seen": t("doctor.apps.why.no-gpu-seen", "this PyTorch sees no GPU"),
            "no-torch": t("doctor.apps.why.no-torch", "no PyTorch in it"),
            "cpu-build": t("doctor.apps.why.cpu-build", "a CPU-only build"),
            "cuda-build": t("doctor.apps.why.cuda-build", "a CUDA build, for NVIDIA cards"),
            "pypi-build": t("doctor.apps.why.pypi-build", "PyPI's build, which on Linux is for "
                            "NVIDIA cards (CUDA)"),
            "arch-missing": t("doctor.apps.why.arch-missing", "a ROCm build without code for "
                              "{gfx} (its wheels carry {targets})", gfx=self.gfx or "?",
                              targets=", ".join(self.targets)),
            "rocm-build": t("doctor.apps.why.rocm-build", "a ROCm build; no kernel has run in "
                            "it yet"),
            "other-build": t("doctor.apps.why.other-build", "a build rocmate cannot tell from "
                             "its name"),
            "no-card": t("doctor.apps.why.no-card", "no AMD GPU here that ROCm serves"),
        }
        return words.get(self.reason, self.reason)

    def to_json(self) -> dict[str, Any]:
        entry = self.env.to_json()
        entry.update({"reaches_gpu": self.reaches, "reason": self.reason})
        if self.reason == "arch-missing":
            entry.update({"gfx": self.gfx, "targets": list(self.targets)})
        if self.repairable:
            entry["repair"] = self.repair_command
        return entry


def _same_python(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    return os.path.normpath(a) == os.path.normpath(b) or \
        os.path.dirname(os.path.normpath(a)) == os.path.dirname(os.path.normpath(b))


def check_app(ctx: Context, env: AppEnv) -> AppCheck:
    """What the build (and, for the Python the doctor checked, its answer) says."""
    facts = ctx.facts
    torch = facts.torch
    if torch is not None and torch.installed and not torch.problem and \
            _same_python(torch.python, env.python):
        check = facts.kernel_check
        if check is not None and check.ok:
            return AppCheck(env, YES, "checked")
        if not torch.available:
            return AppCheck(env, NO, "no-gpu-seen")
    build = env.build
    if build == "missing":
        return AppCheck(env, NO, "no-torch")
    if not ctx.usable_amd:
        return AppCheck(env, NOT_CHECKED, "no-card")
    if build in ("cpu", "cuda", "pypi"):
        return AppCheck(env, NO, f"{build}-build")
    if build != "rocm":
        return AppCheck(env, NOT_CHECKED, "other-build")
    return _rocm_build(ctx, env)


def _rocm_build(ctx: Context, env: AppEnv) -> AppCheck:
    """A ROCm build: "no" where the knowledge base knows its wheels' targets and the card's is
    not among them for that torch version; otherwise not checked."""
    series, torch = env.wheel_rocm, env.torch
    if not series or torch is None or ctx.primary is None:
        return AppCheck(env, NOT_CHECKED, "rocm-build")
    base_version = split_version(torch.version)[0]
    # the index the wheel came from: named after its tag (rocm6.2), else one of that series
    # that lists the version
    index = next((i for i in ctx.kb.torch_indexes if i.name == f"rocm{series}"), None) or next(
        (i for i in ctx.kb.torch_indexes if i.rocm == series and base_version in i.torch), None)
    if index is None or not index.arch_list:
        return AppCheck(env, NOT_CHECKED, "rocm-build")
    wanted = ctx.effective_gfx(ctx.primary[0])
    if not wanted:
        return AppCheck(env, NOT_CHECKED, "rocm-build")
    target = gfx_base(wanted)
    first = dict(index.arch_from).get(target)
    carried = target in index.arch_list and (
        first is None or version_tuple(base_version) >= version_tuple(first))
    if carried:
        return AppCheck(env, NOT_CHECKED, "rocm-build")
    targets = tuple(g for g in index.arch_list if dict(index.arch_from).get(g) is None
                    or version_tuple(base_version) >= version_tuple(dict(index.arch_from)[g]))
    return AppCheck(env, NO, "arch-missing", gfx=target, targets=targets)


def check_apps(ctx: Context) -> tuple[AppCheck, ...]:
    return tuple(check_app(ctx, env) for env in ctx.facts.apps)


def repair_fix(ctx: Context) -> str | None:
    """The fix for a wrong build in the Python the doctor checked, where that Python is an app's
    environment: repair it in place (``rocmate install`` would make a new environment the app
    never uses); None for any other Python."""
    torch = ctx.facts.torch
    if torch is None or not torch.python:
        return None
    env = next((e for e in ctx.facts.apps if _same_python(torch.python, e.python)), None)
    if env is None:
        return None
    return t("doctor.fix.repair-app", "{command}   (the ROCm build in place of {app}'s PyTorch "
             "family, with a way back; rocmate install would make a new environment {app} does "
             "not use)", command=f"rocmate install --repair {shlex.quote(env.python)}",
             app=env.name)


def app_findings(ctx: Context) -> list[Finding]:
    """``app-torch-cannot-reach`` (warning) for each app whose PyTorch's build cannot use the
    card, with the repair command. The Python the doctor itself checked is left to the torch
    rules (``torch-not-rocm``, ``torch-arch-missing`` say it already)."""
    findings = []
    torch = ctx.facts.torch
    for check in check_apps(ctx):
        if not check.repairable or (torch is not None and
                                    _same_python(torch.python, check.env.python)):
            continue
        version = check.env.torch.version if check.env.torch else ""
        findings.append(Finding(
            "app-torch-cannot-reach", "warning",
            t("doctor.app-torch-cannot-reach.title", "{app}'s PyTorch {version} cannot use "
              "the GPU", app=check.env.name, version=version),
            t("doctor.app-torch-cannot-reach.detail", "{folder} holds PyTorch {version}, {why}: "
              "{app} runs on the CPU or does not start. A repair replaces its PyTorch family "
              "(torch, torchvision, torchaudio and the like) with the ROCm build for this card "
              "and keeps a record to roll back to; nothing else in it changes.",
              folder=check.env.folder, version=version, why=check.why(), app=check.env.name),
            t("doctor.app-torch-cannot-reach.fix", "{command}   (the ROCm build in place of its "
              "PyTorch family, with a way back)", command=check.repair_command)))
    return findings
