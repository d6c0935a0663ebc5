"""Rules about the GPUs themselves: none at all, none from AMD, support, overrides, order."""

from __future__ import annotations

import re

from core.diagnose.context import Context, OverrideSetting, Support, fits, make_setting
from core.diagnose.finding import Finding
from core.diagnose.rules_runtime import runtime_breakers
from core.i18n import local, t
from core.knowledge.math_libraries import (
    Coverage,
    Route,
    load_math_libraries,
    processor_listed,
    routes_for,
    wheel_has,
    wheel_lacks,
)
from core.knowledge.retired import load_retired, retired_instinct
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
                t("doctor.wsl-gpu-unknown.title",
                  "WSL 2 passes a GPU through, but rocmate cannot tell which one"),
                t("doctor.wsl-gpu-unknown.detail",
                  "/dev/dxg exists, so Windows shares a GPU with this WSL distribution, but "
                  "neither the ROCm WSL runtime (rocminfo) nor Windows interop (powershell.exe) "
                  "answered."),
                t("doctor.wsl-gpu-unknown.fix",
                  "Install AMD's WSL runtime ({install}) or enable interop ({setting}), then run "
                  "rocmate doctor again.", install="rocmate install --strategy wsl",
                  setting="/etc/wsl.conf: [interop] enabled=true"),
            )
        ]
    return [
        Finding(
            "no-gpu",
            "error",
            t("doctor.no-gpu.title", "No GPU found"),
            t("doctor.no-gpu.detail",
              "Neither the PCI bus nor the ROCm driver shows a graphics or compute device "
              "(a server's BMC display adapter does not count). In a container or VM, the GPU "
              "must be passed through first."),
            t("doctor.no-gpu.fix",
              "Check that the card is seated and powered ({check}); in Docker add {options}; in "
              "a VM pass the card through.", check="lspci -nn | grep -Ei 'vga|display|3d'",
              options="--device=/dev/kfd --device=/dev/dri"),
        )
    ]


