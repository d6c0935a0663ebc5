"""Issue 32, item 3: every integrated GPU in the public amdgpu/libdrm tables is known to rocmate
and marked integrated, and every product libdrm's amdgpu.ids names is known.

The tables are copied in tests/fixtures/gpu_tables/ (SOURCE.md names each file's repository and
commit):

- the kernel's pciidlist marks the APUs it lists by id (``AMD_IS_APU``); IP-discovery parts (the
  gfx10.3.6+ APUs, every gfx11/gfx12 part) have no entry there;
- AMD's GPUOpen device table (``DeviceInfo.cpp``) marks APUs per device id and revision, the
  IP-discovery parts included (Granite Ridge 0x13C0, Phoenix, Strix, Krackan, ...);
- libdrm's ``amdgpu.ids`` and the lines AMD's TheRock adds to it name the products per id and
  revision (no APU flag).

A row that a new copy of a table adds and ``gpus.toml`` lacks fails here, with the id named.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.knowledge.loader import Knowledge, load_knowledge

TABLES = Path(__file__).resolve().parents[1] / "fixtures" / "gpu_tables"

# device_info says APU, the kernel does not: Radeon RX Vega M, a Polaris-class GPU with its own
# 4 GB of HBM2 beside an Intel Kaby Lake-G CPU on one package (SOURCE.md). Treated as discrete.
NOT_INTEGRATED = {"694c", "694e", "694f"}

# Pre-Vega discrete chips of the kernel's pciidlist (GCN 1-4: SI, CIK, VI, Polaris): ROCm PyTorch
# never ran on them; rocmate names them from the PCI database and calls them unsupported by gfx.
OLD_DISCRETE_CHIPS = {
    "TAHITI", "PITCAIRN", "VERDE", "OLAND", "HAINAN", "BONAIRE", "HAWAII", "TOPAZ", "TONGA",
    "FIJI", "POLARIS10", "POLARIS11", "POLARIS12", "VEGAM",
}

# Names in amdgpu.ids for chips amdgpu's pciidlist does not list at all (the radeon driver's
# GCN 1 parts: 6666 Hainan, 684C a Pitcairn-era FirePro).
RADEON_ONLY = {"6666", "684c"}

PCIIDLIST_RE = re.compile(
    r"\{0x1002, 0x([0-9A-Fa-f]{4}), PCI_ANY_ID, PCI_ANY_ID, 0, 0, CHIP_(\w+)((?:\|\w+)*)\}")
IDS_RE = re.compile(r"^([0-9A-Fa-f]{4}),\s+([0-9A-Fa-f]{2}),\s+(.+?)\s*$")
DEVICE_INFO_RE = re.compile(
    r'\{(GDT_\w+), 0x([0-9A-Fa-f]+), 0x([0-9A-Fa-f]+), (\w+), (true|false), "([^"]*)", '
    r'"([^"]*)"\}')


@pytest.fixture(scope="module")
def kb() -> Knowledge:
    return load_knowledge()


def pciidlist() -> list[tuple[str, str, set[str]]]:
    """(device id, chip, flags) of every 0x1002 entry of the kernel's pciidlist."""
    text = (TABLES / "amdgpu_drv_pciidlist.c").read_text()
    return [(m[1].lower(), m[2], set(filter(None, m[3].split("|"))))
            for m in PCIIDLIST_RE.finditer(text)]


def amdgpu_ids() -> list[tuple[str, str, str]]:
    """(device id, revision, name) of libdrm's amdgpu.ids and TheRock's additions."""
    rows = []
    for name in ("libdrm_amdgpu.ids", "therock_amdgpu_ids_additions.txt"):
        for line in (TABLES / name).read_text().splitlines():
            m = IDS_RE.match(line)
            if m:
                rows.append((m[1].lower(), m[2].lower(), m[3]))
    return rows


def device_info_apus() -> list[tuple[str, str, str, str]]:
    """(device id, revision, gfx / CAL name, marketing name) of device_info's APU rows."""
    rows = []
    for line in (TABLES / "device_info_apu_rows.txt").read_text().splitlines():
        m = DEVICE_INFO_RE.search(line)
        assert m is not None, line
        assert m[5] == "true", line
        rows.append((f"{int(m[2], 16):04x}", f"{int(m[3], 16):02x}", m[6], m[7]))
    return rows


