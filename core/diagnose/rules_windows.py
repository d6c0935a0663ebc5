"""What only Windows can fix for ROCm in WSL 2, judged (issue 33, item 3): the Windows build, the
Adrenalin version against AMD's minimum for the ROCm release a WSL plan picks, an AMD integrated
GPU beside the card, and ``.wslconfig``'s memory against the card's VRAM; and, where AMD builds
PyTorch for the card on Windows itself, that it does and how (item 4). Rows:
resources/data/wsl.toml."""

from __future__ import annotations

from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.diagnose.wsl_choice import best_route
from core.i18n import t
from core.knowledge.rows import version_tuple
from core.knowledge.wsl_routes import WslTable, load_wsl_table
from core.probe.gpus import Gpu

GIB = 1 << 30
DRIVERS_URL = "https://www.amd.com/en/support/download/drivers.html"


def windows_rules(ctx: Context) -> list[Finding]:
    windows = ctx.facts.windows
    if windows is None or ctx.facts.platform.wsl != 2 or (ctx.facts.gpus.gpus and not ctx.amd):
        return []
    table = load_wsl_table()
    findings: list[Finding] = []
    findings.extend(_windows_build(ctx, table))
    findings.extend(_adrenalin(ctx, table))
    findings.extend(_igpu(ctx, table))
    findings.extend(_memory(ctx))
    findings.extend(windows_native(ctx, table))
    return findings


def _windows_build(ctx: Context, table: WslTable) -> list[Finding]:
    windows = ctx.facts.windows
    assert windows is not None
    build = windows.windows_build
    if build is None or build >= table.min_build:
        return []
    return [Finding(
        "wsl-windows-10", "error",
        t("doctor.wsl-windows-10.title",
          "Windows {version} is Windows 10: AMD supports ROCm in WSL on Windows 11 only",
          version=windows.windows_version or "?"),
        t("doctor.wsl-windows-10.detail",
          "Windows 11 starts at build {build}; users on Windows 10 report rocminfo failing "
          "with the same driver.", build=str(table.min_build)),
        t("doctor.wsl-windows-10.fix",
          "Upgrade Windows to Windows 11, then install the Adrenalin driver again."),
    )]


def _adrenalin(ctx: Context, table: WslTable) -> list[Finding]:
    windows = ctx.facts.windows
    assert windows is not None
    if not windows.checked or not _amd_on_windows(ctx):
        return []
    gpu, support = ctx.primary if ctx.primary is not None else (None, None)
    choice = best_route(ctx.kb, table, ctx.facts.platform, gpu, support)
    if choice is None:
        return []
    route = choice.route
    unverified = "" if route.adrenalin_min_verified else t(
        "doctor.wsl-adrenalin.unverified",
        " AMD's own minimum for ROCm {rocm} was not read: {minimum} is the first driver with "
        "ROCDXG (unverified for this release).", rocm=route.rocm, minimum=route.adrenalin_min)
    if windows.adrenalin is None:
        return [Finding(
            "wsl-adrenalin-unknown", "info",
            t("doctor.wsl-adrenalin-unknown.title",
              "The AMD Adrenalin version on Windows is not known"),
            t("doctor.wsl-adrenalin-unknown.detail",
              "Windows did not say which AMD Software: Adrenalin Edition is installed. ROCm "
              "{rocm} in WSL needs {minimum} or newer.", rocm=route.rocm,
              minimum=route.adrenalin_min) + unverified,
            t("doctor.wsl-adrenalin-unknown.fix",
              "In AMD Software on Windows: System > Software & Driver names the version."),
        )]
    if version_tuple(windows.adrenalin) < version_tuple(route.adrenalin_min):
        return [Finding(
            "wsl-adrenalin-old", "error",
            t("doctor.wsl-adrenalin-old.title",
              "AMD Adrenalin {version} on Windows is older than {minimum}, the oldest that "
              "serves ROCm {rocm} in WSL", version=windows.adrenalin,
              minimum=route.adrenalin_min, rocm=route.rocm),
            t("doctor.wsl-adrenalin-old.detail",
              "ROCm reaches the GPU in WSL through librocdxg and the Windows driver's ROCDXG "
              "support; older drivers lack it, and rocminfo finds no GPU.") + unverified,
            t("doctor.wsl-adrenalin-old.fix",
              "On Windows, install AMD Software: Adrenalin Edition {minimum} or newer ({url}), "
              "restart Windows, then in PowerShell: {command}", minimum=route.adrenalin_min,
              url=DRIVERS_URL, command="wsl --shutdown"),
        )]
    return [Finding(
        "wsl-adrenalin-ok", "ok",
        t("doctor.wsl-adrenalin-ok.title",
          "AMD Adrenalin {version} on Windows (ROCm {rocm} in WSL needs {minimum} or newer)",
          version=windows.adrenalin, rocm=route.rocm, minimum=route.adrenalin_min),
        unverified.strip(),
    )]


def _amd_on_windows(ctx: Context) -> bool:
    windows = ctx.facts.windows
    return windows is not None and any(_is_amd(f"{g.vendor or ''} {g.name}")
                                       for g in windows.gpus)