def no_amd_gpu(ctx: Context) -> list[Finding]:
    gpus = ctx.facts.gpus.gpus
    if not gpus or ctx.amd:
        return []
    names = ", ".join(g.name for g in gpus)
    has_nvidia = any(g.vendor == "nvidia" for g in gpus)
    if has_nvidia:
        detail = t("doctor.no-amd-gpu.detail.nvidia",
                   "This machine has {names}. ROCm runs only on AMD GPUs (Radeon RX 6000 and "
                   "newer, Radeon PRO, Instinct). rocmate's benchmarks still run on this NVIDIA "
                   "GPU through a CUDA build of PyTorch.", names=names)
        fix = t("doctor.no-amd-gpu.fix.nvidia",
                "To use ROCm, fit an AMD GPU that ROCm supports (for example a Radeon RX 7900 "
                "XTX). To benchmark this card: {command}",
                command="rocmate bench resnet50-train --device cuda:0")
    else:
        detail = t("doctor.no-amd-gpu.detail",
                   "This machine has {names}. ROCm runs only on AMD GPUs (Radeon RX 6000 and "
                   "newer, Radeon PRO, Instinct).", names=names)
        fix = t("doctor.no-amd-gpu.fix",
                "To use ROCm, fit an AMD GPU that ROCm supports (for example a Radeon RX 7900 "
                "XTX).")
    return [Finding("no-amd-gpu", "error",
                    t("doctor.no-amd-gpu.title", "No AMD GPU: ROCm cannot be used here"),
                    detail, fix)]


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
                    t("doctor.gfx-unknown.title", "rocmate cannot tell which ROCm target "
                      "{gpu}{pci} is", gpu=gpu.name, pci=pci),
                    t("doctor.gfx-unknown.detail",
                      "The card is not in rocmate's knowledge base and the amdgpu driver is not "
                      "loaded (no /dev/kfd), so its gfx target cannot be read: whether ROCm "
                      "supports it is unknown."),
                    t("doctor.gfx-unknown.fix", "Load the amdgpu driver (see {finding}), then "
                      "run rocmate doctor again.", finding="kfd-missing"),
                )
            ]
        if sup.status == "unknown":
            return [_gfx_newer(ctx, gpu, sup)]
        torch = ctx.facts.torch
        if gpu.gfx and ctx.torch_has_native_code(gpu) and torch is not None and torch.available:
            math = load_math_libraries(ctx.kb.data_dir)
            lacking = wheel_lacks(math.coverage, torch.version, gpu.gfx)
            if lacking is not None:
                return [_legacy_no_kernels(ctx, gpu, lacking, torch.version)]
            if not wheel_has(math.coverage, torch.version, gpu.gfx):
                return [_legacy_unverified(ctx, gpu, sup, torch.version)]
            return [
                Finding(
                    "gfx-legacy-works",
                    "info",
                    t("doctor.gfx-legacy-works.title",
                      "{gpu} ({gfx}) is past AMD's support, but this PyTorch runs on it",
                      gpu=gpu.name, gfx=gpu.gfx),
                    t("doctor.gfx-legacy-works.detail",
                      "{note} The installed PyTorch {version} carries {gfx} code and sees the "
                      "card, so it works as it is.", note=sup.note, version=torch.version,
                      gfx=gpu.gfx),
                    t("doctor.gfx-legacy-works.fix-keep",
                      "Keep this PyTorch ({command} pins it): newer wheels drop {gfx}.",
                      command=_pin_command(ctx, torch.version), gfx=gpu.gfx),
                )
            ]
        findings.append(
            Finding(
                "gfx-unsupported",
                "error",
                t("doctor.gfx-unsupported.title", "{gpu} ({gfx}) is not supported by ROCm",
                  gpu=gpu.name, gfx=gpu.gfx or _unknown_target()),
                t("doctor.gfx-unsupported.detail", "{note} No HSA_OVERRIDE_GFX_VERSION value is "
                  "known to make PyTorch run on it.", note=sup.note) + _instinct_text(ctx, gpu)
                + _routes_text(ctx, gpu),
                _unsupported_fix(ctx, gpu),
            )
        )
        return findings
    findings += _per_processor(ctx)
    findings += _wheel_kernels(ctx)
    breakers = runtime_breakers(ctx)  # gpu-breaks-runtime speaks of these
    for gpu, sup in ctx.amd:
        if not sup.usable and gpu not in breakers:
            findings.append(
                Finding(
                    "gpu-not-usable",
                    "info",
                    t("doctor.gpu-not-usable.title", "{gpu} ({gfx}) will not be used",
                      gpu=gpu.name, gfx=gpu.gfx or _unknown_target()),
                    local(sup.note),
                    t("doctor.gpu-not-usable.fix", "Nothing to do unless it gets in the way; "
                      "see {finding}.", finding="igpu-first"),
                )
            )
    return findings


def _planned_routes(ctx: Context, gpu: Gpu) -> list[Route]:
    """The routes rocmate install can plan for a card past AMD's support (a pinned wheel or
    TheRock's device extra; core.install.legacy_route follows them)."""
    wheels = {i.name for i in ctx.kb.torch_indexes if i.stable}
    current = {i.url for i in ctx.kb.therock if not i.frozen}
    found = [r for r in routes_for(load_math_libraries(ctx.kb.data_dir).routes, gpu.gfx or "")
             if (r.kind == "wheel" and r.index in wheels)
             or (r.kind == "therock" and r.index in current)]
    return sorted(found, key=lambda r: r.kind != "wheel")  # the planner's order: wheels first


def _route_index(ctx: Context, route: Route) -> str:
    return next((i.url for i in ctx.kb.torch_indexes if i.name == route.index), route.index or "")


def _instinct_text(ctx: Context, gpu: Gpu) -> str:
    """How AMD ended an Instinct card's support (retired.toml), for its owner (issue 33)."""
    row = retired_instinct(load_retired(ctx.kb.data_dir), gpu.gfx, gpu.name)
    if row is None:
        return ""
    return t("doctor.sentence-gap", " ") + local(row.ended)


