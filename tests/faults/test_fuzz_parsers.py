"""Fuzzing every parser of the app in one place (issue 17, item 3): structure-aware hypothesis
strategies that start from the real fixture outputs (tests/fixtures/) and damage them the way
the world does: lines deleted, duplicated or swapped, output cut short, numbers replaced by huge,
negative or non-numeric ones, random unicode, binary garbage, CRLF, flattened pastes, nesting a
JSON reader cannot climb; JSON inputs (reports, worker events, run files, helper plans, snapshot
answers) are also mutated as trees (a value replaced, a key deleted or repeated, a type changed).

The property of each: the parser returns its documented type, or raises only its documented
error (``ReportError``, ``Refused``, ``KeyFormatError``...); never an unexpected exception
(IndexError, KeyError, UnicodeDecodeError, RecursionError, ...). Where it returns data, the data
keeps basic invariants (numbers are numbers, ids are hex of the right length).

Every example is counted in the faults ledger (``LEDGER.example(parser)``, tests/faults/ledger.py);
the budgets are fixed and the runs derandomised, so CI sees the same examples every time.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.bench.recover import read_events, rebuild, runs_of, unfinished
from core.bench.run_report import build_report
from core.bench.worker.protocol import EVENTS, decode
from core.diagnose.doctor import run_doctor
from core.install.helper import validate as helper_validate
from core.install.helper.openpgp import KeyFormatError, ParsedKey, parse_key
from core.install.helper.target import Policy, Target
from core.install.helper.validate import CheckedPlan, Refused, check_input
from core.knowledge.loader import Knowledge, load_knowledge
from core.probe.parse._text import last_json_object
from core.probe.parse.ensurepip import parse_ensurepip
from core.probe.parse.kernel_log import (
    MAX_LINES,
    MAX_WIDTH,
    failed_probes,
    kernel_log_excerpt,
    kernel_log_record,
    log_refused,
)
from core.probe.parse.kfd import (
    decode_gfx_target_version,
    override_to_gfx,
    parse_gfx_override,
    parse_properties,
    parse_properties_nodes,
    pci_location,
)
from core.probe.parse.lspci import PciDevice, is_display_class, parse_lspci
from core.probe.parse.memory import (
    parse_cmdline_options,
    parse_integer,
    parse_meminfo,
    parse_modprobe_options,
    parse_wslconfig_memory,
)
from core.probe.parse.platform_files import (
    DpkgPackage,
    kernel_version_tuple,
    parse_dpkg_status,
    parse_kernel_release,
    parse_lsb_release,
    parse_mokutil_sb_state,
    parse_os_release,
    parse_secure_boot_efivar,
    wsl_version,
)
from core.probe.parse.rocminfo import RocmAgent, RocminfoReport, parse_rocminfo
from core.probe.parse.smi import SmiGpu, SmiReport, parse_amd_smi, parse_rocm_smi
from core.probe.parse.windows import (
    WinGpu,
    parse_adrenalin,
    parse_video_controllers,
    parse_wsl_version,
    recover_utf16,
)
from core.report.history import History
from core.report.model import STATUSES, Machine, Report, ReportError, from_json, to_json
from core.report.privacy import Identity
from core.report.writers import load_report_file, read_scrubbed_report
from core.system import CommandResult, DeviceAccess, SnapshotSystem, UserInfo
from tests.faults.ledger import LEDGER
from tests.install.support import (
    TRUSTED_FPR,
    TRUSTED_KEY,
    armor,
    command_step,
    keyring_step,
    pin_step,
    plain_target,
    plan,
    source_line,
    source_step,
    trusting_policy,
)
from tests.probe.parse.conftest import output_names, read_output

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MACHINES = FIXTURES / "machines"
REPORTS = FIXTURES / "reports"


def fuzz(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The fixed, reproducible budget of one parser's test."""
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None)


# --------------------------------------------------------------------------------------------
# invariants


_HEX4 = re.compile(r"[0-9a-f]{4}")
_HEX2 = re.compile(r"[0-9a-f]{2}")
_SLOT = re.compile(r"[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def opt(value: object, kind: type | tuple[type, ...]) -> bool:
    """None or an instance of ``kind`` (a bool is not an int here)."""
    if value is None:
        return True
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        return False
    return isinstance(value, kind)


def opt_match(value: object, pattern: re.Pattern[str]) -> bool:
    return value is None or (isinstance(value, str) and pattern.fullmatch(value) is not None)


def opt_gfx(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.startswith("gfx"))


def str_tuple(value: object) -> bool:
    return isinstance(value, tuple) and all(isinstance(v, str) for v in value)


def str_dict(value: object) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items())


# --------------------------------------------------------------------------------------------
# strategies: damage done to a text


HUGE_NUMBERS = ["9" * 45, "-" + "9" * 45, "18446744073709551616", "-1", "-0", "0", "1e309",
                "NaN", "inf", "0x", "0xFFFFFFFFFFFFFFFFFF", "abc", "", "１２", "٣", "1.5.7",
                "4294967295", "-2147483648", "1" * 5000]
