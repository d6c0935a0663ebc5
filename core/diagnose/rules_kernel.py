"""Rules about the kernel check: which small kernels ran on each GPU, and for each one that did not
(an abort, a crash, a hang, a wrong result, missing kernels) the library, the card and what to do.

What to do for a card whose library has no kernels is data: resources/data/kernel_fixes.toml.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import tomllib

from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.i18n import t
from core.probe.kernel_check import (
    DeviceCheck,
    KernelCheck,
    kind_of,
    library_of,
    message_line,
    op_name,
    what_happened,
)
from core.probe.torch import TorchFacts
from core.resources import data_dir

NOT_RUN = "kernel-check-not-run"
OK = "kernel-check-ok"

@dataclass(frozen=True)
class KernelFix:
    gfx: tuple[str, ...]
    library: str
    missing_in: str
    route: str
    index: str = ""
    workaround: str = ""
    source: str = ""


@cache
def kernel_fixes() -> tuple[KernelFix, ...]:
    with open(data_dir() / "kernel_fixes.toml", "rb") as handle:
        data = tomllib.load(handle)
    return tuple(KernelFix(gfx=tuple(row["gfx"]), library=row["library"],
                           missing_in=row["missing_in"], route=row["route"],
                           index=row.get("index", ""), workaround=row.get("workaround", ""),
                           source=row["source"])
                 for row in data.get("target", []))


def fix_for(gfx: str | None, library: str) -> str:
    """What to do when ``library`` has no kernels for ``gfx``, from the data table."""
    rows = [row for row in kernel_fixes() if gfx in row.gfx]
    row = next((r for r in rows if r.library in library), rows[0] if rows else None)
    card = gfx or t("kernel.this-card", "this card")
    if row is None:
        return t("kernel.fix.no-kernels.general",
                 "Install a PyTorch whose libraries are built for {gfx}: {command} picks the "
                 "wheel for the card; AMD's per-device wheel {package} from {index} carries "
                 "libraries built for each target AMD builds (unverified for this card).",
                 gfx=card, command="rocmate install", package=f"torch[device-{card}]",
                 index="https://stable.repo.amd.com/rocm/whl-next/")
    if row.route == "device-wheel":
        return t("kernel.fix.no-kernels.device-wheel",
                 "Install AMD's per-device wheel, whose {library} is built for {gfx}: {command} "
                 "(in the environment {install} makes). Known without these kernels: "
                 "{missing_in}.", library=row.library, gfx=card,
                 command=f"pip install 'torch[device-{card}]' --index-url {row.index}",
                 install="rocmate install", missing_in=row.missing_in)
    words = t("kernel.fix.no-kernels.none",
              "No PyTorch wheel is publicly shown to carry {library} kernels for {gfx} (not in "
              "{missing_in}).", library=row.library, gfx=card, missing_in=row.missing_in)
    if row.workaround == "copy-rocblas-634":
        words += " " + t("kernel.fix.no-kernels.copy-rocblas",
                         "A third-party route one user checked on gfx900: copy the card's "
                         "Tensile files from the ROCm 6.3.4 rocBLAS package into the wheel's "
                         "{folder} (unsupported by AMD).", folder="torch/lib/rocblas/library")
    return words


def _card(device: DeviceCheck, torch: TorchFacts | None = None) -> str:
    """The card's name and gfx target: as the worker read them, else (a worker that could not
    start) as the torch probe did."""
    name, gfx = device.name, device.gfx_target
    if (name is None or gfx is None) and torch is not None and device.device.isdigit():
        index = int(device.device)
        if name is None and index < len(torch.devices):
            name = torch.devices[index]
        if gfx is None and index < len(torch.gcn_arch) and torch.gcn_arch[index]:
            gfx = str(torch.gcn_arch[index]).split(":")[0]
    name = name or t("kernel.gpu-n", "GPU {index}", index=device.device)
    return f"{name} ({gfx})" if gfx and gfx.startswith("gfx") else name


def _device_finding(device: DeviceCheck, build: str, python: str | None,
                    torch: TorchFacts | None = None, several: bool = False) -> Finding | None:
    failed = list(device.failed)
    if device.start is not None:
        failed.insert(0, device.start)
    if not failed:
        return None
    kinds = [kind_of(op) for op in failed]
    order = ("no-kernels", "crashed", "hung", "wrong", "error")
    kind = min(kinds, key=order.index)
    first = failed[kinds.index(kind)]
    library = library_of(first, build)
    card = _card(device, torch)
    if several and device.device.isdigit():  # two cards of one model: say which one failed
        card = t("kernel.gpu-n-card", "GPU {index}, {card}", index=device.device, card=card)
    gfx = card.rsplit("(", 1)[-1].rstrip(")") if card.endswith(")") else None
    parts = []
    for op in failed:
        line = message_line(op) if op.outcome not in ("wrong", "hung") else ""
        part = t("kernel.detail.op", "{op} ({library}): {what}", op=op_name(op.op),
                 library=library_of(op, build), what=what_happened(op))
        parts.append(f"{part}: {line}" if line else part)
    passed = [op_name(op.op) for op in device.ops if op.outcome == "ok"]
    detail = t("doctor.list-separator", "; ").join(parts) + "."
    if passed:
        detail += " " + t("kernel.detail.passed", "Same as the CPU: {ops}.",
                          ops=", ".join(passed))
    names = ", ".join(op_name(op.op) for op in failed)
    python = python or "python"
    if kind == "no-kernels":
        title = t("doctor.kernel-check-no-kernels.title",
                  "{library} in this PyTorch has no kernels for {card}", library=library,
                  card=card) if library != "PyTorch" else t(
            "doctor.kernel-check-no-kernels.torch.title",
            "This PyTorch has no code for {card}", card=card)
        fix = fix_for(gfx, library)
    elif kind == "crashed":
        title = t("doctor.kernel-check-crashed.title", "{ops} crashed on {card} ({library})",
                  ops=names, card=card, library=library)
        fix = t("doctor.kernel-check-crashed.fix",
                "A crash in {library} is most often a library without code for the card, or an "
                "HSA_OVERRIDE_GFX_VERSION that poses as another chip: run {command} to see the "
                "whole message, then rocmate explain '<the message>'.", library=library,
                command=f"{python} -c \"import torch; a=torch.randn(256,256,device='cuda'); "
                        "print((a@a).sum())\"")
    elif kind == "hung":
        title = t("doctor.kernel-check-hung.title", "{ops} hung on {card} ({library})",
                  ops=names, card=card, library=library)
        fix = t("doctor.kernel-check-hung.fix",
                "A kernel that never finishes usually means a wrong HSA_OVERRIDE_GFX_VERSION or "
                "a stuck driver: look at {command}; {trials} tries the values one at a time.",
                command="dmesg | grep -i amdgpu", trials="rocmate doctor --try-overrides")
    elif kind == "wrong":
        title = t("doctor.kernel-check-wrong.title",
                  "{card} computes wrong numbers in {ops} ({library})", card=card, ops=names,
                  library=library)
        fix = t("doctor.kernel-check-wrong.fix",
                "Most often an HSA_OVERRIDE_GFX_VERSION that poses as another chip; {trials} "
                "tries the values one at a time. Do not train or benchmark on this card until "
                "the check passes.", trials="rocmate doctor --try-overrides")
    else:
        title = t("doctor.kernel-check-failed.title", "{ops} failed on {card} ({library})",
                  ops=names, card=card, library=library)
        fix = t("doctor.kernel-check-failed.fix",
                "rocmate explain '<the message>' names the cause and its fix for this machine.")
    return Finding(f"kernel-check-{kind}" if kind != "error" else "kernel-check-failed",
                   "error", title, detail, fix)


def _not_run(ctx: Context) -> Finding:
    facts = ctx.facts
    if not facts.torch_probed:
        return Finding(NOT_RUN, "info", t(
            "doctor.kernel-check-not-run.no-torch.title",
            "no kernel has run on the GPU ({option} skips PyTorch)",
            option="--no-torch"), t(
            "doctor.kernel-check-not-run.detail",
            "The tables say the card should work; only a matrix product, a convolution and "
            "attention run on the card and compared with the CPU prove it."),
            t("doctor.kernel-check-not-run.no-torch.fix", "Run {command} without {option}.",
              command="rocmate doctor", option="--no-torch"))
    if facts.kernel_skipped == "replay":
        return Finding(NOT_RUN, "info", t(
            "doctor.kernel-check-not-run.replay.title",
            "no kernel check was recorded on this machine"), t(
            "doctor.kernel-check-not-run.detail",
            "The tables say the card should work; only a matrix product, a convolution and "
            "attention run on the card and compared with the CPU prove it."),
            t("doctor.kernel-check-not-run.replay.fix",
              "On that machine, {command} records the check with the rest.",
              command="rocmate snapshot DIR"))
    return Finding(NOT_RUN, "info", t(
        "doctor.kernel-check-not-run.no-pytorch.title",
        "no PyTorch that sees the GPU has run a kernel on it"), t(
        "doctor.kernel-check-not-run.detail",
        "The tables say the card should work; only a matrix product, a convolution and "
        "attention run on the card and compared with the CPU prove it."))


def kernel_rules(ctx: Context) -> list[Finding]:
    facts = ctx.facts
    check: KernelCheck | None = facts.kernel_check
    if check is None:
        return [_not_run(ctx)] if ctx.usable_amd else []
    torch = facts.torch
    build = torch.build if torch is not None else "rocm"
    several = len(check.devices) > 1
    findings = [f for f in (_device_finding(d, build, check.python, torch, several)
                            for d in check.devices) if f]
    if check.problem and not findings:
        findings.append(Finding(
            "kernel-check-failed", "error",
            t("doctor.kernel-check-failed.whole.title", "The kernel check did not finish"),
            check.error or "", t("doctor.kernel-check-failed.fix",
                                 "rocmate explain '<the message>' names the cause and its fix "
                                 "for this machine.")))
    if findings:
        return findings
    if not check.ok:
        return [_not_run(ctx)] if ctx.usable_amd else []
    cards = ", ".join(_card(d, torch) for d in check.devices)
    return [Finding(OK, "ok", t(
        "doctor.kernel-check-ok.title",
        "Kernels ran on {cards}: matrix products, convolution and attention match the CPU",
        cards=cards))]
