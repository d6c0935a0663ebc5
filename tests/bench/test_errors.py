"""Errors become one kind with advice; checked against error texts real users posted."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.bench.failures import failure_patterns
from core.bench.worker import errors

# The error texts the host hands to the worker (resources/data/explain.toml rows with a kind).
PATTERNS = failure_patterns()

ERRORS = Path(__file__).resolve().parents[1] / "fixtures" / "errors"


def body(name: str) -> str:
    """A fixture's output without its three header lines (see tests/fixtures/errors)."""
    return (ERRORS / name).read_text(encoding="utf-8").split("\n\n", 1)[1]


@pytest.mark.parametrize(
    ("fixture", "kind"),
    [
        ("hipErrorNoBinaryForGpu-easydiffusion-arch.txt", "no-binary-for-gpu"),
        ("hip-invalid-device-function-rx6600-arch.txt", "no-binary-for-gpu"),
        ("hip-invalid-device-function-torch-acceleratorerror-rocm70-nightly.txt",
         "no-binary-for-gpu"),
        ("hip-invalid-device-function-amd-log-level-trace-mi250x.txt", "no-binary-for-gpu"),
        ("no-hip-gpus-available-rocm40-get-device-name.txt", "no-gpu"),
        ("no-hip-gpus-available-selfbuilt-pytorch-mi300.txt", "no-gpu"),
        ("torch-not-compiled-with-cuda-windows-rocm-7900xt.txt", "no-gpu"),
        ("rocblas-tensile-illegal-seek-gfx900-torch-nightly-rocm72.txt", "no-binary-for-gpu"),
    ],
)
def test_real_error_texts_are_classified(fixture: str, kind: str) -> None:
    assert errors.classify_text(body(fixture), PATTERNS) == kind


@pytest.mark.parametrize(
    "text",
    [
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 20.00 MiB. GPU 0 has a "
        "total capacity of 23.98 GiB of which 3.00 MiB is free.",
        "RuntimeError: CUDA error: out of memory",
        "RuntimeError: [enforce fail at alloc_cpu.cpp:121] data. DefaultCPUAllocator: can't "
        "allocate memory: you tried to allocate 2458664960 bytes. Error code 12",
        "hipErrorOutOfMemory",
    ],
)
def test_out_of_memory_wordings(text: str) -> None:
    assert errors.classify_text(text, PATTERNS) == "oom"


def test_oom_advice_names_a_smaller_batch_and_the_allocator_setting() -> None:
    ctx = errors.Context(suite="resnet50-train", backend="hip", batch_size=64)
    advice = errors.advice_for("oom", ctx)
    assert "--batch-size 32" in advice
    assert "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True" in advice
    cuda = errors.advice_for("oom", errors.Context(backend="cuda", suite="llm-train"))
    assert "PYTORCH_CUDA_ALLOC_CONF" in cuda and "--preset" in cuda


def test_no_binary_advice_points_to_the_override_finding() -> None:
    advice = errors.advice_for("no-binary-for-gpu", errors.Context(arch="gfx1032"))
    assert "HSA_OVERRIDE_GFX_VERSION" in advice and "gfx-needs-override" in advice
    assert "gfx1032" in advice


def test_exceptions_are_classified() -> None:
    ctx = errors.Context(python="/venv/bin/python")
    missing = from_exception(ModuleNotFoundError("No module named 'diffusers'",
                                                        name="diffusers"), ctx)
    assert missing.kind == "missing-package" and missing.package == "diffusers"
    assert "/venv/bin/python -m pip install diffusers" in missing.advice
    assert from_exception(MemoryError(), ctx).kind == "oom"
    assert from_exception(KeyboardInterrupt(), ctx).kind == "interrupted"
    other = from_exception(ValueError("bad thing\nmore about it"), ctx)
    assert other.kind == "other" and other.message == "ValueError: bad thing"
    assert "ValueError" in other.detail


def test_a_gpu_fault_gets_override_advice() -> None:
    info = errors.from_output("Memory access fault by GPU node-1 (Agent handle: 0x5)",
                              errors.Context(), message="killed", patterns=PATTERNS)
    assert info.kind == "other" and "override-wrong" in info.advice


