"""The set-up planner: a machine's facts and the user's choices -> a plan (pure data).

Strategies:
* ``pip-only`` (default where it serves): PyTorch's ROCm wheels carry the ROCm user-space
  libraries, so with the kernel's own amdgpu driver only the groups, a virtual environment and the
  wheel from the matching index are needed. Works on any distribution.
* ``rocm-apt``: AMD's apt repository for Ubuntu 22.04/24.04 and their derivatives (keyring checked
  against the pinned fingerprint, a ``signed-by`` source line, an apt pin), then the wheel. For the
  ROCm Core SDK releases (7.14 on: stable.repo.amd.com, amdrocmX.Y-gfxNNNN packages,
  /opt/rocm/core-X.Y) the same steps with the release's own key and a deb822 source, no pin.
* ``wsl``: AMD's WSL 2 route for the release (core.install.wsl_route, resources/data/wsl.toml):
  librocdxg with the Core SDK (10.x) or built in WSL (7.2, with the runtime swap and
  HSA_ENABLE_DXG_DETECTION), then the wheel.
* ``therock``: TheRock's nightly multi-arch index (one index, the card chosen with a
  ``[device-gfxNNNN]`` extra) for cards the stable wheels lack; a preview. Its frozen per-family
  indexes (``v2/<family>/``) are never planned.

This module decides (blocked, strategy, release, index, variables) and reads the plan top to
bottom; each route's steps live in their own module, appending to one
core.install.plan_builder.PlanBuilder: system_steps (purge, groups, python3-venv), apt_route and
core_sdk_route (AMD's repositories), wsl_route, legacy_route, fix_steps, python_steps (the venv,
the wheels, the last check), env_files (rocmate-env.<shell>) and preflight.
"""

from __future__ import annotations

from core.diagnose.context import Context
from core.diagnose.engine import NOT_PROVED, READY, diagnose, verdict
from core.diagnose.finding import Finding
from core.i18n import local, t
from core.install import (
    apt_route,
    env_files,
    legacy_route,
    preflight,
    python_steps,
    system_steps,
    wsl_route,
)
from core.install.apt_route import PIN_CONTENT, ubuntu_codename
from core.install.fix_steps import doctor_fixes
from core.install.helper.policy import (
    CORE_SDK_KEYRING,
    CORE_SDK_SOURCES,
    KEYRING,
    PIN,
    PURGEABLE,
    SOURCES,
)
from core.install.plan import STRATEGIES, Plan
from core.install.plan_builder import Choices, PlanBuilder, PlanError
from core.install.python_steps import therock_index
from core.install.system_steps import release_of_package, series_of_package
from core.knowledge.loader import Knowledge
from core.probe.facts import Facts

# Re-exported for the modules and tests that import them from here: the choices and the error
# (plan_builder), the repository's files (the root helper's policy: what it accepts is the
# authority for what a plan names), the pin (apt_route), package series (system_steps), TheRock's
# index (python_steps) and the Ubuntu codename (apt_route).
__all__ = [
    "CORE_SDK_KEYRING", "CORE_SDK_SOURCES", "KEYRING", "PIN", "PIN_CONTENT", "PURGEABLE",
    "SOURCES", "Choices", "PlanError", "make_plan", "release_of_package", "series_of_package",
    "therock_index", "ubuntu_codename",
]


