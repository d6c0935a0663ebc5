"""How the GPUs are connected (core.probe.links, core.diagnose.rules_links): the PCIe link of a
Radeon card is its upstream port's, not the GPU's own; a card that gets fewer lanes or a lower
generation than it has is named; several GPUs and cards that differ are said; xGMI comes from
the KFD's io_links.

The sysfs values of the card behind its own switch are the ones posted in
nokyan/resources#512 (pktpls, 2025-07-16): the card's upstream port 0000:01:00.0 reads
``16.0 GT/s PCIe`` x8 now and ``32.0 GT/s PCIe`` x16 at most, the GPU 0000:03:00.0 behind it
``32.0 GT/s PCIe`` x16 both ways. The root port above them (not in the post) is written as the
one a Gen 4 board with a slot wired x8 has. The two-card machine is the recorded
rx9070xt-x2-ubuntu2404-rocm711 with its PCI folders placed in a device tree as Linux lays it
out (drivers/pci/pci-sysfs.c: ``current_link_speed`` etc.; the link types of kfd_crat.h).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from core.probe.links import pcie_link, peer_links
from core.probe.parse.pcie import gbytes_per_s, generation, parse_link_speed, parse_link_width
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
TWO_CARDS = "rx9070xt-x2-ubuntu2404-rocm711"


@pytest.mark.parametrize(("text", "gt_s"), [
    ("16.0 GT/s PCIe\n", 16.0), ("2.5 GT/s PCIe", 2.5), ("8 GT/s\n", 8.0),  # before Linux 5.2
    ("32.0 GT/s PCIe", 32.0), ("Unknown\n", None), ("", None), (None, None), ("0 GT/s", None),
    ("fast", None),
])
def test_link_speed(text: str | None, gt_s: float | None) -> None:
    assert parse_link_speed(text) == gt_s


@pytest.mark.parametrize(("text", "lanes"), [
    ("16\n", 16), ("1", 1), ("x8", 8), ("0\n", None), ("255", None), ("", None), (None, None),
])
def test_link_width(text: str | None, lanes: int | None) -> None:
    assert parse_link_width(text) == lanes


def test_generations_and_bandwidth() -> None:
    assert [generation(s) for s in (2.5, 5.0, 8.0, 16.0, 32.0, 64.0, 12.0)] == [
        1, 2, 3, 4, 5, 6, None]
    assert gbytes_per_s(2.5, 16) == pytest.approx(4.0)  # 8b/10b
    assert gbytes_per_s(16.0, 16) == pytest.approx(31.5, abs=0.05)  # 128b/130b
    assert gbytes_per_s(16.0, 4) == pytest.approx(7.88, abs=0.01)


# --- a device tree in a snapshot folder ---------------------------------------------------------


def device(files: Path, path: str, *, vendor: int, pci_class: int, max_link: tuple[str, int],
           now: tuple[str, int]) -> Path:
    folder = files / path.lstrip("/")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vendor").write_text(f"0x{vendor:04x}\n")
    (folder / "class").write_text(f"0x{pci_class:06x}\n")
    (folder / "max_link_speed").write_text(max_link[0] + "\n")
    (folder / "max_link_width").write_text(f"{max_link[1]}\n")
    (folder / "current_link_speed").write_text(now[0] + "\n")
    (folder / "current_link_width").write_text(f"{now[1]}\n")
    return folder


def card_behind_switch(files: Path, root_port: str, top: str, down: str, gpu: str, *,
                       port: tuple[str, int], top_max: tuple[str, int],
                       top_now: tuple[str, int]) -> str:
    """A root port, a Radeon card's upstream and downstream switch ports and its GPU; returns
    the GPU's real folder."""
    base = "/sys/devices/pci0000:00"
    device(files, f"{base}/{root_port}", vendor=0x1022, pci_class=0x060400, max_link=port,
           now=top_now)
    device(files, f"{base}/{root_port}/{top}", vendor=0x1002, pci_class=0x060400,
           max_link=top_max, now=top_now)
    device(files, f"{base}/{root_port}/{top}/{down}", vendor=0x1002, pci_class=0x060400,
           max_link=("32.0 GT/s PCIe", 16), now=("32.0 GT/s PCIe", 16))
    real = f"{base}/{root_port}/{top}/{down}/{gpu}"
    device(files, real, vendor=0x1002, pci_class=0x030000, max_link=("32.0 GT/s PCIe", 16),
           now=("32.0 GT/s PCIe", 16))
    return real


