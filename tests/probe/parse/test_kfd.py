"""KFD topology parsing, gfx_target_version decoding, HSA_OVERRIDE_GFX_VERSION."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.probe.parse.kfd import (
    decode_gfx_target_version,
    override_to_gfx,
    parse_gfx_override,
    parse_properties,
    parse_properties_nodes,
    pci_location,
)

Loader = Callable[[str], str]


@pytest.mark.parametrize(
    ("value", "gfx"),
    [
        (80003, "gfx803"),
        (90010, "gfx90a"),
        (90012, "gfx90c"),
        (90402, "gfx942"),
        (100300, "gfx1030"),
        (100306, "gfx1036"),
        (110001, "gfx1101"),
        (110003, "gfx1103"),
        (110501, "gfx1151"),
        (120001, "gfx1201"),
        (90500, "gfx950"),
        (70001, "gfx701"),  # not in rocm-bootstrap's table: arithmetic fallback
        (120500, "gfx1250"),
    ],
)
def test_decode_gfx_target_version(value: int, gfx: str) -> None:
    assert decode_gfx_target_version(value) == gfx


@pytest.mark.parametrize("value", [0, -1, -90010, 91600, 90016, 5, 9999])
def test_decode_gfx_target_version_rejects(value: int) -> None:
    assert decode_gfx_target_version(value) is None


def test_decode_agrees_with_rocm_bootstrap_table() -> None:
    from rocm_bootstrap.targets import ALL_TARGETS

    for target in ALL_TARGETS:
        if target.name.endswith("-strict"):
            continue
        assert decode_gfx_target_version(target.gfx_target_version) == target.name


@pytest.mark.parametrize(
    ("value", "fields", "gfx"),
    [
        ("10.3.0", (10, 3, 0), "gfx1030"),
        ("9.0.10", (9, 0, 10), "gfx90a"),
        ("11.0.0", (11, 0, 0), "gfx1100"),
        (" 11.0.2", (11, 0, 2), "gfx1102"),  # %u skips leading white space
        ("9.4.2", (9, 4, 2), "gfx942"),
        ("63.255.255", (63, 255, 255), None),  # valid for ROCR, no one-digit hex name
        ("0.0.0", (0, 0, 0), None),
    ],
)
def test_override(value: str, fields: tuple[int, int, int], gfx: str | None) -> None:
    assert parse_gfx_override(value) == fields
    assert override_to_gfx(value) == gfx


@pytest.mark.parametrize(
    "value",
    [
        "",
        "11",
        "11.0",
        "11.0.0.0",
        "11.0.0x",
        "64.0.0",
        "9.256.0",
        "9.0.256",
        "gfx1030",
        "-1.0.0",
        "1 1.0.0",
        "11,0,0",
        "١١.0.0",
        "10.3.0 # comment",
        " 11.0.2\n",  # %c takes the newline as a fourth field: the runtime refuses it
        "10.3.0\r",  # a CRLF shell file
    ],
)
def test_override_rejects(value: str) -> None:
    assert parse_gfx_override(value) is None
    assert override_to_gfx(value) is None


@pytest.mark.parametrize(
    ("location_id", "domain", "slot"),
    [
        (768, 0, "0000:03:00.0"),
        (33792, 0, "0000:84:00.0"),
        (29952, 0, "0000:75:00.0"),
        (34304, 0, "0000:86:00.0"),
        ((0xC5 << 8) | (0x1F << 3) | 7, 1, "0001:c5:1f.7"),
    ],
)
def test_pci_location(location_id: int, domain: int, slot: str) -> None:
    assert pci_location(location_id, domain) == slot


def test_properties_rx7900xtx(load_output: Loader) -> None:
    text = load_output("kfd-topology/rx7900xtx-node1-properties-test-fixture.txt")
    props = parse_properties(text)
    assert len(props) == 38
    assert props["gfx_target_version"] == 110000
    assert decode_gfx_target_version(props["gfx_target_version"]) == "gfx1100"
    assert props["device_id"] == 29772 == 0x744C
    assert props["vendor_id"] == 4098 == 0x1002
    assert pci_location(props["location_id"], props["domain"]) == "0000:03:00.0"
    assert props["unique_id"] == 11420932837461522459
    assert props["simd_count"] == 192
    assert props["max_engine_clk_ccompute"] == 5083


def test_properties_mi325x_huge_values(load_output: Loader) -> None:
    props = parse_properties(load_output("kfd-topology/mi325x-node-properties-test-fixture.txt"))
    assert props["hive_id"] == 11638818706288400384
    assert props["local_mem_size"] == 206142726144
    assert decode_gfx_target_version(props["gfx_target_version"]) == "gfx942"
    assert props["device_id"] == 29856
    assert pci_location(props["location_id"], props["domain"]) == "0000:75:00.0"
    assert props["unique_id"] == 9895604649984
    assert "cpu_core_id_base" not in props


def test_properties_mi350x_excerpt_indented_with_path_lines(load_output: Loader) -> None:
    text = load_output("kfd-topology/mi350x-node5-properties-excerpt-rocprofiler-capture.txt")
    props = parse_properties(text)
    assert props["simd_count"] == 1024
    assert props["device_id"] == 30112 == 0x75A0
    assert props["capability2"] == 1
    assert props["size_in_bytes"] == 309220868096  # the mem_banks excerpt shares no key
    assert "gfx_target_version" not in props


def test_properties_tinygrad_placeholder_line_skipped(load_output: Loader) -> None:
    text = load_output("kfd-topology/tinygrad-mockgpu-rx7900xtx-node-properties.txt")
    props = parse_properties(text)
    assert "drm_render_minor" not in props
    assert props["location_id"] == 34304
    assert pci_location(props["location_id"], props["domain"]) == "0000:86:00.0"
    assert props["unique_id"] == 11673270660693242239


def test_properties_grep_line(load_output: Loader) -> None:
    text = load_output("kfd-topology/rocm-cli-grep-gfx-target-version-mi300x-node4.txt")
    props = parse_properties(text)
    assert props == {"gfx_target_version": 90402}
    assert decode_gfx_target_version(props["gfx_target_version"]) == "gfx942"


def test_properties_template_and_cpu_node(load_output: Loader) -> None:
    text = load_output("kfd-topology/cpu-node-192-cores-and-gfx1201-template.txt")
    gpu_template, cpu = parse_properties_nodes(text)
    assert "gfx_target_version" not in gpu_template and "device_id" not in gpu_template
    assert gpu_template["simd_count"] == 128
    assert gpu_template["location_id"] == 33792
    assert cpu["cpu_cores_count"] == 192
    assert cpu["simd_count"] == 0
    assert cpu["max_engine_clk_ccompute"] == 5391
    assert parse_properties(text) == gpu_template


def test_properties_concatenated_nodes_truncated(load_output: Loader) -> None:
    text = load_output(
        "kfd-topology/ollama-2411-cat-all-nodes-ryzen7900-rx7900xtx-igpu-truncated.txt"
    )
    nodes = parse_properties_nodes(text)
    assert len(nodes) == 2
    cpu, gpu = nodes
    assert cpu["cpu_cores_count"] == 24 and cpu["max_engine_clk_ccompute"] == 5482
    assert decode_gfx_target_version(gpu["gfx_target_version"]) == "gfx1100"
    assert gpu["device_id"] == 29772
    assert gpu["debug_prop"] == 1495
    assert "sdma_fw_ver" not in gpu  # cut off mid-key in the source


def test_properties_garbage() -> None:
    assert parse_properties("") == {}
    assert parse_properties("key\nkey value\n = 3\nKEY 3\nkey 3 4\n") == {}
    assert parse_properties("\x1b[32mgfx_target_version 90010\x1b[0m\r\n") == {
        "gfx_target_version": 90010
    }


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_properties_never_raise(text: str) -> None:
    props = parse_properties(text)
    assert all(isinstance(k, str) and isinstance(v, int) for k, v in props.items())
    for node in parse_properties_nodes(text):
        assert node


@settings(max_examples=150, deadline=None)
@given(st.integers())
def test_decode_any_integer(value: int) -> None:
    name = decode_gfx_target_version(value)
    if name is not None:
        assert name.startswith("gfx") and value > 0


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 63), st.integers(0, 255), st.integers(0, 255))
def test_override_round_trip(major: int, minor: int, step: int) -> None:
    assert parse_gfx_override(f"{major}.{minor}.{step}") == (major, minor, step)
    gfx = override_to_gfx(f"{major}.{minor}.{step}")
    if major > 0 and minor <= 15 and step <= 15:
        assert gfx == f"gfx{major}{minor:x}{step:x}"
        assert decode_gfx_target_version(major * 10000 + minor * 100 + step) == gfx
    else:
        assert gfx is None


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_override_never_raises(text: str) -> None:
    fields = parse_gfx_override(text)
    assert fields is None or len(fields) == 3
    assert override_to_gfx(text) is None or fields is not None


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 0xFFFF), st.integers(0, 0xFFFF))
def test_pci_location_round_trip(location_id: int, domain: int) -> None:
    slot = pci_location(location_id, domain)
    bus, device_function = slot.split(":")[1:]
    device, function = device_function.split(".")
    assert int(bus, 16) == (location_id >> 8) & 0xFF
    assert (int(device, 16) << 3) | int(function) == location_id & 0xFF


KFD_FILES = [
    "kfd-topology/cpu-node-192-cores-and-gfx1201-template.txt",
    "kfd-topology/mi325x-node-properties-test-fixture.txt",
    "kfd-topology/mi350x-node5-properties-excerpt-rocprofiler-capture.txt",
    "kfd-topology/ollama-2411-cat-all-nodes-ryzen7900-rx7900xtx-igpu-truncated.txt",
    "kfd-topology/rocm-cli-grep-gfx-target-version-mi300x-node4.txt",
    "kfd-topology/rx7900xtx-node1-properties-test-fixture.txt",
    "kfd-topology/tinygrad-mockgpu-rx7900xtx-node-properties.txt",
]


def test_every_kfd_fixture_is_listed(outputs_in: Callable[[str], dict[str, str]]) -> None:
    assert set(outputs_in("kfd-topology")) == set(KFD_FILES)


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=2000))
def test_properties_never_raise_on_bytes(data: bytes) -> None:
    props = parse_properties(data.decode("utf-8", errors="replace"))
    assert all(isinstance(v, int) for v in props.values())


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(KFD_FILES), fraction=st.floats(0, 1))
def test_properties_prefixes(name: str, fraction: float, load_output: Loader) -> None:
    text = load_output(name)
    prefix = parse_properties(text[: int(len(text) * fraction)])
    full = parse_properties(text)
    # A prefix holds the keys read so far; only the last, cut line may differ.
    assert len([key for key in prefix if prefix[key] != full.get(key)]) <= 1