def _unsupported_fix(ctx: Context, gpu: Gpu) -> str:
    """gfx-unsupported's fix: the route rocmate install plans where one is known, honest words
    for an Instinct owner, else a supported card or the CPU."""
    row = retired_instinct(load_retired(ctx.kb.data_dir), gpu.gfx, gpu.name)
    planned = _planned_routes(ctx, gpu)
    if planned:
        fix = t("doctor.gfx-unsupported.fix-planned",
                "{command} plans the last route that may still run it, {requirement} from "
                "{index} (with the known problems above), into a new environment, and its last "
                "step shows whether the card computes; or run PyTorch on the CPU.",
                command="rocmate install", requirement=planned[0].requirement or "torch",
                index=_route_index(ctx, planned[0]))
        return fix + (t("doctor.sentence-gap", " ") + local(row.current) if row else "")
    if row is not None or "instinct" in gpu.name.lower():
        return t("doctor.gfx-unsupported.fix-instinct",
                 "No route is known that runs PyTorch on this Instinct card today: run PyTorch "
                 "on the CPU. AMD's current releases support Instinct cards from the MI100 "
                 "(gfx908) on.")
    return t("doctor.gfx-unsupported.fix",
             "Use a supported card (RX 6800/6900 series, RX 7000 series, RX 9000 series, "
             "Radeon PRO W6800/W7000, Instinct), or run PyTorch on the CPU.")


def _routes_text(ctx: Context, gpu: Gpu) -> str:
    """" Routes: ..." for a target math_libraries.toml has wheel routes for (gfx900, gfx906)."""
    routes = [r for r in routes_for(load_math_libraries(ctx.kb.data_dir).routes, gpu.gfx or "")
              if r.kind != "per-processor"]
    if not routes:
        return ""
    parts = [_route_words(ctx, r) for r in routes]
    return t("doctor.sentence-gap", " ") + t(
        "doctor.gfx-routes", "Routes that may still run it: {routes}",
        routes=t("doctor.gfx-routes.or", " Or: ").join(parts))


def _route_words(ctx: Context, route: Route) -> str:
    """A route as words: what it is, the requirement and index, its known problems."""
    where = route.index or ""
    named = next((i.url for i in ctx.kb.torch_indexes if i.name == where), None)
    where = named or where
    return t("doctor.gfx-route", "{note} Install {requirement} from {index}. Known problems: "
             "{problems}", note=local(route.note), requirement=route.requirement or "torch",
             index=where, problems=local(route.problems))


def _legacy_no_kernels(ctx: Context, gpu: Gpu, lacking: Coverage, version: str | None) -> Finding:
    """gfx-legacy-no-kernels: the wheel names the target, its rocBLAS has no kernels for it."""
    return Finding(
        "gfx-legacy-no-kernels",
        "error",
        t("doctor.gfx-legacy-no-kernels.title",
          "{gpu} ({gfx}): this PyTorch's {library} has no kernels for it", gpu=gpu.name,
          gfx=gpu.gfx, library=lacking.library_name),
        t("doctor.gfx-legacy-no-kernels.detail",
          "The installed PyTorch {version} names {gfx} in its arch list, but the {library} it "
          "brings has no kernels for it. {note}", version=version, gfx=gpu.gfx,
          library=lacking.library_name,
          note=local(lacking.note)) + _routes_text(ctx, gpu),
        _no_kernels_fix(ctx, gpu),
    )


def _no_kernels_fix(ctx: Context, gpu: Gpu) -> str:
    planned = _planned_routes(ctx, gpu)
    if not planned:
        return t("doctor.gfx-legacy-no-kernels.fix-cpu",
                 "Do not keep this PyTorch for this card: run PyTorch on the CPU.")
    return t("doctor.gfx-legacy-no-kernels.fix-planned",
             "Do not keep this PyTorch for this card: {command} plans {requirement} from "
             "{index} into a new environment, or run PyTorch on the CPU.",
             command="rocmate install", requirement=planned[0].requirement or "torch",
             index=_route_index(ctx, planned[0]))