def test_a_rocblas_abort_on_a_dead_worker_gets_the_override_advice() -> None:
    info = errors.from_output(body("rocblas-tensile-illegal-seek-gfx900-torch-nightly-rocm72.txt"),
                              errors.Context(arch="gfx900"), message="killed by SIGABRT",
                              patterns=PATTERNS)
    assert info.kind == "no-binary-for-gpu" and "HSA_OVERRIDE_GFX_VERSION" in info.advice


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        # torch's device errors end with hints about debugging, not with the error
        ("HIP error: invalid device function\nHIP kernel errors might be asynchronously reported "
         "at some other API call, so the stacktrace below might be incorrect.\nFor debugging "
         "consider passing AMD_SERIALIZE_KERNEL=3\nCompile with `TORCH_USE_HIP_DSA` to enable "
         "device-side assertions.", "no-binary-for-gpu", "HIP error: invalid device function"),
        ("CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported at some "
         "other API call\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
         "oom", "CUDA error: out of memory"),
        # an out-of-memory inside torch.compile, wrapped by dynamo
        ("backend='inductor' raised:\nOutOfMemoryError: HIP out of memory. Tried to allocate "
         "2.00 GiB.\n\nSet TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this "
         "especially if you're reporting a bug to PyTorch).", "oom",
         "OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB."),
    ],
)
def test_the_message_is_the_line_that_says_what_failed(text: str, kind: str,
                                                       message: str) -> None:
    info = from_exception(RuntimeError(text), errors.Context())
    assert (info.kind, info.message) == (kind, message)


def test_a_broken_package_is_told_apart_from_a_missing_one(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    import types

    monkeypatch.setitem(__import__("sys").modules, "fakepkg", types.ModuleType("fakepkg"))
    ctx = errors.Context(python="/venv/bin/python")
    broken = from_exception(ModuleNotFoundError("No module named 'fakepkg._C'",
                                                       name="fakepkg._C"), ctx)
    assert broken.kind == "missing-package" and "broken" in broken.message
    assert "--force-reinstall fakepkg" in broken.advice
    pil = from_exception(ModuleNotFoundError("No module named 'PIL'", name="PIL"), ctx)
    assert pil.package == "Pillow" and "pip install Pillow" in pil.advice


def from_exception(exc: BaseException, ctx: errors.Context) -> errors.ErrorInfo:
    return errors.from_exception(exc, ctx, PATTERNS)


def test_the_worker_reads_the_patterns_the_host_hands_it(tmp_path: Path) -> None:
    from core.bench.failures import hand_to_worker

    hand_to_worker(tmp_path)
    assert errors.load_patterns(tmp_path) == PATTERNS
    assert errors.load_patterns(tmp_path / "nowhere") == {}
    assert errors.classify_text("HIP out of memory. Tried to allocate 2 GiB", {}) is None


def test_explain_and_the_worker_share_one_set_of_texts() -> None:
    """Every text the worker sorts by comes from a pattern `rocmate explain` matches too."""
    from core.knowledge.loader import load_knowledge

    kb = load_knowledge()
    for kind, regexes in PATTERNS.items():
        for regex in regexes:
            owners = [p for p in kb.patterns if regex in p.match]
            assert owners and all(p.kind == kind for p in owners), regex
    fault = "Memory access fault by GPU node-1 (Agent handle: 0x55d0) on address 0x7f. Reason: " \
            "Page not present or supervisor privilege."
    assert next(p.id for p in kb.match_errors(fault)) == "gpu-memory-access-fault"
    assert errors.classify_text(fault, PATTERNS) == "gpu-fault"


def test_a_system_python_is_not_told_to_pip_install() -> None:
    """Debian's python3 refuses pip (PEP 668): the advice is a virtual environment."""
    ctx = errors.Context(python="/usr/bin/python3", externally_managed=True)
    info = from_exception(ModuleNotFoundError("No module named 'torch'", name="torch"), ctx)
    assert "virtual environment" in info.advice and "rocmate install" in info.advice
    assert "/usr/bin/python3 -m pip install" not in info.advice
    assert "pip install torch" not in info.advice  # PyPI's torch is a CUDA build (issue 30/9)
    info = from_exception(ModuleNotFoundError("No module named 'diffusers'", name="diffusers"),
                          ctx)
    assert "python3 -m venv" in info.advice and "pip install diffusers" in info.advice
    assert errors.externally_managed() is False  # the tests' own Python is a venv
