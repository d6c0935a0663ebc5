"""Which of AMD's WSL 2 routes (resources/data/wsl.toml joined with rocm.toml) fits a machine: the
release, its Ubuntu guests, whether it serves the card. Shared by the doctor (the Adrenalin
minimum it judges against) and the WSL planner (core.install.wsl_route)."""

from __future__ import annotations

from dataclasses import dataclass

from core.diagnose.context import Support
from core.diagnose.release_choice import ubuntu_version
from core.knowledge.loader import Knowledge
from core.knowledge.releases import RocmRelease
from core.knowledge.rows import version_tuple
from core.knowledge.wsl_routes import WslRoute, WslTable
from core.probe.gpus import Gpu
from core.probe.parse.kfd import override_to_gfx
from core.probe.platform import PlatformFacts


@dataclass(frozen=True)
class WslChoice:
    release: RocmRelease
    route: WslRoute


def wsl_routes(kb: Knowledge, table: WslTable, rocm: str | None = None) -> list[WslChoice]:
    """Releases with a WSL route, newest first: the current ones, or the one asked for by name."""
    found = []
    for route in table.routes:
        release = kb.release(route.rocm)
        if release is None or not (release.current or rocm == release.version):
            continue
        if rocm and release.version != rocm:
            continue
        found.append(WslChoice(release, route))
    return sorted(found, key=lambda c: version_tuple(c.release.version), reverse=True)


def guest_fits(choice: WslChoice, kb: Knowledge, platform: PlatformFacts) -> bool:
    """Whether the route is made for this WSL guest's Ubuntu."""
    ubuntu = ubuntu_version(kb, platform)
    return bool(ubuntu) and ubuntu in choice.route.ubuntu


def card_fits(choice: WslChoice, gpu: Gpu, support: Support) -> bool:
    """Whether the route serves the card in WSL: the route's own list (librocdxg's), else AMD's
    WSL list of the release, else the release's Linux list (the card's own target, or the one its
    override poses as)."""
    release = choice.release
    target = override_to_gfx(support.override) if support.status == "override" and \
        support.override else gpu.gfx
    if choice.route.targets:
        return any(t in choice.route.targets for t in (gpu.gfx, target) if t)
    if release.wsl_targets:
        return any(t in release.wsl_targets for t in (gpu.gfx, target) if t)
    return release.version in support.rocm or bool(target and release.lists(target))


def best_route(
    kb: Knowledge, table: WslTable, platform: PlatformFacts, gpu: Gpu | None,
    support: Support | None,
) -> WslChoice | None:
    """The route a WSL plan picks by default (newest that fits guest and card), else the newest
    that fits the guest, else the newest; None when wsl.toml names no current release."""
    routes = wsl_routes(kb, table)
    guest = [c for c in routes if guest_fits(c, kb, platform)]
    card = [c for c in guest if gpu is not None and support is not None
            and card_fits(c, gpu, support)]
    return next(iter(card or guest or routes), None)
