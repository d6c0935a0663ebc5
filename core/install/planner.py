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
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from core.diagnose.context import Context, Support
from core.diagnose.engine import NOT_PROVED, READY, diagnose, verdict
from core.diagnose.release_choice import serving_releases, ubuntu_version
from core.diagnose.rules_runtime import rocr_visible_devices
from core.diagnose.rules_system import distro as distro_rule
from core.diagnose.rules_system import dkms_leftovers
from core.diagnose.rules_system import kernel as kernel_rule
from core.i18n import local, t
from core.install import legacy_route, wsl_route
from core.install.fix_steps import Fixes, doctor_fixes

# what the helper accepts is the authority for what a plan names
from core.install.helper.policy import (
    AMDGPU_SOURCES,
    CORE_SDK_KEYRING,
    CORE_SDK_SOURCES,
    KEYRING,
    PIN,
    PURGEABLE,
    SOURCES,
    USER_NAME,
)
from core.install.plan import STRATEGIES, FileSpec, Plan, Preflight, Step
from core.knowledge.loader import Knowledge
from core.knowledge.releases import RocmRelease
from core.knowledge.rows import gfx_base
from core.knowledge.torch_python import load_torch_python, release_of
from core.knowledge.wheels import TheRockIndex, TorchIndex, current_therock
from core.probe.environment import TUNED
from core.probe.facts import Facts
from core.probe.gpus import Gpu
from core.probe.kernel_check import verify_script
from core.probe.managed_env import managed_venv
from core.probe.parse.kfd import override_to_gfx, parse_gfx_override
from core.probe.platform import PlatformFacts

MAX_PACKAGES_PER_STEP = 32
_PACKAGE_RELEASE = re.compile(r"\.(\d{1,2})(\d\d)(\d\d)-")
# The Core SDK names its series in every package (amdrocm10.0, amdrocm-core10.0-gfx1151): the
# shortest prefix before X.Y, so "amdrocm-core10.0" is 10.0 (core/probe/rocm.py reads them alike).
_CORE_SDK_PACKAGE = re.compile(
    r"^amdrocm(?:-[a-z][a-z0-9-]*?)?(\d{1,2}\.\d{1,2})(?:-gfx[0-9a-f]+)?$"
)
PIN_CONTENT = "Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n"
PACKAGE_SETS = {
    "runtime": ("rocm-hip-runtime", "rocminfo"),
    "sdk": ("rocm-hip-sdk", "rocminfo", "rocm-developer-tools"),
}
CORE_SDK_PACKAGE_SETS = {
    # AMD's meta packages for the Core SDK, {series} X.Y and {gfx} "-gfxNNNN" (or "" for every
    # target): ROCm Base, and ROCm Developer Essentials plus the profilers, the nearest to the
    # legacy rocm-hip-sdk + rocm-developer-tools (ROCm/rocm-docs 200-install.rst, ROCm meta
    # packages)
    "runtime": ("amdrocm{series}{gfx}",),
    "sdk": ("amdrocm-core-dev{series}{gfx}", "amdrocm-developer-tools{series}"),
}
ALLOC_CONF = "expandable_segments:True"
# Download and install sizes, for the disk check (a ROCm torch wheel set unpacks to ~10 GB).
VENV_BYTES = 12 << 30
APT_BYTES = {"runtime": 6 << 30, "sdk": 20 << 30}


@dataclass(frozen=True)
class EnvShell:
    """How one shell family gets the card's variables: ``bin/rocmate-env.<name>``, sourced from
    the venv's own ``bin/<activate>`` (``python -m venv`` writes activate, .fish and .csh)."""

    name: str
    line: str
    """One variable, formatted with ``key`` and ``value`` (validated; no quoting needed): set
    only where the shell does not have it yet, so a value the user exports wins, as it does
    for what rocmate runs in the environment (core.probe.environment.applied_env)."""
    source: str
    """The line appended to the activate script, formatted with ``script``."""
    forced: str
    """``line`` for a variable set even over an exported value the doctor finds wrong."""
    unset: str
    """The line that removes an exported variable the doctor finds wrong (``key``)."""
    activate: str
    file_title: Callable[[], str]
    """The env-file step's title (words: in the language of the moment, so made when asked)."""
    file_explain: Callable[[str], str]
    """The env-file step's explanation, given the variables (``K=V, ...``)."""
    activate_title: Callable[[], str]


# The sh entry's ids and texts are those of plans before fish and csh: kept, so a resumed run
# still counts its env-file and env-activate as done and outside checks find the same ids.
ENV_SHELLS = (
    EnvShell(
        "sh",
        'export {key}="${{{key}-{value}}}"',
        '. "{script}"',
        'export {key}="{value}"',
        "unset {key}",
        "activate",
        lambda: t("plan.env-file.title", "Write the card's environment variables"),
        lambda variables: t("plan.env-file.explain",
                            "Into the environment's own activation, not {profile}: {variables}",
                            profile="/etc/profile", variables=variables),
        lambda: t("plan.env-activate.title", "Load them when the environment is activated"),
    ),
    EnvShell(
        "fish",
        'set -q {key}; or set -gx {key} "{value}"',
        'source "{script}"',
        'set -gx {key} "{value}"',
        "set -eg {key}",
        "activate.fish",
        lambda: t("plan.env-file-fish.title", "Write the variables for fish"),
        lambda variables: t("plan.env-file-fish.explain",
                            "The same variables for {file}: {variables}",
                            file="bin/activate.fish", variables=variables),
        lambda: t("plan.env-activate-fish.title",
                  "Load them when fish activates the environment"),
    ),
    EnvShell(
        "csh",
        'if (! $?{key}) setenv {key} "{value}"',
        'source "{script}"',
        'setenv {key} "{value}"',
        "unsetenv {key}",
        "activate.csh",
        lambda: t("plan.env-file-csh.title", "Write the variables for csh and tcsh"),
        lambda variables: t("plan.env-file-csh.explain",
                            "The same variables for {file}: {variables}",
                            file="bin/activate.csh", variables=variables),
        lambda: t("plan.env-activate-csh.title",
                  "Load them when csh or tcsh activates the environment"),
    ),
)


