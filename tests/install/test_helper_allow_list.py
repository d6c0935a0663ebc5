"""The root helper's install allow-list (core.install.helper.policy.INSTALLABLE) is exactly what
rocmate's plans install: every package any ``apt-get install`` step of any plan names is on it,
and every entry on it is named by some plan, so the list cannot keep a name no route asks for.

The plans are the planner's own for every recorded machine (tests/fixtures/machines/) and every
choice the planner offers that can change a root step: no strategy (rocmate picks) and each of
core.install.plan.STRATEGIES, no release and each release of resources/data/rocm.toml, both
package sets, with and without --remove-old. One route no recorded machine reaches is made
from the route's own code: the Core SDK's meta packages without a ``-gfxNNNN`` suffix, which
core.install.core_sdk_route.packages writes when the release does not list the card's target.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from pathlib import Path

import pytest

from core.diagnose.context import Context
from core.install import core_sdk_route
from core.install.helper.policy import INSTALLABLE, INSTALLABLE_RE, PURGEABLE
from core.install.helper.validate import PACKAGE_RE
from core.install.plan import STRATEGIES
from core.install.plan_builder import Choices, PlanBuilder
from core.install.planner import PlanError, make_plan
from core.knowledge.loader import load_knowledge
from core.operations.setup import plan_facts
from tests.conftest import machine_dirs

PACKAGE_SETS = ("runtime", "sdk")


def _install_names(argv: tuple[str, ...]) -> list[str]:
    if argv[:2] != ("apt-get", "install"):
        return []
    return [a for a in argv[2:] if not a.startswith("-")]


@pytest.fixture(scope="module")
def planned() -> dict[str, str]:
    """Every package a plan installs, with one plan that names it (machine and choices)."""
    kb = load_knowledge()
    releases = (None, *sorted({r.version for r in kb.releases}))
    found: dict[str, str] = {}
    for machine in machine_dirs():
        facts = plan_facts(str(machine))
        for strategy, rocm, packages, remove_old in itertools.product(
                (None, *STRATEGIES), releases, PACKAGE_SETS, (False, True)):
            choices = Choices(strategy=strategy, rocm=rocm, package_set=packages,
                              remove_old=remove_old)
            try:
                plan = make_plan(facts, kb, choices)
            except PlanError:
                continue
            for step in plan.steps:
                if step.privileged and step.argv:
                    for name in _install_names(step.argv):
                        found.setdefault(name, f"{machine.name} {choices}")
    return found


@pytest.fixture(scope="module")
def unlisted_target() -> dict[str, str]:
    """The Core SDK route's names for a card its release does not list (no recorded machine
    gets there: each Core SDK release lists the target of every card that plans it)."""
    kb = load_knowledge()
    machine = Path(machine_dirs()[0]).parent / "k16c-strix-halo-ubuntu2404-coresdk100"
    ctx = Context(plan_facts(str(machine)), kb)
    found: dict[str, str] = {}
    for release in kb.releases:
        if release.stream != "core-sdk":
            continue
        bare = dataclasses.replace(release, targets=())
        for packages in PACKAGE_SETS:
            builder = PlanBuilder(ctx, Choices(package_set=packages), "/tmp/venv", {})
            for name in core_sdk_route.packages(builder, bare):
                found.setdefault(name, f"core_sdk_route.packages, {release.version} unlisted")
    return found


def test_the_helper_uses_the_policys_list() -> None:
    assert PACKAGE_RE is INSTALLABLE_RE


def test_every_planned_package_is_allowed(planned: dict[str, str],
                                          unlisted_target: dict[str, str]) -> None:
    assert len(planned) >= 20, planned
    refused = {n: w for n, w in {**planned, **unlisted_target}.items()
               if not INSTALLABLE_RE.fullmatch(n)}
    assert not refused


def test_every_allowed_entry_is_planned(planned: dict[str, str],
                                        unlisted_target: dict[str, str]) -> None:
    """The list cannot go stale: an entry no plan (nor the one uncovered route) names fails
    here, so a name a route stops asking for leaves the root helper with it."""
    by_plans = {e for e in INSTALLABLE if any(re.fullmatch(e, n) for n in planned)}
    by_route = {e for e in INSTALLABLE if any(re.fullmatch(e, n) for n in unlisted_target)}
    assert set(INSTALLABLE) - by_plans - by_route == set()
    # the uncovered route accounts only for the Core SDK's gfx-less names
    gfx_less = {e for e in INSTALLABLE if re.fullmatch(e, "amdrocm10.1")
                or re.fullmatch(e, "amdrocm-core-dev10.1")}
    assert len(gfx_less) == 2 and by_route - by_plans == gfx_less


def test_the_entries_are_distinct() -> None:
    """No entry is shadowed by another (each matches a name no other entry takes)."""
    samples = {"rocm-hip-runtime", "rocminfo", "rocm-hip-sdk", "rocm-developer-tools",
               "amdrocm10.1-gfx1151", "amdrocm10.1", "amdrocm-core-dev10.1-gfx90a",
               "amdrocm-core-dev10.1", "amdrocm-developer-tools10.1", "python3-venv"}
    for entry in INSTALLABLE:
        assert sum(bool(re.fullmatch(entry, s)) for s in samples) == 1, entry


@pytest.mark.parametrize("name", ["amdgpu-dkms", "amdgpu-dkms-firmware", "gnupg",
                                  "ca-certificates", "linux-headers-6.8.0-45-generic",
                                  "linux-modules-extra-6.8.0-45-generic"])
def test_what_no_plan_installs_is_off_the_list(name: str) -> None:
    assert not INSTALLABLE_RE.fullmatch(name)


def test_purging_stays_as_it_was() -> None:
    """The purge list is its own: ROCm's versioned names may go, never be installed."""
    assert PURGEABLE.fullmatch("rocm-core5.7.1") and not INSTALLABLE_RE.fullmatch("rocm-core5.7.1")
