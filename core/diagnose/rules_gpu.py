"""Rules about the GPUs themselves: none at all, none from AMD, support, overrides, order."""

from __future__ import annotations

import re

from core.diagnose.context import Context, OverrideSetting, Support, fits, make_setting
from core.diagnose.finding import Finding
from core.probe.gpus import Gpu
from core.probe.parse.kfd import override_to_gfx

GIB = 1 << 30


def no_gpu(ctx: Context) -> list[Finding]:
    facts = ctx.facts
    if facts.gpus.gpus or facts.platform.wsl == 1:
        return []
    if facts.platform.wsl == 2 and facts.platform.dxg:
        return [
            Finding(
                "wsl-gpu-unknown",
                "warning",
                "WSL 2 passes a GPU through, but rocmate cannot tell which one",
                "/dev/dxg exists, so Windows shares a GPU with this WSL distribution, but neither "
                "the ROCm WSL runtime (rocminfo) nor Windows interop (powershell.exe) answered.",
                "Install AMD's WSL runtime (rocmate install --strategy wsl) or enable interop "
                "(/etc/wsl.conf: [interop] enabled=true), then run rocmate doctor again.",
            )
        ]
    return [
        Finding(
            "no-gpu",
            "error",
            "No GPU found",
            "Neither the PCI bus nor the ROCm driver shows a graphics or compute device "
            "(a server's BMC display adapter does not count). In a container or VM, the GPU "
            "must be passed through first.",
            "Check that the card is seated and powered (lspci -nn | grep -Ei 'vga|display|3d'); "
            "in Docker add --device=/dev/kfd --device=/dev/dri; in a VM pass the card through.",
        )
    ]


def no_amd_gpu(ctx: Context) -> list[Finding]:
    gpus = ctx.facts.gpus.gpus
    if not gpus or ctx.amd:
        return []
    names = ", ".join(g.name for g in gpus)
    has_nvidia = any(g.vendor == "nvidia" for g in gpus)
    detail = (
        f"This machine has {names}. ROCm runs only on AMD GPUs (Radeon RX 6000 and newer, "
        "Radeon PRO, Instinct)."
    )
    fix = "To use ROCm, fit an AMD GPU that ROCm supports (for example a Radeon RX 7900 XTX)."
    if has_nvidia:
        detail += (
            " rocmate's benchmarks still run on this NVIDIA GPU through a CUDA build of PyTorch."
        )
        fix += " To benchmark this card: rocmate bench resnet50-train --device cuda:0"
    return [Finding("no-amd-gpu", "error", "No AMD GPU: ROCm cannot be used here", detail, fix)]


def support(ctx: Context) -> list[Finding]:
    """gfx-unsupported when no AMD GPU is usable; a note for each unusable extra one."""
    if not ctx.amd:
        return []
    findings = []
    if not ctx.usable_amd:
        gpu, sup = ctx.amd[0] if ctx.primary is None else ctx.primary
        if (gpu.gfx is None and not ctx.facts.gpus.kfd_present and ctx.native
                and gpu.driver != "radeon"):
            # Not in rocmate's table and no driver to ask: its target is unknown, not unsupported
            # (a chip the old radeon driver holds is GCN 1/2 or older: no ROCm for it)
            pci = f" ({gpu.pci_id})" if gpu.pci_id else ""
            return [
                Finding(
                    "gfx-unknown",
                    "warning",
                    f"rocmate cannot tell which ROCm target {gpu.name}{pci} is",
                    "The card is not in rocmate's knowledge base and the amdgpu driver is not "
                    "loaded (no /dev/kfd), so its gfx target cannot be read: whether ROCm "
                    "supports it is unknown.",
                    "Load the amdgpu driver (see kfd-missing), then run rocmate doctor again.",
                )
            ]
        torch = ctx.facts.torch
        if gpu.gfx and ctx.torch_has_native_code(gpu) and torch is not None and torch.available:
            return [
                Finding(
                    "gfx-legacy-works",
                    "info",
                    f"{gpu.name} ({gpu.gfx}) is past AMD's support, but this PyTorch runs on it",
                    f"{sup.note} The installed PyTorch {torch.version} carries {gpu.gfx} code "
                    "and sees the card, so it works as it is.",
                    f"Keep this PyTorch (pip install 'torch=={torch.version}' pins it): newer "
                    f"wheels drop {gpu.gfx}, and rocmate install would not find one for it.",
                )
            ]
        findings.append(
            Finding(
                "gfx-unsupported",
                "error",
                f"{gpu.name} ({gpu.gfx or 'unknown target'}) is not supported by ROCm",
                f"{sup.note} No HSA_OVERRIDE_GFX_VERSION value is known to make PyTorch run on it.",
                "Use a supported card (RX 6800/6900 series, RX 7000 series, RX 9000 series, "
                "Radeon PRO W6800/W7000, Instinct), or run PyTorch on the CPU.",
            )
        )
        return findings
    for gpu, sup in ctx.amd:
        if not sup.usable:
            findings.append(
                Finding(
                    "gpu-not-usable",
                    "info",
                    f"{gpu.name} ({gpu.gfx or 'unknown target'}) will not be used",
                    sup.note,
                    "Nothing to do unless it gets in the way; see igpu-first.",
                )
            )
    return findings


