"""The support policy (support.toml) against releases, overrides and the GPU table."""

from __future__ import annotations

import pytest

from core.knowledge.loader import Knowledge, load_knowledge


@pytest.fixture(scope="module")
def kb() -> Knowledge:
    return load_knowledge()


OFFICIAL = [
    "gfx950", "gfx942", "gfx90a", "gfx908", "gfx1030", "gfx1100", "gfx1101", "gfx1200",
    "gfx1201",
    # official only through the ROCm Core SDK releases (7.14 / 10.0 / 10.1) and AMD's wheels:
    "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153",
]
OVERRIDE_10_3_0 = ["gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"]
UNSUPPORTED = [
    "gfx803", "gfx900", "gfx902", "gfx906", "gfx90c", "gfx1010", "gfx1011", "gfx1012", "gfx1013",
]


@pytest.mark.parametrize("gfx", OFFICIAL)
def test_official(kb: Knowledge, gfx: str) -> None:
    row = kb.support_for(gfx)
    assert row is not None and row.status == "official" and row.override is None
    assert any(kb.release(v) is not None and kb.release(v).current for v in row.rocm)  # type: ignore[union-attr]


@pytest.mark.parametrize("gfx", OVERRIDE_10_3_0)
def test_rdna2_siblings_use_10_3_0(kb: Knowledge, gfx: str) -> None:
    row = kb.support_for(gfx)
    assert row is not None and (row.status, row.override) == ("override", "10.3.0")
    rule = kb.override_rule(gfx)
    assert rule is not None and rule.override == "10.3.0"


@pytest.mark.parametrize("gfx", UNSUPPORTED)
def test_unsupported(kb: Knowledge, gfx: str) -> None:
    row = kb.support_for(gfx)
    assert row is not None and row.status == "unsupported" and row.override is None
    assert not any(kb.release(v).current for v in row.rocm)  # type: ignore[union-attr]


def test_gfx906_note_mentions_older_wheels(kb: Knowledge) -> None:
    row = kb.support_for("gfx906")
    assert row is not None
    assert row.rocm == ("5.7",)
    assert "wheels" in row.note


def test_gfx1101_was_an_override_until_641(kb: Knowledge) -> None:
    rule = kb.override_rule("gfx1101")
    assert rule is not None and rule.until_rocm == "6.4.1"
    r64 = kb.release("6.4")
    assert r64 is not None and r64.targets_from["gfx1101"] == "6.4.1"


def test_rx7600_keeps_an_override_for_old_wheels_and_the_780m_has_none(kb: Knowledge) -> None:
    rule = kb.override_rule("gfx1102")
    assert rule is not None and rule.override == "11.0.0" and rule.until_rocm == "10.0"
    # 11.0.0 on gfx1103 causes page faults and hard hangs (ROCm/MIOpen#3954)
    assert kb.override_rule("gfx1103") is None
    hang = kb.no_override("gfx1103")
    assert hang is not None and "hang" in hang.reason


def test_gfx1150_has_no_working_override(kb: Knowledge) -> None:
    assert kb.no_override("gfx1150") is not None
    assert kb.override_rule("gfx1150") is None


def test_gfx90c_override_is_not_offered(kb: Knowledge) -> None:
    row = kb.support_for("gfx90c")
    assert row is not None and row.status == "unsupported"
    assert kb.override_rule("gfx90c") is None
    reason = kb.no_override("gfx90c")
    assert reason is not None and "9.0.0" in reason.reason


def test_gfx1151_is_official_with_a_current_release(kb: Knowledge) -> None:
    row = kb.support_for("gfx1151")
    assert row is not None
    assert row.rocm == ("7.14", "10.0", "10.1")
    assert row.therock == "whl-multi-arch"


def test_every_gpu_target_has_a_policy(kb: Knowledge) -> None:
    for gpu in kb.gpus:
        if gpu.gfx is not None:
            assert kb.support_for(gpu.gfx) is not None, gpu


def test_rocm_lists_match_release_table(kb: Knowledge) -> None:
    for row in kb.targets:
        expected = tuple(r.version for r in kb.releases if row.gfx in r.targets)
        assert row.rocm == expected, row.gfx


def test_override_status_matches_rules(kb: Knowledge) -> None:
    for row in kb.targets:
        if row.status == "override":
            rule = kb.override_rule(row.gfx)
            assert rule is not None and rule.override == row.override
            assert kb.no_override(row.gfx) is None


def test_support_lookup_strips_features(kb: Knowledge) -> None:
    row = kb.support_for("gfx942:sramecc+:xnack-")
    assert row is not None and row.gfx == "gfx942"
    assert kb.support_for("gfx1250") is None
