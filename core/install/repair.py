"""A repair plan for an existing Python environment (issue 34): replace exactly its PyTorch
family with the ROCm builds the planner picks for the card, and nothing else.

The family present is read from the environment's files (:mod:`core.probe.python_packages`);
the route (index, device extra, override) is the one :func:`core.install.planner.make_plan`
picks for a fresh environment of this machine, so a repair and a set-up never disagree. The
app's torch major.minor is kept where that index has it; otherwise the plan says what changes.

The steps, all as the user, all with the environment's own pip:

1. ``repair-remove`` (only where needed): ``pip uninstall -y`` of CUDA-only members that a
   ROCm member replaces (``triton`` -> ``pytorch-triton-rocm``: both install ``triton/``);
2. ``repair-family``: ``pip install --force-reinstall --no-deps`` of the family members
   present, pinned ``==`` to matching versions, from the index: nothing outside the family is
   touched;
3. ``repair-deps``: ``pip install`` of the same pins without ``--force-reinstall``: pip keeps
   what is installed and adds only what the new family needs and the environment lacks (e.g.
   ``pytorch-triton-rocm``); the record of the environment (kept before step 1) lets a
   rollback take those away again;
4. ``verify``: the doctor's kernel check in the repaired Python.

A rollback plan (:func:`make_rollback_plan`) puts the recorded ``pip freeze --all`` back: it
uninstalls what was added and reinstalls the recorded family versions from the index each
build comes from (``+cpu`` from download.pytorch.org/whl/cpu, ...).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from core.diagnose.context import Context
from core.i18n import local, t
from core.install.plan import Plan, Step
from core.install.planner import Choices, PlanError, make_plan
from core.knowledge.loader import Knowledge
from core.knowledge.rows import gfx_base, version_tuple
from core.knowledge.torch_family import TorchFamily
from core.knowledge.wheels import TorchIndex
from core.probe.facts import Facts
from core.probe.kernel_check import verify_script
from core.probe.parse.kfd import override_to_gfx
from core.probe.parse.python_dist import build_of, canonical_name, minor, split_version
from core.probe.python_packages import AppRequirement, FamilyMember, PythonEnvironment

REPAIR_STRATEGY = "repair"
ROLLBACK_STRATEGY = "rollback"
PIP = ("-m", "pip")
PIP_QUIET = ("--disable-pip-version-check",)
REFUSALS = ("no-python", "not-absolute", "conda-base", "externally-managed", "system-python",
            "conda-managed", "no-torch", "no-pip", "read-only", "no-route", "nothing-recorded")


class RepairRefusal(ValueError):
    """Why this environment is not repaired (or rolled back): one line for the user and an id
    (:data:`REFUSALS`)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class MemberChange:
    """What the plan does to one member of the family."""

    name: str
    before: str | None
    """The version installed now (None: not installed)."""
    after: str | None
    """The version the plan installs (None: removed or left as it is)."""
    action: str
    """``replace``, ``remove``, ``add``, ``keep`` (no ROCm build known: left as it is),
    ``follow`` (pip installs the version the new torch requires: pytorch-triton-rocm)."""
    source: str | None = None
    """The index the version after comes from (for a rollback: where the old build is)."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "before": self.before, "after": self.after,
                "action": self.action, "source": self.source}


@dataclass(frozen=True)
class Repair:
    """The ``repair`` object of a repair (or rollback) plan's JSON."""

    python: str
    prefix: str
    kind: str
    """``repair`` or ``rollback``."""
    index: str | None
    torch_before: str | None
    torch_after: str | None
    changes: tuple[MemberChange, ...]
    app_pins: tuple[str, ...] = ()
    """What the app's requirements files ask of the family's versions
    (``requirements_versions.txt: xformers==0.0.20``); unversioned lines are left out."""
    record: str | None = None
    """The record this rollback restores (a folder of the repairs history)."""
    unreachable: tuple[str, ...] = ()
    """Recorded builds a rollback cannot fetch again (``torch 2.5.1+git123``)."""

    def to_json(self) -> dict[str, Any]:
        return {"python": self.python, "prefix": self.prefix, "kind": self.kind,
                "index": self.index, "torch_before": self.torch_before,
                "torch_after": self.torch_after,
                "changes": [c.to_json() for c in self.changes],
                "app_pins": list(self.app_pins), "record": self.record,
                "unreachable": list(self.unreachable)}