def _legacy_unverified(ctx: Context, gpu: Gpu, sup: Support, version: str | None) -> Finding:
    """gfx-legacy-unverified: the wheel names the target; whether its math libraries have
    kernels for it no public output shows."""
    return Finding(
        "gfx-legacy-unverified",
        "warning",
        t("doctor.gfx-legacy-unverified.title",
          "{gpu} ({gfx}) is past AMD's support; whether this PyTorch runs on it is unverified",
          gpu=gpu.name, gfx=gpu.gfx),
        t("doctor.gfx-legacy-unverified.detail",
          "{note} The installed PyTorch {version} names {gfx} in its arch list, but an arch "
          "list is not proof of kernels: whether its rocBLAS and MIOpen carry {gfx} no public "
          "output shows.", note=sup.note, version=version, gfx=gpu.gfx) + _routes_text(ctx, gpu),
        t("doctor.gfx-legacy-unverified.fix",
          "Run a matrix product on the card before relying on it ({command}); if it passes, "
          "keep this PyTorch ({pin}).", command="rocmate doctor",
          pin=_pin_command(ctx, version)),
    )


def _wheel_kernels(ctx: Context) -> list[Finding]:
    """wheel-no-kernels: the card is usable, the installed wheel names the target the runtime
    will load code for (the card's own, or the one an override poses as), and
    math_libraries.toml records that the wheel's rocBLAS has no kernels for it."""
    torch = ctx.facts.torch
    if ctx.primary is None or torch is None or not torch.available:
        return []
    gpu, sup = ctx.primary
    if not sup.usable or not gpu.gfx:
        return []
    setting = ctx.override_for(gpu)
    target = setting.gfx if setting is not None and setting.valid and setting.gfx else gpu.gfx
    if target not in (ctx.torch_targets or ()):
        return []  # torch-arch-missing says it first
    lacking = wheel_lacks(load_math_libraries(ctx.kb.data_dir).coverage, torch.version, target)
    if lacking is None:
        return []
    return [Finding(
        "wheel-no-kernels",
        "error",
        t("doctor.wheel-no-kernels.title",
          "{gpu}: this PyTorch's {library} has no kernels for {gfx}", gpu=gpu.name,
          library=lacking.library_name, gfx=target),
        t("doctor.wheel-no-kernels.detail",
          "The installed PyTorch {version} names {gfx} in its arch list, but the {library} it "
          "brings has no kernels for it. {note}", version=torch.version, gfx=target,
          library=lacking.library_name, note=local(lacking.note)) + _routes_text(ctx, gpu),
        t("doctor.wheel-no-kernels.fix",
          "Replace this PyTorch with a wheel whose libraries carry {gfx} ({command} chooses "
          "one), and run rocmate doctor again.", gfx=target, command="rocmate install"),
    )]


def _per_processor(ctx: Context) -> list[Finding]:
    """apu-processor-list: AMD's ROCm list names APUs by processor model (gfx1103: the Ryzen
    200 series, not the 7040/8040 laptops most Radeon 780M owners have): say which this is."""
    if ctx.primary is None:
        return []
    gpu, sup = ctx.primary
    if not gpu.integrated or not gpu.gfx or not sup.usable:
        return []
    math = load_math_libraries(ctx.kb.data_dir)
    lists = routes_for(math.routes, gpu.gfx, "per-processor")
    if not lists:
        return []
    route = lists[0]
    cpu = ctx.facts.gpus.cpu_model
    listed = processor_listed(route, cpu)
    names = ", ".join(route.processors)
    wheel = next(iter(routes_for(math.routes, gpu.gfx, "wheel")), None)
    advice = (t("doctor.sentence-gap", " ") + _route_words(ctx, wheel)) if wheel else ""
    if listed:
        return [Finding(
            "apu-processor-list", "ok",
            t("doctor.apu-processor-list.title.listed",
              "AMD's ROCm list names this processor ({cpu}) for {gfx}", cpu=cpu, gfx=gpu.gfx),
            local(route.note))]
    if listed is None:
        title = t("doctor.apu-processor-list.title.unknown",
                  "AMD's ROCm list names processors for {gfx}, and this one is not known",
                  gfx=gpu.gfx)
    else:
        title = t("doctor.apu-processor-list.title.not-listed",
                  "AMD's ROCm list does not name this processor ({cpu}) for {gfx}",
                  cpu=cpu, gfx=gpu.gfx)
    return [Finding(
        "apu-processor-list", "info", title,
        t("doctor.apu-processor-list.detail",
          "{note} It names: {names}. {problems}", note=local(route.note), names=names,
          problems=local(route.problems)) + advice,
    )]