UNSAFE_IN_SCRIPTS = re.compile(r"[\"'$`\\!\n\r]")
"""Characters a path may not hold to be pasted into sh, fish and csh scripts as it is."""


class PlanError(ValueError):
    """A choice that cannot be honoured on this machine (the message says why)."""


@dataclass(frozen=True)
class Choices:
    strategy: str | None = None
    rocm: str | None = None
    venv: str | None = None
    package_set: str = "runtime"
    remove_old: bool = False
    fix_shell_files: bool = False
    """Agreed to have the start-up file lines that export a wrong variable commented out."""
    override: str | None = None
    """A tested HSA_OVERRIDE_GFX_VERSION to write instead of the knowledge base's ("" for
    none: the card ran without one); None lets the knowledge base decide."""
    tuned: tuple[tuple[str, str], ...] | None = None
    """The variables ``rocmate tune --keep`` measured fastest (names of
    core.probe.environment.TUNED), written beside the card's; None keeps those the
    environment's rocmate-env.sh holds now, () writes none (the undo of a first keep)."""


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
    venv = choices.venv or managed_venv(
        facts.permissions.user.home, facts.environment.values.get("XDG_DATA_HOME")
    )
    if not venv.startswith("/") or UNSAFE_IN_SCRIPTS.search(venv):
        raise PlanError(t(
            "plan.error.venv-unsafe",
            "the environment folder {venv} must be an absolute path without quotes, "
            "'$', '`', '\\', '!' or line breaks (it is written into shell scripts)",
            venv=repr(venv),
        ))
    if _system_folder(venv, facts.permissions.user.home):
        raise PlanError(t(
            "plan.error.venv-system-folder",
            "the environment folder {venv} is a folder of the system or your home itself: a "
            "Python environment there would mix its bin/ and lib/ with the system's; choose a "
            "folder of its own, such as {example}", venv=venv,
            example=f"{facts.permissions.user.home.rstrip('/')}/venvs/torch"))
    apt_release, wsl_choice = None, None
    if strategy in ("rocm-apt", "wsl"):
        ubuntu_codename(kb, facts.platform)  # refuse early when the repository line cannot be made
    if strategy == "rocm-apt":
        apt_release = _apt_release(kb, facts, support, choices.rocm)
    elif strategy == "wsl":
        try:
            wsl_choice = wsl_route.choose(kb, facts.platform, gpu, support, choices.rocm)
        except wsl_route.NoWslRoute as error:
            raise PlanError(str(error)) from None
        apt_release = wsl_choice.release
    wanted_rocm = apt_release.version if apt_release else choices.rocm
    index = legacy.index if legacy else _pick_index(kb, gpu, support, strategy, wanted_rocm,
                                                    strict=apt_release is None)
    native = _native_code(kb, gpu, strategy, index)
    env = _with_tested_override(_environment(ctx, gpu, support, native), choices.override)
    env = wsl_route.environment(wsl_choice, env)
    env.update(_tuned(facts, choices.tuned))
    fixes = doctor_fixes(ctx, env, choices.fix_shell_files)  # the doctor's fixable findings
    builder = _Builder(ctx, choices, venv, env, fixes)
    if strategy == "rocm-apt" and apt_release:
        builder.rocm_apt(apt_release)
    elif wsl_choice is not None:
        wsl_route.add_system_steps(builder, wsl_choice)
    if strategy == "pip-only":
        builder.remove_old()
    builder.groups()
    builder.venv_package()
    builder.steps += fixes.steps  # the first of the user's steps: seen first, and cheap
    builder.python_env(index, gpu, strategy, _wheel_target(env, gpu),
                       legacy.pins if legacy else ())
    if legacy:
        builder.notes[:0] = legacy.notes
    if wsl_choice is not None:
        wsl_route.add_after_torch(builder, wsl_choice)
    builder.env_file()
    builder.verify()
    rocm = (builder.apt_release.version if builder.apt_release else None) or (
        index.rocm if index else None
    )
    if support.caveat and any(k.startswith("HSA_OVERRIDE_GFX_VERSION") for k in env):
        # what the doctor warns of and this set-up cannot change: it still holds afterwards
        builder.notes.append(t("plan.note.override-caveat", "With the override, still: {caveat}",
                               caveat=local(support.caveat)))
    builder.notes += fixes.notes
    working = _already_working(ctx)
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
        preflight=tuple(_preflight(ctx, strategy, choices, venv, builder.torch_packages,
                                   rocm)),
        notes=tuple(builder.notes),
        nothing_to_do=bool(working),
        env_unset=fixes.unset,
        env_forced=fixes.forced,
    )


def _already_working(ctx: Context) -> str | None:
    """What the doctor says when PyTorch already works here (its verdict Ready, or Not yet
    proved because no kernel check was recorded, and PyTorch sees the GPU); None otherwise.
    The plan then has nothing to do: its steps are what a fresh environment would add."""
    torch = ctx.facts.torch
    if torch is None or not torch.available:
        return None
    findings = diagnose(ctx)
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


def ubuntu_codename(kb: Knowledge, platform: PlatformFacts) -> str:
    """The Ubuntu codename AMD's repository line needs (a derivative's base); PlanError if none."""
    if platform.ubuntu_codename and kb.ubuntu_version_for(platform.ubuntu_codename):
        return platform.ubuntu_codename
    if platform.codename and kb.ubuntu_version_for(platform.codename):
        return platform.codename
    by_version = kb.ubuntu_codename_for(platform.distro_version)
    if platform.distro_id == "ubuntu" and by_version:
        return by_version
    raise PlanError(t(
        "plan.error.ubuntu-release-unknown",
        "cannot tell which Ubuntu release {distro} {version} is "
        "(no {codename} or {version_codename} in {file})",
        distro=platform.distro_name, version=platform.distro_version,
        codename="UBUNTU_CODENAME", version_codename="VERSION_CODENAME", file="/etc/os-release",
    ))


def amdgpu_dir(release: RocmRelease) -> str | None:
    """repo.radeon.com/amdgpu/<dir>: the release number up to 6.x, the driver number from 7.0."""
    if release.amdgpu_repo_dir:
        return release.amdgpu_repo_dir
    major = release.version.split(".")[0]
    return release.repo_dir if major.isdigit() and int(major) < 7 else None


