"""Win32_VideoController JSON and `wsl.exe --version` (UTF-16, localised) parsing."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.probe.parse.windows import (
    WinGpu,
    parse_video_controllers,
    parse_wsl_version,
    recover_utf16,
)

Loader = Callable[[str], str]

CHINESE = {
    "wsl": "2.2.4.0",
    "kernel": "5.15.153.1-2",
    "wslg": "1.0.61",
    "msrdc": "1.2.5326",
    "direct3d": "1.611.1-81528511",
    "dxcore": "10.0.26091.1-240325-1447.ge-release",
    "windows": "10.0.22631.3880",
}
ENGLISH = (
    "WSL version: 2.3.26.0\r\nKernel version: 5.15.167.4-1\r\nWSLg version: 1.0.65\r\n"
    "MSRDC version: 1.2.5620\r\nDirect3D version: 1.611.1-81528511\r\n"
    "DXCore version: 10.0.26100.1-240331-1435.ge-release\r\nWindows version: 10.0.26100.2605\r\n"
)
ENGLISH_VALUES = {
    "wsl": "2.3.26.0",
    "kernel": "5.15.167.4-1",
    "wslg": "1.0.65",
    "msrdc": "1.2.5620",
    "direct3d": "1.611.1-81528511",
    "dxcore": "10.0.26100.1-240331-1435.ge-release",
    "windows": "10.0.26100.2605",
}


def test_wsl_version_chinese_locale(load_output: Loader) -> None:
    text = load_output("os/wsl-version-windows-chinese-locale.txt")
    assert parse_wsl_version(text) == CHINESE


def test_wsl_version_chinese_as_utf16_bytes_read_as_latin1(load_output: Loader) -> None:
    body = load_output("os/wsl-version-windows-chinese-locale.txt")
    garbled = ("\ufeff" + body).encode("utf-16-le").decode("latin-1")
    assert "\x00" in garbled
    assert parse_wsl_version(garbled) == CHINESE


def test_wsl_version_english_utf16_decoded_as_utf8() -> None:
    garbled = ENGLISH.encode("utf-16-le").decode("utf-8", errors="replace")
    assert parse_wsl_version(garbled) == ENGLISH_VALUES
    assert parse_wsl_version(ENGLISH) == ENGLISH_VALUES


def test_wsl_version_german_labels_by_position() -> None:
    german = (
        "WSL-Version: 2.3.26.0\nKernelversion: 5.15.167.4-1\nWSLg-Version: 1.0.65\n"
        "MSRDC-Version: 1.2.5620\nDirect3D-Version: 1.611.1-81528511\n"
        "DXCore-Version: 10.0.26100.1-240331-1435.ge-release\nWindows-Version: 10.0.26100.2605\n"
    )
    assert parse_wsl_version(german) == ENGLISH_VALUES


def test_wsl_version_old_or_failing_wsl() -> None:
    # Old inbox wsl.exe prints its usage text for --version: nothing to read.
    usage = "Copyright (c) Microsoft Corporation.\nUsage: wsl.exe [Argument]\n"
    assert parse_wsl_version(usage) == {}
    assert parse_wsl_version("") == {}


def test_recover_utf16_leaves_plain_text_alone() -> None:
    assert recover_utf16("WSL version: 2.2.4.0") == "WSL version: 2.2.4.0"
    assert recover_utf16("W\x00S\x00L\x00") == "WSL"


VIDEO_LIST = """\ufeff[\r
    {\r
        "Name":  "AMD Radeon RX 7900 XTX",\r
        "DriverVersion":  "32.0.12033.1030",\r
        "AdapterCompatibility":  "Advanced Micro Devices, Inc."\r
    },\r
    {\r
        "Name":  "Intel(R) UHD Graphics 770",\r
        "DriverVersion":  "31.0.101.4502",\r
        "AdapterCompatibility":  "Intel Corporation"\r
    }\r
]\r
"""
RADEON = WinGpu("AMD Radeon RX 7900 XTX", "32.0.12033.1030", "Advanced Micro Devices, Inc.")
INTEL = WinGpu("Intel(R) UHD Graphics 770", "31.0.101.4502", "Intel Corporation")


def test_video_controllers_list_with_bom_and_crlf() -> None:
    assert parse_video_controllers(VIDEO_LIST) == (RADEON, INTEL)


def test_video_controller_single_object() -> None:
    single = json.dumps(
        {
            "Name": "AMD Radeon(TM) 8060S Graphics",
            "DriverVersion": None,
            "AdapterCompatibility": "Advanced Micro Devices, Inc.",
        }
    )
    assert parse_video_controllers(single) == (
        WinGpu("AMD Radeon(TM) 8060S Graphics", None, "Advanced Micro Devices, Inc."),
    )


def test_video_controllers_truncated_and_utf16() -> None:
    mid_name = VIDEO_LIST.index("Intel(R)") + 5
    assert parse_video_controllers(VIDEO_LIST[:mid_name]) == (RADEON,)
    after_name = VIDEO_LIST.index('"DriverVersion":  "31')
    assert parse_video_controllers(VIDEO_LIST[:after_name]) == (
        RADEON,
        WinGpu("Intel(R) UHD Graphics 770", None, None),
    )
    garbled = VIDEO_LIST.encode("utf-16-le").decode("latin-1")
    assert parse_video_controllers(garbled) == (RADEON, INTEL)


@pytest.mark.parametrize(
    "text",
    ["", "null", "[]", "{}", "Get-CimInstance : Access denied\r\n", '[{"Name": null}]', "[1, 2]"],
)
def test_video_controllers_nothing(text: str) -> None:
    assert parse_video_controllers(text) == ()


@settings(max_examples=150, deadline=None)
@given(text=st.text())
def test_never_raises_on_text(text: str) -> None:
    _check(text)


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=2000))
def test_never_raises_on_bytes(data: bytes) -> None:
    _check(data.decode("latin-1"))
    _check(data.decode("utf-8", errors="replace"))


@settings(max_examples=150, deadline=None)
@given(fraction=st.floats(0, 1))
def test_never_raises_on_prefixes(fraction: float, load_output: Loader) -> None:
    for text in (VIDEO_LIST, ENGLISH, load_output("os/wsl-version-windows-chinese-locale.txt")):
        _check(text[: int(len(text) * fraction)])


def _check(text: str) -> None:
    for gpu in parse_video_controllers(text):
        assert isinstance(gpu.name, str) and gpu.name
    versions = parse_wsl_version(text)
    assert set(versions) <= set(CHINESE)
    assert all(isinstance(value, str) for value in versions.values())