def make_plan(facts: Facts, kb: Knowledge, choices: Choices | None = None) -> Plan:
    choices = choices or Choices()
    ctx = Context(facts, kb)
    legacy = _legacy(ctx, choices)  # a card past AMD's support, on its last known route
    blocked = None if legacy else _blocked(ctx)
    strategy = legacy.strategy if legacy else _strategy(ctx, choices)
    if blocked:
        return Plan(strategy=strategy, rocm=None, torch_index=None, steps=(), blocked=blocked)
    assert ctx.primary is not None
    gpu, support = ctx.primary
    venv = preflight.venv_folder(facts, choices)

    # decisions: the release, the wheel index, the variables
    apt_release, wsl_choice = None, None
    if strategy in ("rocm-apt", "wsl"):
        ubuntu_codename(kb, facts.platform)  # refuse early when the repository line cannot be made
    if strategy == "rocm-apt":
        apt_release = apt_route.choose_release(kb, facts, support, choices.rocm)
    elif strategy == "wsl":
        try:
            wsl_choice = wsl_route.choose(kb, facts.platform, gpu, support, choices.rocm)
        except wsl_route.NoWslRoute as error:
            raise PlanError(str(error)) from None
        apt_release = wsl_choice.release
    wanted_rocm = apt_release.version if apt_release else choices.rocm
    index = legacy.index if legacy else python_steps.pick_index(
        kb, gpu, support, strategy, wanted_rocm, strict=apt_release is None)
    native = python_steps.native_code(kb, gpu, strategy, index)
    env = env_files.with_tested_override(env_files.environment(ctx, gpu, support, native),
                                         choices.override)
    env = wsl_route.environment(wsl_choice, env)
    env.update(env_files.tuned(facts, choices.tuned))
    fixes = doctor_fixes(ctx, env, choices.fix_shell_files)  # the doctor's fixable findings

    # the steps, in the order they run
    builder = PlanBuilder(ctx, choices, venv, env, fixes)
    if strategy == "rocm-apt" and apt_release:
        apt_route.add_steps(builder, apt_release)
    elif wsl_choice is not None:
        wsl_route.add_system_steps(builder, wsl_choice)
    if strategy == "pip-only":
        system_steps.remove_old(builder)
    system_steps.groups(builder)
    system_steps.venv_package(builder)
    builder.steps += fixes.steps  # the first of the user's steps: seen first, and cheap
    python_steps.add_python_env(builder, index, gpu, strategy,
                                python_steps.wheel_target(env, gpu),
                                legacy.pins if legacy else ())
    if legacy:
        builder.notes[:0] = legacy.notes
    if wsl_choice is not None:
        wsl_route.add_after_torch(builder, wsl_choice)
    env_files.add_env_files(builder)
    python_steps.add_verify(builder)

    # what the plan says besides its steps
    rocm = (builder.apt_release.version if builder.apt_release else None) or (
        index.rocm if index else None
    )
    if support.caveat and any(k.startswith("HSA_OVERRIDE_GFX_VERSION") for k in env):
        # what the doctor warns of and this set-up cannot change: it still holds afterwards
        builder.notes.append(t("plan.note.override-caveat", "With the override, still: {caveat}",
                               caveat=local(support.caveat)))
    builder.notes += fixes.notes
    findings = diagnose(ctx)
    builder.notes[:0] = _still_after(findings)  # first: they matter before anything runs
    working = _already_working(ctx, findings)
    if working:
        builder.notes.insert(0, working)
    return Plan(
        strategy=strategy,
        rocm=rocm,
        torch_index=builder.torch_url,
        steps=tuple(builder.steps),
        env=env,
        venv=venv,
        packages=tuple(builder.packages),
        torch_packages=tuple(builder.torch_packages),
        preview=strategy == "therock",
        preflight=tuple(preflight.checks(ctx, strategy, choices, venv, builder.torch_packages,
                                         rocm, builder.torch_url)),
        notes=tuple(builder.notes),
        nothing_to_do=bool(working),
        env_unset=fixes.unset,
        env_forced=fixes.forced,
    )


UNCHANGED_BY_A_PLAN = ("runtime-fails", "amd-smi-disagrees")
"""Findings of the doctor that no set-up step changes, so they still hold after the plan and
its notes say so before several GB are downloaded: ROCm's runtime failing on a supported card
(ROCm/TheRock#7952: another kernel, not another PyTorch) and amd-smi failing while the driver
and KFD list the GPU (amdsmi#170/#172: amd-smi is wrong, PyTorch is not blocked)."""


def _still_after(findings: list[Finding]) -> list[str]:
    """The plan's notes for the :data:`UNCHANGED_BY_A_PLAN` findings the doctor shows here."""
    return [t("plan.note.unchanged", "Not changed by this plan: {title}. {fix}",
              title=f.title.rstrip("."), fix=f.fix).strip()
            for f in findings if f.id in UNCHANGED_BY_A_PLAN]