def release_of_package(version: str) -> str | None:
    """The ROCm series an AMD package version belongs to: "6.2.41133.60200-66~22.04" -> "6.2"."""
    match = _PACKAGE_RELEASE.search(version)
    if not match:
        return None
    return f"{int(match.group(1))}.{int(match.group(2))}"


def series_of_package(name: str, version: str) -> str | None:
    """The ROCm series of an installed package: a Core SDK package's from its name
    ("amdrocm-core10.0-gfx1151" -> "10.0"), a legacy one's from its version."""
    named = _CORE_SDK_PACKAGE.match(name)
    if named:
        return named.group(1)
    return release_of_package(version)


def core_sdk_route(kb: Knowledge, release: RocmRelease) -> bool:
    """Whether rocmate can plan ``release``'s Core SDK apt route: the row pins its signing key
    (key_url, key_fingerprint) and its repository (apt_uri_template, apt_suite), and the root
    helper accepts both ([repository] trusted_fingerprints and apt_uri_prefixes)."""
    repo = kb.repository
    return bool(
        release.stream == "core-sdk"
        and release.key_url
        and release.key_fingerprint
        and release.apt_uri_template
        and release.apt_suite
        and release.key_fingerprint in repo.trusted
        and any(release.apt_uri_template.startswith(p) for p in repo.apt_uri_prefixes)
    )


def _apt_route(kb: Knowledge, release: RocmRelease) -> bool:
    """Whether a rocm-apt plan can be made for ``release``."""
    if release.stream == "legacy":
        return bool(release.repo_dir)
    return core_sdk_route(kb, release)


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
        if _stable_indexes(ctx.kb, gpu, support) or support.status == "override":
            return "pip-only"
        if support.usable and gpu.gfx and therock_index(ctx.kb, gpu.gfx):
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
        if therock_index(ctx.kb, gpu.gfx) is None:
            raise PlanError(t("plan.error.therock-no-index", "TheRock has no index for {gfx} "
                              "({gpu})", gfx=gpu.gfx, gpu=gpu.name))


def _code_target(gpu: Gpu, support: Support) -> str | None:
    """The target whose code will run: the card's own, or the one the override poses as."""
    if support.status == "override" and support.override:
        return override_to_gfx(support.override)
    return gpu.gfx


def _native_code(
    kb: Knowledge, gpu: Gpu, strategy: str, index: TorchIndex | None
) -> bool:
    """Whether the planned wheels carry code for the card's own target (then no override):
    the index's arch list (for AMD's indexes, the device extras it offers), or TheRock's
    multi-arch device extras."""
    if not gpu.gfx:
        return False
    if strategy == "therock":
        family = therock_index(kb, gpu.gfx)
        return bool(family and family.device_extra and gfx_base(gpu.gfx) in family.targets)
    return bool(index and index.torch_for(gpu.gfx))


def _wheel_target(env: dict[str, str], gpu: Gpu) -> str | None:
    """The target whose code the wheels must carry: the one the override in ``env`` poses as,
    else the card's own. The device extra follows it, so a plan never pairs a card's own
    device wheel with an override that makes the runtime look for another target's code."""
    for key, value in env.items():
        if key.startswith("HSA_OVERRIDE_GFX_VERSION"):
            return override_to_gfx(value) or gpu.gfx
    return gpu.gfx


def therock_index(kb: Knowledge, gfx: str) -> TheRockIndex | None:
    """TheRock's index for ``gfx`` that still gets builds (the one support.toml names, else the
    first that carries the target); a frozen per-family index never."""
    named = kb.therock_for(gfx)
    if named is not None and not named.frozen:
        return named
    return current_therock(kb.therock, gfx)


def _stable_indexes(
    kb: Knowledge, gpu: Gpu, support: Support, rocm: str | None = None
) -> list[TorchIndex]:
    """Stable wheel indexes with code for the card, best first (pytorch.org before AMD's).

    Where an index's arch list is known, it decides: the index serves the card when one of its
    torch versions carries the target (an RX 7600 or a Radeon 890M gets download.pytorch.org's
    wheels, which carry gfx1102 and gfx1150, though AMD lists the cards only for ROCm 10.x).
    Only current releases, unless the user asked for a release (``rocm``) by name.
    """
    target = _code_target(gpu, support)
    if target is None:
        return []
    target_support = kb.support_for(target)
    releases = set(target_support.rocm) if target_support else set()
    allowed = {rocm} if rocm else {r.version for r in kb.current_releases()}
    found = []
    for index in kb.torch_indexes:
        if not index.stable or index.rocm not in allowed:
            continue
        if index.arch_list and index.torch_for(target) is None:
            continue
        if not index.arch_list and index.rocm not in releases:
            continue
        found.append(index)

    def key(index: TorchIndex) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
        vendor_rank = 0 if index.vendor == "pytorch" else 1
        newest = index.newest_torch or "0"
        return (
            vendor_rank,
            tuple(-int(p) for p in index.rocm.split(".") if p.isdigit()),
            tuple(-int(p) for p in newest.split(".") if p.isdigit()),
        )

    return sorted(found, key=key)


def _pick_index(
    kb: Knowledge, gpu: Gpu, support: Support, strategy: str, rocm: str | None, strict: bool
) -> TorchIndex | None:
    """The wheel index: for ``rocm`` when given (falling back when not ``strict``)."""
    if strategy == "therock":
        return None
    indexes = _stable_indexes(kb, gpu, support)
    if not indexes:
        raise PlanError(t("plan.error.no-index", "no stable PyTorch wheel index has code for "
                          "{gfx}", gfx=gpu.gfx))
    matching = _stable_indexes(kb, gpu, support, rocm) if rocm else indexes
    if not matching and strict:
        raise PlanError(t("plan.error.no-index-for-rocm", "no stable PyTorch index for ROCm "
                          "{rocm} has code for {gfx}", rocm=rocm, gfx=gpu.gfx))
    return (matching or indexes)[0]