@dataclass(frozen=True)
class RepairPlan(Plan):
    """A :class:`Plan` (the runner carries it out like any other) with its ``repair`` object;
    the plan JSON gains ``repair`` (docs/contracts.md, additive)."""

    repair: Repair | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        if self.repair is not None:
            data["repair"] = self.repair.to_json()
        return data


# -- refusals ------------------------------------------------------------------------------

def refusal(env: PythonEnvironment, writable: Mapping[str, bool | None]) -> RepairRefusal | None:
    """Why ``env`` may not be changed; None when it may. ``writable`` says for each folder pip
    writes (site-packages, bin/) whether its owner can write it (None: not known)."""
    if env.prefix is None:
        return RepairRefusal("not-absolute", t(
            "repair.refuse.not-absolute", "{python} is not an absolute path to a Python: give "
            "the environment's own, e.g. {example}", python=env.python,
            example="~/ComfyUI/venv/bin/python"))
    if not env.exists:
        return RepairRefusal("no-python", t(
            "repair.refuse.no-python", "there is no Python at {python}", python=env.python))
    if env.conda_base:
        return RepairRefusal("conda-base", t(
            "repair.refuse.conda-base", "{prefix} is conda's base environment: rocmate does not "
            "change it; make an environment for the app ({command}) and repair that one",
            prefix=env.prefix, command="conda create -n app python"))
    if env.externally_managed:
        return RepairRefusal("externally-managed", t(
            "repair.refuse.externally-managed", "{python} is managed by the system's package "
            "manager ({marker}, PEP 668): rocmate changes only an app's own virtual environment",
            python=env.python, marker=env.externally_managed))
    if not env.venv and not env.conda:
        return RepairRefusal("system-python", t(
            "repair.refuse.system-python", "{python} is not a virtual environment (no "
            "pyvenv.cfg): rocmate does not change a system Python; give the app's venv, or "
            "make one with {command}", python=env.python, command="rocmate install"))
    torch = env.torch
    if torch is None and env.include_system_site_packages:
        return RepairRefusal("no-torch", t(
            "repair.refuse.system-torch", "there is no PyTorch in {prefix} itself, and it sees "
            "the system Python's packages ({setting}): a PyTorch from there is the system's, "
            "which rocmate does not change; use {command} for one of its own",
            prefix=env.prefix, setting="include-system-site-packages = true",
            command=f"rocmate install --venv {env.prefix}"))
    if torch is None:
        return RepairRefusal("no-torch", t(
            "repair.refuse.no-torch", "there is no PyTorch in {prefix} to repair: use {command} "
            "to install it", prefix=env.prefix, command=f"rocmate install --venv {env.prefix}"))
    dist = env.distribution("torch")
    if env.conda and dist is not None and (dist.installer or "").lower() == "conda":
        return RepairRefusal("conda-managed", t(
            "repair.refuse.conda-managed", "PyTorch in {prefix} was installed by conda: change "
            "it with conda, not pip", prefix=env.prefix))
    if not env.has_pip:
        return RepairRefusal("no-pip", t(
            "repair.refuse.no-pip", "{prefix} has no pip to change its packages with (add it "
            "with {command})", prefix=env.prefix, command=f"{env.python} -m ensurepip"))
    locked = [path for path, ok in writable.items() if ok is False]
    if locked:
        return RepairRefusal("read-only", t(
            "repair.refuse.read-only", "{path} cannot be written by its owner: rocmate changes "
            "nothing in a read-only environment", path=locked[0]))
    return None


# -- the target ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """The ROCm builds for the card: the index, the requirement of each role, the variables."""

    index: str
    rocm: str | None
    pins: dict[str, str]
    """role -> requirement (``torch==2.9.1+rocm6.4``, ``torch[device-gfx1030]==...``)."""
    versions: dict[str, str | None]
    """role -> the version the requirement installs (None: the index's newest, not pinned)."""
    env: dict[str, str]
    notes: list[str]
    strategy: str
    audio_unverified: bool = False
    after_install: tuple[Step, ...] = ()
    """The planner's steps that change the new torch's own files for this machine (WSL 2's
    HSA runtime swap): they follow the install, before the check."""
    """No source names the torchaudio made with this torch: its pin is a guess."""