def _already_working(ctx: Context, findings: list[Finding]) -> str | None:
    """What the doctor says when PyTorch already works here (its verdict Ready, or Not yet
    proved because no kernel check was recorded, and PyTorch sees the GPU); None otherwise.
    The plan then has nothing to do: its steps are what a fresh environment would add."""
    torch = ctx.facts.torch
    if torch is None or not torch.available:
        return None
    if verdict(findings) not in (READY, NOT_PROVED):
        return None
    if not any(f.id == "torch-ok" for f in findings):
        return None
    return t(
        "plan.note.nothing-to-do",
        "Nothing to do: the doctor finds PyTorch {version} working with the GPU in {python}. "
        "The steps below are only what a fresh environment would add; carry them out only if "
        "you want one.",
        version=torch.version or "?", python=torch.python or "python3",
    )


# -- decisions ------------------------------------------------------------------------------


def _blocked(ctx: Context) -> str | None:
    facts = ctx.facts
    if facts.platform.wsl == 1:
        return t("plan.blocked.wsl1",
                 "WSL 1 has no GPU access: convert the distribution to WSL 2 first.")
    if not ctx.amd and not (facts.platform.wsl == 2 and facts.platform.dxg):
        return t("plan.blocked.no-amd-gpu",
                 "There is no AMD GPU: rocmate sets up ROCm only for AMD GPUs.")
    if ctx.primary is None or not ctx.primary[1].usable:
        return t("plan.blocked.unsupported",
                 "No AMD GPU here is supported by ROCm, with or without an override.")
    return wsl_route.blocked(ctx)


def _legacy(ctx: Context, choices: Choices) -> legacy_route.LegacyChoice | None:
    """The last known route for a card past AMD's support (core.install.legacy_route)."""
    if choices.strategy is not None and choices.strategy not in STRATEGIES:
        return None  # _strategy names the unknown strategy
    try:
        return legacy_route.choose(ctx, choices.strategy, choices.rocm)
    except legacy_route.NoLegacyRoute as error:
        raise PlanError(str(error)) from None


def _strategy(ctx: Context, choices: Choices) -> str:
    facts = ctx.facts
    if choices.strategy:
        if choices.strategy not in STRATEGIES:
            raise PlanError(t("plan.error.unknown-strategy", "unknown strategy {strategy}: one "
                              "of {strategies}", strategy=repr(choices.strategy),
                              strategies=str(STRATEGIES)))
        _check_strategy(ctx, choices.strategy)
        return choices.strategy
    if facts.platform.wsl == 2:
        return "wsl"
    if ctx.primary is not None:
        gpu, support = ctx.primary
        if python_steps.stable_indexes(ctx.kb, gpu, support) or support.status == "override":
            return "pip-only"
        if support.usable and gpu.gfx and python_steps.therock_index(ctx.kb, gpu.gfx):
            return "therock"
    return "pip-only"


def _check_strategy(ctx: Context, strategy: str) -> None:
    platform = ctx.facts.platform
    if strategy == "wsl" and platform.wsl != 2:
        raise PlanError(t("plan.error.wsl-outside-wsl2", "the {strategy} strategy is for WSL 2 "
                          "only", strategy="wsl"))
    if strategy != "wsl" and platform.wsl == 2:
        raise PlanError(t("plan.error.not-wsl-in-wsl2", "in WSL 2 only the {strategy} strategy "
                          "works (there is no {device})", strategy="wsl", device="/dev/kfd"))
    if strategy in ("rocm-apt", "wsl") and not platform.is_ubuntu_family:
        raise PlanError(t(
            "plan.error.apt-not-ubuntu",
            "AMD's apt repository serves Ubuntu and its derivatives, not {distro}",
            distro=platform.distro_name,
        ))
    if strategy == "therock" and ctx.primary is not None:
        gpu = ctx.primary[0]
        if not gpu.gfx:
            raise PlanError(t("plan.error.therock-target-unknown",
                              "TheRock's indexes are per gfx target, and the target of {gpu} "
                              "is not known (no driver reports it, and rocmate's table lacks it)",
                              gpu=gpu.name))
        if python_steps.therock_index(ctx.kb, gpu.gfx) is None:
            raise PlanError(t("plan.error.therock-no-index", "TheRock has no index for {gfx} "
                              "({gpu})", gfx=gpu.gfx, gpu=gpu.name))