def _apt_release(kb: Knowledge, facts: Facts, support: Support, rocm: str | None) -> RocmRelease:
    """The release of AMD's apt repositories that serves this Ubuntu: ``rocm`` where asked for,
    else the newest of the legacy repository (repo.radeon.com), else the newest Core SDK
    release (stable.repo.amd.com) whose key and repository rocm.toml pins."""
    serving = [
        r for r in serving_releases(kb, facts.platform, support.rocm) if _apt_route(kb, r)
    ]
    if rocm:
        serving = [r for r in serving if r.version == rocm]
    # legacy first (the route plans made before the Core SDK), newest first within each stream
    serving.sort(key=lambda r: r.stream != "legacy")
    if not serving:
        version = ubuntu_version(kb, facts.platform) or facts.platform.distro_version
        raise PlanError(t(
            "plan.error.no-apt-release",
            "no ROCm release with a pinned signing key serves Ubuntu {version} for this card "
            "(use {option})",
            version=version, option="--strategy pip-only",
        ))
    return serving[0]


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split(".") if p.isdigit())


def _environment(
    ctx: Context, gpu: Gpu, support: Support, has_native: bool
) -> dict[str, str]:
    env = {"PYTORCH_HIP_ALLOC_CONF": ALLOC_CONF}
    if support.status == "override" and support.override and not has_native:
        # With several AMD GPUs in KFD the global variable would make every one of them pose as
        # the same target: the per-node form (KFD node id, CPU nodes counted) touches only this one.
        in_kfd = [g for g, _ in ctx.amd if g.kfd_node is not None]
        if len(in_kfd) > 1 and gpu.kfd_node is not None:
            env[f"HSA_OVERRIDE_GFX_VERSION_{gpu.kfd_node}"] = support.override
        else:
            env["HSA_OVERRIDE_GFX_VERSION"] = support.override
    discrete = [g for g, s in ctx.usable_amd if not g.integrated]
    integrated_first = any(
        g.integrated
        and g.kfd_node is not None
        and discrete
        and discrete[0].kfd_node is not None
        and g.kfd_node < discrete[0].kfd_node
        for g, _ in ctx.amd
    )
    if integrated_first:
        env["HIP_VISIBLE_DEVICES"] = ",".join(str(ctx.rocm_index(g)) for g in discrete)
    hidden = rocr_visible_devices(ctx)
    if hidden is not None:  # a card that stops ROCm from starting beside the others (32/2)
        env["ROCR_VISIBLE_DEVICES"] = hidden
    return env


def _tuned(facts: Facts, chosen: tuple[tuple[str, str], ...] | None) -> dict[str, str]:
    """The variables ``rocmate tune`` kept: those chosen, else those the environment's
    rocmate-env.sh sets now (a later plan keeps them instead of dropping them)."""
    if chosen is None:
        return {k: v for k, v in facts.environment.applied.items() if k in TUNED}
    refused = [k for k, _ in chosen if k not in TUNED]
    if refused:
        raise PlanError(t("plan.error.tuned-name", "{names}: not a variable rocmate tune "
                          "keeps", names=", ".join(refused)))
    return dict(chosen)


def _with_tested_override(env: dict[str, str], tested: str | None) -> dict[str, str]:
    """The variables with a value the override tester found working in place of the
    knowledge base's (under the same name: the global or the per-node variable)."""
    if tested is None:
        return env
    if tested and parse_gfx_override(tested) is None:
        raise PlanError(t("plan.error.override-value", "{value} is not an {variable} value "
                          "(like {example})", value=repr(tested),
                          variable="HSA_OVERRIDE_GFX_VERSION", example="10.3.0"))
    names = [k for k in env if k.startswith("HSA_OVERRIDE_GFX_VERSION")]
    kept = {k: v for k, v in env.items() if k not in names}
    if tested:
        kept[names[0] if names else "HSA_OVERRIDE_GFX_VERSION"] = tested
    return kept


# -- steps ----------------------------------------------------------------------------------