def wsl_gpu(ctx: Context) -> list[Finding]:
    """wsl-gpu-unsupported: under WSL 2 only the targets on AMD's WSL list work (RDNA2 cards
    show no GPU in rocminfo there: rocm-facts 2.4, ROCm/ROCm#5030); the lists are rocm.toml's
    ``wsl_targets``, where a release has one."""
    if ctx.facts.platform.wsl != 2 or ctx.primary is None:
        return []
    gpu, sup = ctx.primary
    lists = [(r.version, set(r.wsl_targets)) for r in ctx.kb.releases if r.wsl_targets]
    if not sup.usable or not gpu.gfx or not lists:
        return []
    posing = override_to_gfx(sup.override) if sup.override else None
    served = set().union(*(targets for _, targets in lists))
    if gpu.gfx in served or posing in served:
        return []
    versions = ", ".join(v for v, _ in lists)
    return [
        Finding(
            "wsl-gpu-unsupported",
            "error",
            f"{gpu.name} ({gpu.gfx}) is not on AMD's list for ROCm on WSL 2",
            f"AMD's WSL 2 support (ROCm {versions}) covers {', '.join(sorted(served))} only "
            "(RX 7700 and up, RX 9000, Ryzen AI APUs). Users with RDNA2 cards report that "
            "rocminfo shows no GPU under WSL, override or not.",
            "Run Linux natively (a second boot) to use this card with ROCm; under WSL, "
            "PyTorch can only use the CPU.",
        )
    ]


def gpus_found(ctx: Context) -> list[Finding]:
    if not ctx.usable_amd:
        return []
    parts = []
    for gpu, sup in ctx.usable_amd:
        vram = f", {gpu.vram_bytes / GIB:.0f} GiB" if gpu.vram_bytes and not gpu.integrated else ""
        parts.append(f"{gpu.name} ({gpu.gfx}{vram}, {sup.status})")
    return [Finding("gpu-found", "ok", "AMD GPU found: " + "; ".join(parts))]


def override_needed(ctx: Context) -> list[Finding]:
    if ctx.primary is None:
        return []
    gpu, sup = ctx.primary
    setting = ctx.override_for(gpu)
    if setting is not None and sup.status == "official" and ctx.override_serves(gpu, setting):
        torch = ctx.facts.torch
        version = torch.version if torch else "?"
        return [
            Finding(
                "override-ok",
                "ok",
                f"{setting.variable}={setting.value} is set for {gpu.name}",
                (_set_by(setting) + f"The installed PyTorch {version} has no {gpu.gfx} code "
                 f"but has {setting.gfx}'s, so posing as {setting.gfx} is what makes it run. A "
                 f"wheel built with {gpu.gfx} would run it natively (then the override can "
                 "go)."),
            )
        ]
    if sup.status != "override" or not sup.override:
        return []
    if setting is not None and setting.valid and setting.gfx != gpu.gfx:
        if fits(setting, sup, gpu):
            return [
                Finding(
                    "override-ok",
                    "ok",
                    f"{setting.variable}={setting.value} is set for {gpu.name}",
                    (_set_by(setting) + (sup.caveat or "")).strip(),
                )
            ]
        return []  # a wrong value: override-wrong says so
    if ctx.torch_has_native_code(gpu):
        return []
    caveat = f" {sup.caveat}" if sup.caveat else ""
    return [
        Finding(
            "gfx-needs-override",
            "warning",
            f"{gpu.name} needs HSA_OVERRIDE_GFX_VERSION={sup.override}",
            f"Its own target {gpu.gfx} is not on AMD's list and PyTorch's wheels carry no code "
            f"for it; posing as {_gfx_of(sup.override)} (a close relative) makes PyTorch "
            f"run.{caveat}",
            f"export HSA_OVERRIDE_GFX_VERSION={sup.override}   "
            "(rocmate install writes it into the managed environment; see rocmate env)",
        )
    ]


def _shown(value: str) -> str:
    """A value as text a reader can see: a carriage return or other control character is
    written as an escape (10.3.0\\r), not left invisible."""
    return value if value.isprintable() else value.encode("unicode_escape").decode("ascii")