def _gfx_newer(ctx: Context, gpu: Gpu, sup: Support) -> Finding:
    """gfx-newer: a target newer than rocmate's tables is not called unsupported (issue 32)."""
    newest = ctx.kb.newest_release()
    index = ctx.kb.torch_index_for(newest.version) if newest is not None else None
    url = index.url if index is not None else "https://stable.repo.amd.com/rocm/whl-next/"
    command = f'pip install --index-url {url} "torch[device-{gpu.gfx}]"'
    return Finding(
        "gfx-newer",
        "warning",
        t("doctor.gfx-newer.title", "{gpu} ({gfx}) is newer than rocmate knows",
          gpu=gpu.name, gfx=gpu.gfx),
        t("doctor.gfx-newer.detail",
          "{note} rocmate does not call it unsupported: its tables end before this target. "
          "Only a PyTorch that runs a matrix product on the card can show that it works.",
          note=local(sup.note)),
        t("doctor.gfx-newer.fix",
          "If AMD publishes a wheel for it, install that ({command}) and run rocmate doctor "
          "again: its kernel check then says whether the card runs.", command=command),
    )


def _unknown_target() -> str:
    return t("doctor.gpu.unknown-target", "unknown target")


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
            t("doctor.wsl-gpu-unsupported.title",
              "{gpu} ({gfx}) is not on AMD's list for ROCm on WSL 2", gpu=gpu.name, gfx=gpu.gfx),
            t("doctor.wsl-gpu-unsupported.detail",
              "AMD's WSL 2 support (ROCm {versions}) covers the targets {targets} only, and of "
              "their cards only those AMD names on its WSL list. Users with RDNA2 cards report "
              "that rocminfo shows no GPU under WSL, override or not.", versions=versions,
              targets=", ".join(sorted(served))),
            t("doctor.wsl-gpu-unsupported.fix",
              "Run Linux natively (a second boot) to use this card with ROCm; under WSL, "
              "PyTorch can only use the CPU."),
        )
    ]


def gpus_found(ctx: Context) -> list[Finding]:
    if not ctx.usable_amd:
        return []
    parts = []
    for gpu, sup in ctx.usable_amd:
        vram = f", {gpu.vram_bytes / GIB:.0f} GiB" if gpu.vram_bytes and not gpu.integrated else ""
        parts.append(f"{gpu.name} ({gpu.gfx}{vram}, {_status_shown(sup.status)})")
    return [Finding("gpu-found", "ok", t("doctor.gpu-found.title", "AMD GPU found: {gpus}",
                                         gpus=t("doctor.list-separator", "; ").join(parts)))]


