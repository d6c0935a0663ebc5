"""WSL 2 under ROCm 10.0/10.1 is granted per card, not per gfx target (ROCm/rocm-docs
docs/data/os-support.yaml of 10.0 and 10.1: a WSL2 entry for some cards of a target and not for
others). rocm.toml's wsl_targets can only say "some card of this target"; support.toml's notes
name the cards, in English and Chinese."""

from __future__ import annotations

import pytest

from core.knowledge.loader import load_knowledge


@pytest.fixture(scope="module")
def kb():  # type: ignore[no-untyped-def]
    return load_knowledge()


@pytest.mark.parametrize("version", ["10.0", "10.1"])
def test_wsl_targets_follow_os_support(kb, version: str) -> None:  # type: ignore[no-untyped-def]
    release = next(r for r in kb.releases if r.version == version)
    # some card of the target has a WSL2 entry: RX 7800 XT / W7700 (gfx1101), the Gorgon Point
    # Ryzen AI 7 450 / PRO 450 / 5 PRO 440 (gfx1152)
    assert {"gfx1101", "gfx1152"} <= set(release.wsl_targets)
    # no card of the target has one: RX 7600 (gfx1102), the Ryzen 200 series (gfx1103)
    assert not {"gfx1102", "gfx1103"} & set(release.wsl_targets)


@pytest.mark.parametrize(
    ("gfx", "english", "chinese"),
    [
        ("gfx1101", ["RX 7800 XT and Pro W7700 under WSL 2", "not the RX 7700 XT, RX 7700"],
         ["WSL 2列表有RX 7800 XT和Pro W7700", "没有RX 7700 XT、RX 7700"]),
        ("gfx1102", ["No WSL 2 with ROCm 10.0/10.1"], ["不支持在WSL 2中使用"]),
        ("gfx1152", ["No WSL 2 for the Krackan Point chips (Ryzen AI 7 350", "AI 5 340, AI 5 330",
                     "Ryzen AI 7 450, AI 7 PRO 450, AI 5 PRO 440) are listed under WSL 2"],
         ["Krackan Point处理器（Ryzen AI 7 350", "AI 5 330", "在AMD的WSL 2列表中"]),
    ],
)
def test_notes_name_the_cards_without_wsl(  # type: ignore[no-untyped-def]
    kb, gfx: str, english: list[str], chinese: list[str]
) -> None:
    row = kb.support_for(gfx)
    assert row is not None
    for part in english:
        assert part in row.note, row.note
    for part in chinese:
        assert part in row.note.translations["zh_CN"], row.note.translations
    assert "os-support.yaml of 10.0 and 10.1" in row.source