GARBLE = st.one_of(
    st.text(max_size=30),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
    st.sampled_from(["\x00", "\x1b[31m", "\x1b]0;title\x07", "\u202e", "\ufeff", "\r",
                     "=3D", "=\n", "`", "**", "[COLOR=red]", "> ", "\\", '"', "'", ":", "=",
                     "{", "[", "Agent 1", "GPU[0]\t\t: ", "*** Done ***", "\u00a0", "\U0001f525"]),
)


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@st.composite
def damaged(draw: st.DrawFn, text: str, max_ops: int = 4) -> str:
    """``text`` after a few drawn damages (each op on lines, characters or numbers)."""
    for _ in range(draw(st.integers(0, max_ops))):
        lines = text.split("\n")
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "truncate", "number",
                                   "insert", "replace-line", "crlf", "flatten", "repeat",
                                   "deep", "indent"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if op == "delete" and lines:
            del lines[i]
        elif op == "duplicate" and lines:
            lines.insert(i, lines[i])
        elif op == "swap" and len(lines) > 1:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
            continue
        elif op == "number":
            numbers = list(re.finditer(r"-?[0-9]+(?:\.[0-9]+)?", text))
            if numbers:
                m = draw(st.sampled_from(numbers))
                text = text[: m.start()] + draw(st.sampled_from(HUGE_NUMBERS)) + text[m.end():]
            continue
        elif op == "insert":
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(GARBLE) + text[at:]
            continue
        elif op == "replace-line" and lines:
            lines[i] = draw(GARBLE)
        elif op == "crlf":
            text = text.replace("\n", "\r\n")
            continue
        elif op == "flatten":
            text = text.replace("\n", draw(st.sampled_from([" ", "", "\t", "\\n"])))
            continue
        elif op == "repeat" and lines:
            lines[i:i + 1] = [lines[i]] * draw(st.sampled_from([50, 400]))
        elif op == "deep":
            at = draw(st.integers(0, len(text)))
            text = text[:at] + _deep(draw(st.sampled_from([40, 3000]))) + text[at:]
            continue
        elif op == "indent" and lines:
            lines[i] = draw(st.sampled_from(["  ", "\t", "      ", ""])) + lines[i].lstrip()
        text = "\n".join(lines)
    return text


def outputs(*folders: str) -> list[str]:
    """The bodies of the real outputs in ``folders`` (tests/fixtures/outputs/)."""
    return [read_output(name) for folder in folders for name in output_names(folder)]


def fuzzed_text(sources: list[str]) -> st.SearchStrategy[str]:
    """A real output, damaged; now and then pure junk or a splice of two outputs."""
    real = st.sampled_from(sources).flatmap(damaged)
    spliced = st.tuples(st.sampled_from(sources), st.sampled_from(sources),
                        st.floats(0, 1)).map(
        lambda t: t[0][: int(len(t[0]) * t[2])] + t[1][int(len(t[1]) * t[2]):])
    junk = st.one_of(st.text(max_size=300),
                     st.binary(max_size=300).map(lambda b: b.decode("latin-1")))
    return st.one_of(real, real, real, spliced, junk)


# --------------------------------------------------------------------------------------------
# strategies: damage done to a JSON tree

DEEP = "\x00deep\x00"  # a value written as nesting too deep for a recursive reader
HOSTILE_VALUES = st.one_of(
    st.none(), st.booleans(),
    st.sampled_from([0, -1, 1, 10**15, 10**16, 2**63, -(2**63), 10**30, 0.5, -0.0, 1e300]),
    st.integers(), st.floats(),
    st.text(max_size=20),
    st.sampled_from(["", "NaN", "-1", "1e999", "0x10", "ok", "error", "gfx1100",
                     "1969-12-31T00:00:00Z", "9999-13-01T00:00:00+00:00", "\u202e", "\x00"]),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.just({}), st.just([]), st.just(DEEP),
)


