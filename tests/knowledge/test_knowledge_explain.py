"""`rocmate explain` patterns against real error transcripts (tests/fixtures/errors/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.diagnose.finding import REQUIRED_IDS
from core.knowledge.loader import Knowledge, load_knowledge

ERRORS = Path(__file__).resolve().parents[1] / "fixtures" / "errors"

# The finding ids DESIGN.md requires the doctor to have ("Finding ids that must exist").
DESIGN_FINDINGS = frozenset(REQUIRED_IDS)

# fixture file -> the pattern that must match first
FIRST_MATCH = {
    "amd-smi-version-flag-invalid-subcommand.txt": "amd-smi-invalid-command",
    "amdgpu-install-wsl-usecase-pip-root-warning.txt": "amdgpu-install-wsl-usecase",
    "apt-conflicting-signed-by-generic-format-pve9.txt": "apt-conflicting-signed-by",
    "apt-expkeysig-rocm-2019.txt": "apt-rocm-key-expired",
    "apt-key-no-valid-openpgp-rocm45-unable-to-locate-rocm-dkms.txt": "apt-key-no-valid-openpgp",
    "apt-no-pubkey-amdgpu-642-noble.txt": "apt-rocm-no-pubkey",
    "apt-no-pubkey-rocm351-xenial-on-focal.txt": "apt-rocm-no-pubkey",
    "apt-rocm-repo-no-release-file-404.txt": "apt-repo-no-release-file",
    "apt-sqv-signing-key-not-bound-sha1-rocm644.txt": "apt-sqv-sha1-key",
    "dpkg-rock-dkms-rocm-dkms-errors-pop-os.txt": "dkms-build-failed",
    "gloo-recv-timeout-rocmate-stuck-rank.txt": "collective-timeout",
    "nccl-watchdog-collective-timeout-basicsr-737.txt": "collective-timeout",
    "hip-invalid-device-function-amd-log-level-trace-mi250x.txt": "hip-invalid-device-function",
    "hip-invalid-device-function-rx6600-arch.txt": "hip-invalid-device-function",
    "hip-invalid-device-function-torch-acceleratorerror-rocm70-nightly.txt": (
        "hip-invalid-device-function"
    ),
    "hipErrorNoBinaryForGpu-easydiffusion-arch.txt": "hip-no-binary-for-gpu",
    "miopen-hiprtc-compile-fail-windows-gfx1151.txt": "miopen-hiprtc-compile-failed",
    "no-hip-gpus-available-rocm40-get-device-name.txt": "no-hip-gpus",
    "no-hip-gpus-available-selfbuilt-pytorch-mi300.txt": "no-hip-gpus",
    "pip-uninstall-cuda-torch-on-amd-debian-fooocus.txt": "pip-cuda-torch-on-amd",
    "rocblas-tensile-illegal-seek-gfx900-torch-nightly-rocm72.txt": "rocblas-no-kernels-for-arch",
    "rocm350-ubuntu-server-no-kfd-rocminfo-clinfo-rocmsmi.txt": "rock-module-not-loaded",
    "rocminfo-dev-kfd-cannot-allocate-memory-pitcairn-not-supported.txt": "kfd-asic-not-supported",
    "rocminfo-dev-kfd-invalid-argument-nogroup-mi300x-container.txt": "kfd-invalid-argument",
    "rocminfo-dev-kfd-permission-denied-docker-rocm-terminal.txt": "kfd-permission-denied",
    "rocminfo-killed-hsa-enable-sdma0-rx9070xt.txt": "rocminfo-killed-sdma",
    "rocminfo-no-such-file-dev-kfd-docker-navi21.txt": "kfd-no-such-file",
    "torch-not-compiled-with-cuda-windows-rocm-7900xt.txt": "torch-not-compiled-with-cuda",
    # issue 32, item 5 (threads in ../shared/research/rocm-2026.md, "Error texts users paste")
    "hw-exception-gpu-hang-r9700-rocm713-raylight.txt": "gpu-hang-hw-exception",
    "kfd-ih-fifo-overflow-gfx1151-override-12-0-1.txt": "kfd-ih-fifo-overflow",
    "hipblaslt-unsupported-architecture-warning-gfx908.txt": "hipblaslt-unsupported-arch",
    "wsl-rocr-unsupported-gpu-rocminfo-7600xt.txt": "wsl-rocr-unsupported-gpu",
    "wsl-hsa-out-of-resources-rocminfo-7900xt.txt": "hsa-out-of-resources",
    "wsl-thunk-proxy-queryadapterinfo-assert-7900xtx.txt": "wsl-thunk-proxy-assert",
    "wsl-no-wddm-adapters-ryzen-ai-max-rocm72.txt": "wsl-no-wddm-adapters",
    "libmiopen-so-cannot-open-therock-gfx1151-wheel.txt": "rocm-library-not-found",
    "libtorch-cuda-so-with-rocm-wheel-780m.txt": "libtorch-cuda-in-rocm-torch",
    "libstdcxx-so-6-nixos-pip-torch-speech2text.txt": "libstdcxx-not-found",
    "segfault-after-first-gpu-call-torch-exit.txt": "segfault-torch",
    "miopen-incorrect-params-forward-convolution-dcu.txt": "miopen-incorrect-params",
    "miopen-code-object-build-failed-comgr-vega-gfx900.txt": "miopen-code-object-build-failed",
}

# further patterns each transcript must also produce (the secondary lines in it)
ALSO = {
    "rocm350-ubuntu-server-no-kfd-rocminfo-clinfo-rocmsmi.txt": {
        "kfd-no-such-file", "hsa-out-of-resources",
    },
    "rocminfo-dev-kfd-cannot-allocate-memory-pitcairn-not-supported.txt": {
        "kfd-cannot-allocate-memory", "hsa-out-of-resources",
    },
    "apt-key-no-valid-openpgp-rocm45-unable-to-locate-rocm-dkms.txt": {
        "apt-key-deprecated", "apt-unable-to-locate-rocm-package",
    },
    "dpkg-rock-dkms-rocm-dkms-errors-pop-os.txt": {"kfd-permission-denied"},
    "wsl-rocr-unsupported-gpu-rocminfo-7600xt.txt": {"hsa-out-of-resources"},
    "wsl-no-wddm-adapters-ryzen-ai-max-rocm72.txt": {"rock-module-not-loaded"},
}


@pytest.fixture(scope="module")
def kb() -> Knowledge:
    return load_knowledge()


def _body(text: str) -> str:
    """The transcript without the three '# source/machine/note' header lines."""
    return text.split("\n\n", 1)[1] if text.startswith("# source:") else text


def test_every_fixture_is_listed() -> None:
    files = {path.name for path in ERRORS.glob("*.txt")}
    assert files == set(FIRST_MATCH)


def test_fixtures_keep_their_source_header() -> None:
    for path in ERRORS.glob("*.txt"):
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# source: "), path.name
        assert lines[1].startswith("# machine: "), path.name
        assert lines[2].startswith("# note: "), path.name


@pytest.mark.parametrize("name", sorted(FIRST_MATCH))
def test_fixture_matches_expected_pattern_first(kb: Knowledge, name: str) -> None:
    text = (ERRORS / name).read_text(encoding="utf-8")
    for variant in (text, _body(text)):
        ids = [pattern.id for pattern in kb.match_errors(variant)]
        assert ids, f"{name}: no pattern matched"
        assert ids[0] == FIRST_MATCH[name], f"{name}: {ids}"
        assert ALSO.get(name, set()) <= set(ids), f"{name}: {ids}"


@pytest.mark.parametrize(
    ("text", "pattern_id"),
    [
        ("RuntimeError: HIP out of memory. Tried to allocate 2.00 GiB", "hip-out-of-memory"),
        (
            "hsa api call failure ... HSA_STATUS_ERROR_INVALID_ISA: "
            "The instruction set architecture is invalid.",
            "hsa-invalid-isa",
        ),
        ("RuntimeError: HIP error: hipErrorNoDevice", "hip-no-device"),
        (
            "rocminfo: topology.c:1052: ... Assertion `props->EngineId.ui32.Major && "
            '"HSA_OVERRIDE_GFX_VERSION may be needed"\' failed.',
            "hsa-override-assert",
        ),
        (
            "Warning: apt-key is deprecated. Manage keyring files in trusted.gpg.d instead "
            "(see apt-key(8)).",
            "apt-key-deprecated",
        ),
        (
            ":1:hip_code_object.cpp :507 : Pcie atomics not enabled, hostcall not supported",
            "pcie-atomics-missing",
        ),
        (
            "kfd kfd: amdgpu: skipped device 1002:73bf, PCI rejects atomics 730<0",
            "pcie-atomics-missing",
        ),
        ("[ 1234.5] amdgpu 0000:03:00.0: amdgpu: GPU reset begin!", "gpu-hang-reset"),
        (
            "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1",
            "gpu-hang-reset",
        ),
        ("amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32769)", "gpu-hang-reset"),
        ("RuntimeError: GPU has been physically removed", "gpu-physically-removed"),
        ("E: Unable to locate package rocm-hip-sdk", "apt-unable-to-locate-rocm-package"),
        ("dpkg: error processing package amdgpu-dkms (--configure):", "dkms-build-failed"),
        ("Unable to open /dev/kfd read-write: Operation not permitted", "kfd-permission-denied"),
        ("ROCk module is NOT loaded, possibly no GPU devices", "rock-module-not-loaded"),
        (
            "Collecting torch\n  Downloading torch-2.4.1+cu121-cp311-cp311-linux_x86_64.whl",
            "pip-cuda-torch-on-amd",
        ),
    ],
)
def test_required_messages(kb: Knowledge, text: str, pattern_id: str) -> None:
    ids = [pattern.id for pattern in kb.match_errors(text)]
    assert ids and ids[0] == pattern_id, ids


def test_loaded_is_not_not_loaded(kb: Knowledge) -> None:
    ids = [p.id for p in kb.match_errors("ROCk module is loaded")]
    assert "rock-module-not-loaded" not in ids


def test_unrelated_text_matches_nothing(kb: Knowledge) -> None:
    assert kb.match_errors("Everything worked: 42 images/s") == []


# finding ids beyond the required ones that rows may name: each must be one the doctor emits
# (its literal is in core/diagnose/)
OTHER_FINDINGS = frozenset({"wsl-gpu-unsupported", "known-bad-stack"})


def test_findings_are_design_ids(kb: Knowledge) -> None:
    used = {finding for pattern in kb.patterns
            for finding in (*pattern.findings, *(pattern.findings_wsl or ()))}
    assert used, "no pattern names a confirming finding"
    assert used <= DESIGN_FINDINGS | OTHER_FINDINGS, used - DESIGN_FINDINGS - OTHER_FINDINGS
    rules = "".join(path.read_text(encoding="utf-8") for path in
                    (Path(__file__).resolve().parents[2] / "core" / "diagnose").glob("*.py"))
    for finding in OTHER_FINDINGS:
        assert f'"{finding}"' in rules, finding


def test_patterns_are_complete(kb: Knowledge) -> None:
    for pattern in kb.patterns:
        assert pattern.title and pattern.cause and pattern.fix and pattern.source
        assert pattern.regexes and len(pattern.regexes) == len(pattern.match)
    assert kb.pattern("no-hip-gpus") is not None
    assert kb.pattern("nope") is None
