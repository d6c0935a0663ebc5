"""Real outputs as they arrive mangled: CRLF, colours, tmux, mail and forum pastes.

Each mangled copy must parse to exactly what the clean copy gives.
"""

from __future__ import annotations

import quopri
import re
from collections.abc import Callable

import pytest

from core.probe.parse.lspci import parse_lspci
from core.probe.parse.rocminfo import parse_rocminfo
from core.probe.parse.smi import parse_amd_smi, parse_rocm_smi

Loader = Callable[[str], str]
Mangle = Callable[[str], str]


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def colour(text: str) -> str:
    return "\n".join(f"\x1b[0;3{len(line) % 8}m{line}\x1b[0m" for line in text.split("\n"))


def tmux(text: str) -> str:
    lines = text.split("\n")
    return "\n".join(
        f"{line}{' ' * 30}[{i}/{len(lines)}]" if i % 7 == 3 else line
        for i, line in enumerate(lines)
    )


def quoted_printable(text: str) -> str:
    return quopri.encodestring(text.encode("utf-8")).decode("ascii")


def soft_breaks(text: str) -> str:
    """Soft line breaks only (no '=3D'), as some mail clients wrap long lines."""
    return "\n".join(re.sub(r"(.{60})(?=.)", r"\1=\n", line) for line in text.split("\n"))


def mail_quote(text: str) -> str:
    return "\n".join(f"> {line}" for line in text.split("\n"))


def forum(text: str) -> str:
    return "\n".join(
        f"[COLOR=#ff0000]**{line}**[/COLOR]" if line else line for line in text.split("\n")
    )


ROCMINFO = [
    "rocminfo/mi300x-x4-epyc9474f.txt",
    "rocminfo/rx6800xt-gfx1030-ryzen7-5700g-arch-backslash-escaped.txt",
    "rocminfo/vega20-x8-epyc7551p-ansi-colors.txt",
    "errors/rocminfo-dev-kfd-permission-denied-docker-rocm-terminal.txt",
]
ROCM_SMI = [
    "rocm-smi/json-mi100-rocm571.txt",
    "rocm-smi/showallinfo-a-mi300x-x4.txt",
    "rocm-smi/concise-2x-rx7900xtx-rocm60-model-revision-layout.txt",
    "rocm-smi/csv-productname-meminfo-uniqueid-rx6800-plus-raphael-igpu.txt",
]
AMD_SMI = [
    "amd-smi/static-rocm720-strix-apu-gfx1150.txt",
    "amd-smi/default-table-2x-rx9070xt-rocm711.txt",
    "amd-smi/list-and-list-e-mi325x-vf-multi-gpu.txt",
]
LSPCI = [
    "lspci/epyc7551p-vega20-x8-aspeed-lspci-k.txt",
    "lspci/ryzen7-5700u-lucienne-igpu-lspci-nn.txt",
    "lspci/rx7900xtx-xfx-lspci-nnv-excerpt.txt",
]

CASES: list[tuple[str, Callable[[str], object], list[str], list[Mangle]]] = [
    ("rocminfo", parse_rocminfo, ROCMINFO, [crlf, colour, tmux, quoted_printable]),
    ("rocm-smi", parse_rocm_smi, ROCM_SMI, [crlf, colour, quoted_printable]),
    ("amd-smi", parse_amd_smi, AMD_SMI, [crlf, colour, quoted_printable]),
    (
        "lspci",
        parse_lspci,
        LSPCI,
        [crlf, colour, tmux, quoted_printable, soft_breaks, mail_quote, forum],
    ),
]
PARAMS = [
    pytest.param(parse, name, mangle, id=f"{tool}-{name.split('/')[1][:30]}-{mangle.__name__}")
    for tool, parse, names, mangles in CASES
    for name in names
    for mangle in mangles
]


@pytest.mark.parametrize(("parse", "name", "mangle"), PARAMS)
def test_mangled_copy_parses_the_same(
    parse: Callable[[str], object], name: str, mangle: Mangle, load_output: Loader
) -> None:
    text = load_output(name)
    assert parse(mangle(text)) == parse(text)