def _slots(node: Any, out: list[tuple[Any, Any]]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            out.append((node, key))
            _slots(value, out)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out.append((node, index))
            _slots(value, out)


@st.composite
def mutated_tree(draw: st.DrawFn, tree: Any, max_ops: int = 3) -> str:
    """``tree`` with a few values replaced, keys deleted, renamed or given twice, as JSON text."""
    tree = json.loads(json.dumps(tree))
    duplicate: tuple[str, str] | None = None
    for _ in range(draw(st.integers(1, max_ops))):
        slots: list[tuple[Any, Any]] = []
        _slots(tree, slots)
        if not slots:
            break
        parent, key = draw(st.sampled_from(slots))
        op = draw(st.sampled_from(["replace", "replace", "delete", "wrap", "rename", "add",
                                   "duplicate"]))
        if op == "replace":
            parent[key] = draw(HOSTILE_VALUES)
        elif op == "delete":
            del parent[key]
        elif op == "wrap":
            parent[key] = [parent[key]]
        elif op == "rename" and isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = parent.pop(key)
        elif op == "add" and isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = draw(HOSTILE_VALUES)
        elif op == "add" and isinstance(parent, list):
            parent.append(draw(HOSTILE_VALUES))
        elif op == "duplicate" and isinstance(parent, dict) and isinstance(key, str):
            duplicate = (key, json.dumps(draw(HOSTILE_VALUES)))
    text = json.dumps(tree, allow_nan=True)
    text = text.replace(json.dumps(DEEP), _deep(draw(st.sampled_from([33, 3000]))))
    if duplicate is not None and text.startswith("{") and len(text) > 2:
        text = "{" + json.dumps(duplicate[0]) + ": " + duplicate[1] + ", " + text[1:]
    return text


def json_fuzz(trees: list[Any]) -> st.SearchStrategy[str]:
    """A JSON document mutated as a tree, then perhaps as text too."""
    tree = st.sampled_from(trees).flatmap(mutated_tree)
    return st.one_of(tree, tree, tree.flatmap(lambda t: damaged(t, 2)),
                     st.sampled_from([json.dumps(t) for t in trees]).flatmap(damaged))


def as_bytes(text: str) -> st.SearchStrategy[bytes]:
    """``text`` as UTF-8, perhaps with binary garbage (invalid UTF-8, NUL) spliced in."""
    data = text.encode("utf-8", "surrogatepass")
    return st.one_of(
        st.just(data),
        st.tuples(st.integers(0, len(data)), st.binary(min_size=1, max_size=16)).map(
            lambda t: data[: t[0]] + t[1] + data[t[0]:]),
        st.sampled_from([b"\xff\xfe" + text.encode("utf-16-le", "surrogatepass"),
                         data[: len(data) // 2], data + b"\x80"]),
    )


# --------------------------------------------------------------------------------------------
# the probe parsers (core/probe/parse/)


ROCMINFO = outputs("rocminfo", "errors")
ROCM_SMI = outputs("rocm-smi", "errors")
AMD_SMI = outputs("amd-smi", "errors")
LSPCI = outputs("lspci")
OS = outputs("os")
KFD = outputs("kfd-topology")


def check_rocminfo(report: RocminfoReport) -> None:
    assert isinstance(report, RocminfoReport)
    assert opt(report.runtime_version, str) and opt(report.error, str)
    assert str_tuple(report.problems)
    assert opt(report.rock_loaded, bool) and opt(report.rock_version, str)
    assert opt(report.hsa_status, str) and opt(report.kfd_open_error, str)
    for agent in report.agents:
        assert isinstance(agent, RocmAgent)
        assert is_int(agent.index) and isinstance(agent.name, str)
        assert opt(agent.node, int) and opt(agent.compute_units, int)
        assert opt(agent.bdfid, int)
        assert agent.vram_bytes is None or (is_int(agent.vram_bytes) and agent.vram_bytes >= 0)
        assert opt_match(agent.chip_id, _HEX4) and opt_gfx(agent.gfx)
        assert str_tuple(agent.isa)
        assert agent.device_type is None or agent.device_type == agent.device_type.upper()
    assert all(a.device_type == "GPU" for a in report.gpus)


@fuzz(600)
@given(text=fuzzed_text(ROCMINFO))
@example(text="Agent 1\n  Name: gfx1100\n  Chip ID: " + "9" * 5000 + "\n")
def test_rocminfo(text: str) -> None:
    LEDGER.example("rocminfo")
    check_rocminfo(parse_rocminfo(text))


def check_smi(report: SmiReport) -> None:
    assert isinstance(report, SmiReport)
    assert opt(report.tool_version, str) and opt(report.error, str)
    assert opt(report.driver_version, str) and opt(report.rocm_version, str)
    assert str_tuple(report.problems)
    indexes = [gpu.index for gpu in report.gpus]
    assert len(set(indexes)) == len(indexes)
    for gpu in report.gpus:
        assert isinstance(gpu, SmiGpu) and is_int(gpu.index)
        assert opt(gpu.name, str) and opt(gpu.vendor, str) and opt_gfx(gpu.gfx)
        assert opt_match(gpu.pci_bus, _SLOT)
        assert opt_match(gpu.device_id, _HEX4) and opt_match(gpu.revision, _HEX2)
        for size in (gpu.vram_total_bytes, gpu.vram_used_bytes):
            assert size is None or is_int(size)


@fuzz(500)
@given(text=fuzzed_text(ROCM_SMI))
def test_rocm_smi(text: str) -> None:
    LEDGER.example("rocm-smi")
    check_smi(parse_rocm_smi(text))


@fuzz(500)
@given(text=fuzzed_text(AMD_SMI))
def test_amd_smi(text: str) -> None:
    LEDGER.example("amd-smi")
    check_smi(parse_amd_smi(text))


@fuzz(500)
@given(text=fuzzed_text(LSPCI))
def test_lspci(text: str) -> None:
    LEDGER.example("lspci")
    devices = parse_lspci(text)
    assert isinstance(devices, tuple)
    for dev in devices:
        assert isinstance(dev, PciDevice)
        assert isinstance(dev.slot, str) and isinstance(dev.name, str)
        assert opt(dev.class_code, str) and opt(dev.class_name, str)
        assert opt_match(dev.vendor_id, re.compile(r"[0-9a-fA-F]{4}"))
        assert opt_match(dev.device_id, re.compile(r"[0-9a-fA-F]{4}"))
        assert opt_match(dev.revision, re.compile(r"[0-9a-fA-F]{2}"))
        assert opt(dev.driver, str) and opt(dev.subsystem, str) and opt(dev.subsystem_id, str)
        assert str_tuple(dev.kernel_modules)
        assert isinstance(is_display_class(dev), bool)


@fuzz(400)
@given(text=fuzzed_text(OS))
@example(text='ID=ubuntu\nNAME="unterminated\nVERSION_ID=' + "9" * 5000)
def test_os_release_and_other_platform_files(text: str) -> None:
    LEDGER.example("os-release")
    found = parse_os_release(text)
    assert str_dict(found) and all(re.fullmatch(r"[A-Z][A-Z0-9_]*", k) for k in found)
    lsb = parse_lsb_release(text)
    assert str_dict(lsb) and all(k.startswith("DISTRIB_") for k in lsb)
    LEDGER.example("kernel-release")
    release = parse_kernel_release(text)
    assert opt(release, str)
    version = kernel_version_tuple(release or text)
    assert version is None or (len(version) == 3 and all(is_int(v) for v in version))
    assert wsl_version(release, text) in (None, 1, 2)
    LEDGER.example("dpkg-status")
    for package in parse_dpkg_status(text):
        assert isinstance(package, DpkgPackage) and isinstance(package.name, str)
        assert opt(package.version, str) and opt(package.status, str)
        assert isinstance(package.installed, bool)
    LEDGER.example("mokutil")
    assert parse_mokutil_sb_state(text) in (None, True, False)
    LEDGER.example("ensurepip")
    for returncode in (0, 1, None):
        assert parse_ensurepip(text, returncode) in (None, True, False)


# Kernel log excerpts (issue 32): the real amdgpu lines of legacy-rocm-build#6281 (MI210 probe
# failed), #1357 (missing firmware), #5008 (IP discovery) and a refused dmesg.
KERNEL_LOGS = [
    (FIXTURES / "outputs/errors/dmesg-amdgpu-probe-failed-error12-2x-mi210.txt")
    .read_text(encoding="utf-8"),
    "[    9.605986] amdgpu 0000:23:00.0: Direct firmware load for amdgpu/arcturus_gpu_info.bin "
    "failed with error -2\n[    9.606063] amdgpu: probe of 0000:23:00.0 failed with error -2\n",
    "amdgpu: invalid ip discovery binary checksum\namdgpu: Fatal error during GPU init\n",
    "dmesg: read kernel buffer failed: Operation not permitted\n",
]


@given(text=fuzzed_text(KERNEL_LOGS))
@fuzz(300)
def test_kernel_log(text: str) -> None:
    LEDGER.example("kernel-log")
    lines = kernel_log_excerpt(text)
    assert isinstance(lines, list) and len(lines) <= MAX_LINES
    assert all(isinstance(line, str) and len(line) <= MAX_WIDTH for line in lines)
    assert isinstance(log_refused(text), bool)
    assert isinstance(kernel_log_record(text), str)
    probes = failed_probes(lines)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in probes.items())


# APU memory files (issue 35): the recorded machines' meminfo, cmdline and sysfs numbers, and
# modprobe.d / .wslconfig texts as public threads show them.
MEMORY_TEXTS = [
    *(p.read_text() for p in sorted(MACHINES.glob("k35-*/files/proc/*")) if p.is_file()),
    *(p.read_text() for p in sorted(MACHINES.glob("k35-*/files/sys/**/mem_info_*_total"))),
    *(p.read_text() for p in sorted(MACHINES.glob("k35-*/files/sys/module/*/parameters/*"))),
    # rjmalagon/ollama-linux-amd-apu#4 (/etc/modprobe.d/ttm.conf)
    "# nb of pages 4k, for 48Gb\noptions ttm pages_limit=12582912\n"
    "options ttm page_pool_size=12582912\n",
    # HarbourMasters/Shipwright#6048 (/etc/modprobe.d/amdgpu.conf)
    "options ttm pages_limit=1048576\noptions amdgpu gttsize=8192\n",
    # ROCm/legacy-rocm-build#5595 (kernel command line)
    "BOOT_IMAGE=/boot/vmlinuz-6.14.0-1014-oem root=UUID=d55f0c3f-88f5-4c65-a93a-285c1a30361c ro "
    "quiet splash amdgpu.gtt_size=122880 vt.handoff=7",
    # lmstudio-ai/lmstudio-bug-tracker#1480 (kernel parameters)
    "ttm.pages_limit=32505856 ttm.page_pool_size=32505856 amdgpu.gttsize=126976",
    # learn.microsoft.com/windows/wsl/wsl-config (the example .wslconfig)
    "[wsl2]\nmemory=4GB \nprocessors=2\n",
]


@fuzz(400)
@given(text=fuzzed_text(MEMORY_TEXTS))
@example(text="MemTotal: " + "9" * 40 + " kB\noptions ttm pages_limit=" + "9" * 40)
@example(text="[wsl2]\nmemory=" + "9" * 400 + "TB\n")
def test_apu_memory_files(text: str) -> None:
    LEDGER.example("apu-memory-files")
    meminfo = parse_meminfo(text)
    assert all(isinstance(k, str) and is_int(v) and 0 <= v <= 1 << 62 for k, v in meminfo.items())
    number = parse_integer(text)
    assert number is None or (is_int(number) and abs(number) <= 1 << 62)
    for found in (parse_modprobe_options(text), parse_cmdline_options(text)):
        assert isinstance(found, list)
        for module, option, value in found:
            assert module in ("ttm", "amdttm", "amdgpu") and isinstance(value, str)
            assert option in ("pages_limit", "page_pool_size", "gttsize", "gtt_size")
    limit = parse_wslconfig_memory(text)
    assert limit is None or (is_int(limit) and 0 < limit <= 1 << 62)


@fuzz(200)
@given(data=st.one_of(st.binary(max_size=12),
                      st.sampled_from(["\x06\x00\x00\x00\x01", "\x06\x00\x00\x00\x00",
                                       "\x06\x00\x00\x00"]).flatmap(as_bytes)))
def test_secure_boot_efivar(data: bytes) -> None:
    LEDGER.example("secure-boot-efivar")
    assert parse_secure_boot_efivar(data) in (None, True, False)


@fuzz(500)
@given(text=fuzzed_text(KFD))
@example(text="gfx_target_version " + "9" * 40 + "\nlocation_id -" + "9" * 40 + "\n")
def test_kfd_properties(text: str) -> None:
    LEDGER.example("kfd-properties")
    first = parse_properties(text)
    nodes = parse_properties_nodes(text)
    assert isinstance(nodes, tuple)
    assert first == (nodes[0] if nodes else {})
    for node in nodes:
        assert all(isinstance(k, str) and is_int(v) for k, v in node.items())
        assert opt_gfx(decode_gfx_target_version(node.get("gfx_target_version", 0)))
        slot = pci_location(node.get("location_id", 0), node.get("domain", 0))
        assert _SLOT.fullmatch(slot), slot


@fuzz(300)
@given(value=st.one_of(
    st.tuples(st.integers(-5, 300), st.integers(-5, 300), st.integers(-5, 300)).map(
        lambda t: ".".join(map(str, t))),
    st.sampled_from(["10.3.0", "11.0.0", "9.0.10", "9.4.2", "12.0.1"]).flatmap(damaged),
    st.text(max_size=20)))
def test_gfx_override(value: str) -> None:
    LEDGER.example("gfx-override")
    fields = parse_gfx_override(value)
    assert fields is None or (len(fields) == 3 and all(is_int(f) and f >= 0 for f in fields))
    if fields is not None:
        assert fields[0] <= 63 and fields[1] <= 255 and fields[2] <= 255
    assert opt_gfx(override_to_gfx(value))


VIDEO_CONTROLLERS = [
    [{"Name": "AMD Radeon RX 7900 XTX", "DriverVersion": "32.0.12033.1030",
      "AdapterCompatibility": "Advanced Micro Devices, Inc."},
     {"Name": "Intel(R) UHD Graphics 770", "DriverVersion": "31.0.101.4502",
      "AdapterCompatibility": "Intel Corporation"}],
    {"Name": "AMD Radeon(TM) Graphics", "DriverVersion": "31.0.21912.14",
     "AdapterCompatibility": "Advanced Micro Devices, Inc.", "AdapterRAM": 536870912},
]
WSL_VERSIONS = [
    "WSL version: 2.3.26.0\r\nKernel version: 5.15.167.4-1\r\nWSLg version: 1.0.65\r\n"
    "MSRDC version: 1.2.5620\r\nDirect3D version: 1.611.1-81528511\r\n"
    "DXCore version: 10.0.26100.1-240331-1435.ge-release\r\nWindows version: 10.0.26100.2605\r\n",
    *(read_output(n) for n in output_names("os") if "wsl-version" in n),
]


@fuzz(300)
@given(text=st.one_of(json_fuzz(VIDEO_CONTROLLERS),
                      json_fuzz(VIDEO_CONTROLLERS).map(
                          lambda t: ("\ufeff" + t).encode("utf-16-le", "surrogatepass")
                          .decode("latin-1"))))
def test_windows_video_controllers(text: str) -> None:
    LEDGER.example("windows-video-controllers")
    gpus = parse_video_controllers(text)
    assert isinstance(gpus, tuple)
    for gpu in gpus:
        assert isinstance(gpu, WinGpu) and isinstance(gpu.name, str)
        assert opt(gpu.driver_version, str) and opt(gpu.vendor, str)


@fuzz(250)
@given(text=st.one_of(fuzzed_text(WSL_VERSIONS),
                      fuzzed_text(WSL_VERSIONS).map(
                          lambda t: t.encode("utf-16-le", "surrogatepass").decode("latin-1"))))
def test_wsl_version(text: str) -> None:
    LEDGER.example("wsl-version")
    assert isinstance(recover_utf16(text), str)
    assert str_dict(parse_wsl_version(text))


ADRENALIN_ANSWERS = ["26.2.2\r\n", "24.12.1\n", "\ufeff25.5.1\r\n", "",
                     "Get-ItemProperty : Cannot find path 'HKLM:\\SOFTWARE\\AMD\\CN'\r\n"]


@fuzz(150)
@given(text=fuzzed_text(ADRENALIN_ANSWERS))
def test_adrenalin_version(text: str) -> None:
    """The registry's RadeonSoftwareVersion as PowerShell prints it (issue 33)."""
    found = parse_adrenalin(text)
    assert found is None or (isinstance(found, str) and 1 <= found.count(".") <= 2)


PROBE_ANSWERS = [
    {"python": "/usr/bin/python3", "version": "2.5.1+rocm6.2", "hip": "6.2.41133", "cuda": None,
     "available": True, "device_count": 1, "devices": ["AMD Radeon RX 6700 XT"],
     "arch_list": ["gfx1030", "gfx1100"], "error": None},
    {"ok": False, "error": "HIP error: invalid device function", "gfx": "gfx1031"},
]


@fuzz(250)
@given(text=json_fuzz(PROBE_ANSWERS).flatmap(
    lambda t: st.sampled_from(["", "Warning: something\n", "{not json\n"]).map(
        lambda pre: pre + t + "\n")))
@example(text='{"ok": ' + _deep(5000) + "}\n")
def test_probe_answer_json(text: str) -> None:
    """The last JSON line of a probe script's output (torch, override trials, torch check)."""
    LEDGER.example("probe-answer-json")
    answer = last_json_object(text)
    assert answer is None or isinstance(answer, dict)


# --------------------------------------------------------------------------------------------
# the benchmark worker's event stream and the run file (core/bench/)


def worker_stream(suite: str = "gemm") -> list[dict[str, Any]]:
    """A worker's events as docs/contracts.md ("Benchmark worker protocol") describes them."""
    settings_ = {"suite": suite, "device": "cpu", "size": "tiny", "precision": "fp32",
                 "batch_size": 2, "warmup_steps": 1, "steps": 3}
    events: list[dict[str, Any]] = [
        {"event": "phase", "phase": "setup", "what": "importing PyTorch", "t": 0.1},
        {"event": "hello", "protocol": 1, "pid": 999999999, "python": "3.11.7",
         "torch": "2.5.1+rocm6.2", "hip": "6.2.41133", "cuda": None, "backend": "hip",
         "device": "cuda:0", "device_name": "AMD Radeon RX 7900 XTX", "arch": "gfx1100",
         "pci_bus_id": "0000:03:00.0", "total_memory_bytes": 25753026560, "settings": settings_},
        {"event": "phase", "phase": "warmup", "t": 0.5},
        {"event": "step", "phase": "warmup", "index": 0, "seconds": 0.9, "items": 2,
         "throughput": 2.2, "unit": "images/s"},
        {"event": "phase", "phase": "measure", "t": 1.5},
    ]
    events += [{"event": "step", "phase": "measure", "index": i, "seconds": 0.25 + i / 100,
                "items": 2, "throughput": 8.0 - i / 10, "unit": "images/s", "tflops": 1.5}
               for i in range(3)]
    figure = {"name": "throughput", "value": 7.9, "unit": "images/s", "median": 7.9,
              "p10": 7.7, "p90": 8.0, "cv": 0.01}
    events += [
        {"event": "result", "headline": "throughput", "figures": {"throughput": figure},
         "warmup": {"steps": 1, "seconds": 0.9, "first_step_s": 0.9, "settled": True,
                    "forced": False},
         "measure": {"steps": 3, "seconds": 0.78, "items": 6},
         "peak_memory_bytes": 1048576, "details": {"m": 512}, "settings": settings_},
        {"event": "phase", "phase": "done", "t": 3.0},
    ]
    return events


WORKER_EVENTS = worker_stream()
ERROR_EVENT = {"event": "error", "kind": "oom", "message": "HIP out of memory",
               "advice": "Lower the batch size.", "detail": "torch.OutOfMemoryError"}


@fuzz(500)
@given(line=st.one_of(json_fuzz([*WORKER_EVENTS, ERROR_EVENT]),
                      json_fuzz([*WORKER_EVENTS, ERROR_EVENT]).flatmap(as_bytes)))
@example(line='{"event": "step", "x": ' + _deep(5000) + "}")
def test_worker_event_line(line: str | bytes) -> None:
    LEDGER.example("worker-events")
    event = decode(line)
    assert event is None or (isinstance(event, dict) and event["event"] in EVENTS)
    if event is not None:  # what the runner does with it next: stamp it, write it back
        event["rx_t"] = 1.0
        line = json.dumps(event)
        assert json.dumps(decode(line)) == line  # (compared as text: NaN is not NaN)


def run_file_lines(events: list[dict[str, Any]], ended: bool) -> list[str]:
    """The lines a runner writes to a run file for one run (docs/contracts.md)."""
    head = {"event": "run", "schema": "rocmate.run/1", "suite": "gemm",
            "argv": ["/usr/bin/python3", "-m", "core.bench.worker", "--suite", "gemm",
                     "--device", "cpu", "--size", "tiny"],
            "started": "2026-05-01T10:00:00+00:00", "history": True}
    lines = [json.dumps(head)]
    for t, event in enumerate(events):
        lines.append(json.dumps({**event, "rx_t": 0.5 + t}))
        if event["event"] == "step":
            lines.append(json.dumps({"event": "telemetry", "rx_t": 0.6 + t, "t": 0.6 + t,
                                     "power_w": 210.5, "vram_used_bytes": 1048576,
                                     "temps_c": {"edge": 60.0}, "clocks_mhz": {"sclk": 2500}}))
    if ended:
        lines.append(json.dumps({"event": "end", "status": "ok", "returncode": 0}))
    return lines


@st.composite
def run_file(draw: st.DrawFn) -> bytes:
    """A run file of one or two runs, its lines mutated as JSON trees and as text."""
    runs = draw(st.lists(st.sampled_from([
        (WORKER_EVENTS, False), (WORKER_EVENTS[: draw(st.integers(0, len(WORKER_EVENTS)))], False),
        ([*WORKER_EVENTS[:4], ERROR_EVENT], False), (WORKER_EVENTS, True)]), min_size=1,
        max_size=2))
    lines = [line for events, ended in runs for line in run_file_lines(events, ended)]
    for i in sorted(set(draw(st.lists(st.integers(0, len(lines) - 1), min_size=1, max_size=4)))):
        lines[i] = draw(mutated_tree(json.loads(lines[i])) | damaged(lines[i], 2))
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "", '\n{"event": "st']))
    return draw(as_bytes(text))


