"""Which ROCm release fits a machine: the releases that support a card, those serving a distro,
and the one a set-up plan installs (:func:`planned_release`).

Shared by the doctor (distro-unsupported, kernel-old) and the install planner: the planner picks
its wheel index with :func:`stable_indexes` and an old card's route with :func:`legacy_routes`,
and the doctor judges the kernel against :func:`planned_release`, made of the same two, so the
doctor and the plan speak of one release.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.diagnose.context import Context, Support
from core.i18n import t
from core.knowledge.loader import Knowledge
from core.knowledge.math_libraries import Route, load_math_libraries, routes_for
from core.knowledge.releases import RocmRelease
from core.knowledge.wheels import TorchIndex, current_therock
from core.probe.gpus import Gpu
from core.probe.parse.kfd import override_to_gfx
from core.probe.platform import PlatformFacts

# math_libraries.toml's route kinds the planner follows, and the strategy each becomes
PLANNED_KINDS = {"wheel": "pip-only", "therock": "therock"}


def releases_for(kb: Knowledge, rocm: Iterable[str] = ()) -> list[RocmRelease]:
    """Current releases (newest first) among ``rocm``; all current ones when ``rocm`` is empty."""
    current = kb.current_releases()
    wanted = set(rocm)
    chosen = [r for r in current if r.version in wanted]
    return chosen or current


def ubuntu_version(kb: Knowledge, platform: PlatformFacts) -> str:
    """The Ubuntu release a machine is (or is based on), "" when not Ubuntu-like."""
    if not platform.is_ubuntu_family:
        return ""
    by_codename = kb.ubuntu_version_for(platform.ubuntu_codename)
    if by_codename:
        return by_codename
    return platform.distro_version if platform.distro_id == "ubuntu" else ""


def serves(release: RocmRelease, kb: Knowledge, platform: PlatformFacts) -> bool:
    """Whether AMD's packages of ``release`` are made for this distribution and version."""
    if platform.is_ubuntu_family:
        return ubuntu_version(kb, platform) in release.ubuntu
    major = platform.distro_version.split(".")[0]
    for entry in release.other_distros:
        distro_id, _, version = entry.partition("-")
        if distro_id == platform.distro_id and (
            version == platform.distro_version or ("." not in version and version == major)
        ):
            return True
    return False


def serving_releases(
    kb: Knowledge, platform: PlatformFacts, rocm: Iterable[str] = ()
) -> list[RocmRelease]:
    """Current releases supporting the card (``rocm``) whose packages serve this distribution."""
    return [r for r in releases_for(kb, rocm) if serves(r, kb, platform)]


def describe_distro(platform: PlatformFacts, ubuntu: str) -> str:
    """The distribution as a person reads it, in the current language."""
    if platform.is_ubuntu_family:
        shown = f"Ubuntu {ubuntu or platform.ubuntu_codename or '?'}"
        if platform.distro_id != "ubuntu":
            shown = t("probe.distro.based-on", "{distro} (based on {base})",
                      distro=platform.distro_name, base=shown)
        return shown
    return f"{platform.distro_name} {platform.distro_version}".strip()


def code_target(gpu: Gpu, support: Support) -> str | None:
    """The target whose code will run: the card's own, or the one the override poses as."""
    if support.status == "override" and support.override:
        return override_to_gfx(support.override)
    return gpu.gfx


def stable_indexes(
    kb: Knowledge, gpu: Gpu, support: Support, rocm: str | None = None
) -> list[TorchIndex]:
    """Stable wheel indexes with code for the card, best first (pytorch.org before AMD's).

    Where an index's arch list is known, it decides: the index serves the card when one of its
    torch versions carries the target (an RX 7600 or a Radeon 890M gets download.pytorch.org's
    wheels, which carry gfx1102 and gfx1150, though AMD lists the cards only for ROCm 10.x).
    Only current releases, unless the user asked for a release (``rocm``) by name.
    """
    target = code_target(gpu, support)
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


def _planned_route(ctx: Context, route: Route) -> tuple[str, TorchIndex | None] | None:
    """(strategy, index) for a route the planner can follow; None for one it cannot (a
    per-processor list, an index rocmate does not know, a frozen TheRock index)."""
    strategy = PLANNED_KINDS.get(route.kind)
    if strategy == "pip-only":
        index = next((i for i in ctx.kb.torch_indexes if i.name == route.index), None)
        return (strategy, index) if index is not None and index.stable else None
    if strategy == "therock":
        named = ctx.kb.therock_for(route.gfx)  # as core.install.planner.therock_index
        family = named if named is not None and not named.frozen else current_therock(
            ctx.kb.therock, route.gfx)
        return (strategy, None) if family and family.url == route.index else None
    return None


def legacy_routes(ctx: Context) -> list[tuple[Route, str, TorchIndex | None]]:
    """The routes the planner can follow for the primary card, when it is past AMD's support
    (no usable AMD GPU, not under WSL); wheels first, in the data's order."""
    platform = ctx.facts.platform
    if ctx.primary is None or ctx.usable_amd or platform.wsl in (1, 2):
        return []
    gpu, support = ctx.primary
    if support.status != "unsupported" or not gpu.gfx:
        return []
    found = []
    for route in routes_for(load_math_libraries(ctx.kb.data_dir).routes, gpu.gfx):
        planned = _planned_route(ctx, route)
        if planned is not None:
            found.append((route, *planned))
    found.sort(key=lambda item: item[1] != "pip-only")
    return found


def planned_release(ctx: Context) -> str | None:
    """The ROCm release ``rocmate install`` plans for this machine with no choices made, decided
    as the planner decides it: an old card's first route (its pinned wheel's release), else the
    best stable wheel index with code for the card (the pip-only route). None where such a plan
    names no release: under WSL (its own route), on TheRock's nightly indexes, or without a
    usable AMD card."""
    if ctx.facts.platform.wsl or ctx.primary is None:
        return None
    legacy = legacy_routes(ctx)
    if legacy:
        _, strategy, index = legacy[0]
        return index.rocm if strategy == "pip-only" and index is not None else None
    gpu, support = ctx.primary
    if not support.usable:
        return None
    indexes = stable_indexes(ctx.kb, gpu, support)
    return indexes[0].rocm if indexes else None