class _Builder:
    def __init__(self, ctx: Context, choices: Choices, venv: str, env: dict[str, str],
                 fixes: Fixes | None = None) -> None:
        self.ctx = ctx
        self.fixes = fixes or Fixes()
        self.facts = ctx.facts
        self.choices = choices
        self.venv = venv
        self.env = env
        self.steps: list[Step] = []
        self.packages: list[str] = []
        self.torch_packages: list[str] = []
        self.notes: list[str] = []
        self.torch_url: str | None = None
        self.apt_release: RocmRelease | None = None

    @property
    def python(self) -> str:
        return f"{self.venv}/bin/python"

    def add(self, step: Step) -> None:
        self.steps.append(step)

    # privileged --------------------------------------------------------------------------
    def remove_old(self) -> None:
        """Offer to purge ROCm packages of other releases (runs only with the user's consent)."""
        installs = self.facts.rocm.installs
        series = self.facts.rocm.series
        newest = series[0] if series else ""
        keep_series = self.apt_release.version if self.apt_release else newest
        several = len({i.version for i in installs}) >= 2
        if not installs or not (several or self.apt_release):
            return
        names = sorted(
            p.name
            for p in self.facts.rocm.dpkg_packages
            if PURGEABLE.match(p.name)
            and (series_of_package(p.name, p.version or "") or keep_series) != keep_series
        )
        if not names:
            if several:
                self.notes.append(t(
                    "plan.note.old-rocm-outside-dpkg",
                    "Several ROCm versions are installed outside dpkg; remove the old ones by "
                    "hand.",
                ))
            return
        chunks = [
            names[i : i + MAX_PACKAGES_PER_STEP]
            for i in range(0, len(names), MAX_PACKAGES_PER_STEP)
        ]
        for number, chunk in enumerate(chunks):
            self.add(
                Step(
                    "remove-old-rocm" + (f"-{number + 1}" if number else ""),
                    t("plan.remove-old-rocm.title",
                      "Remove ROCm packages of releases other than {release}", release=keep_series)
                    if keep_series else
                    t("plan.remove-old-rocm.title.this-one",
                      "Remove ROCm packages of releases other than this one"),
                    t("plan.remove-old-rocm.explain",
                      "Old ROCm libraries on the search path mix with new ones. Runs only if you "
                      "agree ({option}).", option="--remove-old"),
                    privileged=True,
                    argv=("apt-get", "purge", "-y", *chunk),
                    consent=self.choices.remove_old,
                )
            )

    def apt_source(self, release: RocmRelease, codename: str, amdgpu: bool = False) -> None:
        repo = self.ctx.kb.repository
        self.add(
            Step(
                "apt-keyring",
                t("plan.apt-keyring.title", "Add AMD's signing key"),
                t("plan.apt-keyring.explain",
                  "Downloads {url} and writes it to {path} only if its fingerprint is "
                  "{fingerprint} (never {command}).", url=repo.key_url, path=KEYRING,
                  fingerprint=repo.key_fingerprint, command="apt-key"),
                privileged=True,
                file=FileSpec(KEYRING, source_url=repo.key_url),
                key_fingerprint=repo.key_fingerprint,
                kind="file",
            )
        )
        line = (
            f"deb [arch=amd64 signed-by={KEYRING}] https://repo.radeon.com/rocm/apt/"
            f"{release.repo_dir} {codename} main\n"
        )
        self.add(
            Step(
                "apt-source",
                t("plan.apt-source.title", "Add AMD's ROCm {version} repository for {codename}",
                  version=release.version, codename=codename),
                t("plan.apt-source.explain", "One source line, bound to AMD's key with {option}.",
                  option="signed-by"),
                privileged=True,
                file=FileSpec(SOURCES, content=line),
                kind="file",
            )
        )
        if amdgpu:
            self.add(
                Step(
                    "apt-source-amdgpu",
                    t("plan.apt-source-amdgpu.title",
                      "Add AMD's amdgpu {version} repository for {codename}",
                      version=release.version, codename=codename),
                    t("plan.apt-source-amdgpu.explain",
                      "It holds {package} and the WSL runtime packages.",
                      package="amdgpu-install"),
                    privileged=True,
                    file=FileSpec(
                        AMDGPU_SOURCES,
                        content=(
                            f"deb [arch=amd64 signed-by={KEYRING}] https://repo.radeon.com/amdgpu/"
                            f"{amdgpu_dir(release)}/ubuntu {codename} main\n"
                        ),
                    ),
                    kind="file",
                )
            )
        self.add(
            Step(
                "apt-pin",
                t("plan.apt-pin.title", "Prefer AMD's packages over the distribution's"),
                t("plan.apt-pin.explain",
                  "An apt pin (priority {priority}), so Ubuntu's own older ROCm packages do not "
                  "mix in.", priority=600),
                privileged=True,
                file=FileSpec(PIN, content=PIN_CONTENT),
                kind="file",
            )
        )
        self._apt_update()

    def _apt_update(self) -> None:
        self.add(
            Step(
                "apt-update",
                t("plan.apt-update.title", "Read AMD's package lists"),
                t("plan.apt-update.explain",
                  "{command} checks the repository's signature with the key above.",
                  command="apt-get update"),
                privileged=True,
                argv=("apt-get", "update"),
            )
        )

    def rocm_apt(self, release: RocmRelease) -> None:
        self.apt_release = release
        self.remove_old()
        codename = ubuntu_codename(self.ctx.kb, self.facts.platform)
        if release.stream == "core-sdk":
            self.core_sdk_source(release, codename)
        else:
            self.apt_source(release, codename)
        if self.choices.package_set not in PACKAGE_SETS:
            raise PlanError(t("plan.error.unknown-package-set",
                              "unknown package set {name}: {runtime} or {sdk}",
                              name=repr(self.choices.package_set), runtime="runtime", sdk="sdk"))
        if release.stream == "core-sdk":
            packages: tuple[str, ...] = self._core_sdk_packages(release)
        else:
            packages = PACKAGE_SETS[self.choices.package_set]
        self.packages = list(packages)
        self.add(
            Step(
                "apt-install",
                t("plan.apt-install.title", "Install ROCm {version} ({package_set})",
                  version=release.version, package_set=self.choices.package_set),
                t("plan.apt-install.explain",
                  "The ROCm user-space libraries and tools. No kernel module (DKMS): the kernel's "
                  "own amdgpu driver serves."),
                privileged=True,
                argv=("apt-get", "install", "-y", "--no-install-recommends", *packages),
            )
        )
        if release.stream == "core-sdk":
            self.notes.append(t(
                "plan.note.core-sdk-layout",
                "The ROCm Core SDK {version} installs into {path}, beside other Core SDK "
                "releases; AMD's way to remove it later: {command}.",
                version=release.version, path=f"/opt/rocm/core-{release.version}",
                command=f"sudo apt autoremove amdrocm{release.version}",
            ))

    def _core_sdk_packages(self, release: RocmRelease) -> tuple[str, ...]:
        """AMD's meta packages for the card's target (the one its override poses as), or the
        ones for every target where the release does not list it."""
        target = None
        if self.ctx.primary is not None:
            target = _code_target(*self.ctx.primary)
        gfx = f"-{gfx_base(target)}" if target and release.lists(target) else ""
        names = CORE_SDK_PACKAGE_SETS[self.choices.package_set]
        return tuple(n.format(series=release.version, gfx=gfx) for n in names)

    def core_sdk_source(self, release: RocmRelease, codename: str) -> None:
        """The Core SDK's repository as AMD's install page sets it up: its own key in
        /etc/apt/keyrings/amdrocm.gpg and a deb822 source; no pin (the amdrocm* names are
        AMD's alone)."""
        assert release.key_url and release.key_fingerprint
        assert release.apt_uri_template and release.apt_suite
        ubuntu = ubuntu_version(self.ctx.kb, self.facts.platform) or (
            self.ctx.kb.ubuntu_version_for(codename) or ""
        )
        uri = release.apt_uri_template.format(version_nodot=ubuntu.replace(".", ""))
        self.add(
            Step(
                "apt-keyring",
                t("plan.apt-keyring.title", "Add AMD's signing key"),
                t("plan.apt-keyring.explain",
                  "Downloads {url} and writes it to {path} only if its fingerprint is "
                  "{fingerprint} (never {command}).", url=release.key_url,
                  path=CORE_SDK_KEYRING, fingerprint=release.key_fingerprint, command="apt-key"),
                privileged=True,
                file=FileSpec(CORE_SDK_KEYRING, source_url=release.key_url),
                key_fingerprint=release.key_fingerprint,
                kind="file",
            )
        )
        content = (
            "Types: deb\n"
            f"URIs: {uri}\n"
            f"Suites: {release.apt_suite}\n"
            "Components: main\n"
            "Architectures: amd64\n"
            f"Signed-By: {CORE_SDK_KEYRING}\n"
        )
        self.add(
            Step(
                "apt-source",
                t("plan.apt-source.title", "Add AMD's ROCm {version} repository for {codename}",
                  version=release.version, codename=codename),
                t("plan.apt-source-core-sdk.explain",
                  "AMD's ROCm Core SDK repository for Ubuntu {ubuntu} (suite {suite}), in apt's "
                  "deb822 format, bound to AMD's key with {option}.",
                  ubuntu=ubuntu, suite=release.apt_suite, option="Signed-By"),
                privileged=True,
                file=FileSpec(CORE_SDK_SOURCES, content=content),
                kind="file",
            )
        )
        self._apt_update()

    def groups(self) -> None:
        perms = self.facts.permissions
        if perms.is_root or self.facts.platform.wsl or perms.open_to_everyone:
            return  # 0666 device nodes (Fedora, SteamOS setups): a group changes nothing
        missing = [g for g in ("render", "video") if g not in perms.user.groups]
        if not missing:
            return
        if not USER_NAME.match(perms.user.name):
            self.notes.append(t(
                "plan.note.groups-by-hand",
                "Add yourself to the render and video groups by hand ({command}); rocmate's "
                "root helper takes only plain local user names.",
                command=f"sudo usermod -aG render,video {perms.user.name}",
            ))
            return
        self.add(
            Step(
                "groups",
                t("plan.groups.title", "Add {user} to the render and video groups",
                  user=perms.user.name),
                t("plan.groups.explain",
                  "The GPU's device nodes belong to these groups. Takes effect after you log out "
                  "and back in."),
                privileged=True,
                argv=("usermod", "-aG", "render,video", perms.user.name),
                after="relogin",
            )
        )

    def venv_package(self) -> None:
        """python3-venv where the system's python3 has no ensurepip (Debian, Ubuntu: a fresh
        Ubuntu 24.04 desktop lacks python3.12-venv, so ``python3 -m venv`` fails). The helper's
        apt-get verb allows exactly this name; python3-venv pulls in the python3.X-venv of the
        distribution's python3. Elsewhere the pre-flight check says what is missing."""
        if self.facts.ensurepip is not False or not _apt_family(self.ctx):
            return
        if not any(s.id == "apt-update" for s in self.steps):
            self._apt_update_distribution()
        self.add(
            Step(
                "python3-venv",
                t("plan.python3-venv.title", "Install {package}", package="python3-venv"),
                t("plan.python3-venv.explain",
                  "The system's python3 has no {module}, so {command} cannot make the "
                  "environment; Debian and Ubuntu ship it in {package}.",
                  module="ensurepip", command="python3 -m venv", package="python3-venv"),
                privileged=True,
                argv=("apt-get", "install", "-y", "python3-venv"),
            )
        )

    def _apt_update_distribution(self) -> None:
        self.add(
            Step(
                "apt-update",
                t("plan.apt-update-distribution.title", "Read the package lists"),
                t("plan.apt-update-distribution.explain",
                  "{command}, so the package below is found at its current version.",
                  command="apt-get update"),
                privileged=True,
                argv=("apt-get", "update"),
            )
        )

    # as the user -------------------------------------------------------------------------
    def python_env(
        self, index: TorchIndex | None, gpu: Gpu, strategy: str, target: str | None = None,
        pins: tuple[str, ...] = (),
    ) -> None:
        """The venv and the PyTorch wheels; ``target`` is the gfx whose code must be in them
        (the card's own, or the one its override poses as): the pin is the newest torch on the
        index that carries it, unless ``pins`` names the requirements (a legacy route's)."""
        self.add(
            Step(
                "venv",
                t("plan.venv.title", "Create rocmate's Python environment"),
                t("plan.venv.explain",
                  "A virtual environment at {path}, so nothing touches the system Python.",
                  path=self.venv),
                argv=("python3", "-m", "venv", self.venv),
            )
        )
        self.add(
            Step(
                "pip-upgrade",
                t("plan.pip-upgrade.title", "Update pip in it"),
                t("plan.pip-upgrade.explain", "An old pip may not understand the wheel index."),
                argv=(self.python, "-m", "pip", "install", "--upgrade", "pip"),
            )
        )
        if strategy == "therock":
            family = therock_index(self.ctx.kb, gpu.gfx or "")
            assert family is not None and gpu.gfx
            self.torch_url = family.url
            device = gfx_base(target or gpu.gfx)
            if family.device_extra:
                extra = f"device-{device}"
                self.torch_packages = [f"torch[{extra}]", f"torchvision[{extra}]"]
                self._device_wheel_notes(gpu, device, family.untested)
            else:
                self.torch_packages = ["torch", "torchvision"]
            self.notes.append(t(
                "plan.note.therock-preview",
                "TheRock's {family} index holds nightly preview builds of ROCm + PyTorch.",
                family=family.family,
            ))
            if family.device_extra:
                self.notes.append(t(
                    "plan.note.therock-device-extra",
                    "One index serves every GPU: the {extra} extra picks this card's kernels, "
                    "and the torch wheel brings the matching ROCm libraries with it.",
                    extra=f"[device-{device}]",
                ))
        else:
            assert index is not None
            self.torch_url = index.url
            if index.device_extra and (target or gpu.gfx):
                device = gfx_base(target or gpu.gfx or "")
                extras = [f"torch[device-{device}]", f"torchvision[device-{device}]"]
                torch = (index.torch_for(device) or index.newest_torch) if index.local else None
                vision = index.torchvision_with(torch) if torch else None
                if torch and vision:
                    extras = [f"{extras[0]}=={torch}+{index.local}",
                              f"{extras[1]}=={vision}+{index.local}"]
                self.torch_packages = extras
                self._device_wheel_notes(gpu, device, ())
            elif pins:
                self.torch_packages = list(pins)
            else:
                newest = (index.torch_for(target) if target else None) or index.newest_torch
                pin = f"+{index.name}" if index.vendor == "pytorch" else ""
                self.torch_packages = [
                    f"torch=={newest}{pin}" if newest else "torch",
                    "torchvision",
                ]
        self.add(
            Step(
                "pip-torch",
                t("plan.pip-torch.title", "Install PyTorch for ROCm"),
                t("plan.pip-torch.explain",
                  "From {url}. The wheels bring their own ROCm libraries (several GB).",
                  url=self.torch_url),
                argv=(
                    self.python,
                    "-m",
                    "pip",
                    "install",
                    *self.torch_packages,
                    "--index-url",
                    self.torch_url,
                ),
            )
        )

    def _device_wheel_notes(self, gpu: Gpu, device: str, untested: tuple[str, ...]) -> None:
        """Why the device extra is the one it is, where it is not plainly the card's own
        supported target: an override card's own untested device wheel, or the override
        target's wheel."""
        own = gfx_base(gpu.gfx) if gpu.gfx else None
        support = self.ctx.primary[1] if self.ctx.primary else None
        override = support.override if support and support.status == "override" else None
        posed = override_to_gfx(override) if override else None
        if own and device == own and own in untested:
            self.notes.append(t(
                "plan.note.device-wheel-untested",
                "AMD builds a device wheel for {gfx} itself ({extra}), so no {variable} is "
                "set; no public output shows PyTorch working with it yet (untested publicly).",
                gfx=own, extra=f"[device-{own}]", variable="HSA_OVERRIDE_GFX_VERSION",
            ))
            if override and posed:
                self.notes.append(t(
                    "plan.note.device-wheel-fallback",
                    "If it fails, the stable wheels with {gfx} code and {variable}={value} are "
                    "the publicly tested route: {command}.",
                    gfx=posed, variable="HSA_OVERRIDE_GFX_VERSION", value=override,
                    command="rocmate install --strategy pip-only",
                ))
        elif own and device != own:
            value = next((v for k, v in self.env.items()
                          if k.startswith("HSA_OVERRIDE_GFX_VERSION")), "")
            self.notes.append(t(
                "plan.note.device-wheel-override",
                "This index has no device wheel for {gfx}, so the plan takes {extra}: "
                "{variable}={value} makes the card pose as {device}, whose kernels that wheel "
                "carries.",
                gfx=own, extra=f"[device-{device}]", variable="HSA_OVERRIDE_GFX_VERSION",
                value=value, device=device,
            ))

    def wsl_runtime_swap(self) -> None:
        self.add(
            Step(
                "wsl-hsa-swap",
                t("plan.wsl-hsa-swap.title", "Use WSL's HSA runtime in PyTorch"),
                t("plan.wsl-hsa-swap.explain",
                  "The wheel's own {library} cannot talk to {device}; AMD's WSL steps "
                  "replace it with the one from {folder}.",
                  library="libhsa-runtime64.so", device="/dev/dxg", folder="/opt/rocm/lib"),
                argv=(sys.executable, "-m", "core.install.wsl_runtime_swap", "--venv", self.venv),
            )
        )

    def env_file(self) -> None:
        pairs = sorted(self.env.items())
        for shell in ENV_SHELLS:
            suffix = "" if shell.name == "sh" else f"-{shell.name}"
            script = f"{self.venv}/bin/rocmate-env.{shell.name}"
            lines = [shell.unset.format(key=k) for k in self.fixes.unset] + [
                (shell.forced if k in self.fixes.forced else shell.line).format(key=k, value=v)
                for k, v in pairs]
            self.add(
                Step(
                    f"env-file{suffix}",
                    shell.file_title(),
                    shell.file_explain(", ".join([f"unset {k}" for k in self.fixes.unset]
                                                 + [f"{k}={v}" for k, v in pairs])
                                       or t("plan.env-file.none-needed", "none needed")),
                    file=FileSpec(
                        script,
                        content="# Written by rocmate: variables this GPU needs.\n"
                        + "\n".join(lines)
                        + "\n",
                    ),
                    kind="file",
                )
            )
            self.add(
                Step(
                    f"env-activate{suffix}",
                    shell.activate_title(),
                    t("plan.env-activate.explain", "One line at the end of {file}.",
                      file=f"bin/{shell.activate}"),
                    file=FileSpec(
                        f"{self.venv}/bin/{shell.activate}",
                        content=shell.source.format(script=script) + "\n",
                        append=True,
                    ),
                    kind="file",
                )
            )

    def verify(self) -> None:
        self.add(
            Step(
                "verify",
                t("plan.verify.title", "Check that PyTorch sees the GPU"),
                t("plan.verify.explain",
                  "torch version and torch.version.hip, is_available, then on each GPU "
                  "fp32/fp16/bf16 matrix products, a convolution and attention, each compared "
                  "with the CPU in its own time limit (the kernel check of rocmate doctor)."),
                argv=(self.python, "-c", verify_script()),
                kind="verify",
            )
        )


