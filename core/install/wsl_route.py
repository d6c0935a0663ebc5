"""The WSL 2 plan, as AMD's WSL pages do it per release (resources/data/wsl.toml, issue 33 item 3).

* ``core-sdk`` (ROCm 10.x): the Core SDK's repository and packages (its runtime package carries
  librocdxg; DXG detection is on by default from ROCm 7.13), then the device wheels. No variable,
  no swap.
* ``rocdxg-build`` (ROCm 7.2): ROCm's user space from repo.radeon.com, librocdxg built in WSL
  against the Windows SDK (the user's step: the SDK is installed on Windows), then the wheel with
  its libhsa-runtime64 replaced by /opt/rocm's (librocdxg and the runtime must come from the same
  source) and ``HSA_ENABLE_DXG_DETECTION=1``.

amdgpu-install's ``wsl`` use case is not planned any more: its hsa-runtime-rocr4wsl-amdgpu package
is gone from ROCm 7.0 on. The planner (core.install.planner) calls :func:`choose`,
:func:`environment`, :func:`add_system_steps` and :func:`add_after_torch`.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from core.diagnose.context import Context, Support
from core.diagnose.release_choice import ubuntu_version
from core.diagnose.rules_gpu import wsl_gpu
from core.diagnose.rules_windows import windows_rules
from core.diagnose.wsl_choice import WslChoice, card_fits, guest_fits, wsl_routes
from core.i18n import t
from core.install import apt_route
from core.install.plan import Step
from core.install.plan_builder import PlanBuilder
from core.knowledge.loader import Knowledge
from core.knowledge.rows import version_tuple
from core.knowledge.wsl_routes import load_wsl_table
from core.probe.gpus import Gpu
from core.probe.platform import PlatformFacts

DXG_VARIABLE = "HSA_ENABLE_DXG_DETECTION"
LIBROCDXG_REPO = "https://github.com/ROCm/librocdxg.git"
WIN_SDK = "/mnt/c/Program Files (x86)/Windows Kits/10/Include/10.0.26100.0"


class NoWslRoute(ValueError):
    """No WSL route fits the choice (the planner says it as a PlanError)."""


def choose(
    kb: Knowledge, platform: PlatformFacts, gpu: Gpu, support: Support, rocm: str | None
) -> WslChoice:
    """The newest WSL route that serves this guest's Ubuntu and the card (``rocm`` when asked);
    NoWslRoute, in words, otherwise."""
    routes = wsl_routes(kb, load_wsl_table(), rocm)
    if rocm and not routes:
        raise NoWslRoute(t("plan.error.wsl-release-unknown", "ROCm {rocm} has no WSL route "
                          "that rocmate knows", rocm=rocm))
    if not routes:
        raise NoWslRoute(t("plan.error.no-wsl-release",
                          "no ROCm release with a known WSL route fits this choice"))
    ubuntu = ubuntu_version(kb, platform) or platform.distro_version or "?"
    serving = [c for c in routes if guest_fits(c, kb, platform)]
    if not serving:
        offered = sorted({u for c in routes for u in c.route.ubuntu}, key=version_tuple)
        named = ", ".join(f"ROCm {c.release.version}" for c in routes)
        raise NoWslRoute(t(
            "plan.error.wsl-other-ubuntu",
            "{releases} for WSL is made for Ubuntu {offered}, not Ubuntu {ubuntu}: "
            "use one of those in WSL (for example {command})",
            releases=named, offered=_words(offered),
            ubuntu=ubuntu, command=f"wsl --install -d Ubuntu-{offered[-1]}",
        ))
    fitting = [c for c in serving if card_fits(c, gpu, support)]
    if not fitting:
        named = ", ".join(f"ROCm {c.release.version}" for c in serving)
        raise NoWslRoute(t(
            "plan.error.wsl-card-unsupported",
            "{releases} for WSL does not support the {gpu} ({target}); rocmate knows no other "
            "WSL route for it",
            releases=named,
            gpu=gpu.name or t("plan.error.this-card", "this card"),
            target=gpu.gfx or t("plan.error.unknown-target", "unknown target"),
        ))
    return fitting[0]


def blocked(ctx: Context) -> str | None:
    """Why no WSL plan can be made, in the doctor's words: the card is on no WSL list of AMD's
    (the doctor's wsl-gpu-unsupported, which makes it Not supported); None otherwise."""
    if ctx.facts.platform.wsl != 2:
        return None
    found = wsl_gpu(ctx)
    if not found or ctx.primary is None:
        return None
    gpu, support = ctx.primary
    if any(card_fits(c, gpu, support) for c in wsl_routes(ctx.kb, load_wsl_table())):
        return None  # a route of wsl.toml lists it (librocdxg's own list)
    return f"{found[0].title}. {found[0].fix}"


def environment(choice: WslChoice | None, env: dict[str, str]) -> dict[str, str]:
    """The card's variables plus ``HSA_ENABLE_DXG_DETECTION=1`` where the route needs it."""
    if choice is None or not choice.route.dxg_detection:
        return env
    return {**env, DXG_VARIABLE: "1"}


def add_system_steps(builder: PlanBuilder, choice: WslChoice) -> None:
    """ROCm's packages for the route (the Core SDK's, or the legacy user space), and the route's
    notes: what it is, its source, and the step only the user can do."""
    route = choice.route
    for finding in windows_rules(builder.ctx):  # what the doctor says only Windows can fix
        if finding.severity in ("error", "warning"):
            builder.notes.append(t("plan.note.wsl-windows-first",
                                   "On Windows: {problem}. {fix}", problem=finding.title,
                                   fix=finding.fix))
    apt_route.add_steps(builder, choice.release)
    install = builder.steps[-1]
    if install.id == "apt-install":  # in WSL the Windows driver does the kernel's work
        builder.steps[-1] = replace(install, explain=t(
            "plan.wsl-apt-install.explain",
            "ROCm's user-space libraries and tools. No kernel module: in WSL the Windows "
            "driver does the kernel's work."))
    if route.method == "core-sdk":
        builder.notes.append(t(
            "plan.note.wsl-core-sdk",
            "WSL route for ROCm {rocm}: the Core SDK's runtime package brings librocdxg, the "
            "bridge to the Windows driver; ROCm turns DXG detection on by itself (no {variable}) "
            "and the wheels keep their own runtime. Needs AMD Adrenalin {minimum} or newer on "
            "Windows 11. Source: {source}",
            rocm=route.rocm, variable=DXG_VARIABLE, minimum=route.adrenalin_min,
            source=_first_url(route.source)))
        return
    builder.notes.append(t(
        "plan.note.wsl-rocdxg",
        "WSL route for ROCm {rocm}: ROCm from AMD's repository, librocdxg {version} built in "
        "WSL, {variable}=1 (ROCm before 7.13), and the wheel's libhsa-runtime64 replaced by "
        "{folder}'s, the runtime librocdxg is built with. Needs AMD Adrenalin {minimum} or newer "
        "on Windows 11. Source: {source}",
        rocm=route.rocm, version=route.librocdxg_version or "", variable=DXG_VARIABLE,
        folder="/opt/rocm/lib", minimum=route.adrenalin_min, source=_first_url(route.source)))
    builder.notes.append(t(
        "plan.note.wsl-librocdxg-build",
        "Before the last check, build librocdxg (rocmate cannot: it needs the Windows SDK, "
        "installed on Windows): install the Windows SDK on Windows, then in WSL: {commands}",
        commands=librocdxg_commands()))
    if ubuntu_version(builder.ctx.kb, builder.facts.platform) == "24.04":
        builder.notes.append(t(
            "plan.note.wsl-ubuntu-hsa",
            "Ubuntu 24.04's own {packages} (ROCm 5.7) shadow {folder}'s libraries; if "
            "rocminfo says the ROCk module is not loaded: {command}",
            packages="libhsa-runtime64-1, libhsakmt1", folder="/opt/rocm/lib",
            command="sudo apt remove libhsa-runtime64-1 libhsakmt1"))


def add_after_torch(builder: PlanBuilder, choice: WslChoice) -> None:
    """The runtime swap, only where the route does it."""
    if choice.route.runtime_swap:
        builder.add(replace(_runtime_swap(builder), explain=t(
            "plan.wsl-hsa-swap.explain.rocdxg",
            "librocdxg and {library} must come from the same source: the wheel's own is "
            "replaced by the one from {folder}, which librocdxg is built with.",
            library="libhsa-runtime64.so", folder="/opt/rocm/lib")))


def _runtime_swap(builder: PlanBuilder) -> Step:
    """The step that replaces the wheel's libhsa-runtime64 with /opt/rocm's
    (core.install.wsl_runtime_swap)."""
    return Step(
        "wsl-hsa-swap",
        t("plan.wsl-hsa-swap.title", "Use WSL's HSA runtime in PyTorch"),
        t("plan.wsl-hsa-swap.explain",
          "The wheel's own {library} cannot talk to {device}; AMD's WSL steps "
          "replace it with the one from {folder}.",
          library="libhsa-runtime64.so", device="/dev/dxg", folder="/opt/rocm/lib"),
        argv=(sys.executable, "-m", "core.install.wsl_runtime_swap", "--venv", builder.venv),
    )


def librocdxg_commands() -> str:
    """The build as librocdxg's README gives it (the SDK's version folder may differ)."""
    return (f"git clone {LIBROCDXG_REPO} && cd librocdxg && mkdir -p build && cd build && "
            f"cmake .. -DWIN_SDK=\"{WIN_SDK}/shared\" && make && sudo make install")


def _words(items: list[str]) -> str:
    """"22.04, 24.04 and 26.04" (in the current language)."""
    if len(items) < 2:
        return "".join(items)
    comma = t("plan.list-comma", ", ")
    return comma.join(items[:-1]) + t("doctor.list-and-separator", " and ") + items[-1]


def _first_url(source: str) -> str:
    for word in source.replace("(", " ").replace(")", " ").split():
        if word.startswith("https://"):
            return word.rstrip(",;")
    return source.split(";")[0]