@pytest.fixture(scope="module")
def kb() -> Knowledge:
    return load_knowledge()


@pytest.fixture(scope="module")
def empty_machine(tmp_path_factory: pytest.TempPathFactory) -> SnapshotSystem:
    return SnapshotSystem(tmp_path_factory.mktemp("empty-machine"))


def _with_result(**fields: Any) -> list[dict[str, Any]]:
    """The worker's stream with its result event changed."""
    return [{**e, **fields} if e["event"] == "result" else e for e in WORKER_EVENTS]


@fuzz(400)
@given(data=run_file())
@example(data="\n".join(run_file_lines(_with_result(figures={"throughput": None}),
                                         False)).encode())
@example(data="\n".join(run_file_lines(_with_result(warmup={"steps": None}), False)).encode())
@example(data="\n".join(run_file_lines(_with_result(measure={"items": 1e400}), False)).encode())
@example(data=b'{"event": "run", "argv": ' + _deep(5000).encode() + b"}\n")
def test_run_file(data: bytes, kb: Knowledge, empty_machine: SnapshotSystem) -> None:
    """A run file read back for recovery: every run rebuilt, and its report either built or
    refused with ReportError / ValueError (the recovery's contract for a run it cannot keep)."""
    LEDGER.example("run-file")
    events = read_events(data)
    assert all(isinstance(e, dict) and isinstance(e["event"], str) for e in events)
    runs_of(events)
    for _index, run in unfinished(events):
        outcome = rebuild(run, Path("/nonexistent/run.jsonl"), empty_machine)
        assert outcome.status in STATUSES
        assert all(isinstance(s["index"], int) and isinstance(s["items"], int)
                   for s in outcome.steps)
        try:
            report = build_report([outcome], empty_machine, kb, machine_facts=Machine({}, []))
            to_json(report)
        except ValueError:  # ReportError included: the run is marked, not kept
            pass