def _after_install(base: Plan) -> tuple[Step, ...]:
    """The set-up's steps that work on the installed wheel itself (``wsl-hsa-swap``)."""
    return tuple(s for s in base.steps if s.id.startswith("wsl-hsa-swap"))


def _index_row(kb: Knowledge, url: str | None, rocm: str | None) -> TorchIndex | None:
    rows = [i for i in kb.torch_indexes if i.url == url]
    return next((i for i in rows if i.rocm == rocm), rows[0] if rows else None)


def _carrying(index: TorchIndex, target: str | None) -> list[str]:
    """The torch versions of ``index`` whose wheels carry ``target`` (all where not known)."""
    if not target or not index.arch_list:
        return list(index.torch)
    base = gfx_base(target)
    if base not in index.arch_list:
        return []
    first = dict(index.arch_from).get(base)
    return [v for v in index.torch if first is None or version_tuple(v) >= version_tuple(first)]


def _choose(versions: list[str], wanted: str | None) -> str | None:
    """``wanted`` when listed, else the newest of its major.minor; None when neither."""
    if not wanted:
        return None
    if wanted in versions:
        return wanted
    same = [v for v in versions if minor(v) == minor(wanted)]
    return max(same, key=version_tuple) if same else None


def _code_target(facts: Facts, kb: Knowledge, env: Mapping[str, str]) -> tuple[str | None, str]:
    """(The target whose code the wheels must carry, the card's own gfx)."""
    primary = Context(facts, kb).primary
    own = primary[0].gfx if primary else None
    for key, value in env.items():
        if key.startswith("HSA_OVERRIDE_GFX_VERSION"):
            return override_to_gfx(value) or own, own or "?"
    return own, own or "?"


def _release_keeping(facts: Facts, kb: Knowledge, choices: Choices, strategy: str,
                     env: PythonEnvironment, target: str | None, wanted: str) -> str | None:
    """A ROCm release (``--rocm``) whose index, as the planner picks it, has ``wanted``'s
    major.minor for ``target``; None when none does."""
    releases = sorted({i.rocm for i in kb.torch_indexes if i.stable
                       and _choose(_carrying(i, target), wanted)}, key=version_tuple,
                      reverse=True)
    for rocm in releases:
        try:
            plan = make_plan(facts, kb, replace(choices, strategy=strategy, rocm=rocm,
                                                venv=env.prefix))
        except PlanError:
            continue
        if plan.blocked:
            continue
        same = [i for i in kb.torch_indexes if i.stable and i.rocm == rocm
                and _choose(_carrying(i, target), wanted)]
        if any(i.url == plan.torch_index or i.vendor == "pytorch" for i in same):
            return rocm
    return None


def _wanted_torch(env: PythonEnvironment, pins: tuple[AppRequirement, ...]) -> str | None:
    """The torch version to keep: the app's exact pin, else the one installed."""
    for pin in pins:
        if pin.name == "torch" and pin.requirement.pinned:
            return split_version(pin.requirement.pinned)[0]
    torch = env.torch
    return split_version(torch.version)[0] if torch else None


