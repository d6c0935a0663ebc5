"""lspci parsing against real outputs users posted, and against garbage."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.probe.parse.lspci import PciDevice, is_display_class, parse_lspci

Loader = Callable[[str], str]
SLOT = re.compile(r"^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
AMD_ATI = "Advanced Micro Devices, Inc. [AMD/ATI]"

# Display devices as (slot, class code, class name, vendor, device, revision, name).
Row = tuple[str, str | None, str, str | None, str | None, str | None, str]


def _display(devices: tuple[PciDevice, ...]) -> list[Row]:
    return [
        (d.slot, d.class_code, d.class_name or "", d.vendor_id, d.device_id, d.revision, d.name)
        for d in devices
        if is_display_class(d)
    ]


VEGA20 = (
    [
        (slot, None, "VGA compatible controller", "1002", None, "02", f"{AMD_ATI} Vega 20")
        for slot in ("0000:07:00.0", "0000:0a:00.0")
    ]
    + [
        (
            "0000:24:00.0",
            None,
            "VGA compatible controller",
            "1a03",
            None,
            "41",
            "ASPEED Technology, Inc. ASPEED Graphics Family",
        ),
    ]
    + [
        (slot, None, "VGA compatible controller", "1002", None, "02", f"{AMD_ATI} Vega 20")
        for slot in (
            "0000:2a:00.0",
            "0000:2d:00.0",
            "0000:45:00.0",
            "0000:48:00.0",
            "0000:65:00.0",
            "0000:68:00.0",
        )
    ]
)
STRIX_HALO = (
    f"{AMD_ATI} Strix Halo [Radeon Graphics / Radeon 8050S Graphics / Radeon 8060S Graphics]"
)

# file -> (device count, display devices)
EXPECTED: dict[str, tuple[int, list[Row]]] = {
    "lspci/bazzite-ryzen7-9800x3d-rx9070xt-granite-ridge-fpaste.txt": (
        6,
        [
            ("0000:03:00.0", "0300", "VGA compatible controller", "1002", "7550", "c0",
             f"{AMD_ATI} Navi 48 [Radeon RX 9070/9070 XT/9070 GRE]"),
            ("0000:0d:00.0", "0300", "VGA compatible controller", "1002", "13c0", "cb",
             f"{AMD_ATI} Granite Ridge [Radeon Graphics]"),
        ],
    ),
    "lspci/epyc7551p-vega20-x8-aspeed-lspci-k.txt": (143, VEGA20),
    # ROCm/rccl#876: lspci -vv without -nn, so no numeric ids; the vendor from the name, the
    # device id unknown ("Device 164e" is the name lspci gives, not an id it printed)
    "lspci/rccl876-2x-rx7900xtx-raphael-igpu-lspci-vv-excerpt.txt": (2, [
        ("0000:16:00.0", None, "VGA compatible controller", "1002", None, "c1",
         "Advanced Micro Devices, Inc. [AMD/ATI] Device 164e"),
        ("0000:06:00.0", None, "VGA compatible controller", "1002", None, "c8",
         "Advanced Micro Devices, Inc. [AMD/ATI] Device 744c"),
    ]),
    "lspci/epyc7551p-vega20-x8-aspeed-lspci-plain.txt": (143, VEGA20),
    "lspci/framework-desktop-strix-halo-lspci-nnk-vfio.txt": (
        1,
        [
            ("0000:c3:00.0", "0380", "Display controller", "1002", "1586", "c1", STRIX_HALO),
        ],
    ),
    "lspci/gmktec-strix-halo-8060s-lspci-nn.txt": (
        1,
        [
            ("0000:c5:00.0", "0380", "Display controller", "1002", "1586", "c1", STRIX_HALO),
        ],
    ),
    "lspci/gpu-ls-rx6800-navi21-pcie-json-like.txt": (0, []),  # not lspci at all
    "lspci/hp-pavilion15-ryzen-picasso-plus-nvidia-gtx1650.txt": (
        30,
        [
            (
                "0000:01:00.0",
                None,
                "VGA compatible controller",
                "10de",
                None,
                "a1",
                "NVIDIA Corporation Device 1f91",
            ),
            (
                "0000:05:00.0",
                None,
                "VGA compatible controller",
                "1002",
                None,
                "c1",
                f"{AMD_ATI} Device 15d8",
            ),
        ],
    ),
    "lspci/intel-sensor-hub-plus-radeon-pro-wx5100-lspci-v-grep-vga.txt": (
        2,
        [
            (
                "0000:01:00.0",
                None,
                "VGA compatible controller",
                "1002",
                None,
                None,
                f"{AMD_ATI} Ellesmere [Radeon Pro WX 5100]",
            ),
        ],
    ),
    "lspci/lenovo-b40-70-hainan-sun-le-lspci-nn-email.txt": (
        1,
        [
            (
                "0000:0a:00.0",
                "0380",
                "Display controller",
                "1002",
                "666f",
                None,
                f"{AMD_ATI} Sun LE [Radeon HD 8550M / R5 M230]",
            ),
        ],
    ),
    "lspci/lenovo-ideapad300-intel-skylake-plus-amd-sun-xt-rev-ff.txt": (
        2,
        [
            (
                "0000:00:02.0",
                "0300",
                "VGA compatible controller",
                "8086",
                "1916",
                "07",
                "Intel Corporation Sky Lake Integrated Graphics",
            ),
            (
                "0000:03:00.0",
                "0380",
                "Display controller",
                "1002",
                "6660",
                "ff",
                f"{AMD_ATI} Sun XT [Radeon HD 8670A/8670M/8690M / R5 M330]",
            ),
        ],
    ),
    "lspci/lenovo-yoga-slim7-renoir-lspci-v.txt": (
        28,
        [
            (
                "0000:03:00.0",
                None,
                "VGA compatible controller",
                "1002",
                None,
                "c1",
                f"{AMD_ATI} Renoir",
            ),
        ],
    ),
    "lspci/qemu-vm-rx7900xtx-passthrough-lspci-tv.txt": (0, []),  # tree: no bus numbers
    "lspci/rv370-radeon-x300-two-functions-forum.txt": (
        2,
        [
            (
                "0000:01:00.0",
                "0300",
                "VGA compatible controller",
                "1002",
                "5b60",
                None,
                "Advanced Micro Devices, INC. [AMD/ATI] RV370 [Radeon X300]",
            ),
            (
                "0000:01:00.1",
                "0380",
                "Display controller",
                "1002",
                "5b70",
                None,
                "Advanced Micro Devices, INC. [AMD/ATI] RV370 [Radeon X300 SE]",
            ),
        ],
    ),
    "lspci/rx6700xt-navi22-dual-xeon-x99-lspci-nn-vga-only.txt": (
        2,
        [
            (
                "0000:06:00.0",
                "0300",
                "VGA compatible controller",
                "1002",
                "73df",
                "c1",
                f"{AMD_ATI} Navi 22 [Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT]",
            ),
        ],
    ),
    "lspci/rx7900xtx-navi31-lspci-nn-single-line.txt": (
        1,
        [
            (
                "0000:03:00.0",
                "0300",
                "VGA compatible controller",
                "1002",
                "744c",
                "c8",
                f"{AMD_ATI} Navi 31 [Radeon RX 7900 XT/7900 XTX]",
            ),
        ],
    ),
    "lspci/rx7900xtx-xfx-lspci-nnv-excerpt.txt": (
        1,
        [
            (
                "0000:0b:00.0",
                "0300",
                "VGA compatible controller",
                "1002",
                "744c",
                "ce",
                f"{AMD_ATI} Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]",
            ),
        ],
    ),
    "lspci/ryzen7-5700u-lucienne-igpu-lspci-nn.txt": (
        35,
        [
            (
                "0000:05:00.0",
                "0300",
                "VGA compatible controller",
                "1002",
                "164c",
                "c1",
                f"{AMD_ATI} Lucienne",
            ),
        ],
    ),
    "lspci/samsung-730u3e-intel-ivybridge-plus-amd-mars-forum-markup.txt": (
        2,
        [
            (
                "0000:00:02.0",
                "0300",
                "VGA compatible controller",
                "8086",
                "0166",
                "09",
                "Intel Corporation 3rd Gen Core processor Graphics Controller",
            ),
            (
                "0000:01:00.0",
                "0380",
                "Display controller",
                "1002",
                "6601",
                None,
                f"{AMD_ATI} Mars [Radeon HD 8730M]",
            ),
        ],
    ),
    "lspci/strix-point-890m-lspci-nn-quoted-printable-email.txt": (
        5,
        [
            (
                "0000:63:00.0",
                "0380",
                "Display controller",
                "1002",
                "150e",
                "c1",
                f"{AMD_ATI} Strix [Radeon 880M / 890M]",
            ),
        ],
    ),
    "errors/rocminfo-dev-kfd-cannot-allocate-memory-pitcairn-not-supported.txt": (
        1,
        [
            (
                "0000:01:00.0",
                None,
                "VGA compatible controller",
                "1002",
                None,
                None,
                f"{AMD_ATI} Curacao PRO [Radeon R7 370 / R9 270/370 OEM]",
            ),
        ],
    ),
    "amd-smi/diag-dump-2x-r9700-metric-json-head-table-rocm720.txt": (
        3,
        [
            (
                "0000:03:00.0",
                None,
                "VGA compatible controller",
                "1002",
                None,
                "c0",
                f"{AMD_ATI} Device 7551",
            ),
            (
                "0000:43:00.0",
                None,
                "VGA compatible controller",
                "1002",
                None,
                "c0",
                f"{AMD_ATI} Device 7551",
            ),
            (
                "0000:c6:00.0",
                None,
                "VGA compatible controller",
                "1a03",
                None,
                "52",
                "ASPEED Technology, Inc. ASPEED Graphics Family",
            ),
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_devices(name: str, load_output: Loader) -> None:
    count, display = EXPECTED[name]
    devices = parse_lspci(load_output(name))
    assert len(devices) == count
    assert _display(devices) == display


def test_every_lspci_fixture_has_expectations(
    outputs_in: Callable[[str], dict[str, str]],
) -> None:
    assert set(outputs_in("lspci")) <= set(EXPECTED)


def test_kernel_driver_and_modules(load_output: Loader) -> None:
    devices = parse_lspci(load_output("lspci/framework-desktop-strix-halo-lspci-nnk-vfio.txt"))
    (igpu,) = devices
    assert igpu.driver == "vfio-pci"
    assert igpu.kernel_modules == ("amdgpu",)
    assert (igpu.subsystem, igpu.subsystem_id) == ("Framework Computer Inc. Device", "f111:000a")


def test_lspci_k_details_belong_to_their_device(load_output: Loader) -> None:
    text = load_output("lspci/epyc7551p-vega20-x8-aspeed-lspci-k.txt")
    devices = {d.slot: d for d in parse_lspci(text)}
    gpu = devices["0000:07:00.0"]
    assert (gpu.driver, gpu.kernel_modules) == ("amdgpu", ("amdgpu",))
    assert gpu.subsystem == f"{AMD_ATI} Device 0834"
    assert devices["0000:24:00.0"].driver == "ast"
    smbus = devices["0000:00:14.0"]
    assert smbus.kernel_modules == ("i2c_piix4", "sp5100_tco")
    assert smbus.vendor_id == "1022"  # '[AMD]' is the CPU-side vendor, not 1002


def test_lspci_v_capability_subsystem_is_not_the_subsystem(load_output: Loader) -> None:
    text = load_output("lspci/lenovo-yoga-slim7-renoir-lspci-v.txt")
    devices = {d.slot: d for d in parse_lspci(text)}
    bridge = devices["0000:00:02.2"]
    assert bridge.subsystem is None  # only 'Capabilities: [c0] Subsystem: ...' there
    assert bridge.driver == "pcieport"
    assert devices["0000:03:00.0"].subsystem == "Lenovo Renoir"
    assert devices["0000:03:00.0"].driver == "amdgpu"


def test_nnv_subsystem_id(load_output: Loader) -> None:
    (gpu,) = parse_lspci(load_output("lspci/rx7900xtx-xfx-lspci-nnv-excerpt.txt"))
    assert gpu.subsystem == f"{AMD_ATI} RX 7900 XTX / RX 7900 GRE [XFX]"
    assert gpu.subsystem_id == "1002:0e3b"


def test_non_vga_unclassified_is_not_display(load_output: Loader) -> None:
    devices = parse_lspci(
        load_output("lspci/intel-sensor-hub-plus-radeon-pro-wx5100-lspci-v-grep-vga.txt")
    )
    ish = devices[0]
    assert ish.class_name == "Non-VGA unclassified device"
    assert not is_display_class(ish)


def test_quoted_printable_unwraps_names(load_output: Loader) -> None:
    devices = parse_lspci(load_output("lspci/strix-point-890m-lspci-nn-quoted-printable-email.txt"))
    names = {d.slot: d.name for d in devices}
    assert names["0000:62:00.0"] == (
        "MEDIATEK Corp. MT7922 802.11ax PCI Express Wireless Network Adapter"
    )
    assert names["0000:61:00.0"] == "Micron Technology Inc 2400 NVMe SSD (DRAM-less)"
    assert devices[0].slot == "0000:61:00.0"  # the cut '7 Host bridge' line is skipped


def test_mm_and_vmm_formats() -> None:
    mm = (
        '03:00.0 "VGA compatible controller [0300]" "Advanced Micro Devices, Inc. [AMD/ATI] '
        '[1002]" "Navi 31 [Radeon RX 7900 XT/7900 XTX] [744c]" -rc8 -p00 '
        '"Sapphire Technology Limited [1da2]" "Device [e471]"\n'
        '00:02.0 "VGA compatible controller" "Intel Corporation" "HD Graphics 620" -r02 '
        '"Lenovo" "Device 2245"\n'
    )
    vmm = (
        "Slot:\t0000:0c:00.0\nClass:\tDisplay controller [0380]\n"
        "Vendor:\tAdvanced Micro Devices, Inc. [AMD/ATI] [1002]\n"
        "Device:\tStrix [Radeon 880M / 890M] [150e]\nRev:\tc1\nDriver:\tamdgpu\n"
        "Module:\tamdgpu\n\nSlot:\t0000:0c:00.1\nClass:\tAudio device\n"
        "Vendor:\tAdvanced Micro Devices, Inc. [AMD/ATI]\nDevice:\tRembrandt Audio\n"
    )
    assert parse_lspci(mm + "\n" + vmm) == (
        PciDevice(
            "0000:03:00.0",
            "0300",
            "VGA compatible controller",
            "1002",
            "744c",
            "c8",
            f"{AMD_ATI} Navi 31 [Radeon RX 7900 XT/7900 XTX]",
        ),
        PciDevice(
            "0000:00:02.0",
            None,
            "VGA compatible controller",
            "8086",
            None,
            "02",
            "Intel Corporation HD Graphics 620",
        ),
        PciDevice(
            "0000:0c:00.0",
            "0380",
            "Display controller",
            "1002",
            "150e",
            "c1",
            f"{AMD_ATI} Strix [Radeon 880M / 890M]",
            driver="amdgpu",
            kernel_modules=("amdgpu",),
        ),
        PciDevice(
            "0000:0c:00.1", None, "Audio device", "1002", None, None, f"{AMD_ATI} Rembrandt Audio"
        ),
    )


def test_domain_kept_and_ansi_stripped() -> None:
    text = (
        "\x1b[1m0001:c1:00.0\x1b[0m 3D controller [0302]: NVIDIA Corporation GH100 [10de:2331]\r\n"
    )
    (device,) = parse_lspci(text)
    assert device.slot == "0001:c1:00.0"
    assert (device.class_code, device.vendor_id, device.device_id) == ("0302", "10de", "2331")
    assert is_display_class(device)


@settings(max_examples=150, deadline=None)
@given(text=st.text())
def test_never_raises_on_text(text: str) -> None:
    _check_types(parse_lspci(text))


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=2000))
def test_never_raises_on_bytes(data: bytes) -> None:
    _check_types(parse_lspci(data.decode("utf-8", errors="replace")))


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(EXPECTED)), fraction=st.floats(0, 1))
def test_never_raises_on_prefixes(name: str, fraction: float, load_output: Loader) -> None:
    text = load_output(name)
    devices = parse_lspci(text[: int(len(text) * fraction)])
    _check_types(devices)
    assert len(devices) <= EXPECTED[name][0] + 1  # a cut line may read as a device


def _check_types(devices: tuple[PciDevice, ...]) -> None:
    for device in devices:
        assert SLOT.match(device.slot)
        assert device.vendor_id is None or len(device.vendor_id) == 4
        assert isinstance(device.name, str)
        is_display_class(device)
