"""AMD's ROCm Core SDK apt route (7.14 on, 10.x: stable.repo.amd.com, amdrocmX.Y-gfxNNNN packages,
/opt/rocm/core-X.Y) is planned for the rocm-apt strategy once rocm.toml pins its signing key, and
the root helper accepts the plan.

The machines are replayed: k16c-strix-halo-ubuntu2404-coresdk100 (Radeon 8060S, gfx1151, Ubuntu
24.04 with the Core SDK 10.0 installed) and k16b-rx7600-ubuntu2404-fresh (RX 7600, gfx1102). What
the plan must write is AMD's own install page for 10.0 (ROCm/rocm-docs
docs/install/include/200-install.rst, "Register ROCm repositories" and "Install ROCm packages"):
the key from https://stable.repo.amd.com/rocm/gpg/packages.gpg dearmored into
/etc/apt/keyrings/amdrocm.gpg, the deb822 source /etc/apt/sources.list.d/amdrocm-stable.sources
with URIs https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/, Suites stable, then
``apt install amdrocm10.0-gfx1151``. The fingerprint is the one ROCm/TheRock's
build_repo_package.py checks that key against (EXPECTED_KEY_FINGERPRINT).
"""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path

import pytest

from core.diagnose.doctor import run_doctor
from core.install.helper import main as helper
from core.install.helper.policy import CORE_SDK_KEYRING, CORE_SDK_SOURCES, PURGEABLE, SCHEMA
from core.install.helper.target import Policy, Target
from core.install.plan import Plan
from core.install.plan_text import render_plan, shell_script
from core.install.planner import Choices, PlanError, make_plan, series_of_package
from core.knowledge.loader import Knowledge, load_knowledge
from core.system import SnapshotSystem
from core.termstyle import Style
from tests.install.support import (
    TRUSTED_FPR,
    TRUSTED_KEY,
    add_fixtures,
    write_accounts,
)

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
STRIX_HALO = "k16c-strix-halo-ubuntu2404-coresdk100"
RX7600 = "k16b-rx7600-ubuntu2404-fresh"
PINNED = "D0F004A0025A1145C7807FCD0701EAC4D5E02107"
KEY_URL = "https://stable.repo.amd.com/rocm/gpg/packages.gpg"
URI = "https://stable.repo.amd.com/rocm/core/packages/ubuntu2404/"


def plan_for(name: str, kb: Knowledge | None = None, **choices: object) -> Plan:
    facts = run_doctor(SnapshotSystem(MACHINES / name), probe_torch=False).facts
    return make_plan(facts, kb or load_knowledge(), Choices(**choices))  # type: ignore[arg-type]


def step(plan: Plan, step_id: str) -> dict:
    for s in plan.steps:
        if s.id == step_id:
            return s.to_json()
    raise AssertionError(f"no step {step_id}: {[s.id for s in plan.steps]}")


def helper_input(plan: Plan, key: bytes) -> bytes:
    """The privileged steps as the runner hands them to the helper: the keyring fetched (here
    ``key``) and sent as content_b64 (core/install/runner.py, Runner._prepared)."""
    steps = []
    for s in plan.steps:
        data = s.to_json()
        if s.file is not None and s.file.source_url:
            data["file"]["content_b64"] = base64.b64encode(key).decode()
        steps.append(data)
    return json.dumps({"schema": SCHEMA, "steps": steps}).encode()


@pytest.fixture
def fake(tmp_path: Path) -> Target:
    write_accounts(tmp_path)
    add_fixtures(tmp_path)
    return Target(str(tmp_path))