def link_to(files: Path, gpu: str, real: str) -> None:
    """/sys/bus/pci/devices/<slot> as the link Linux makes it."""
    link = files / "sys/bus/pci/devices" / gpu
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink("../../.." + real.removeprefix("/sys"), link)


def test_the_cards_upstream_port_is_the_link(tmp_path: Path) -> None:
    files = tmp_path / "files"
    real = card_behind_switch(files, "0000:00:01.1", "0000:01:00.0", "0000:02:00.0",
                              "0000:03:00.0", port=("16.0 GT/s PCIe", 8),
                              top_max=("32.0 GT/s PCIe", 16), top_now=("16.0 GT/s PCIe", 8))
    link_to(files, "0000:03:00.0", real)
    link = pcie_link(SnapshotSystem(tmp_path), "0000:03:00.0")
    assert link is not None
    assert (link.slot, link.card_speed, link.card_width) == ("0000:01:00.0", 32.0, 16)
    assert (link.path_speed, link.path_width, link.speed, link.width) == (16.0, 8, 16.0, 8)
    assert link.narrow and link.slower
    assert link.gbytes_per_s == pytest.approx(15.75, abs=0.01)
    assert link.to_json()["generation"] == 4 and link.to_json()["lanes"] == 8


def test_a_card_without_a_switch_and_a_full_slot(tmp_path: Path) -> None:
    files = tmp_path / "files"
    device(files, "/sys/devices/pci0000:00/0000:00:03.1", vendor=0x1022, pci_class=0x060400,
           max_link=("8.0 GT/s PCIe", 16), now=("2.5 GT/s PCIe", 16))
    real = "/sys/devices/pci0000:00/0000:00:03.1/0000:0a:00.0"
    device(files, real, vendor=0x1002, pci_class=0x030000, max_link=("8.0 GT/s PCIe", 16),
           now=("2.5 GT/s PCIe", 16))  # an idle card lowers its speed: not a finding
    link_to(files, "0000:0a:00.0", real)
    link = pcie_link(SnapshotSystem(tmp_path), "0000:0a:00.0")
    assert link is not None and link.slot == "0000:0a:00.0"
    assert not link.narrow and not link.slower and link.speed == 2.5
    assert link.gbytes_per_s == pytest.approx(15.75, abs=0.01)


def test_no_link_attributes_no_link(tmp_path: Path) -> None:
    """A recorded machine whose device tree has no link attributes: nothing is guessed."""
    system = SnapshotSystem(MACHINES / TWO_CARDS)
    assert pcie_link(system, "0000:04:00.0") is None
    assert pcie_link(system, "0000:99:00.0") is None


def test_xgmi_links_from_the_kfd(tmp_path: Path) -> None:
    nodes = tmp_path / "files/sys/class/kfd/kfd/topology/nodes"
    for node, links in {1: [(0, 2), (2, 11), (3, 11)], 2: [(0, 2), (1, 11)], 3: [(1, 2)]}.items():
        for index, (to, kind) in enumerate(links):
            folder = nodes / str(node) / "io_links" / str(index)
            folder.mkdir(parents=True)
            (folder / "properties").write_text(
                f"type {kind}\nversion_major 0\nversion_minor 0\nnode_from {node}\n"
                f"node_to {to}\nweight {15 if kind == 11 else 20}\nmin_latency 0\n"
                f"max_latency 0\nmin_bandwidth 0\nmax_bandwidth {64000 if kind == 11 else 0}\n")
    peers = peer_links(SnapshotSystem(tmp_path), {1, 2, 3})
    assert [(p.from_node, p.to_node, p.kind) for p in peers] == [
        (1, 2, "xgmi"), (1, 3, "xgmi"), (2, 1, "xgmi"), (3, 1, "pcie")]
    assert peers[0].max_bandwidth_mbs == 64000