# --------------------------------------------------------------------------------------------
# reports (core/report/): the reader, the file loader and the history's import


REPORT_FILES = sorted(p for p in REPORTS.rglob("*.json"))
SMALL_REPORTS = [json.loads(p.read_text()) for p in REPORT_FILES if p.stat().st_size < 60_000]


@fuzz(600)
@given(text=json_fuzz(SMALL_REPORTS))
@example(text='{"schema": "rocmate.report/1", "runs": ' + _deep(5000) + "}")
@example(text='{"schema": "rocmate.report/1", "n": ' + "9" * 5000 + "}")
def test_report_json(text: str) -> None:
    LEDGER.example("report-json")
    try:
        report = from_json(text)
    except ReportError:
        return
    assert isinstance(report, Report)
    assert all(run.status in STATUSES for run in report.runs)
    again = from_json(to_json(report))  # what was read can be written and read again
    assert to_json(again) == to_json(report)


@fuzz(200)
@given(data=json_fuzz(SMALL_REPORTS).flatmap(as_bytes))
def test_report_file(data: bytes, tmp_path_factory: pytest.TempPathFactory) -> None:
    LEDGER.example("report-file")
    path = tmp_path_factory.getbasetemp() / "fuzzed-report.json"
    path.write_bytes(data)
    try:
        report = load_report_file(path)
    except ReportError as exc:
        assert str(exc)
        return
    assert isinstance(report, Report)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[History]:
    with History(tmp_path_factory.mktemp("history") / "history.sqlite",
                 identity=Identity()) as h:
        yield h