# -- pre-flight -----------------------------------------------------------------------------


# The file system hierarchy's own trees (FHS 3.0, https://refspecs.linuxfoundation.org/FHS_3.0/
# fhs/index.html, chapters 3 and 4): nothing of a Python environment belongs inside them, and a
# folder directly under / is never one environment's own.
_SYSTEM_TREES = ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc",
                 "/run", "/sbin", "/sys", "/usr")


def _system_folder(venv: str, home: str) -> bool:
    """Whether ``venv`` is / or a folder directly under it, lies in one of the system's own
    trees (/usr/local included: pip's own environments go elsewhere), or is the home itself."""
    path = os.path.normpath(venv)
    if path.count("/") <= 1 or path == os.path.normpath(home or "/"):
        return True
    return any(path == tree or path.startswith(tree + "/") for tree in _SYSTEM_TREES)


def _apt_family(ctx: Context) -> bool:
    """Whether the distribution installs with apt (Debian, Ubuntu and their derivatives)."""
    platform = ctx.facts.platform
    if platform.is_ubuntu_family:
        return True
    family = ctx.kb.family_for(platform.distro_id, platform.id_like)
    return bool(family and family.package_manager == "apt")


def _venv_check(ctx: Context) -> Preflight | None:
    """Whether ``python3 -m venv`` can work here (None: not known, nothing said)."""
    ensurepip = ctx.facts.ensurepip
    if ensurepip is None:
        return None
    if ensurepip:
        return Preflight("python-venv", True, t(
            "plan.preflight.python-venv.title",
            "The system's python3 can make a virtual environment ({module} is there)",
            module="ensurepip"))
    return Preflight(
        "python-venv", False,
        t("plan.preflight.python-venv.title.missing",
          "The system's python3 has no {module}: {command} would fail",
          module="ensurepip", command="python3 -m venv"),
        t("plan.preflight.python-venv.detail.apt", "The plan installs {package} first.",
          package="python3-venv")
        if _apt_family(ctx) else
        t("plan.preflight.python-venv.detail.other",
          "Install your distribution's Python venv package, then plan again."),
    )