# --- the doctor -----------------------------------------------------------------------------------


def two_cards(tmp_path: Path) -> Path:
    """The recorded two-card machine, its cards in a device tree: the first in a x16 Gen 5
    slot, the second in a slot the chipset feeds with four Gen 4 lanes."""
    root = tmp_path / TWO_CARDS
    shutil.copytree(MACHINES / TWO_CARDS, root, symlinks=True)
    files = root / "files"
    devices = files / "sys/bus/pci/devices"
    slots = {"0000:04:00.0": ("0000:00:01.1", "0000:02:00.0", "0000:03:00.0",
                              ("32.0 GT/s PCIe", 16), ("32.0 GT/s PCIe", 16)),
             "0000:07:00.0": ("0000:00:01.2", "0000:05:00.0", "0000:06:00.0",
                              ("16.0 GT/s PCIe", 4), ("16.0 GT/s PCIe", 4))}
    for gpu, (root_port, top, down, port, now) in slots.items():
        real = card_behind_switch(files, root_port, top, down, gpu, port=port,
                                  top_max=("32.0 GT/s PCIe", 16), top_now=now)
        link = devices / gpu  # recorded right under a root port: moved behind the switch
        recorded = (link.parent / os.readlink(link)).resolve()
        for item in recorded.iterdir():
            target = files / real.lstrip("/") / item.name
            if item.name in ("vendor", "class"):
                continue
            if item.is_symlink():
                os.symlink("/sys/bus/pci/drivers/amdgpu" if item.name == "driver"
                           else os.readlink(item), target)
            elif item.is_dir():
                shutil.copytree(item, target, symlinks=True)
            else:
                shutil.copy2(item, target)
        (files / real.lstrip("/") / "class").write_text((recorded / "class").read_text())
        shutil.rmtree(recorded)
        link.unlink()
        link_to(files, gpu, real)
    nodes = files / "sys/devices/virtual/kfd/kfd/topology/nodes"
    for node in (1, 2):  # each GPU's one io_link: PCIe to the CPU node 0
        folder = nodes / str(node) / "io_links" / "0"
        folder.mkdir(parents=True)
        (folder / "properties").write_text(f"type 2\nnode_from {node}\nnode_to 0\nweight 20\n")
    return root


def doctor(root: Path) -> dict[str, Any]:
    from core.diagnose.doctor import run_doctor

    return run_doctor(SnapshotSystem(root)).to_json()


def test_two_cards_one_on_the_chipset(tmp_path: Path) -> None:
    answer = doctor(two_cards(tmp_path))
    found = {f["id"]: f for f in answer["findings"]}
    several = found["gpus-several"]
    assert several["title"] == ("2 GPUs for data-parallel training: 2 × Radeon RX 9070 XT "
                                "(gfx1201)")
    assert several["detail"].startswith(
        "How they are connected: PCIe, through the host (the slowest card's link: PCIe 4.0 x4, "
        "7.9 GB/s each way).")
    assert "gpus-mixed" not in found
    narrow = [f for f in answer["findings"] if f["id"] == "gpu-link-narrow"]
    assert [f["title"] for f in narrow] == [
        "Radeon RX 9070 XT at 0000:07:00.0 gets PCIe 4.0 x4, 7.9 GB/s each way; the card has "
        "PCIe 5.0 x16"]
    assert narrow[0]["detail"].endswith("check the slot's settings in the BIOS (lane "
                                        "splitting) and any riser cable.")
    assert "7.9 GB/s each way instead of 63.0" in narrow[0]["detail"]
    assert "gpu-link-slow" not in found  # the narrow one says the generation too
    links = answer["links"]["pcie"]
    assert links["0000:04:00.0"]["slot"] == "0000:02:00.0"
    assert (links["0000:04:00.0"]["generation"], links["0000:04:00.0"]["lanes"]) == (5, 16)
    assert links["0000:07:00.0"]["narrow"] and not links["0000:04:00.0"]["narrow"]
    assert answer["verdict"] == doctor(MACHINES / TWO_CARDS)["verdict"]  # info only