@fuzz(150)
@given(data=json_fuzz(SMALL_REPORTS).flatmap(as_bytes))
def test_history_import(data: bytes, history: History,
                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """``rocmate report import FILE``: a file read (scrubbed), then stored for comparison."""
    LEDGER.example("history-import")
    path = tmp_path_factory.getbasetemp() / "imported-report.json"
    path.write_bytes(data)
    try:
        report, source = read_scrubbed_report(path, Identity())
    except ReportError:
        return
    ids, _new = history.import_report(report, origin=path.name, source=source)
    assert ids and all(is_int(i) for i in ids)
    stored = history.report(ids[0])
    assert isinstance(stored, Report)


# --------------------------------------------------------------------------------------------
# the privileged helper's input (core/install/helper/validate.py)


AMD_URI = "https://repo.radeon.com/rocm/apt/6.2"
GOOD_STEPS = [
    keyring_step(armor(TRUSTED_KEY), TRUSTED_FPR),
    source_step(source_line(AMD_URI)),
    pin_step(),
    command_step("update", "apt-get", "update"),
    command_step("install", "apt-get", "install", "-y", "--no-install-recommends",
                 "rocm-hip-runtime", "rocminfo"),
    command_step("purge", "apt-get", "purge", "-y", "rocm-core5.7.1", consent=True),
    command_step("groups", "usermod", "-aG", "render,video", "tester", after="relogin"),
]
GOOD_PLAN = json.loads(plan(*GOOD_STEPS))
VERBS = {"keyring", "apt-source", "apt-pin", "apt-update", "apt-install", "apt-purge",
         "usermod"}


@pytest.fixture(scope="module")
def helper_target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    return plain_target(tmp_path_factory.mktemp("helper-root"))


@pytest.fixture(scope="module")
def helper_policy() -> Policy:
    return trusting_policy()


def test_the_good_plan_is_accepted(helper_target: Target, helper_policy: Policy) -> None:
    """The control: the plan the fuzzing starts from passes."""
    result = check_input(plan(*GOOD_STEPS), helper_target, helper_policy)
    assert result.ok, [r.reason for r in result.refused]


@fuzz(500)
@given(raw=st.one_of(json_fuzz([GOOD_PLAN, GOOD_PLAN["steps"]]).flatmap(as_bytes),
                     st.binary(max_size=200)))
@example(raw=b'{"schema": "rocmate.plan/1", "steps": ' + _deep(5000).encode() + b"}")
@example(raw=plan({**GOOD_STEPS[3], "kind": ["command"]}))
@example(raw=plan({**GOOD_STEPS[6], "after": {"relogin": 1}}))
@example(raw=plan({**GOOD_STEPS[0], "file": {**GOOD_STEPS[0]["file"], "source_url": []}}))
def test_helper_input(raw: bytes, helper_target: Target, helper_policy: Policy) -> None:
    LEDGER.example("helper-input")
    try:
        helper_validate.decode(raw)
    except Refused as exc:
        assert str(exc)
    result = check_input(raw, helper_target, helper_policy)
    assert isinstance(result, CheckedPlan)
    assert result.ok == (not result.refused)
    assert not (result.actions and result.refused)
    assert all(isinstance(r.reason, str) and r.reason for r in result.refused)
    assert all(a.verb in VERBS for a in result.actions)


@st.composite
def key_bytes(draw: st.DrawFn) -> bytes:
    data = bytearray(TRUSTED_KEY)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "truncate", "insert", "length"]))
        i = draw(st.integers(0, len(data) - 1)) if data else 0
        if op == "flip" and data:
            data[i] = draw(st.integers(0, 255))
        elif op == "truncate":
            del data[i:]
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "length" and len(data) > 1:
            data[1] = draw(st.sampled_from([0, 191, 192, 223, 254, 255]))
    binary = bytes(data)
    if draw(st.booleans()):
        return draw(damaged(armor(binary), 2)).encode("utf-8", "surrogatepass")
    return binary