def test_strix_halo_gets_the_core_sdk_route_for_10_1() -> None:
    plan = plan_for(STRIX_HALO, strategy="rocm-apt", rocm="10.1")
    assert plan.strategy == "rocm-apt" and plan.rocm == "10.1"
    key = step(plan, "apt-keyring")
    assert key["privileged"] and key["key_fingerprint"] == PINNED
    assert key["file"] == {"path": CORE_SDK_KEYRING, "mode": "0644", "source_url": KEY_URL}
    source = step(plan, "apt-source")
    assert source["privileged"]
    assert source["file"]["path"] == "/etc/apt/sources.list.d/amdrocm-stable.sources"
    assert source["file"]["content"] == (
        "Types: deb\n"
        f"URIs: {URI}\n"
        "Suites: stable\n"
        "Components: main\n"
        "Architectures: amd64\n"
        "Signed-By: /etc/apt/keyrings/amdrocm.gpg\n"
    )
    assert step(plan, "apt-update")["argv"] == ["apt-get", "update"]
    assert step(plan, "apt-install")["argv"] == [
        "apt-get", "install", "-y", "--no-install-recommends", "amdrocm10.1-gfx1151",
    ]
    order = [s.id for s in plan.steps]
    assert order.index("apt-keyring") < order.index("apt-source") < order.index("apt-update")
    assert order.index("apt-update") < order.index("apt-install")
    assert "apt-pin" not in order  # AMD's page pins nothing: the amdrocm* names are AMD's alone
    legacy = ("/etc/apt/keyrings/rocm.gpg", "/etc/apt/sources.list.d/rocm.list")
    assert not any(s.file and s.file.path in legacy for s in plan.steps)
    # the wheel comes from AMD's index for 10.1, with the card's device extra, pinned to the
    # release (the index is shared by 10.0 and 10.1; torch.toml amd-rocm10.1's local label)
    assert plan.torch_index == "https://stable.repo.amd.com/rocm/whl-next/"
    assert list(plan.torch_packages) == [
        "torch[device-gfx1151]==2.14.0+rocm10.1.0",
        "torchvision[device-gfx1151]==0.29.0a0+rocm10.1.0",
    ]
    # the official route for this APU needs another kernel: the plan says so up front
    [limit] = [c for c in plan.preflight if c.id == "gpu-os"]
    assert not limit.ok and "HWE 7.0" in limit.title and "pip-only" in limit.detail


def test_the_helper_accepts_the_plan(fake: Target) -> None:
    """``--check`` (helper.check, what main runs for it) on the plan as the runner sends it.
    The real key cannot be made here, so the keyring carries a synthetic test key under its own
    fingerprint; that the shipped policy trusts the pinned fingerprint and key URL is checked
    separately."""
    plan = plan_for(STRIX_HALO, strategy="rocm-apt", rocm="10.1", remove_old=True)
    shipped = Policy.from_knowledge(load_knowledge())
    assert PINNED in shipped.trusted_fingerprints
    assert KEY_URL in shipped.key_urls
    assert any(URI.startswith(prefix) for prefix in shipped.uri_prefixes)
    assert "stable" in shipped.suites

    raw = json.loads(helper_input(plan, TRUSTED_KEY))
    for data in raw["steps"]:
        if data.get("key_fingerprint") == PINNED:
            data["key_fingerprint"] = TRUSTED_FPR
    policy = dataclasses.replace(
        shipped, trusted_fingerprints=shipped.trusted_fingerprints | {TRUSTED_FPR}
    )
    checked = helper.check(json.dumps(raw).encode(), fake, policy)
    assert checked.ok, [r.reason for r in checked.refused]
    assert [a.verb for a in checked.actions] == [
        "apt-purge", "keyring", "apt-source", "apt-update", "apt-install",
    ]
    purge = checked.actions[0]
    assert purge.packages == (  # type: ignore[attr-defined]
        "amdrocm-amdsmi10.0", "amdrocm-base10.0", "amdrocm-core10.0-gfx1151", "amdrocm-llvm10.0",
        "amdrocm-runtime10.0", "amdrocm-sysdeps10.0", "amdrocm10.0-gfx1151",
    )
    assert checked.source_uris == (URI,)

    # and the pinned fingerprint itself: refused only because the synthetic key is not that key
    raw["steps"] = [s for s in raw["steps"] if s["id"] == "apt-keyring"]
    raw["steps"][0]["key_fingerprint"] = PINNED
    refused = helper.check(json.dumps(raw).encode(), fake, shipped)
    assert [r.reason for r in refused.refused] == [
        f"step apt-keyring: the key's fingerprint {TRUSTED_FPR} is not the step's "
        f"key_fingerprint {PINNED}"
    ]


