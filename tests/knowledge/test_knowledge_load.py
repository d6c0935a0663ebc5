"""The knowledge base loads, is cached, and its checks catch broken copies."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.knowledge.loader import FILES, Knowledge, KnowledgeError, load_knowledge
from core.knowledge.rows import gfx_base
from core.resources import data_dir as default_data_dir


@pytest.fixture(scope="module")
def kb() -> Knowledge:
    return load_knowledge()


def test_default_dir_is_resources_data() -> None:
    folder = default_data_dir()
    assert folder == Path(__file__).resolve().parents[2] / "resources" / "data"
    for name in FILES:
        assert (folder / name).is_file(), name


def test_loads_and_is_cached(kb: Knowledge) -> None:
    assert load_knowledge() is kb
    assert load_knowledge(default_data_dir()) is not kb  # an explicit folder is read afresh
    assert len(kb.gpus) >= 150
    assert len(kb.releases) >= 9
    assert len(kb.targets) >= 25
    assert len(kb.patterns) >= 25
    assert len(kb.ubuntu) == 21


def test_every_row_names_a_source(kb: Knowledge) -> None:
    tables: list[tuple[Any, ...]] = [
        kb.gpus, kb.releases, kb.torch_indexes, kb.therock, kb.overrides, kb.no_overrides,
        kb.targets, kb.ubuntu, kb.derivatives, kb.families, kb.patterns,
    ]
    for table in tables:
        for row in table:
            assert row.source.strip(), row
    assert kb.repository.source.strip()


def test_ids_are_well_formed(kb: Knowledge) -> None:
    for gpu in kb.gpus:
        assert re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{4}", gpu.pci_id)
        assert all(re.fullmatch(r"[0-9a-f]{2}", rev) for rev in gpu.revisions)
        assert not gpu.name.startswith("AMD ")
        if gpu.vendor == "amd":
            assert gpu.gfx is not None and re.fullmatch(r"gfx[0-9]+[0-9a-f]{2}", gpu.gfx)
        else:
            assert gpu.gfx is None


def test_fallback_rows_have_generic_names(kb: Knowledge) -> None:
    """A row without revisions must not reuse a product name of a revision row of its id."""
    for gpu in kb.gpus:
        if gpu.revisions:
            continue
        siblings = {g.name for g in kb.gpus if g.pci_id == gpu.pci_id and g.revisions}
        assert gpu.name not in siblings, gpu


def test_gfx_base() -> None:
    assert gfx_base("gfx90a:sramecc+:xnack-") == "gfx90a"
    assert gfx_base(" GFX1100 ") == "gfx1100"


# ---- validation of broken copies ------------------------------------------------------------


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(default_data_dir(), target)
    return target


def _edit(folder: Path, name: str, change: Callable[[str], str]) -> None:
    path = folder / name
    text = path.read_text(encoding="utf-8")
    changed = change(text)
    assert changed != text, "the test's edit did not apply"
    path.write_text(changed, encoding="utf-8")


def test_copy_loads(tmp_path: Path) -> None:
    kb = load_knowledge(_copy(tmp_path))
    assert kb.data_dir == tmp_path / "data"


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        (
            "gpus.toml",
            lambda t: t.replace(
                'name = "Radeon RX 7900 XTX"', 'name = "Radeon RX 7900 XTX"\ncolour = "red"', 1
            ),
            r"gpus\.toml: \[\[gpu\]\] row \d+ \(1002:744c\): unknown key\(s\) colour",
        ),
        (
            "gpus.toml",
            lambda t: t.replace('pci_id = "1002:744c"', 'pci_id = "1002:744C"', 1),
            r"gpus\.toml: .*pci_id '1002:744C' must look like",
        ),
        (
            "gpus.toml",
            lambda t: t.replace('gfx = "gfx1100"', 'gfx = "navi31"', 1),
            r"gpus\.toml: .*gfx 'navi31' does not look like a gfx target",
        ),
        (
            "gpus.toml",
            lambda t: re.sub(r'source = "[^"]*"', 'source = ""', t, count=1),
            r"gpus\.toml: \[\[gpu\]\] row 1 .*source must be a non-empty string",
        ),
        (
            "gpus.toml",
            lambda t: t.replace('gfx = "gfx1100"', 'gfx = "gfx1199"', 1),
            r"gpus\.toml: .* has target gfx1199, but support\.toml has no \[\[target\]\] row",
        ),
        (
            "support.toml",
            lambda t: t.replace('rocm = ["6.4", "7.0", "7.1", "7.2", "10.0", "10.1"]',
                                'rocm = ["6.2", "6.4", "7.0", "7.1", "7.2", "10.0", "10.1"]', 1),
            r"support\.toml: \[\[target\]\] gfx1101: rocm\.toml release 6\.2 does not list gfx1101",
        ),
        (
            "support.toml",
            lambda t: t.replace('rocm = ["6.4", "7.0", "7.1", "7.2", "10.0", "10.1"]',
                                'rocm = ["6.4", "7.0", "7.1", "7.2", "10.0", "10.1", "9.9"]', 1),
            r"support\.toml: \[\[target\]\] gfx1101: rocm 9\.9 is not a release in rocm\.toml",
        ),
        (
            "support.toml",
            lambda t: t.replace(
                'status = "override"\noverride = "10.3.0"', 'status = "official"', 1
            ),
            r"support\.toml: .*official needs the rocm releases",
        ),
        (
            "rocm.toml",
            lambda t: t.replace('version = "7.2"', 'version = "7.2"\nlts = true', 1),
            r"rocm\.toml: \[\[release\]\] row \d+ \(7\.2\): unknown key\(s\) lts",
        ),
        (
            "rocm.toml",
            lambda t: t.replace('"gfx1030"]', '"gfx1030", "gfx_1030"]', 1),
            r"rocm\.toml: .*targets: 'gfx_1030' is not a gfx target",
        ),
        (
            "overrides.toml",
            lambda t: t.replace('override = "10.3.0"', 'override = "10.3"', 1),
            r"overrides\.toml: \[\[rule\]\] row 1 \(gfx1031\): override '10\.3' must be",
        ),
        (
            "explain.toml",
            lambda t: t.replace(
                "match = ['ROCk module is NOT loaded']", "match = ['ROCk module (is']", 1
            ),
            r"explain\.toml: .*\(rock-module-not-loaded\): regex .* does not compile",
        ),
        (
            "distros.toml",
            lambda t: t.replace('codename = "jammy"', 'codename = "Jammy Jellyfish"', 1),
            r"distros\.toml: .*codename 'Jammy Jellyfish' must be one lowercase word",
        ),
        (
            "torch.toml",
            lambda t: t.replace('rocm = "5.7"', 'rocm = "5.6"', 1),
            r"torch\.toml: \[\[index\]\] rocm5\.7: rocm 5\.6 is not in rocm\.toml",
        ),
        (
            "torch.toml",
            lambda t: t.replace(
                'family = "gfx94X-dcgpu"', 'family = "gfx94X-dcgpu"\nnightly = true', 1
            ),
            r"torch\.toml: \[\[therock\]\] row 2 \(gfx94X-dcgpu\): unknown key\(s\) nightly",
        ),
        (
            "torch.toml",
            lambda t: t.replace('arch_from = { gfx1103 = "2.13.0" }',
                                'arch_from = { gfx1031 = "2.13.0" }', 1),
            r"torch\.toml: \[\[index\]\] row \d+ \(rocm7\.1\): arch_from names gfx1031, which "
            r"arch_list does not list",
        ),
        (
            "torch.toml",
            lambda t: t.replace('arch_from = { gfx1103 = "2.13.0" }',
                                'arch_from = { gfx1103 = "2.15.0" }', 1),
            r"torch\.toml: \[\[index\]\] row \d+ \(rocm7\.1\): arch_from gfx1103 = 2\.15\.0: no "
            r"torch version listed is that new",
        ),
    ],
)
def test_broken_copy_is_rejected(
    tmp_path: Path, name: str, change: Callable[[str], str], message: str
) -> None:
    folder = _copy(tmp_path)
    _edit(folder, name, change)
    with pytest.raises(KnowledgeError, match=message):
        load_knowledge(folder)


def test_invalid_toml_is_reported_with_the_file(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "support.toml").write_text("[[target]\n", encoding="utf-8")
    with pytest.raises(KnowledgeError, match=r"^support\.toml: not valid TOML"):
        load_knowledge(folder)


def test_missing_file_is_reported(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "explain.toml").unlink()
    with pytest.raises(KnowledgeError, match=r"^explain\.toml: missing from"):
        load_knowledge(folder)


def test_rows_are_hashable(kb: Knowledge) -> None:
    assert len(set(kb.releases)) == len(kb.releases)
    assert len(set(kb.gpus)) == len(kb.gpus)
    assert len(set(kb.patterns)) == len(kb.patterns)


def test_the_vendor_table_is_checked_like_the_others(tmp_path: Path) -> None:
    from core.knowledge.vendors import load_vendors

    (tmp_path / "pci_vendors.toml").write_text(
        '[[vendor]]\nid = "1002"\nkey = "amd"\nsource = "x"\ncolour = "red"\n')
    with pytest.raises(KnowledgeError, match=r"pci_vendors.toml: \[\[vendor\]\] row 1 .*colour"):
        load_vendors(tmp_path)
    (tmp_path / "pci_vendors.toml").write_text('[[vendor]]\nid = "1002"\nkey = "amd"\n')
    with pytest.raises(KnowledgeError, match="missing key"):
        load_vendors(tmp_path)
    assert load_vendors().by_id("1002") is not None


def test_one_lookup_by_name_for_every_vendor(kb: Knowledge) -> None:
    assert kb.gpu_by_name("AMD Radeon(TM) RX 6800M", vendor="amd").gfx == "gfx1031"  # type: ignore[union-attr]
    assert kb.gpu_by_name("Radeon RX 6800") is not kb.gpu_by_name("Radeon RX 6800M")
    h200 = kb.gpu_by_name("NVIDIA H200")
    assert h200 is not None and h200.vendor == "nvidia"
    assert kb.gpu_by_name("NVIDIA H200", vendor="amd") is None
    assert kb.gpu_by_name("   ") is None