@fuzz(300)
@given(data=key_bytes())
def test_helper_openpgp_key(data: bytes) -> None:
    """The key a keyring step carries (the helper trusts it only by its own fingerprint)."""
    LEDGER.example("helper-openpgp-key")
    try:
        key = parse_key(data)
    except KeyFormatError as exc:
        assert str(exc)
        return
    assert isinstance(key, ParsedKey)
    assert re.fullmatch(r"[0-9A-F]{40}", key.fingerprint)


# --------------------------------------------------------------------------------------------
# machine snapshot folders (docs/contracts.md "Machine snapshot v1", read by SnapshotSystem)


SNAPSHOT_MACHINES = ["rx6700xt-ubuntu2204-needs-override", "mi300x-x4-ubuntu2204",
                     "wsl2-ubuntu2204-rx7900xtx-ready", "phoenix-780m-arch-laptop",
                     "kfd-missing-ubuntu2204-server", "rx9070xt-x2-ubuntu2404-rocm711"]
SKIPPED = {"expected.toml", "SOURCE.md"}


def _snapshot_files(machine: str) -> list[str]:
    root = MACHINES / machine
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and not p.is_symlink() and p.name not in SKIPPED)


SNAPSHOT_FILES = {m: _snapshot_files(m) for m in SNAPSHOT_MACHINES}
DOCTOR_VERDICTS = {"Ready", "Ready after these fixes", "Not yet proved", "Not supported"}


