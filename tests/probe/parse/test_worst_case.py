"""Long, repetitive lines must not make any parser crawl (regex backtracking) or raise."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from core.probe.parse.kfd import parse_gfx_override, parse_properties
from core.probe.parse.lspci import parse_lspci
from core.probe.parse.platform_files import (
    parse_dpkg_status,
    parse_kernel_release,
    parse_os_release,
)
from core.probe.parse.rocminfo import parse_rocminfo
from core.probe.parse.smi import parse_amd_smi, parse_rocm_smi
from core.probe.parse.windows import parse_video_controllers, parse_wsl_version

N = 40_000
PARSERS: list[Callable[[str], object]] = [
    parse_properties,
    parse_gfx_override,
    parse_rocminfo,
    parse_rocm_smi,
    parse_amd_smi,
    parse_lspci,
    parse_os_release,
    parse_kernel_release,
    parse_dpkg_status,
    parse_video_controllers,
    parse_wsl_version,
]
TEXTS = {
    "key-then-blanks": "a" + " " * N + "b",
    "slot-then-blanks": "00:00.0" + " " * N + "b",
    "header-then-blanks": "GPU" + " " * N + "Temp?",
    "table-row-blanks": "| 0000:03:00.0" + " " * N + "|",
    "long-number": "1" * N + "!",
    "blank-lines": "\n" * N,
    "dotted-digits": "x=" + "1." * (N // 2) + "!",
    "brackets": "[" * N,
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_long_lines_stay_fast(name: str) -> None:
    text = TEXTS[name]
    for parse in PARSERS:
        started = time.perf_counter()
        parse(text)
        elapsed = time.perf_counter() - started
        assert elapsed < 1.0, f"{parse.__name__} took {elapsed:.2f}s on {name}"


BIG = "9" * 5000  # beyond Python's int() digit limit (4300)
HUGE_NUMBERS = [
    f"Agent {BIG}\n  Name: gfx1100\n  Compute Unit: {BIG}\n  Chip ID: {BIG}(0x1)\n",
    f"GPU[{BIG}]\t\t: VRAM Total Memory (B): {BIG}\n",
    f'{{"card{BIG}": {{"VRAM Total Memory (B)": "{BIG}"}}, "card0": {{"GPU ID": "0x{BIG}"}}}}',
    f"device,VRAM Total Memory (B)\ncard{BIG},{BIG}\ncard0,{BIG}\n",
    f"GPU  Temp  AvgPwr\n{BIG}    30.0c  10.0W\n",
    f"GPU: {BIG}\n    VRAM:\n        SIZE: {BIG} MB\nGPU: 0\n    VRAM:\n        SIZE: {BIG}.5 GB\n",
    f'[{{"gpu": {BIG}, "vram": {{"size": {{"value": {BIG}, "unit": "MB"}}}}}}]',
    f"| 0000:03:00.0 AMD Radeon | 1 % |\n|   {BIG}   0   N/A   N/A | 1 %  {BIG}/{BIG} MB |\n",
    f"gfx_target_version {BIG}\nlocation_id {BIG}\n",
    f"{BIG}.0.0",
    f"Linux version {BIG}.{BIG}.{BIG}-generic (x)\n{BIG}.1.1-rc1\n",
    f"{BIG}:00.0 VGA compatible controller [0300]: AMD [1002:744c] (rev c8)\n",
]


@pytest.mark.parametrize("text", HUGE_NUMBERS, ids=range(len(HUGE_NUMBERS)))
def test_huge_numbers_do_not_raise(text: str) -> None:
    for parse in PARSERS:
        parse(text)