def _set_by(setting: OverrideSetting) -> str:
    """Where an override comes from, when it is not this process's own environment."""
    if not setting.origin:
        return ""
    return (f"rocmate's environment sets it ({setting.origin}): its Python gets it when "
            "rocmate runs it, and a shell once the environment is activated. ")


def override_wrong(ctx: Context) -> list[Finding]:
    findings = []
    seen: set[str] = set()
    primary = [ctx.primary] if ctx.primary else []
    for gpu, sup in primary + [item for item in ctx.amd if item not in primary]:
        setting = ctx.override_for(gpu)
        if setting is None or setting.variable in seen:
            continue
        problem = _override_problem(ctx, gpu, sup, setting)
        if problem is None:
            continue
        seen.add(setting.variable)
        origins = ctx.facts.environment.origins(setting.variable)
        where = (
            " It is set in " + ", ".join(f"{o.path} line {o.line}" for o in origins) + "."
            if origins
            else ""
        )
        right = _override_advice(ctx, gpu, sup, setting)
        findings.append(
            Finding(
                "override-wrong",
                "error" if sup.status == "official" or not setting.valid else "warning",
                f"{setting.variable}={_shown(setting.value)} does not fit {gpu.name}",
                problem + where,
                f"{right}, or run rocmate install again: it rewrites {setting.origin}."
                if setting.origin else
                f"{right}; remove the stale line from the file that sets it, then open a new "
                "shell.",
            )
        )
    findings += _stale_file_overrides(ctx, seen)
    return findings


def _override_advice(ctx: Context, gpu: Gpu, sup: Support, setting: OverrideSetting) -> str:
    """What to set instead: for the global variable on a box with several AMD GPUs, the
    per-node form for the card the user trains on (the primary), never another card's value."""
    if setting.variable == "HSA_OVERRIDE_GFX_VERSION" and len(ctx.amd) > 1 and ctx.primary:
        main, main_sup = ctx.primary
        if main_sup.status == "override" and main_sup.override and main.kfd_node is not None:
            return (
                f"unset HSA_OVERRIDE_GFX_VERSION; export "
                f"HSA_OVERRIDE_GFX_VERSION_{main.kfd_node}={main_sup.override}"
            )
        return "unset HSA_OVERRIDE_GFX_VERSION"
    if sup.status == "override" and sup.override:
        return f"export {setting.variable}={sup.override}"
    return f"unset {setting.variable}"


def _override_problem(ctx: Context, gpu: Gpu, sup: Support, setting: OverrideSetting) -> str | None:
    if not setting.valid:
        crlf = (" It ends in a carriage return: the file that sets it was saved with Windows "
                "line endings (convert it, e.g. dos2unix FILE)." if "\r" in setting.value else "")
        return (
            f"'{_shown(setting.value)}' is not a valid value (the ROCm runtime wants exactly "
            f"major.minor.stepping, e.g. 10.3.0) and refuses to start.{crlf}"
        )
    if fits(setting, sup, gpu) or ctx.override_serves(gpu, setting):
        return None
    if sup.status == "official":
        return (
            f"{gpu.name} is {gpu.gfx}, which ROCm supports as it is; the override makes it pose "
            f"as {setting.gfx}, whose code does not run correctly on it (crashes, wrong results, "
            "'invalid device function')."
        )
    if sup.status == "override":
        return (
            f"{gpu.name} is {gpu.gfx}; the value that works for it is {sup.override} "
            f"({_gfx_of(sup.override)}), not {setting.value} ({setting.gfx})."
        )
    others = len(ctx.amd) > 1 and setting.variable == "HSA_OVERRIDE_GFX_VERSION"
    if others and any(s.usable for _, s in ctx.amd):
        return (
            f"The global variable also applies to {gpu.name} ({gpu.gfx}), which cannot pose as "
            f"{setting.gfx}; use the per-node form HSA_OVERRIDE_GFX_VERSION_<node> for the card "
            "that needs it, or hide this GPU with HIP_VISIBLE_DEVICES."
        )
    return (
        f"{gpu.name} ({gpu.gfx}) cannot run code built for {setting.gfx}; no override is known to "
        "work for it (expect HSA_STATUS_ERROR_INVALID_ISA, page faults or hangs)."
    )