def target_for(facts: Facts, kb: Knowledge, family: TorchFamily, env: PythonEnvironment,
               pins: tuple[AppRequirement, ...], choices: Choices) -> Target:
    """The planner's route for the card, with the versions chosen to keep the app's torch."""
    wsl = facts.platform.wsl == 2
    strategy = choices.strategy or ("wsl" if wsl else "pip-only")
    if strategy == "rocm-apt":
        strategy = "pip-only"  # the wheels bring their own ROCm: no system packages in a repair
    try:
        base = make_plan(facts, kb, replace(choices, strategy=strategy, venv=env.prefix))
    except PlanError as exc:
        raise RepairRefusal("no-route", str(exc)) from exc
    if base.blocked or not base.torch_index:
        raise RepairRefusal("no-route", t(
            "repair.refuse.no-route", "no ROCm build of PyTorch fits this machine: {reason}",
            reason=base.blocked or "?"))
    notes = [n for n in base.notes if n not in (base.notes[:1] if base.nothing_to_do else ())]
    target, own = _code_target(facts, kb, base.env)
    wanted = _wanted_torch(env, pins)
    index = _index_row(kb, base.torch_index, base.rocm)
    pins_out: dict[str, str] = {}
    versions: dict[str, str | None] = {}
    if index is None:  # TheRock's nightly multi-arch index: the planner's unpinned extras
        for requirement in base.torch_packages:
            role = "vision" if requirement.startswith("torchvision") else "torch"
            pins_out[role] = requirement
            versions[role] = None
        extra = re.search(r"\[(device-[a-z0-9]+)\]", base.torch_packages[0])
        pins_out["audio"] = "torchaudio"
        versions["audio"] = None
        notes.append(t("repair.note.nightly", "TheRock's index holds nightly builds: the "
                       "versions are the newest there, not pinned{extra}.",
                       extra=f" ({extra.group(1)})" if extra else ""))
        return Target(base.torch_index, base.rocm, pins_out, versions, dict(base.env), notes,
                      strategy, after_install=_after_install(base))
    carrying = _carrying(index, target)
    chosen = _choose(carrying, wanted)
    if chosen is None and wanted:
        # another index of the same series and vendor that still has the app's torch
        # (rocm6.2 beside rocm6.2.4)
        for other in kb.torch_indexes:
            if (other.stable and other.rocm == index.rocm and other.vendor == index.vendor
                    and other.url != index.url and other.device_extra == index.device_extra):
                found = _choose(_carrying(other, target), wanted)
                if found:
                    index, carrying, chosen = other, _carrying(other, target), found
                    break
    newest = max(carrying, key=version_tuple) if carrying else index.newest_torch
    version = chosen or newest
    if version is None:
        raise RepairRefusal("no-route", t(
            "repair.refuse.no-torch-on-index", "the index {url} lists no PyTorch for {gfx}",
            url=index.url, gfx=target or own))
    if wanted and chosen is None:
        notes.append(t(
            "repair.note.torch-changes", "PyTorch {old} is not on {url} for {gfx}: the repair "
            "installs {new}. An app that needs {old} may not start with it; the record keeps "
            "the way back ({command}).", old=wanted, url=index.url, gfx=target or own,
            new=version, command=f"rocmate install --rollback {env.python}"))
        keeping = _release_keeping(facts, kb, choices, strategy, env, target, wanted)
        if keeping and keeping != index.rocm:
            notes.append(t(
                "repair.note.keep-with-rocm", "{option} keeps PyTorch {minor}: that release's "
                "index still has it for {gfx}.", option=f"--rocm {keeping}",
                minor=minor(wanted) or wanted, gfx=target or own))
    if index.device_extra and index.local:
        device = gfx_base(target or own)
        local = index.local
        vision = index.torchvision_with(version)
        pins_out["torch"] = f"torch[device-{device}]=={version}+{local}"
        versions["torch"] = f"{version}+{local}"
        if vision:
            pins_out["vision"] = f"torchvision[device-{device}]=={vision}+{local}"
            versions["vision"] = f"{vision}+{local}"
        audio = family.audio_for(local)
        if audio:
            pins_out["audio"] = f"torchaudio=={audio.torchaudio}+{local}"
            versions["audio"] = f"{audio.torchaudio}+{local}"
    unverified = False
    if not (index.device_extra and index.local):
        tag = index.name if index.vendor == "pytorch" else None
        suffix = f"+{tag}" if tag else ""
        pair = family.pair(version)
        pins_out["torch"] = f"torch=={version}{suffix}"
        versions["torch"] = f"{version}{suffix}"
        if pair:
            pins_out["vision"] = f"torchvision=={pair.torchvision}{suffix}"
            versions["vision"] = f"{pair.torchvision}{suffix}"
            audio_version = pair.torchaudio or version
            pins_out["audio"] = f"torchaudio=={audio_version}{suffix}"
            versions["audio"] = f"{audio_version}{suffix}"
            unverified = pair.torchaudio is None
        else:
            pins_out["vision"] = "torchvision"
            versions["vision"] = None
            pins_out["audio"] = "torchaudio"
            versions["audio"] = None
    return Target(index.url, index.rocm, pins_out, versions, dict(base.env), notes, strategy,
                  unverified, _after_install(base))