def test_the_copied_tables_are_whole() -> None:
    """The walk below means something only if the copies hold what SOURCE.md says."""
    kernel = pciidlist()
    assert len(kernel) > 300 and sum("AMD_IS_APU" in f for _, _, f in kernel) == 75
    ids = amdgpu_ids()
    assert len(ids) > 740 and ("7590", "cf", "AMD Radeon RX 9050") in ids
    apus = device_info_apus()
    assert len(apus) == 683 and any(d == "13c0" for d, *_ in apus)


def test_every_kernel_apu_id_is_known_and_integrated(kb: Knowledge) -> None:
    wrong = []
    for device, chip, flags in pciidlist():
        if "AMD_IS_APU" not in flags:
            continue
        rows = [r for r in kb.gpus if r.pci_id == f"1002:{device}"]
        if not rows or not all(r.integrated for r in rows):
            wrong.append(f"{device} ({chip}): {[(r.name, r.integrated) for r in rows]}")
    assert not wrong, "kernel APU ids unknown or not integrated:\n" + "\n".join(wrong)


def test_every_device_info_apu_is_known_and_integrated(kb: Knowledge) -> None:
    """Per id and revision, as the doctor looks a GPU up (a revision row, else the id's
    fallback row)."""
    wrong = []
    for device, revision, gfx, name in device_info_apus():
        row = kb.gpu_by_pci(f"1002:{device}", revision)
        expected = device not in NOT_INTEGRATED
        if row is None or row.integrated != expected:
            wrong.append(f"{device}:{revision} {gfx} {name!r} -> "
                         f"{(row.name, row.integrated) if row else None}")
    assert not wrong, "device_info APUs unknown or wrongly marked:\n" + "\n".join(wrong)


def test_device_info_gfx_agrees_with_the_rows(kb: Knowledge) -> None:
    """Where device_info gives a gfx target for an APU (GFX9 on), the row has the same one."""
    wrong = []
    for device, revision, gfx, _name in device_info_apus():
        row = kb.gpu_by_pci(f"1002:{device}", revision)
        if row is not None and gfx.startswith("gfx") and device not in NOT_INTEGRATED \
                and row.gfx != gfx:
            wrong.append(f"{device}:{revision} device_info {gfx}, row {row.gfx} ({row.name})")
    assert not wrong, "\n".join(wrong)


def test_every_amdgpu_ids_product_is_known(kb: Knowledge) -> None:
    """Every id and revision of amdgpu.ids (with TheRock's additions) finds a row, apart from
    the pre-Vega discrete chips of the kernel's list; an id that is an APU in the kernel's list
    or in device_info finds an integrated row."""
    old = {d for d, chip, flags in pciidlist()
           if chip in OLD_DISCRETE_CHIPS and "AMD_IS_APU" not in flags}
    apu_ids = {d for d, _, f in pciidlist() if "AMD_IS_APU" in f}
    apu_ids |= {d for d, *_ in device_info_apus()} - NOT_INTEGRATED
    wrong = []
    for device, revision, name in amdgpu_ids():
        row = kb.gpu_by_pci(f"1002:{device}", revision)
        if row is None and (device in old or device in RADEON_ONLY):
            continue
        if row is None or (device in apu_ids and not row.integrated):
            wrong.append(f"{device}:{revision} {name!r} -> "
                         f"{(row.name, row.integrated) if row else None}")
    assert not wrong, "amdgpu.ids products unknown to gpus.toml:\n" + "\n".join(wrong)


@pytest.mark.parametrize(("pci", "revision", "name", "gfx", "integrated"), [
    ("1002:13c0", "c1", "Radeon Graphics (Granite Ridge)", "gfx1036", True),
    ("1002:7551", "c1", "Radeon AI PRO R9700S", "gfx1201", False),
    ("1002:75a8", "00", "Instinct MI350P", "gfx950", False),
    ("1002:7590", "cf", "Radeon RX 9050", "gfx1200", False),
    ("1002:7590", "df", "Radeon RX 9050 4GB", "gfx1200", False),
])
def test_the_issue_examples(kb: Knowledge, pci: str, revision: str, name: str, gfx: str,
                            integrated: bool) -> None:
    row = kb.gpu_by_pci(pci, revision)
    assert row is not None and row.name == name
    assert row.gfx == gfx and row.integrated is integrated