def _python_check(ctx: Context, torch_packages: list[str] | tuple[str, ...]) -> Preflight | None:
    """Whether the system's python3 (which makes the environment) has wheels of the torch
    release the plan pins (torch_python.toml); None where the version or the release is not
    known (nothing said)."""
    have = ctx.facts.python3
    if not have:
        return None
    rows = load_torch_python(ctx.kb.data_dir)
    release = next((r for r in (release_of(rows, p) for p in torch_packages) if r), None)
    if release is None:
        return None
    minor = ".".join(have.split(".")[:2])
    if release.fits(have):
        return Preflight("python-version", True, t(
            "plan.preflight.python-version.title",
            "The system's python3 is {python}: torch {torch} has wheels for it (Python "
            "{versions})", python=minor, torch=release.torch, versions=release.versions))
    return Preflight(
        "python-version", False,
        t("plan.preflight.python-version.title.unfit",
          "The system's python3 is {python}, but torch {torch} has wheels only for Python "
          "{versions}: pip would find none, so this plan cannot be carried out",
          python=minor, torch=release.torch, versions=release.versions),
        t("plan.preflight.python-version.detail.unfit",
          "Upgrade to a release of your distribution whose python3 is {versions}, then plan "
          "again. Source: {source}", versions=release.versions, source=release.source),
        stops=True,
    )