# -- the plan ------------------------------------------------------------------------------

def _pip(python: str, *args: str) -> tuple[str, ...]:
    return (python, *PIP, *args, *PIP_QUIET)


def _app_pin_words(pins: tuple[AppRequirement, ...]) -> tuple[str, ...]:
    return tuple(f"{posixpath.basename(p.file)}: {p.requirement.name}{p.requirement.spec}"
                 for p in pins if p.requirement.spec)


def make_repair_plan(env: PythonEnvironment, facts: Facts, kb: Knowledge, family: TorchFamily,
                     pins: tuple[AppRequirement, ...] = (),
                     writable: Mapping[str, bool | None] | None = None,
                     choices: Choices | None = None) -> RepairPlan:
    """The plan that replaces ``env``'s PyTorch family with the card's ROCm builds; raises
    :class:`RepairRefusal` with the one line that says why not."""
    refused = refusal(env, writable or {})
    if refused is not None:
        raise refused
    assert env.prefix is not None and env.torch is not None
    target = target_for(facts, kb, family, env, pins, choices or Choices())
    python = env.python
    changes: list[MemberChange] = []
    install: list[str] = []
    remove: list[str] = []
    notes = list(target.notes)
    present = {m.role: m for m in env.family if m.role in ("torch", "vision", "audio")}
    for member in env.family:
        if member.role in ("torch", "vision", "audio"):
            requirement = target.pins.get(member.role)
            if requirement is None:
                changes.append(MemberChange(member.name, member.version, None, "keep"))
                notes.append(t("repair.note.member-not-on-index", "{name} {version}: the index "
                               "has no build of it for this torch; it stays as it is.",
                               name=member.name, version=member.version))
                continue
            install.append(requirement)
            changes.append(MemberChange(member.name, member.version,
                                        target.versions.get(member.role) or "newest", "replace",
                                        target.index))
        elif member.rocm == "replaced":
            remove.append(member.name)
            changes.append(MemberChange(member.name, member.version, None, "remove"))
        elif member.rocm == "index":  # pytorch-triton-rocm: the new torch's own requirement
            changes.append(MemberChange(member.name, member.version, None, "follow",
                                        target.index))
        else:
            row = family.member(member.name)
            changes.append(MemberChange(member.name, member.version, None, "keep"))
            notes.append(t("repair.note.member-no-rocm", "{name} {version} stays: {why}",
                           name=member.name, version=member.version,
                           why=local(row.note) if row and row.note else "?"))
    if "torch" not in present:  # only pytorch-triton-rocm or such: the torch role is missing
        raise RepairRefusal("no-torch", t(
            "repair.refuse.no-torch", "there is no PyTorch in {prefix} to repair: use {command} "
            "to install it", prefix=env.prefix, command=f"rocmate install --venv {env.prefix}"))
    if target.audio_unverified and "audio" in present:
        notes.append(t(
            "repair.note.audio-unverified", "No source rocmate knows names the torchaudio made "
            "with torch {version}: the plan takes {audio} (unverified); if the index lacks it, "
            "pip stops and the environment is put back.",
            version=(target.versions.get("torch") or "?").split("+")[0],
            audio=target.versions.get("audio") or "?"))
    replaced = {c.name: c.after for c in changes if c.action == "replace"}
    clashing = [p for p in pins if p.requirement.pinned and p.name in replaced
                and split_version(p.requirement.pinned)[0]
                != split_version(replaced[p.name] or "")[0]]
    if clashing:
        notes.append(t(
            "repair.note.app-pins", "The app's requirements pin {pins}: a later {command} "
            "would put those builds back (from PyPI); start the app without reinstalling them.",
            pins=", ".join(f"{p.requirement.name}{p.requirement.spec}" for p in clashing),
            command="pip install -r requirements.txt"))
    already = all(
        c.action != "replace" or c.before == c.after for c in changes
    ) and not remove
    steps: list[Step] = []
    if remove:
        steps.append(Step(
            "repair-remove",
            t("repair.step.remove.title", "Remove the CUDA-only members of the family"),
            t("repair.step.remove.explain", "{names}: their ROCm counterpart installs the same "
              "module.", names=", ".join(remove)),
            argv=_pip(python, "uninstall", "-y", *remove)))
    steps.append(Step(
        "repair-family",
        t("repair.step.family.title", "Replace the PyTorch family with ROCm builds"),
        t("repair.step.family.explain", "{pins} from {url}, in place of the builds there now; "
          "no other package is touched ({flags}).", pins=" ".join(install), url=target.index,
          flags="--force-reinstall --no-deps"),
        argv=_pip(python, "install", "--force-reinstall", "--no-deps", *install,
                  "--index-url", target.index)))
    steps.append(Step(
        "repair-deps",
        t("repair.step.deps.title", "Add what the new builds need"),
        t("repair.step.deps.explain", "pip keeps every package that is there and adds only "
          "what the ROCm builds require and the environment lacks (such as {example}).",
          example="pytorch-triton-rocm"),
        argv=_pip(python, "install", *install, "--index-url", target.index)))
    steps += target.after_install
    steps.append(Step(
        "verify",
        t("plan.verify.title", "Check that PyTorch sees the GPU"),
        t("repair.step.verify.explain", "The kernel check of rocmate doctor in {python}: "
          "fp32/fp16/bf16 matrix products, a convolution and attention on each GPU, each "
          "compared with the CPU.", python=python),
        argv=(python, "-c", verify_script()),
        kind="verify"))
    override = {k: v for k, v in target.env.items() if k.startswith("HSA_OVERRIDE_GFX_VERSION")}
    if override:
        notes.append(t(
            "repair.note.variables", "The card needs {pairs} in the app's environment: the "
            "check below runs with it; start the app with it set (rocmate env prints it).",
            pairs=", ".join(f"{k}={v}" for k, v in sorted(override.items()))))
    if already:
        notes.insert(0, t("repair.note.already", "The family already holds these builds: the "
                          "steps would only reinstall them."))
    repair = Repair(
        python=python, prefix=env.prefix, kind="repair", index=target.index,
        torch_before=env.torch.version, torch_after=target.versions.get("torch") or "newest",
        changes=tuple(changes), app_pins=_app_pin_words(pins))
    return RepairPlan(
        strategy=REPAIR_STRATEGY, rocm=target.rocm, torch_index=target.index,
        steps=tuple(steps), env=target.env, venv=env.prefix, torch_packages=tuple(install),
        notes=tuple(notes), nothing_to_do=already, repair=repair)