def test_the_recorded_machine_has_no_links_key() -> None:
    """Recorded machines without link attributes keep their doctor --json as it was."""
    answer = doctor(MACHINES / TWO_CARDS)
    assert "links" not in answer
    found = {f["id"]: f for f in answer["findings"]}
    assert found["gpus-several"]["detail"].startswith(
        "How they are connected: not known (the KFD topology's io_links were not read).")


def test_cards_that_differ(tmp_path: Path) -> None:
    """Three cards, two alike: the mixed finding names the variable for the matching pair."""
    root = tmp_path / "mixed"
    shutil.copytree(MACHINES / "mi300x-x4-ubuntu2204", root, symlinks=True)
    answer = doctor(root)
    assert "gpus-mixed" not in {f["id"] for f in answer["findings"]}
    # an MI210 (gfx90a, PCI 1002:740f) in the last KFD node and its PCI slot
    nodes = root / "files/sys/class/kfd/kfd/topology/nodes"
    last = max((p for p in nodes.iterdir() if p.name.isdigit()), key=lambda p: int(p.name))
    props = last / "properties"
    values = {"gfx_target_version": "90010", "device_id": str(0x740F)}
    props.write_text("\n".join(
        f"{line.split()[0]} {values[line.split()[0]]}" if line.split()[:1] and
        line.split()[0] in values else line for line in props.read_text().splitlines()) + "\n")
    location = int(next(line.split()[1] for line in props.read_text().splitlines()
                        if line.startswith("location_id")))
    slot = f"0000:{location >> 8:02x}:{(location >> 3) & 0x1f:02x}.{location & 7}"
    (root / "files/sys/bus/pci/devices" / slot / "device").write_text("0x740f\n")
    (root / "files/sys/bus/pci/devices" / slot / "revision").write_text("0x02\n")
    found = {f["id"]: f for f in doctor(root)["findings"]}
    assert found["gpus-mixed"]["title"] == (
        "The GPUs are not alike: 3 × Instinct MI300X (gfx942); Instinct MI210 (gfx90a)")
    assert found["gpus-mixed"]["detail"].endswith(
        "gfx target. To train on the matching cards only: export HIP_VISIBLE_DEVICES=0,1,2")


def test_xgmi_between_instinct_cards(tmp_path: Path) -> None:
    """Four MI300X whose KFD nodes list xGMI links to each other (type 11)."""
    root = tmp_path / "xgmi"
    shutil.copytree(MACHINES / "mi300x-x4-ubuntu2204", root, symlinks=True)
    nodes = root / "files/sys/class/kfd/kfd/topology/nodes"
    gpus = [int(p.name) for p in nodes.iterdir() if p.name.isdigit()
            and "simd_count 0" not in (p / "properties").read_text()]
    assert len(gpus) == 4
    for node in gpus:
        peers = [0] + [g for g in gpus if g != node]
        for index, to in enumerate(peers):
            folder = nodes / str(node) / "io_links" / str(index)
            folder.mkdir(parents=True)
            (folder / "properties").write_text(
                f"type {2 if to == 0 else 11}\nnode_from {node}\nnode_to {to}\n")
    answer = doctor(root)
    found = {f["id"]: f for f in answer["findings"]}
    assert found["gpus-several"]["title"] == (
        "4 GPUs for data-parallel training: 4 × Instinct MI300X (gfx942)")
    assert found["gpus-several"]["detail"].startswith(
        "How they are connected: xGMI (AMD Infinity Fabric), directly.")
    assert len(answer["links"]["peers"]) == 12 and answer["links"]["pcie"] == {}


def test_the_findings_in_chinese(tmp_path: Path) -> None:
    from core.i18n import set_language

    root = two_cards(tmp_path)
    set_language("zh_CN")
    try:
        answer = doctor(root)
    finally:
        set_language(None)
    found = {f["id"]: f for f in answer["findings"]}
    assert found["gpus-several"]["title"].startswith("2张GPU可用于数据并行训练")
    assert "每个方向7.9 GB/s" in found["gpu-link-narrow"]["title"]


def test_json_is_json(tmp_path: Path) -> None:
    json.dumps(doctor(two_cards(tmp_path)))