@st.composite
def snapshot_change(draw: st.DrawFn) -> tuple[str, list[tuple[str, str, bytes]]]:
    """A machine and what to do to a few of its files: ('write', path, data), ('delete', path),
    ('folder', path) (a folder where a file was), ('loop', path) (a link to itself)."""
    machine = draw(st.sampled_from(SNAPSHOT_MACHINES))
    changes: list[tuple[str, str, bytes]] = []
    for _ in range(draw(st.integers(1, 3))):
        rel = draw(st.sampled_from(SNAPSHOT_FILES[machine]))
        op = draw(st.sampled_from(["write", "write", "write", "delete", "folder", "loop"]))
        data = b""
        if op == "write":
            original = (MACHINES / machine / rel).read_bytes()
            text = original.decode("utf-8", "replace")
            if rel.endswith(".json"):
                try:
                    mutated = draw(json_fuzz([json.loads(text)]))
                except ValueError:
                    mutated = draw(damaged(text))
            else:
                mutated = draw(damaged(text))
            data = draw(as_bytes(mutated))
        changes.append((op, rel, data))
    return machine, changes


def _apply(root: Path, changes: list[tuple[str, str, bytes]]) -> None:
    for op, rel, data in changes:
        path = root / rel
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if op == "write":
            path.write_bytes(data)
        elif op == "folder":
            path.mkdir()
        elif op == "loop":
            path.symlink_to(path.name)


@fuzz(200)
@given(change=snapshot_change())
@example(change=("rx6700xt-ubuntu2204-needs-override",
                 [("write", "devices.json", b'{"/dev/kfd": ' + _deep(5000).encode() + b"}")]))
@example(change=("phoenix-780m-arch-laptop",
                 [("write", "files/proc/sys/kernel/osrelease", b"\x006.12.10-arch1-1\n")]))
def test_snapshot_folder(change: tuple[str, list[tuple[str, str, bytes]]], kb: Knowledge) -> None:
    """A recorded machine with a few of its files damaged: the snapshot reader and the doctor
    on top of it give an answer, never a traceback."""
    LEDGER.example("snapshot-folder")
    machine, changes = change
    root = Path(tempfile.mkdtemp(prefix="fuzz-snapshot-"))
    try:
        shutil.copytree(MACHINES / machine, root, dirs_exist_ok=True, symlinks=True)
        _apply(root, changes)
        system = SnapshotSystem(root)
        env = system.env()
        assert str_dict(dict(env))
        user = system.user()
        assert isinstance(user, UserInfo) and isinstance(user.name, str) and is_int(user.uid)
        assert isinstance(user.home, str) and str_tuple(user.groups)
        assert isinstance(system.device("/dev/kfd"), DeviceAccess)
        assert all(isinstance(n, str) for n in system.device_nodes("/dev/dri"))
        assert opt(system.disk_free(user.home), int)
        assert opt(system.answer("torch", lambda s: {}), dict)
        for _op, rel, _data in changes:
            if rel.startswith("files/"):
                machine_path = "/" + rel.removeprefix("files/")
                assert opt(system.read_text(machine_path), str)
                assert isinstance(system.resolve(machine_path), str)
            elif rel.startswith("commands/") and rel.endswith(".txt"):
                assert isinstance(system.run([rel.removeprefix("commands/")]), CommandResult)
        answer = run_doctor(SnapshotSystem(root), kb=kb).to_json()
        json.dumps(answer)
        assert answer["verdict"] in DOCTOR_VERDICTS
        assert all(f["id"] and f["title"] for f in answer["findings"])
    finally:
        shutil.rmtree(root)