# -- rolling back --------------------------------------------------------------------------

_FREEZE_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)\s*$")
_FREEZE_URL = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*@\s*(\S+)\s*$")


def parse_freeze(text: str) -> dict[str, str]:
    """``pip freeze --all`` -> {canonical name: the line}; comments and editables left out."""
    found: dict[str, str] = {}
    for raw in (text or "").splitlines():
        line = raw.strip()
        match = _FREEZE_PIN.match(line) or _FREEZE_URL.match(line)
        if match:
            found[canonical_name(match.group(1))] = line
    return found


def freeze_version(line: str) -> str | None:
    match = _FREEZE_PIN.match(line)
    return match.group(2) if match else None


def build_source(kb: Knowledge, family: TorchFamily, version: str,
                 torch_version: str | None = None) -> str | None:
    """The index a recorded build comes from: its local tag's (AMD's own tags from torch.toml's
    rows), else, for a member without a tag beside a tagged torch (pytorch-triton-rocm,
    triton), torch's; None when no index is known to carry it."""
    build = build_of(version)
    if build.kind == "none" and torch_version is not None and build_of(torch_version).tag:
        build = build_of(torch_version)
    if build.kind == "rocm" and build.tag:
        for row in kb.torch_indexes:
            if row.local and row.local == build.tag:
                return row.url
    if build.kind == "other":
        return None
    return family.build_index(build.kind, build.tag)


