"""The last routes for cards past AMD's support (issue 33): gfx906 (MI50/MI60, Radeon VII),
gfx900 (MI25, Vega 56/64), gfx1010-1012 (RX 5000).

The routes are math_libraries.toml's ``[[route]]`` rows, each with its known problems and
source: a pinned pytorch.org wheel whose libraries still carry the target (``kind = "wheel"``),
or TheRock's current multi-arch index with the card's device extra (``kind = "therock"``). The
planner asks :func:`choose` first; a card that has no row at all stays refused in its words.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.diagnose.context import Context
from core.diagnose.release_choice import PLANNED_KINDS, legacy_routes
from core.i18n import local, t
from core.knowledge.math_libraries import Route, load_math_libraries, wheel_lacks
from core.knowledge.retired import load_retired, retired_instinct
from core.knowledge.wheels import TorchIndex

__all__ = ["PLANNED_KINDS", "LegacyChoice", "NoLegacyRoute", "choose", "routes"]


class NoLegacyRoute(ValueError):
    """The user asked for a strategy or release no known route serves (the message says so)."""


@dataclass(frozen=True)
class LegacyChoice:
    route: Route
    strategy: str
    """"pip-only" (a pinned pytorch.org wheel) or "therock"."""
    index: TorchIndex | None
    """The pinned wheel's index (pip-only); None for TheRock."""
    pins: tuple[str, ...]
    """The pinned requirements (pip-only); () lets the planner name TheRock's device extra."""
    notes: tuple[str, ...]


def routes(ctx: Context) -> list[tuple[Route, str, TorchIndex | None]]:
    """The routes the planner can follow for the primary card (the doctor's release choice
    reads the same: core.diagnose.release_choice.legacy_routes)."""
    return legacy_routes(ctx)


def choose(ctx: Context, strategy: str | None, rocm: str | None) -> LegacyChoice | None:
    """The route to plan for a card past AMD's support; None when the card is supported or no
    route is known at all (the planner then refuses as before). Raises :class:`NoLegacyRoute`
    when routes exist but none fits the asked ``strategy`` / ``rocm``."""
    found = routes(ctx)
    if not found:
        return None
    gpu = ctx.primary[0] if ctx.primary else None
    fitting = [(r, s, i) for r, s, i in found
               if (strategy is None or s == strategy)
               and (rocm is None or s != "pip-only" or (i is not None and i.rocm == rocm))]
    if rocm is not None and strategy is None:
        # a release asked for by name: only a wheel of that release serves it
        fitting = [(r, s, i) for r, s, i in fitting if s == "pip-only"]
    if not fitting:
        raise NoLegacyRoute(t(
            "plan.error.legacy-no-route",
            "{gpu} ({gfx}) is past AMD's support, and no known route fits what was asked; "
            "the routes rocmate can plan for it: {routes}",
            gpu=gpu.name if gpu else "?", gfx=gpu.gfx if gpu else "?",
            routes="; ".join(_route_option(s, i) for _, s, i in found)) + _why_not(ctx, rocm))
    route, chosen, index = fitting[0]
    pins: tuple[str, ...] = ()
    if chosen == "pip-only" and index is not None and route.requirement:
        pins = (_pinned(route.requirement, index),
                *((_pinned(f"torchvision=={v}", index),) if (v := _vision(route, index)) else
                  ("torchvision",)))
    return LegacyChoice(route, chosen, index, pins, tuple(_notes(ctx, route)))


def _why_not(ctx: Context, rocm: str | None) -> str:
    """" ROCm X's wheels: ..." where math_libraries.toml records that they lack the target."""
    gpu = ctx.primary[0] if ctx.primary else None
    if rocm is None or gpu is None or not gpu.gfx:
        return ""
    lacking = wheel_lacks(load_math_libraries(ctx.kb.data_dir).coverage, f"0+rocm{rocm}", gpu.gfx)
    if lacking is None:
        return ""
    return t("plan.error.legacy-why-not", ". ROCm {rocm}: {note}", rocm=rocm,
             note=local(lacking.note))


def _route_option(strategy: str, index: TorchIndex | None) -> str:
    if strategy == "pip-only" and index is not None:
        return f"--strategy pip-only --rocm {index.rocm}"
    return f"--strategy {strategy}"


def _pinned(requirement: str, index: TorchIndex) -> str:
    """``torch==2.5.1`` on the rocm6.2 index -> ``torch==2.5.1+rocm6.2`` (pytorch.org's local
    version label, so no other build of that version slips in)."""
    if "==" in requirement and "+" not in requirement and index.vendor == "pytorch":
        return f"{requirement}+{index.name}"
    return requirement


def _vision(route: Route, index: TorchIndex) -> str | None:
    """The torchvision released with the route's torch, where the index row lists both in
    step (same length: one torchvision per torch)."""
    version = (route.requirement or "").partition("==")[2]
    if version in index.torch and len(index.torch) == len(index.torchvision):
        return index.torchvision[index.torch.index(version)]
    return None


def _notes(ctx: Context, route: Route) -> list[str]:
    gpu = ctx.primary[0] if ctx.primary else None
    notes = [t("plan.note.legacy-route",
               "{gpu} ({gfx}) is past AMD's support: this is the last route that may still run "
               "it, not a supported set-up. {note}",
               gpu=gpu.name if gpu else "?", gfx=route.gfx, note=local(route.note)),
             t("plan.note.legacy-problems", "Known problems: {problems}",
               problems=local(route.problems)),
             t("plan.note.legacy-source", "Source: {source}", source=route.source)]
    instinct = retired_instinct(load_retired(ctx.kb.data_dir), route.gfx,
                                gpu.name if gpu else None)
    if instinct is not None:
        notes.append(t("plan.note.legacy-instinct", "{ended} {current}",
                       ended=local(instinct.ended), current=local(instinct.current)))
    notes.append(t("plan.note.legacy-verify",
                   "The last step runs a matrix product on the card: only that shows whether "
                   "this route works here."))
    return notes