def _is_amd(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in ("advanced micro devices", "amd", "radeon"))


def _igpu(ctx: Context, table: WslTable) -> list[Finding]:
    windows = ctx.facts.windows
    assert windows is not None
    amd = [g for g in windows.gpus if _is_amd(f"{g.vendor or ''} {g.name}")]
    integrated = [g for g in amd if table.is_integrated_name(g.name)]
    discrete = [g for g in amd if not table.is_integrated_name(g.name)]
    if not integrated or not discrete:
        return []
    return [Finding(
        "wsl-windows-igpu", "warning",
        t("doctor.wsl-windows-igpu.title",
          "Windows also has an AMD integrated GPU ({igpu}) beside the {gpu}",
          igpu=integrated[0].name, gpu=discrete[0].name),
        t("doctor.wsl-windows-igpu.detail",
          "AMD: an integrated GPU is known to disturb GPU detection for ROCm in WSL "
          "(rocminfo failing with HSA_STATUS_ERROR_OUT_OF_RESOURCES)."),
        t("doctor.wsl-windows-igpu.fix",
          "If ROCm finds no GPU in WSL: disable the integrated GPU in Windows' Device "
          "Manager (Display adapters) or in the BIOS, then in PowerShell: {command}",
          command="wsl --shutdown"),
    )]


def _memory(ctx: Context) -> list[Finding]:
    windows = ctx.facts.windows
    assert windows is not None
    limit = windows.wslconfig_memory_bytes
    if not limit or ctx.primary is None:
        return []
    gpu = ctx.primary[0]
    if gpu.integrated or not gpu.vram_bytes or limit >= gpu.vram_bytes:
        return []
    need = -(-gpu.vram_bytes // GIB)
    return [Finding(
        "wsl-memory-below-vram", "warning",
        t("doctor.wsl-memory-below-vram.title",
          "WSL may use {limit} GiB of memory (.wslconfig), less than the {vram} GiB of the {gpu}",
          limit=f"{limit / GIB:.0f}", vram=f"{gpu.vram_bytes / GIB:.0f}", gpu=gpu.name),
        t("doctor.wsl-memory-below-vram.detail",
          "Users report that ROCm in WSL (librocdxg) can use no more GPU memory than the WSL "
          "virtual machine has, so large models fail with out-of-memory below the card's size."),
        t("doctor.wsl-memory-below-vram.fix",
          "In {file} on Windows, set {line} in the [wsl2] section, then in PowerShell: {command}",
          file="%UserProfile%\\.wslconfig", line=f"memory={need}GB", command="wsl --shutdown"),
    )]


def windows_native(ctx: Context, table: WslTable | None = None) -> list[Finding]:
    """windows-native-pytorch: AMD builds PyTorch for this card on Windows itself (issue 33,
    item 4). Only for a card whose own target is on the list: no override exists there."""
    if ctx.facts.platform.wsl != 2 or ctx.primary is None:
        return []
    table = table or load_wsl_table()
    gpu, support = ctx.primary
    if not support.usable or support.status == "override":
        return []
    rows = table.windows_rows(gpu.gfx)
    if not rows:
        return []
    releases = t("doctor.list-and-separator", " and ").join(f"ROCm {r.rocm}" for r in rows)
    unverified = "" if all(r.verified for r in rows) else t(
        "doctor.windows-native-pytorch.unverified",
        " (unverified: rocmate could not read AMD's own Windows list)")
    steps = powershell_steps(gpu, table)
    detail = t(
        "doctor.windows-native-pytorch.detail",
        "AMD builds PyTorch for Windows for {gfx} with {releases}{unverified}. On Windows the "
        "Adrenalin driver is the runtime: nothing to install in WSL, and no {variable} "
        "(Windows has no override). rocmate runs nothing on Windows: its benchmarks, checks "
        "and comparisons run from WSL or Linux only.", gfx=gpu.gfx or "?",
        releases=releases, unverified=unverified, variable="HSA_OVERRIDE_GFX_VERSION")
    how = t("doctor.windows-native-pytorch.fix", "In PowerShell on Windows:\n{steps}",
            steps=steps)
    return [Finding(
        "windows-native-pytorch", "info",
        t("doctor.windows-native-pytorch.title",
          "PyTorch also runs on Windows itself for the {gpu} ({gfx})", gpu=gpu.name,
          gfx=gpu.gfx or "?"),
        detail,
        how,
    )]


def powershell_steps(gpu: Gpu, table: WslTable) -> str:
    """The PowerShell lines to copy: a venv and AMD's index with the card's device extra."""
    row = next((r for r in table.windows_rows(gpu.gfx) if r.index), None)
    index = row.index if row else "https://stable.repo.amd.com/rocm/whl-next/"
    extra = f"device-{gpu.gfx}"
    return "\n".join((
        "py -3.12 -m venv $HOME\\rocm-torch",
        "& $HOME\\rocm-torch\\Scripts\\Activate.ps1",
        "python -m pip install --upgrade pip",
        f'$index = "{index}"',
        f'pip install "torch[{extra}]" "torchvision[{extra}]" --index-url $index',
        'python -c "import torch; print(torch.cuda.get_device_name(0))"',
    ))