@dataclass(frozen=True)
class Restore:
    """What a rollback puts back, from a record (:mod:`core.install.repair_record`)."""

    record: str
    python: str
    prefix: str
    freeze: dict[str, str]
    """The recorded ``pip freeze --all``: {canonical name: line}."""
    sources: dict[str, str | None]
    """Family member -> the index its recorded build comes from (None: not reachable)."""


def make_rollback_plan(restore: Restore, now: PythonEnvironment) -> RepairPlan:
    """The plan that brings ``now`` back to the recorded freeze: uninstall what was added,
    reinstall the recorded versions of what changed (family members from their builds'
    indexes, with ``--no-deps``)."""
    python = restore.python
    current = {d.key: d.version for d in now.distributions}
    added = sorted(k for k in current if k not in restore.freeze)
    by_source: dict[str, list[str]] = {}
    others: list[str] = []
    unreachable: list[str] = []
    changes: list[MemberChange] = []
    for key, line in sorted(restore.freeze.items()):
        version = freeze_version(line)
        if version is not None and current.get(key) == version:
            continue
        if key in restore.sources:
            source = restore.sources[key]
            if source is None:
                unreachable.append(line)
                changes.append(MemberChange(key, current.get(key), version, "keep"))
                continue
            by_source.setdefault(source, []).append(line)
            changes.append(MemberChange(key, current.get(key), version,
                                        "replace" if key in current else "add", source))
        else:
            others.append(line)
            changes.append(MemberChange(key, current.get(key), version,
                                        "replace" if key in current else "add"))
    changes += [MemberChange(k, current[k], None, "remove") for k in added]
    steps: list[Step] = []
    if added:
        steps.append(Step(
            "rollback-remove",
            t("repair.rollback.remove.title", "Remove what the repair added"),
            t("repair.rollback.remove.explain", "{names}: not in the environment before.",
              names=", ".join(added)),
            argv=_pip(python, "uninstall", "-y", *added)))
    for number, (source, lines) in enumerate(sorted(by_source.items()), start=1):
        steps.append(Step(
            f"rollback-family-{number}",
            t("repair.rollback.family.title", "Put the recorded PyTorch builds back"),
            t("repair.rollback.family.explain", "{pins} from {url}.", pins=" ".join(lines),
              url=source),
            argv=_pip(python, "install", "--force-reinstall", "--no-deps", *lines,
                      "--index-url", source)))
    if others:
        steps.append(Step(
            "rollback-others",
            t("repair.rollback.others.title", "Put the other recorded versions back"),
            t("repair.rollback.others.explain", "{pins}, from pip's usual index.",
              pins=" ".join(others)),
            argv=_pip(python, "install", "--force-reinstall", "--no-deps", *others)))
    notes = []
    if unreachable:
        notes.append(t(
            "repair.note.unreachable", "No index is known to carry {builds}: the rollback "
            "cannot bring it back; the rest is restored.", builds=", ".join(unreachable)))
    if not steps:
        notes.append(t("repair.note.nothing-to-roll-back", "The environment already matches "
                       "the record: nothing to put back."))
    torch_line = restore.freeze.get("torch")
    repair = Repair(
        python=python, prefix=restore.prefix, kind="rollback", index=None,
        torch_before=current.get("torch"),
        torch_after=freeze_version(torch_line) if torch_line else None,
        changes=tuple(changes), record=restore.record, unreachable=tuple(unreachable))
    return RepairPlan(
        strategy=ROLLBACK_STRATEGY, rocm=None, torch_index=None, steps=tuple(steps),
        venv=restore.prefix, notes=tuple(notes), nothing_to_do=not steps, repair=repair)


def family_sources(kb: Knowledge, family: TorchFamily,
                   members: tuple[FamilyMember, ...]) -> dict[str, str | None]:
    """Each present member -> the index its build comes from (what a rollback needs)."""
    torch = next((m.version for m in members if m.role == "torch"), None)
    return {m.name: build_source(kb, family, m.version, torch) for m in members}