def test_the_plan_text_says_what_runs_as_root() -> None:
    plan = plan_for(STRIX_HALO, strategy="rocm-apt", rocm="10.1")
    text = render_plan(plan, Style(False))
    for title in ("Add AMD's signing key", "Add AMD's ROCm 10.1 repository for noble",
                  "Read AMD's package lists", "Install ROCm 10.1 (runtime)",
                  "Remove ROCm packages of releases other than 10.1"):
        assert f"{title} [root]" in text, text
    assert f"writes it to {CORE_SDK_KEYRING} only if its fingerprint is {PINNED}" in text
    assert "$ apt-get install -y --no-install-recommends amdrocm10.1-gfx1151" in text
    assert "Create rocmate's Python environment\n" in text  # the user's own steps: no [root]
    script = shell_script(plan)
    assert "# 2. Add AMD's signing key (as root)" in script
    assert f"sudo tee {CORE_SDK_SOURCES}" in script
    assert f"download {KEY_URL}, check its fingerprint" in script


def test_old_core_sdk_packages_are_offered_for_removal_with_consent_only() -> None:
    plan = plan_for(STRIX_HALO, strategy="rocm-apt", rocm="10.1")
    removal = step(plan, "remove-old-rocm")
    assert removal["consent"] is False
    assert removal["argv"][:3] == ["apt-get", "purge", "-y"]
    assert all("10.0" in name for name in removal["argv"][3:])
    same = plan_for(STRIX_HALO, strategy="rocm-apt", rocm="10.0")
    assert "remove-old-rocm" not in [s.id for s in same.steps]


def test_default_release_and_sdk_package_set() -> None:
    """No legacy release lists gfx1151 or gfx1102: the newest Core SDK release is the apt route
    (cards the legacy 7.2 serves keep it: tests/planner/test_plans.py)."""
    plan = plan_for(STRIX_HALO, strategy="rocm-apt")
    assert plan.rocm == "10.1"
    rx7600 = plan_for(RX7600, strategy="rocm-apt", package_set="sdk")
    assert rx7600.rocm == "10.1"
    assert step(rx7600, "apt-install")["argv"][4:] == [
        "amdrocm-core-dev10.1-gfx1102", "amdrocm-developer-tools10.1",
    ]
    assert step(rx7600, "apt-keyring")["key_fingerprint"] == PINNED
    older = plan_for(RX7600, strategy="rocm-apt", rocm="10.0")
    assert step(older, "apt-install")["argv"][4:] == ["amdrocm10.0-gfx1102"]


def test_not_offered_while_the_helper_does_not_trust_the_key() -> None:
    """Without the fingerprint in [repository] trusted_fingerprints the route is not planned,
    and the plan error says why."""
    kb = load_knowledge()
    untrusting = dataclasses.replace(
        kb, repository=dataclasses.replace(kb.repository, trusted_fingerprints=())
    )
    with pytest.raises(PlanError, match=r"pinned signing key serves Ubuntu 24\.04"):
        plan_for(STRIX_HALO, kb=untrusting, strategy="rocm-apt", rocm="10.1")


def test_series_of_core_sdk_packages() -> None:
    assert series_of_package("amdrocm10.0-gfx1151", "10.0.0-1") == "10.0"
    assert series_of_package("amdrocm-core10.0-gfx1151", "10.0.0-1") == "10.0"
    assert series_of_package("amdrocm-core-sdk10.1-gfx1151", "10.1.0-1") == "10.1"
    assert series_of_package("amdrocm-base10.0", "10.0.0-1") == "10.0"
    assert series_of_package("rocm-core", "6.2.41133.60200-66~22.04") == "6.2"
    assert series_of_package("amdrocm-repo", "10.0.0") is None
    for name in ("amdrocm10.0-gfx1151", "amdrocm-core10.0-gfx1151", "amdrocm-base10.0"):
        assert PURGEABLE.match(name)
    for name in ("amdrocm", "amdrocm-repo", "amdrocm10.0-gfx1151-evil", "amdrocm10.0.0"):
        assert not PURGEABLE.match(name)