def _status_shown(status: str) -> str:
    """A support status as the reader sees it (the value itself, in JSON, stays as it is)."""
    shown = {"official": t("doctor.gpu.status.official", "official"),
             "override": t("doctor.gpu.status.override", "override")}
    return shown.get(status, status)


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
                t("doctor.override-ok.title", "{setting} is set for {gpu}",
                  setting=f"{setting.variable}={setting.value}", gpu=gpu.name),
                t("doctor.override-ok.detail.official",
                  "{set_by}The installed PyTorch {version} has no {gfx} code but has {posing}'s, "
                  "so posing as {posing} is what makes it run. A wheel built with {gfx} would "
                  "run it natively (then the override can go).", set_by=_set_by(setting),
                  version=version, gfx=gpu.gfx, posing=setting.gfx),
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
                    t("doctor.override-ok.title", "{setting} is set for {gpu}",
                      setting=f"{setting.variable}={setting.value}", gpu=gpu.name),
                    (_set_by(setting) + local(sup.caveat or "")).strip(),
                )
            ]
        return []  # a wrong value: override-wrong says so
    if ctx.torch_has_native_code(gpu):
        return []
    caveat = t("doctor.sentence-gap", " ") + local(sup.caveat) if sup.caveat else ""
    return [
        Finding(
            "gfx-needs-override",
            "warning",
            t("doctor.gfx-needs-override.title", "{gpu} needs {setting}", gpu=gpu.name,
              setting=f"HSA_OVERRIDE_GFX_VERSION={sup.override}"),
            t("doctor.gfx-needs-override.detail",
              "Its own target {gfx} is not on AMD's list and PyTorch's wheels carry no code for "
              "it; posing as {posing} (a close relative) makes PyTorch run.{caveat}",
              gfx=gpu.gfx, posing=_gfx_of(sup.override), caveat=caveat),
            t("doctor.gfx-needs-override.fix",
              "{command}   (rocmate install writes it into the managed environment; see "
              "rocmate env)", command=f"export HSA_OVERRIDE_GFX_VERSION={sup.override}"),
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
    return t("doctor.override.set-by",
             "rocmate's environment sets it ({path}): its Python gets it when rocmate runs it, "
             "and a shell once the environment is activated. ", path=setting.origin)


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
            t("doctor.override-wrong.set-in", " It is set in {places}.",
              places=", ".join(t("doctor.override-wrong.place", "{path} line {line}",
                                 path=o.path, line=o.line) for o in origins))
            if origins
            else ""
        )
        right = _override_advice(ctx, gpu, sup, setting)
        findings.append(
            Finding(
                "override-wrong",
                "error" if sup.status == "official" or not setting.valid else "warning",
                t("doctor.override-wrong.title", "{setting} does not fit {gpu}",
                  setting=f"{setting.variable}={_shown(setting.value)}", gpu=gpu.name),
                problem + where,
                t("doctor.override-wrong.fix.rocmate-file",
                  "{command}, or run rocmate install again: it rewrites {path}.",
                  command=right, path=setting.origin)
                if setting.origin else
                t("doctor.override-wrong.fix",
                  "{command}; remove the stale line from the file that sets it, then open a new "
                  "shell.", command=right),
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
        crlf = t("doctor.override-wrong.problem.crlf",
                 " It ends in a carriage return: the file that sets it was saved with Windows "
                 "line endings (convert it, e.g. {command}).", command="dos2unix FILE") \
            if "\r" in setting.value else ""
        return t("doctor.override-wrong.problem.invalid",
                 "'{value}' is not a valid value (the ROCm runtime wants exactly "
                 "major.minor.stepping, e.g. 10.3.0) and refuses to start.{crlf}",
                 value=_shown(setting.value), crlf=crlf)
    if fits(setting, sup, gpu) or ctx.override_serves(gpu, setting):
        return None
    if sup.status == "official":
        return t("doctor.override-wrong.problem.official",
                 "{gpu} is {gfx}, which ROCm supports as it is; the override makes it pose as "
                 "{posing}, whose code does not run correctly on it (crashes, wrong results, "
                 "'invalid device function').", gpu=gpu.name, gfx=gpu.gfx, posing=setting.gfx
                 ) + _no_override_reason(ctx, gpu)
    if sup.status == "override":
        return t("doctor.override-wrong.problem.override",
                 "{gpu} is {gfx}; the value that works for it is {value} ({value_gfx}), not "
                 "{set_value} ({set_gfx}).", gpu=gpu.name, gfx=gpu.gfx, value=sup.override,
                 value_gfx=_gfx_of(sup.override), set_value=setting.value,
                 set_gfx=setting.gfx)
    others = len(ctx.amd) > 1 and setting.variable == "HSA_OVERRIDE_GFX_VERSION"
    if others and any(s.usable for _, s in ctx.amd):
        return t("doctor.override-wrong.problem.global",
                 "The global variable also applies to {gpu} ({gfx}), which cannot pose as "
                 "{posing}; use the per-node form {per_node} for the card that needs it, or hide "
                 "this GPU with HIP_VISIBLE_DEVICES.", gpu=gpu.name, gfx=gpu.gfx,
                 posing=setting.gfx, per_node="HSA_OVERRIDE_GFX_VERSION_<node>")
    return t("doctor.override-wrong.problem.no-override",
             "{gpu} ({gfx}) cannot run code built for {posing}; no override is known to work for "
             "it (expect HSA_STATUS_ERROR_INVALID_ISA, page faults or hangs).", gpu=gpu.name,
             gfx=gpu.gfx, posing=setting.gfx)


def _no_override_reason(ctx: Context, gpu: Gpu) -> str:
    """overrides.toml's [[no_override]] reason for an official card's target (why no value suits
    it and what to do instead: gfx1103), after the problem; "" when it has none."""
    row = ctx.kb.no_override(gpu.gfx) if gpu.gfx else None
    return t("doctor.sentence-gap", " ") + local(row.reason) if row else ""


def _pin_command(ctx: Context, version: str | None) -> str:
    """The pip line that keeps this PyTorch: from its own ROCm index (plain ``pip install
    torch==X`` takes PyPI's CUDA build), else ``rocmate install``'s way of pinning it."""
    local = re.search(r"\+rocm(\d+\.\d+(?:\.\d+)?)", version or "")
    index = ctx.kb.torch_index_for(local.group(1)) if local else None
    if index is None:
        return f"pip install 'torch=={version}' --index-url <the ROCm index it came from>"
    return f"pip install 'torch=={version}' --index-url {index.url}"


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
        problem = _override_problem(ctx, gpu, sup, setting) or ""
        findings.append(
            Finding(
                "override-wrong",
                "warning",
                t("doctor.override-wrong.title.file", "{path} sets {setting}, which does not "
                  "fit {gpu}", path=origin.path, setting=f"{origin.name}={_shown(origin.value)}",
                  gpu=gpu.name),
                t("doctor.override-wrong.detail.rocmate-file",
                  "Line {line} of {path} applies to rocmate's runs in that environment and to "
                  "shells that activate it. {problem}", line=origin.line, path=origin.path,
                  problem=problem)
                if ours else
                t("doctor.override-wrong.detail.login-file",
                  "Line {line} of {path} applies from the next login on. {problem}",
                  line=origin.line, path=origin.path, problem=problem),
                t("doctor.override-wrong.fix.rocmate-file-line",
                  "Run rocmate install again (it rewrites that file), or change line {line} of "
                  "{path}.", line=origin.line, path=origin.path)
                if ours else
                t("doctor.override-wrong.fix.login-file", "Remove line {line} from {path}.",
                  line=origin.line, path=origin.path),
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
            t("doctor.igpu-first.title", "The integrated {igpu} comes before {gpu}",
              igpu=before[0].name, gpu=first_dgpu.name),
            t("doctor.igpu-first.detail",
              "ROCm numbers GPUs in KFD order, so device 0 (what most programs use) is the "
              "integrated GPU, which is slow, shares system memory and may not be supported."),
            t("doctor.igpu-first.fix", "{command}   (or disable the iGPU in the BIOS)",
              command=f"export HIP_VISIBLE_DEVICES={indexes}"),
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
    fix = t("doctor.hip-visible-devices-hides.fix", "{command}   (or list one of the usable "
            "GPUs)", command=f"unset {' '.join(used)}")
    if files:  # rocmate's environment sets it, not the shell: unset would change nothing
        fix = t("doctor.hip-visible-devices-hides.fix.rocmate-file",
                "Run rocmate install again, or fix the line in {path} (rocmate's environment "
                "sets it for its runs and for shells that activate it)", path=files[0])
    return [
        Finding(
            "hip-visible-devices-hides",
            "error",
            t("doctor.hip-visible-devices-hides.title", "{settings} hides every usable AMD GPU",
              settings=shown),
            t("doctor.hip-visible-devices-hides.detail",
              "ROCm numbers this machine's GPUs 0..{last}; the usable ones are {usable}. With "
              "these variables PyTorch sees none of them.", last=count - 1,
              usable=", ".join(str(i) for i in sorted(i for i in usable if i is not None))),
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