def _stale_file_overrides(ctx: Context, already: set[str]) -> list[Finding]:
    """An override in a start-up file that the next login would apply, and that does not fit."""
    if ctx.primary is None:
        return []
    gpu, sup = ctx.primary
    findings = []
    env = ctx.facts.environment
    for origin in env.origins("HSA_OVERRIDE_GFX_VERSION"):
        if origin.name in already or env.get(origin.name) == origin.value:
            continue
        setting = make_setting(origin.value, origin.name)
        if fits(setting, sup, gpu) or ctx.override_serves(gpu, setting):
            continue
        already.add(origin.name)
        ours = origin.path == env.applied_from
        when = ("applies to rocmate's runs in that environment and to shells that activate it"
                if ours else "applies from the next login on")
        findings.append(
            Finding(
                "override-wrong",
                "warning",
                f"{origin.path} sets {origin.name}={_shown(origin.value)}, which does not fit "
                f"{gpu.name}",
                f"Line {origin.line} of {origin.path} {when}. "
                + (_override_problem(ctx, gpu, sup, setting) or ""),
                "Run rocmate install again (it rewrites that file), or change line "
                f"{origin.line} of {origin.path}." if ours
                else f"Remove line {origin.line} from {origin.path}.",
            )
        )
    return findings


def igpu_first(ctx: Context) -> list[Finding]:
    amd = [g for g, _ in ctx.amd if g.kfd_node is not None]
    amd.sort(key=lambda g: g.kfd_node or 0)
    discrete = [g for g in amd if not g.integrated]
    if not discrete:
        return []
    first_dgpu = discrete[0]
    before = [g for g in amd if g.integrated and (g.kfd_node or 0) < (first_dgpu.kfd_node or 0)]
    if not before:
        return []
    env = ctx.facts.environment
    if env.get("HIP_VISIBLE_DEVICES") or env.get("ROCR_VISIBLE_DEVICES"):
        return []
    indexes = ",".join(str(ctx.rocm_index(g)) for g in discrete)
    return [
        Finding(
            "igpu-first",
            "warning",
            f"The integrated {before[0].name} comes before {first_dgpu.name}",
            "ROCm numbers GPUs in KFD order, so device 0 (what most programs use) is the "
            "integrated GPU, which is slow, shares system memory and may not be supported.",
            f"export HIP_VISIBLE_DEVICES={indexes}   (or disable the iGPU in the BIOS)",
        )
    ]


def hidden_by_env(ctx: Context) -> list[Finding]:
    """hip-visible-devices-hides, following the runtimes: ROCr filters first, then HIP indexes
    what is left with HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES when HIP's is empty)."""
    if not ctx.usable_amd:
        return []
    count = len(ctx.facts.gpus.kfd_nodes) or len(ctx.amd)
    usable = {ctx.rocm_index(g) for g, _ in ctx.usable_amd}
    env = ctx.facts.environment
    visible, used = visible_indexes(
        count,
        env.get("ROCR_VISIBLE_DEVICES"),
        env.get("HIP_VISIBLE_DEVICES"),
        env.get("CUDA_VISIBLE_DEVICES"),
    )
    if visible is None or not used or visible & usable:
        return []
    shown = ", ".join(f"{name}={env.get(name)!s}" for name in used)
    files = sorted({src for name in used if (src := env.source(name))})
    fix = f"unset {' '.join(used)}   (or list one of the usable GPUs)"
    if files:  # rocmate's environment sets it, not the shell: unset would change nothing
        fix = (f"Run rocmate install again, or fix the line in {files[0]} (rocmate's "
               "environment sets it for its runs and for shells that activate it)")
    return [
        Finding(
            "hip-visible-devices-hides",
            "error",
            f"{shown} hides every usable AMD GPU",
            f"ROCm numbers this machine's GPUs 0..{count - 1}; the usable ones are "
            f"{', '.join(str(i) for i in sorted(i for i in usable if i is not None))}. "
            "With these variables PyTorch sees none of them.",
            fix,
        )
    ]


def visible_indexes(
    count: int, rocr: str | None, hip: str | None, cuda: str | None
) -> tuple[set[int] | None, list[str]]:
    """The device indexes left visible, and the variables that filtered; None when unknowable."""
    devices = list(range(count))
    used = []
    if rocr is not None:
        used.append("ROCR_VISIBLE_DEVICES")
        picked = _pick(devices, rocr)
        if picked is None:
            return None, used
        devices = picked
    ordinals, name = (hip, "HIP_VISIBLE_DEVICES") if hip else (cuda, "CUDA_VISIBLE_DEVICES")
    if ordinals:
        used.append(name)
        picked = _pick(devices, ordinals)
        if picked is None:
            return None, used
        devices = picked
    return set(devices), used


def _pick(devices: list[int], value: str) -> list[int] | None:
    """The runtime's reading of a device list: indexes up to the first invalid one."""
    chosen = []
    for token in value.split(","):
        if token.startswith("GPU-"):
            return None  # a UUID: only the runtime can match it
        if not re.fullmatch(r"0|[1-9][0-9]*", token, flags=re.ASCII):
            break
        index = int(token)
        if index >= len(devices):
            break
        chosen.append(devices[index])
    return chosen


def _gfx_of(override: str | None) -> str:
    return (override_to_gfx(override) or "?") if override else "?"