def _preflight(ctx: Context, strategy: str, choices: Choices, venv: str,
               torch_packages: list[str] | tuple[str, ...] = (),
               rocm: str | None = None) -> list[Preflight]:
    facts = ctx.facts
    driver = facts.driver
    checks = []
    venv_check = _venv_check(ctx)
    if venv_check is not None:
        checks.append(venv_check)
    python_check = _python_check(ctx, torch_packages)
    if python_check is not None:
        checks.append(python_check)
    if strategy != "wsl":
        loaded = driver.amdgpu_loaded or facts.permissions.kfd.exists
        checks.append(
            Preflight(
                "kernel-driver",
                loaded,
                t("plan.preflight.kernel-driver.title",
                  "The kernel's amdgpu driver serves (no DKMS needed)")
                if loaded
                else t("plan.preflight.kernel-driver.title.not-loaded",
                       "The amdgpu driver is not loaded"),
                "" if loaded else t("plan.preflight.kernel-driver.detail.not-loaded",
                                    "See the doctor's {finding} finding before installing.",
                                    finding="kfd-missing"),
            )
        )
        old = kernel_rule(ctx, rocm)  # the doctor's kernel-old, in the same words, against the
        #                               plan's own release (an older card's route is not 10.x)
        if old:
            checks.append(Preflight("kernel-old", False, old[0].title, old[0].fix))
        if strategy == "rocm-apt":
            # AMD's per-family systems (os-support.yaml: Ryzen APUs and Radeon on fewer Ubuntu
            # kernels), in the doctor's words: what the official route needs
            for limit in distro_rule(ctx):
                if limit.id == "gpu-os-unsupported":
                    checks.append(Preflight("gpu-os", False, limit.title, limit.fix))
        missing = driver.kernels_without_headers()
        checks.append(
            Preflight(
                "kernel-headers",
                True,
                t("plan.preflight.kernel-headers.title",
                  "Kernel headers: only a DKMS module needs them, and none is planned"),
                t("plan.preflight.kernel-headers.detail", "No headers for {kernels}",
                  kernels=", ".join(missing)) if missing else "",
            )
        )
        left = dkms_leftovers(driver)  # the doctor's dkms-leftovers rule
        stale = left.stale
        checks.append(
            Preflight(
                "dkms-leftovers",
                not stale,
                t("plan.preflight.dkms-leftovers.title", "No stale {package} builds",
                  package="amdgpu-dkms")
                if not stale
                else t("plan.preflight.dkms-leftovers.title.found", "Stale {package} builds found",
                       package="amdgpu-dkms"),
                ", ".join(left.paths) if stale else "",
            )
        )
        checks.append(
            Preflight(
                "secure-boot",
                True,
                t("plan.preflight.secure-boot.title.on", "Secure Boot is on")
                if driver.secure_boot
                else t("plan.preflight.secure-boot.title.off", "Secure Boot is off or unknown"),
                t("plan.preflight.secure-boot.detail",
                  "Only matters for DKMS modules, which this plan does not install."),
            )
        )
    disk = facts.disk_free
    needed = VENV_BYTES + (APT_BYTES.get(choices.package_set, 0) if strategy == "rocm-apt" else 0)
    if isinstance(disk, dict) and disk:
        free = min(disk.values())
        checks.append(
            Preflight(
                "disk-space",
                free >= needed,
                t("plan.preflight.disk-space.title", "{free} GiB free, about {needed} GiB needed",
                  free=f"{free / (1 << 30):.0f}", needed=f"{needed / (1 << 30):.0f}"),
            )
        )
    return checks
