"""rocm-smi and amd-smi parsing against real outputs users posted, and against garbage."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.probe.parse.smi import SmiGpu, SmiReport, parse_amd_smi, parse_rocm_smi

Loader = Callable[[str], str]
SLOT = re.compile(r"^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
GIB = 2**30
MIB = 2**20

MI100 = "Arcturus GL-XL [Instinct MI100]"
AMD_ATI = "Advanced Micro Devices, Inc. [AMD/ATI]"
NAVI22 = "Navi 22 [Radeon RX 6700/6700 XT / 6800M]"


# --- rocm-smi --------------------------------------------------------------------------

ROCM_SMI: dict[str, tuple[SmiGpu, ...]] = {
    "rocm-smi/json-rx6700xt-rocm612.txt": (
        SmiGpu(
            0,
            name=NAVI22,
            vendor=AMD_ATI,
            gfx="gfx1031",
            pci_bus="0000:07:00.0",
            vram_total_bytes=12868124672,
            vram_used_bytes=1572745216,
            device_id="73df",
            revision="c1",
        ),
    ),
    "rocm-smi/json-rx6700xt-rocm602.txt": (
        SmiGpu(
            0,
            name=NAVI22,
            vendor=AMD_ATI,
            pci_bus="0000:07:00.0",
            vram_total_bytes=12868124672,
            vram_used_bytes=1572757504,
            device_id="73df",
            revision="c1",
        ),
    ),
    "rocm-smi/json-rx6700xt-rocm571.txt": (
        SmiGpu(
            0,
            name=NAVI22,
            vendor=AMD_ATI,
            pci_bus="0000:07:00.0",
            vram_total_bytes=12868124672,
            vram_used_bytes=1564491776,
            device_id="73df",
        ),
    ),
    # ROCm 4.3 filled 'Card series/model/vendor' with the vendor id 0x1002: not a name.
    "rocm-smi/json-rx6700xt-rocm430.txt": (
        SmiGpu(
            0,
            vendor="0x1002",
            pci_bus="0000:07:00.0",
            vram_total_bytes=12868124672,
            vram_used_bytes=1622728704,
            device_id="73df",
        ),
    ),
    "rocm-smi/json-vega10-xt.txt": (
        SmiGpu(
            0,
            vendor=AMD_ATI,
            pci_bus="0000:04:00.0",
            vram_total_bytes=17163091968,
            vram_used_bytes=17776640,
            device_id="6861",
        ),
    ),
    "rocm-smi/json-vega20-wks-gl-xe.txt": (
        SmiGpu(
            0,
            name="Radeon Instinct MI50 32GB",
            vendor=AMD_ATI,
            pci_bus="0000:63:00.0",
            vram_total_bytes=34342961152,
            vram_used_bytes=10850304,
            device_id="66a1",
        ),
    ),
    "rocm-smi/json-mi100-rocm571.txt": tuple(
        SmiGpu(
            i,
            name=MI100,
            vendor=AMD_ATI,
            pci_bus=bus,
            vram_total_bytes=34342961152,
            vram_used_bytes=6782976,
            device_id="738c",
        )
        for i, bus in enumerate(
            [
                "0000:1e:00.0",
                "0000:22:00.0",
                "0000:3f:00.0",
                "0000:43:00.0",
                "0000:46:00.0",
                "0000:49:00.0",
            ]
        )
    ),
    "rocm-smi/json-mi100-rocm602.txt": tuple(
        SmiGpu(
            i,
            name=MI100,
            vendor=AMD_ATI,
            pci_bus=bus,
            vram_total_bytes=34342961152,
            vram_used_bytes=6750208,
            device_id="738c",
            revision="01",
        )
        for i, bus in enumerate(["0000:83:00.0", "0000:a3:00.0", "0000:c3:00.0", "0000:e3:00.0"])
    ),
    "rocm-smi/json-phoenix3-780m-rocm624-truncated.txt": (
        SmiGpu(0, name="Phoenix3", pci_bus="0000:c4:00.0", device_id="1900", revision="01"),
    ),
    # 'GFX Version: gfx9010' is rocm-smi 6.0 writing gfx90a's stepping in decimal.
    "rocm-smi/json-showproductname-mi250x-rocm6.txt": (
        SmiGpu(
            0,
            name="AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2",
            vendor=AMD_ATI,
            gfx="gfx90a",
            device_id="7408",
            revision="00",
        ),
    ),
    "rocm-smi/concise-2x-rx7900xtx-rocm60-model-revision-layout.txt": (
        SmiGpu(0, device_id="744c", revision="c8"),
        SmiGpu(1, device_id="744c", revision="c8"),
    ),
    "rocm-smi/concise-mi300x-x1.txt": (SmiGpu(0, name="AMD Instinct MI300X", revision="00"),),
    "rocm-smi/concise-mi300x-x4.txt": tuple(
        SmiGpu(i, name="AMD Instinct MI300X", revision="00") for i in range(4)
    ),
    "rocm-smi/concise-mi300x-spx-4gpu-partitioned-truncated.txt": tuple(
        SmiGpu(i, device_id="74a1") for i in range(4)
    ),
    "rocm-smi/concise-rx6700xt-under-watch-rocm6.txt": (SmiGpu(0, device_id="73df"),),
    "rocm-smi/concise-rx6700xt-rocm55-inline-code-collapsed.txt": (SmiGpu(0),),
    "rocm-smi/default-rocm33-vega10xt-old-table.txt": (SmiGpu(1),),
    "rocm-smi/csv-driverversion-productname-2x-mi100-rhel8.txt": tuple(
        SmiGpu(
            i,
            name="Arcturus GL-XL [AMD Instinct MI100]",
            vendor="Advanced Micro Devices Inc. [AMD/ATI]",
        )
        for i in range(2)
    ),
    "rocm-smi/csv-productname-meminfo-uniqueid-rx6800-plus-raphael-igpu.txt": (
        SmiGpu(
            0,
            name="Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]",
            vendor="Advanced Micro Devices Inc. [AMD/ATI]",
            gfx="gfx1030",
            vram_total_bytes=17163091968,
            vram_used_bytes=692142080,
            device_id="73bf",
            revision="c1",
        ),
        SmiGpu(
            1,
            name="Raphael",
            vendor="Advanced Micro Devices Inc. [AMD/ATI]",
            gfx="gfx1036",
            vram_total_bytes=64 * MIB,
            vram_used_bytes=26079232,
            device_id="164e",
            revision="c6",
        ),
    ),
    "rocm-smi/showmeminfo-vram-4gb-card-rocm54.txt": (
        SmiGpu(0, vram_total_bytes=4278190080, vram_used_bytes=108814336),
    ),
    "rocm-smi/showproductname-r9-fury-x-old-format-truncated.txt": (
        SmiGpu(0, name="Radeon R9 FURY X", vendor=AMD_ATI),
    ),
    "rocm-smi/memory-vendor-mi25-rocm41.txt": (SmiGpu(0),),
    "rocm-smi/showallinfo-a-mi300x-x4.txt": tuple(
        SmiGpu(
            i,
            name="AMD Instinct MI300X OAM",
            vendor=AMD_ATI,
            pci_bus=bus,
            device_id="74a1",
            revision="00",
        )
        for i, bus in enumerate(["0000:26:00.0", "0000:46:00.0", "0000:65:00.0", "0000:85:00.0"])
    ),
    "rocm-smi/errors-unable-to-get-memory-use-vega10-rocm29.txt": (
        SmiGpu(0, device_id="687f"),
        SmiGpu(1, device_id="6863"),
    ),
    "rocm-smi/error-no-drm-devices-rocm350.txt": (),
    "errors/rocm350-ubuntu-server-no-kfd-rocminfo-clinfo-rocmsmi.txt": (),
    "errors/rocminfo-dev-kfd-invalid-argument-nogroup-mi300x-container.txt": (
        SmiGpu(0, name="AMD Instinct MI300X OAM", device_id="74a1"),
    ),
    "errors/rocminfo-dev-kfd-permission-denied-docker-rocm-terminal.txt": tuple(
        SmiGpu(i) for i in range(4)
    ),
}


@pytest.mark.parametrize("name", sorted(ROCM_SMI))
def test_rocm_smi_gpus(name: str, load_output: Loader) -> None:
    assert parse_rocm_smi(load_output(name)).gpus == ROCM_SMI[name]


def test_every_rocm_smi_fixture_has_expectations(
    outputs_in: Callable[[str], dict[str, str]],
) -> None:
    assert set(outputs_in("rocm-smi")) <= set(ROCM_SMI)


@pytest.mark.parametrize(
    ("name", "driver", "tool"),
    [
        ("rocm-smi/json-mi100-rocm571.txt", "6.2.4", None),
        ("rocm-smi/json-vega20-wks-gl-xe.txt", "5.9.17", None),
        ("rocm-smi/showallinfo-a-mi300x-x4.txt", "6.7.0", None),
        (
            "rocm-smi/csv-driverversion-productname-2x-mi100-rhel8.txt",
            "4.18.0-348.12.2.el8_5.x86_64",
            None,
        ),
        ("errors/amd-smi-version-flag-invalid-subcommand.txt", None, "4.0.0+fc0010cf6a"),
    ],
)
def test_rocm_smi_versions(
    name: str, driver: str | None, tool: str | None, load_output: Loader
) -> None:
    report = parse_rocm_smi(load_output(name))
    assert (report.driver_version, report.tool_version) == (driver, tool)


def test_rocm_smi_no_drm_devices(load_output: Loader) -> None:
    report = parse_rocm_smi(load_output("rocm-smi/error-no-drm-devices-rocm350.txt"))
    assert report.error == "ERROR: No DRM devices available. Exiting"
    assert report.problems == (
        "ERROR: No DRM devices available. Exiting",
        "Unable to get devices, /sys/class/drm is empty or missing",
    )


def test_rocm_smi_per_gpu_errors_are_problems(load_output: Loader) -> None:
    text = load_output("rocm-smi/errors-unable-to-get-memory-use-vega10-rocm29.txt")
    report = parse_rocm_smi(text)
    assert report.error is None
    assert report.problems == (
        "GPU[0]: Unable to get GPU memory use.",
        "GPU[1]: Unable to get GPU memory use.",
        "GPU[0]: Unable to display PowerPlay table",
        "GPU[1]: Unable to display PowerPlay table",
        "GPU[0]: Unable to get voltage curve",
        "GPU[1]: Unable to get voltage curve",
    )


def test_rocm_smi_truncated_json_is_flagged(load_output: Loader) -> None:
    report = parse_rocm_smi(load_output("rocm-smi/json-phoenix3-780m-rocm624-truncated.txt"))
    assert report.problems == ("rocm-smi JSON is cut short; read what was there",)
    assert report.error is None


def test_rocm_smi_one_line_json_and_crlf(load_output: Loader) -> None:
    text = load_output("rocm-smi/json-mi100-rocm602.txt")
    one_line = json.dumps(json.loads(text))
    expected = ROCM_SMI["rocm-smi/json-mi100-rocm602.txt"]
    assert parse_rocm_smi(one_line).gpus == expected
    assert parse_rocm_smi(text.replace("\n", "\r\n")).gpus == expected


def test_rocm_smi_new_showproductname_text() -> None:
    text = (
        "============================ ROCm System Management Interface ===================\n"
        "====================================== Product Info ==============================\n"
        "GPU[0]\t\t: Card Series: \t\tNavi 31 [Radeon RX 7900 XT/7900 XTX]\n"
        "GPU[0]\t\t: Card Model: \t\t0x744c\n"
        "GPU[0]\t\t: Card Vendor: \t\tAdvanced Micro Devices, Inc. [AMD/ATI]\n"
        "GPU[0]\t\t: Card SKU: \t\tEXT94393\n"
        "GPU[0]\t\t: Subsystem ID: \t0x5317\n"
        "GPU[0]\t\t: Device Rev: \t\t0xc8\n"
        "GPU[0]\t\t: Node ID: \t\t1\n"
        "GPU[0]\t\t: GUID: \t\t45280\n"
        "GPU[0]\t\t: GFX Version: \t\tgfx1100\n"
        "==================================================================================\n"
    )
    assert parse_rocm_smi(text).gpus == (
        SmiGpu(
            0,
            name="Navi 31 [Radeon RX 7900 XT/7900 XTX]",
            vendor=AMD_ATI,
            gfx="gfx1100",
            device_id="744c",
            revision="c8",
        ),
    )


def test_rocm_smi_merges_table_and_meminfo() -> None:
    text = (
        "Device  Node  IDs              Temp    Power   Partitions          SCLK  GPU%\n"
        "              (DID,     GUID)  (Edge)  (Avg)   (Mem, Compute, ID)\n"
        "=========================================================================\n"
        "0       1     0x744c,   45280  40.0°C  20.0W   N/A, N/A, 0         0Mhz  0%\n"
        "=========================================================================\n"
        "GPU[0]          : VRAM Total Memory (B): 25753026560\n"
        "GPU[0]          : VRAM Total Used Memory (B): 1073741824\n"
    )
    assert parse_rocm_smi(text).gpus == (
        SmiGpu(0, device_id="744c", vram_total_bytes=25753026560, vram_used_bytes=GIB),
    )


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("WARNING: No AMD GPUs specified\n", "WARNING: No AMD GPUs specified"),
        (
            'Traceback (most recent call last):\n  File "x", line 1\n'
            "ModuleNotFoundError: No module named 'rsmiBindings'\n",
            "ModuleNotFoundError: No module named 'rsmiBindings'",
        ),
        ("bash: rocm-smi: command not found\n", "bash: rocm-smi: command not found"),
    ],
)
def test_rocm_smi_failures(text: str, error: str) -> None:
    report = parse_rocm_smi(text)
    assert report.error == error
    assert report.gpus == ()


# --- amd-smi ---------------------------------------------------------------------------

AMD_SMI: dict[str, tuple[SmiGpu, ...]] = {
    "amd-smi/default-table-2x-rx9070xt-rocm711.txt": (
        SmiGpu(
            0,
            name="AMD Radeon RX 9070 XT",
            pci_bus="0000:04:00.0",
            vram_total_bytes=16304 * MIB,
            vram_used_bytes=84 * MIB,
        ),
        SmiGpu(
            1,
            name="AMD Radeon RX 9070 XT",
            pci_bus="0000:07:00.0",
            vram_total_bytes=16304 * MIB,
            vram_used_bytes=347 * MIB,
        ),
    ),
    # Two machines in one file, both GPU 0: the first table wins.
    "amd-smi/default-table-mi300x-vf-guest-and-baremetal.txt": (
        SmiGpu(
            0,
            name="AMD Instinct MI300X VF",
            pci_bus="0000:05:00.0",
            vram_total_bytes=196288 * MIB,
            vram_used_bytes=285 * MIB,
        ),
    ),
    "amd-smi/default-table-rx7900xtx-amdgpu-builtin-rocm-na.txt": (
        SmiGpu(
            0,
            name="AMD Radeon RX 7900 XTX",
            pci_bus="0000:2f:00.0",
            vram_total_bytes=24560 * MIB,
            vram_used_bytes=2192 * MIB,
        ),
    ),
    "amd-smi/diag-dump-2x-r9700-metric-json-head-table-rocm720.txt": (
        SmiGpu(
            0,
            name="Radeon AI PRO R9700",
            pci_bus="0000:03:00.0",
            vram_total_bytes=32624 * MIB,
            vram_used_bytes=29777 * MIB,
        ),
        SmiGpu(
            1,
            name="Radeon AI PRO R9700",
            pci_bus="0000:43:00.0",
            vram_total_bytes=32624 * MIB,
            vram_used_bytes=29777 * MIB,
        ),
    ),
    "amd-smi/list-and-list-e-mi325x-vf-multi-gpu.txt": (
        SmiGpu(0, pci_bus="0000:83:00.0", device_id="74b9"),
        SmiGpu(1, pci_bus="0000:8b:00.0", device_id="74b9"),
    ),
    "amd-smi/list-rocm720-strix-apu.txt": (SmiGpu(0, pci_bus="0000:c5:00.0", device_id="150e"),),
    "amd-smi/metric-rocm720-strix-apu.txt": (
        SmiGpu(0, vram_total_bytes=64 * GIB, vram_used_bytes=1512 * MIB),
    ),
    "amd-smi/partition-g0-mi325x-vf.txt": (),
    "amd-smi/static-g0-mi325x-vf-snipped.txt": (
        SmiGpu(
            0,
            name="AMD Instinct Mi325X VF",
            vendor="Advanced Micro Devices Inc. [AMD/ATI]",
            gfx="gfx942",
            pci_bus="0000:83:00.0",
            device_id="74b9",
            revision="00",
        ),
    ),
    "amd-smi/static-rocm720-strix-apu-gfx1150.txt": (
        SmiGpu(
            0,
            name="AMD Radeon Graphics",
            vendor="Advanced Micro Devices Inc. [AMD/ATI]",
            gfx="gfx1150",
            pci_bus="0000:c5:00.0",
            vram_total_bytes=64 * GIB,
            device_id="150e",
            revision="e4",
        ),
    ),
    "amd-smi/version-rocm720-strix-apu.txt": (),
    "errors/amd-smi-version-flag-invalid-subcommand.txt": (),
    # amd-smi failing before it lists anything (issue 32:
    # tests/diagnose/test_amd_smi_and_runtime.py)
    "amd-smi/error-driver-not-initialized-amdgpu-builtin-26.1.txt": (),
    "amd-smi/error-library-driver-not-loaded-code34-gpustack.txt": (),
    "amd-smi/error-library-unexpected-data-code43-gpustack.txt": (),
}


@pytest.mark.parametrize("name", sorted(AMD_SMI))
def test_amd_smi_gpus(name: str, load_output: Loader) -> None:
    assert parse_amd_smi(load_output(name)).gpus == AMD_SMI[name]


def test_every_amd_smi_fixture_has_expectations(
    outputs_in: Callable[[str], dict[str, str]],
) -> None:
    assert set(outputs_in("amd-smi")) <= set(AMD_SMI)


@pytest.mark.parametrize(
    ("name", "tool", "rocm", "driver"),
    [
        ("amd-smi/default-table-2x-rx9070xt-rocm711.txt", "26.2.0+021c61fc", "7.1.1", "6.16.6"),
        (
            "amd-smi/default-table-rx7900xtx-amdgpu-builtin-rocm-na.txt",
            "26.1.0+b5522cc8-d...",
            None,
            "Linuxver",
        ),
        (
            "amd-smi/version-rocm720-strix-apu.txt",
            "26.2.1+fc0010cf6a",
            "7.2.0",
            "Linuxversion6.17.0-1012-oem(buildd@lcy02-amd64-114)(x86_64-linux-gnu-gcc-13"
            "(Ubuntu13.3.0-6ubuntu2~24.04)13.3.0,GNUld(GNUBinutilsforUbuntu)2.42)"
            "#12-UbuntuSMPPREEMPT_DYNAMICTueFeb1004:51:46UTC2026",
        ),
        (
            "amd-smi/diag-dump-2x-r9700-metric-json-head-table-rocm720.txt",
            "26.2.1+fc0010cf6a",
            "7.2.0",
            "6.16.6",
        ),
    ],
)
def test_amd_smi_versions(
    name: str, tool: str, rocm: str | None, driver: str, load_output: Loader
) -> None:
    report = parse_amd_smi(load_output(name))
    assert (report.tool_version, report.rocm_version, report.driver_version) == (
        tool,
        rocm,
        driver,
    )


def test_amd_smi_version_has_no_problems(load_output: Loader) -> None:
    report = parse_amd_smi(load_output("amd-smi/version-rocm720-strix-apu.txt"))
    assert report.error is None and report.problems == ()


def test_amd_smi_exception_is_the_error(load_output: Loader) -> None:
    report = parse_amd_smi(load_output("errors/amd-smi-version-flag-invalid-subcommand.txt"))
    assert report.error is not None
    assert report.error.startswith(
        "amdsmi_cli_exceptions.AmdSmiInvalidSubcommandException: AMD-SMI Command '--version'"
    )


def test_amd_smi_truncated_name_is_a_problem(load_output: Loader) -> None:
    report = parse_amd_smi(
        load_output("amd-smi/diag-dump-2x-r9700-metric-json-head-table-rocm720.txt")
    )
    assert "GPU 0: amd-smi cut the name short: '...Radeon AI PRO R9700'" in report.problems
    assert "amd-smi JSON is cut short; read what was there" in report.problems


STATIC_JSON = {
    "gpu_data": [
        {
            "gpu": 0,
            "asic": {
                "market_name": "AMD Radeon RX 7900 XTX",
                "vendor_id": "0x1002",
                "vendor_name": "Advanced Micro Devices Inc. [AMD/ATI]",
                "device_id": "0x744c",
                "rev_id": "0xc8",
                "target_graphics_version": "gfx1100",
            },
            "bus": {"bdf": "0000:03:00.0", "max_pcie_width": 16},
            "vram": {"type": "GDDR6", "size": {"value": 24560, "unit": "MB"}},
        },
        {
            "gpu": 1,
            "asic": {
                "market_name": "AMD Radeon AI PRO R9700",
                "device_id": "0x7551",
                "target_graphics_version": "gfx1201",
            },
            "bus": {"bdf": "0000:65:00.0"},
            "vram": {"size": "32624 MB"},
        },
    ]
}


@pytest.mark.parametrize("wrap", ["gpu_data", "list", "one-object"])
def test_amd_smi_static_json(wrap: str) -> None:
    gpus = STATIC_JSON["gpu_data"]
    document = {"gpu_data": STATIC_JSON, "list": gpus, "one-object": gpus[0]}[wrap]
    report = parse_amd_smi(json.dumps(document, indent=4))
    first = SmiGpu(
        0,
        name="AMD Radeon RX 7900 XTX",
        vendor="Advanced Micro Devices Inc. [AMD/ATI]",
        gfx="gfx1100",
        pci_bus="0000:03:00.0",
        vram_total_bytes=24560 * MIB,
        device_id="744c",
        revision="c8",
    )
    second = SmiGpu(
        1,
        name="AMD Radeon AI PRO R9700",
        vendor=None,
        gfx="gfx1201",
        pci_bus="0000:65:00.0",
        vram_total_bytes=32624 * MIB,
        device_id="7551",
    )
    assert report.gpus == ((first,) if wrap == "one-object" else (first, second))
    assert report.error is None


def test_amd_smi_list_json_and_metric_json() -> None:
    listed = [
        {
            "gpu": 0,
            "bdf": "0000:c5:00.0",
            "uuid": "00ff150e-0000-1000-8000-000000000000",
            "kfd_id": 57812,
            "node_id": 1,
            "partition_id": 0,
        }
    ]
    metric = {
        "gpu_data": [
            {
                "gpu": 0,
                "mem_usage": {
                    "total_vram": {"value": 65536, "unit": "MB"},
                    "used_vram": {"value": 1512, "unit": "MB"},
                },
            }
        ]
    }
    text = json.dumps(listed) + "\n" + json.dumps(metric, indent=2)
    assert parse_amd_smi(text).gpus == (
        SmiGpu(
            0,
            pci_bus="0000:c5:00.0",
            device_id="150e",
            vram_total_bytes=64 * GIB,
            vram_used_bytes=1512 * MIB,
        ),
    )


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            "ModuleNotFoundError: No module named 'amdsmi'\n",
            "ModuleNotFoundError: No module named 'amdsmi'",
        ),
        (
            "ERROR:root:Unable to detect any GPU devices, check amdgpu version and module status\n",
            "ERROR:root:Unable to detect any GPU devices, check amdgpu version and module status",
        ),
        (
            "amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:\n"
            "\t34 | AMDSMI_STATUS_DRIVER_NOT_LOADED - Driver not loaded\n",
            "amdsmi.amdsmi_exception.AmdSmiLibraryException: Error code:",
        ),
    ],
)
def test_amd_smi_failures(text: str, error: str) -> None:
    report = parse_amd_smi(text)
    assert report.error == error
    assert report.gpus == ()


# --- robustness ------------------------------------------------------------------------

ALL_SMI = sorted(set(ROCM_SMI) | set(AMD_SMI))


@settings(max_examples=150, deadline=None)
@given(text=st.text())
def test_never_raises_on_text(text: str) -> None:
    _check_types(parse_rocm_smi(text))
    _check_types(parse_amd_smi(text))


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=2000))
def test_never_raises_on_bytes(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    _check_types(parse_rocm_smi(text))
    _check_types(parse_amd_smi(text))


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(ALL_SMI), fraction=st.floats(0, 1))
def test_never_raises_on_prefixes(name: str, fraction: float, load_output: Loader) -> None:
    text = load_output(name)
    prefix = text[: int(len(text) * fraction)]
    _check_types(parse_rocm_smi(prefix))
    _check_types(parse_amd_smi(prefix))


@settings(max_examples=150, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "gpu",
                        "gpu_data",
                        "asic",
                        "card0",
                        "system",
                        "bdf",
                        "value",
                        "unit",
                        "market_name",
                        "Device ID",
                        "PCI Bus",
                        "size",
                    ]
                ),
                inner,
                max_size=4,
            )
        ),
        max_leaves=20,
    )
)
def test_never_raises_on_json_shapes(document: object) -> None:
    text = json.dumps(document)
    _check_types(parse_rocm_smi(text))
    _check_types(parse_amd_smi(text))


def _check_types(report: SmiReport) -> None:
    assert isinstance(report, SmiReport)
    assert all(isinstance(problem, str) for problem in report.problems)
    for gpu in report.gpus:
        assert isinstance(gpu.index, int)
        assert gpu.device_id is None or len(gpu.device_id) == 4
        assert gpu.pci_bus is None or SLOT.match(gpu.pci_bus)
        assert gpu.vram_total_bytes is None or gpu.vram_total_bytes >= 0
