"""rocminfo parsing against real outputs users posted, and against garbage."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.probe.parse.rocminfo import RocmAgent, RocminfoReport, parse_rocminfo

Loader = Callable[[str], str]

# GPU agents as (index, name, marketing name, gfx, compute units, chip id, node, VRAM GiB).
GpuRow = tuple[int, str, str | None, str | None, int | None, str | None, int | None, float | None]


def _gpu_rows(report: RocminfoReport) -> list[GpuRow]:
    return [
        (
            agent.index,
            agent.name,
            agent.marketing_name,
            agent.gfx,
            agent.compute_units,
            agent.chip_id,
            agent.node,
            round(agent.vram_bytes / 2**30, 2) if agent.vram_bytes else None,
        )
        for agent in report.gpus
    ]


# file -> (agent count, CPU agent count, GPU rows, runtime version, rock version)
SUCCESSFUL = {
    "rocminfo/rx6700xt-i3-12100f.txt": (
        2,
        1,
        [(2, "gfx1030", "AMD Radeon RX 6700 XT", "gfx1030", 40, "73df", 1, 11.98)],
        "1.1",
        None,
    ),
    "rocminfo/rx6800xt-gfx1030-ryzen7-5700g-arch-backslash-escaped.txt": (
        2,
        1,
        [(2, "gfx1030", "AMD Radeon RX 6800 XT", "gfx1030", 72, "73bf", 1, 15.98)],
        "1.1",
        None,
    ),
    "rocminfo/mi210-x4-threadripper-pro-7975wx-tmux-markers-rocm624.txt": (
        5,
        1,
        [
            (i, "gfx90a", "AMD Instinct MI210", "gfx90a", 104, "740f", i - 1, 63.98)
            for i in range(2, 6)
        ],
        "1.14",
        "6.10.5",
    ),
    "rocminfo/mi25-x7-threadripper3955wx.txt": (
        8,
        1,
        [
            (i, "gfx900", "Radeon Instinct MI25", "gfx900", 64, "6860", i - 1, 15.98)
            for i in range(2, 9)
        ],
        "1.1",
        None,
    ),
    "rocminfo/mi300x-x4-epyc9474f.txt": (
        6,
        2,
        [
            (i, "gfx942", "AMD Instinct MI300X", "gfx942", 304, "74a1", i - 1, 191.98)
            for i in range(3, 7)
        ],
        "1.1",
        None,
    ),
    "rocminfo/vega20-x8-epyc7551p-ansi-colors.txt": (
        12,
        4,
        [(i, "gfx906", "Vega 20", "gfx906", 60, "66a1", i - 1, 31.98) for i in range(5, 13)],
        "1.1",
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(SUCCESSFUL))
def test_successful_outputs(name: str, load_output: Loader) -> None:
    count, cpus, gpus, runtime, rock_version = SUCCESSFUL[name]
    report = parse_rocminfo(load_output(name))
    assert len(report.agents) == count
    assert sum(agent.device_type == "CPU" for agent in report.agents) == cpus
    assert _gpu_rows(report) == gpus
    assert report.runtime_version == runtime
    assert report.rock_loaded is True
    assert report.rock_version == rock_version
    assert report.error is None
    assert report.problems == ()
    assert [agent.index for agent in report.agents] == list(range(1, count + 1))


def test_rx6700xt_reports_the_override_not_the_real_target(load_output: Loader) -> None:
    # Chip 0x73df is Navi 22 (gfx1031); the user ran with HSA_OVERRIDE_GFX_VERSION=10.3.0,
    # so the runtime names the agent gfx1030. The real target must come from KFD sysfs.
    gpu = parse_rocminfo(load_output("rocminfo/rx6700xt-i3-12100f.txt")).gpus[0]
    assert (gpu.chip_id, gpu.gfx, gpu.isa) == ("73df", "gfx1030", ("amdgcn-amd-amdhsa--gfx1030",))
    assert gpu.uuid == "GPU-XX" and gpu.vendor_name == "AMD" and gpu.bdfid == 768


def test_cpu_agent_fields(load_output: Loader) -> None:
    cpu = parse_rocminfo(load_output("rocminfo/rx6700xt-i3-12100f.txt")).agents[0]
    assert cpu == RocmAgent(
        index=1,
        name="12th Gen Intel(R) Core(TM) i3-12100F",
        marketing_name="12th Gen Intel(R) Core(TM) i3-12100F",
        vendor_name="CPU",
        device_type="CPU",
        uuid="CPU-XX",
        node=0,
        compute_units=8,
        bdfid=0,
    )


def test_isa_keeps_feature_suffix_and_gfx_strips_it(load_output: Loader) -> None:
    report = parse_rocminfo(load_output("rocminfo/mi300x-x4-epyc9474f.txt"))
    gpu = report.gpus[0]
    assert gpu.isa == ("amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",)
    assert gpu.gfx == "gfx942"
    assert [g.uuid for g in report.gpus] == [
        "GPU-8d1457e2c20f59d2",
        "GPU-b4fa34630e85d42a",
        "GPU-e8986800e182538a",
        "GPU-eff71edc82169115",
    ]
    assert gpu.bdfid == 9728  # 0x2600 -> bus 26, as rocm-smi's PCI Bus 0000:26:00.0


def test_mi25_empty_uuid_is_none(load_output: Loader) -> None:
    report = parse_rocminfo(load_output("rocminfo/mi25-x7-threadripper3955wx.txt"))
    assert [agent.uuid for agent in report.agents] == [None] * 7 + ["GPU-0213fb02cc8c08a4"]
    assert report.gpus[0].isa == ("amdgcn-amd-amdhsa--gfx900:xnack-",)


def test_tmux_markers_do_not_leak_into_values(load_output: Loader) -> None:
    report = parse_rocminfo(
        load_output("rocminfo/mi210-x4-threadripper-pro-7975wx-tmux-markers-rocm624.txt")
    )
    assert report.agents[0].name == "AMD Ryzen Threadripper PRO 7975WX 32-Cores"
    assert report.agents[0].compute_units == 64
    assert report.gpus[0].uuid == "GPU-29273e62ca00396c"


def test_old_rocm1x_snippet_without_agent_header(load_output: Loader) -> None:
    report = parse_rocminfo(
        load_output("rocminfo/old-rocm1x-format-snippet-no-hex-acessible-typo.txt")
    )
    (agent,) = report.agents
    assert (agent.name, agent.device_type, agent.node, agent.compute_units) == ("", "CPU", 0, 12)
    assert agent.vram_bytes is None
    assert report.error is None
    assert report.problems == ("agent data without an 'Agent N' header (excerpt or cut output)",)


def test_grep_excerpt_gives_agents_by_name(load_output: Loader) -> None:
    report = parse_rocminfo(
        load_output("os/issue-template-os-cpu-gpu-grep-fedora43-strix-halo.txt")
    )
    names = [(agent.name, agent.marketing_name, agent.gfx) for agent in report.agents]
    assert names == [
        ("AMD RYZEN AI MAX+ 395 w/ Radeon 8060S", "AMD RYZEN AI MAX+ 395 w/ Radeon 8060S", None),
        ("gfx1151", "Radeon 8060S Graphics", "gfx1151"),
        ("aie2", "AIE-ML", None),
    ]
    assert report.agents[1].isa == (
        "amdgcn-amd-amdhsa--gfx1151",
        "amdgcn-amd-amdhsa--gfx11-generic",
    )


# file -> (error, hsa_status, kfd_open_error, rock_loaded)
FAILED = {
    "rocminfo/error-out-of-resources-no-kfd-rocm350.txt": (
        "Unable to open /dev/kfd read-write: No such file or directory",
        "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
        "No such file or directory",
        False,
    ),
    "errors/rocm350-ubuntu-server-no-kfd-rocminfo-clinfo-rocmsmi.txt": (
        "Unable to open /dev/kfd read-write: No such file or directory",
        "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
        "No such file or directory",
        False,
    ),
    "errors/rocminfo-dev-kfd-cannot-allocate-memory-pitcairn-not-supported.txt": (
        "Unable to open /dev/kfd read-write: Cannot allocate memory",
        "HSA_STATUS_ERROR_OUT_OF_RESOURCES",
        "Cannot allocate memory",
        True,
    ),
    "errors/rocminfo-dev-kfd-invalid-argument-nogroup-mi300x-container.txt": (
        "Unable to open /dev/kfd read-write: Invalid argument",
        None,
        "Invalid argument",
        True,
    ),
    "errors/rocminfo-dev-kfd-permission-denied-docker-rocm-terminal.txt": (
        "Unable to open /dev/kfd read-write: Permission denied",
        None,
        "Permission denied",
        True,
    ),
    "errors/rocminfo-no-such-file-dev-kfd-docker-navi21.txt": (
        "Unable to open /dev/kfd read-write: No such file or directory",
        None,
        "No such file or directory",
        True,
    ),
    "errors/dpkg-rock-dkms-rocm-dkms-errors-pop-os.txt": (
        "Unable to open /dev/kfd read-write: Operation not permitted",
        None,
        "Operation not permitted",
        None,
    ),
    "errors/rocminfo-killed-hsa-enable-sdma0-rx9070xt.txt": ("killed", None, None, None),
}


@pytest.mark.parametrize("name", sorted(FAILED))
def test_failed_runs(name: str, load_output: Loader) -> None:
    error, hsa_status, kfd_reason, rock_loaded = FAILED[name]
    report = parse_rocminfo(load_output(name))
    assert report.agents == ()
    assert report.error == error
    assert report.hsa_status == hsa_status
    assert report.kfd_open_error == kfd_reason
    assert report.rock_loaded is rock_loaded
    assert error in report.problems


def test_failure_lines_all_listed(load_output: Loader) -> None:
    report = parse_rocminfo(load_output("rocminfo/error-out-of-resources-no-kfd-rocm350.txt"))
    assert report.problems[:3] == (
        "ROCk module is NOT loaded, possibly no GPU devices",
        "Unable to open /dev/kfd read-write: No such file or directory",
        "hsa api call failure at: /src/rocminfo/rocminfo.cc:1142",
    )
    assert report.problems[3].startswith("Call returned HSA_STATUS_ERROR_OUT_OF_RESOURCES:")


def test_group_warning_is_a_problem(load_output: Loader) -> None:
    report = parse_rocminfo(
        load_output("errors/rocminfo-dev-kfd-permission-denied-docker-rocm-terminal.txt")
    )
    assert "Failed to get user name to check for video group membership" in report.problems


def test_every_rocminfo_fixture_has_expectations(
    outputs_in: Callable[[str], dict[str, str]],
) -> None:
    covered = (
        set(SUCCESSFUL)
        | set(FAILED)
        | {"rocminfo/old-rocm1x-format-snippet-no-hex-acessible-typo.txt"}
    )
    assert set(outputs_in("rocminfo")) <= covered


def test_truncated_output_is_flagged(load_output: Loader) -> None:
    text = load_output("rocminfo/rx6700xt-i3-12100f.txt")
    report = parse_rocminfo(text[: text.index("Agent 2") + 200])
    assert [agent.index for agent in report.agents] == [1, 2]
    assert report.agents[1].name == "gfx1030"
    assert "output ends before '*** Done ***' (truncated?)" in report.problems


def test_crlf_and_colour_give_the_same_result(load_output: Loader) -> None:
    text = load_output("rocminfo/mi300x-x4-epyc9474f.txt")
    coloured = "\n".join(f"\x1b[1;32m{line}\x1b[0m" for line in text.split("\n"))
    assert parse_rocminfo(text.replace("\n", "\r\n")) == parse_rocminfo(text)
    assert parse_rocminfo(coloured) == parse_rocminfo(text)


def test_empty_and_unrelated_text() -> None:
    assert parse_rocminfo("") == RocminfoReport((), None, None, ("no HSA agents found",))
    report = parse_rocminfo("bash: rocminfo: command not found\n")
    assert report.error == "bash: rocminfo: command not found"
    assert report.agents == ()


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_never_raises_on_text(text: str) -> None:
    _check_types(parse_rocminfo(text))


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=2000))
def test_never_raises_on_bytes(data: bytes) -> None:
    _check_types(parse_rocminfo(data.decode("utf-8", errors="replace")))


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(SUCCESSFUL)), fraction=st.floats(0, 1))
def test_never_raises_on_prefixes(name: str, fraction: float, load_output: Loader) -> None:
    text = load_output(name)
    report = parse_rocminfo(text[: int(len(text) * fraction)])
    _check_types(report)
    full = parse_rocminfo(text)
    assert len(report.agents) <= len(full.agents)


def _check_types(report: RocminfoReport) -> None:
    assert isinstance(report, RocminfoReport)
    assert all(isinstance(problem, str) for problem in report.problems)
    assert report.error is None or isinstance(report.error, str)
    for agent in report.agents:
        assert isinstance(agent.name, str) and isinstance(agent.index, int)
        assert agent.gfx is None or agent.gfx.startswith("gfx")
        assert all(isinstance(entry, str) for entry in agent.isa)
