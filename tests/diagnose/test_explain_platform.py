"""`rocmate explain` gives the fix for the platform the error came from, says that newer runtimes
refuse a cross-generation override, and sends bug reports where AMD takes them now (issue 32,
item 5).

Transcripts (tests/fixtures/errors/, each with its source line):
- wsl-hsa-out-of-resources-rocminfo-7900xt.txt: ROCm/legacy-rocm-build#3677, rocminfo under WSL 2
  (RX 7900 XT). Under WSL there is no /dev/kfd and no render group; the fix is the Windows driver
  and AMD's WSL runtime (librocdxg).
- hw-exception-gpu-hang-r9700-rocm713-raylight.txt: komikndr/raylight#102, "HW Exception by GPU
  node-1 ... GPU Hang" on native Linux.
Machines (tests/fixtures/machines/, SOURCE.md in each):
- wsl2-ubuntu2204-rx7900xtx-ready: a WSL 2 machine; rx6700xt-ubuntu2204-needs-override: native.
- rx7900xtx-override-wrong-bashrc: an RX 7900 XTX (gfx1100) with HSA_OVERRIDE_GFX_VERSION=10.3.0
  in .bashrc: a gfx11 card posing as gfx10, which ROCm/rocm-systems PR #5686 makes runtimes refuse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomllib

from core.diagnose.explain import cross_generation, explain, gfx_generation, render_explanations
from core.i18n import set_language
from core.knowledge.loader import load_knowledge
from core.operations.machine import explain_error

ROOT = Path(__file__).resolve().parents[2]
MACHINES = ROOT / "tests" / "fixtures" / "machines"
ERRORS = ROOT / "tests" / "fixtures" / "errors"
WSL_MACHINE = MACHINES / "wsl2-ubuntu2204-rx7900xtx-ready"
NATIVE = MACHINES / "rx6700xt-ubuntu2204-needs-override"
CROSS = MACHINES / "rx7900xtx-override-wrong-bashrc"


def _body(name: str) -> str:
    """A transcript without its '# source/machine/note' header."""
    return (ERRORS / name).read_text(encoding="utf-8").split("\n\n", 1)[1]


WSL_OOR = _body("wsl-hsa-out-of-resources-rocminfo-7900xt.txt")
HANG = _body("hw-exception-gpu-hang-r9700-rocm713-raylight.txt")
# the bare line as a ROCm program prints it on any platform (its shape in the transcript above)
BARE_OOR = WSL_OOR.splitlines()[-1]
BARE_METAL_ADVICE = re.compile(r"usermod|render,video|/dev/kfd\b.*group|modprobe amdgpu")


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    set_language("en")
    yield
    set_language(None)


def _match(text: str, root: Path | None, pattern: str) -> dict[str, object]:
    explained = explain_error(text, root, probe_torch=False) if root else None
    items = (explained.explanations if explained is not None
             else tuple(explain(text, load_knowledge(), None)))
    found = [e.to_json() for e in items if e.pattern.id == pattern]
    assert found, [e.pattern.id for e in items]
    return found[0]


def test_wsl_transcript_gets_the_windows_driver_not_the_render_group() -> None:
    # the text says WSL ("WSL environment detected."): whatever machine explain runs on
    for root in (None, NATIVE):
        answer = _match(WSL_OOR, root, "hsa-out-of-resources")
        assert answer["platform"] == "wsl"
        fix, cause = str(answer["fix"]), str(answer["cause"])
        assert not BARE_METAL_ADVICE.search(fix), fix
        assert "Adrenalin" in fix and "librocdxg" in fix and "wsl --shutdown" in fix
        assert "no render group" in cause


def test_the_same_line_on_bare_metal_keeps_the_linux_fix() -> None:
    answer = _match(BARE_OOR, NATIVE, "hsa-out-of-resources")
    assert answer["platform"] == "linux"
    assert "usermod -a -G render,video" in str(answer["fix"])


def test_a_wsl_machine_gets_the_wsl_fix_for_a_bare_line() -> None:
    answer = _match(BARE_OOR, WSL_MACHINE, "hsa-out-of-resources")
    assert answer["platform"] == "wsl"
    assert not BARE_METAL_ADVICE.search(str(answer["fix"]))


def test_gpu_hang_on_wsl_is_the_windows_driver() -> None:
    native = _match(HANG, NATIVE, "gpu-hang-hw-exception")
    wsl = _match(HANG, WSL_MACHINE, "gpu-hang-hw-exception")
    assert "dmesg" in str(native["fix"]) and "rocmate doctor" in str(native["fix"])
    assert "dmesg" not in str(wsl["fix"]) and "Adrenalin" in str(wsl["fix"])
    for answer in (native, wsl):
        assert "https://github.com/ROCm/TheRock/issues" in str(answer["fix"])


def test_wsl_text_is_shown_in_both_languages() -> None:
    set_language("zh_CN")
    explained = explain_error(WSL_OOR, NATIVE, probe_torch=False)
    shown = render_explanations(WSL_OOR, list(explained.explanations), explained.report)
    assert "librocdxg" in shown and "usermod" not in shown


# ---- the override that crosses generations ------------------------------------------------

def test_generations() -> None:
    assert [gfx_generation(g) for g in ("gfx906", "gfx90a", "gfx1031", "gfx1151", "gfx1201")] \
        == [9, 9, 10, 11, 12]
    assert cross_generation("gfx1151", "gfx1201")  # ROCm/rocm-systems#3531
    assert cross_generation("gfx1100", "gfx1030")
    assert not cross_generation("gfx1031", "gfx1030")
    assert not cross_generation("gfx1103", "gfx1100")


def test_a_cross_generation_override_in_force_is_named() -> None:
    text = (ERRORS / "hipErrorNoBinaryForGpu-easydiffusion-arch.txt").read_text(encoding="utf-8")
    explained = explain_error(text, CROSS, probe_torch=False)
    shown = render_explanations(text, list(explained.explanations), explained.report)
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in shown
    assert "ROCm/rocm-systems PR #5686" in shown, shown


def test_ih_fifo_overflow_names_the_refusal() -> None:
    text = _body("kfd-ih-fifo-overflow-gfx1151-override-12-0-1.txt")
    answer = _match(text, None, "kfd-ih-fifo-overflow")
    assert "PR #5686" in str(answer["cause"]) and "HSA_OVERRIDE_GFX_VERSION" in str(answer["fix"])


# ---- where reports go now -----------------------------------------------------------------

def test_no_text_sends_people_to_the_archived_repository() -> None:
    """ROCm/ROCm is archived as ROCm/legacy-rocm-build (2026-10-19): what the product tells people
    names the new places; sources may still cite old threads."""
    data = tomllib.loads((ROOT / "resources" / "data" / "explain.toml").read_text("utf-8"))
    old = re.compile(r"github\.com/ROCm/ROCm\b|\bROCm/ROCm#\d")
    for row in data["pattern"]:
        for key, text in row.items():
            if key.startswith(("fix", "cause", "title")):
                assert not old.search(text), (row["id"], key)
    texts = {row["id"]: row["fix"] for row in data["pattern"]}
    for row in ("gpu-hang-hw-exception", "gpu-hang-reset", "gpu-memory-access-fault",
                "segfault-torch"):
        assert "github.com/ROCm/TheRock/issues" in texts[row], row
    core = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "core").rglob("*.py"))
    assert not re.search(r"github\.com/ROCm/ROCm\b", core)


# ---- each new transcript gets its own fix -------------------------------------------------

@pytest.mark.parametrize(("name", "pattern", "words"), [
    ("hw-exception-gpu-hang-r9700-rocm713-raylight.txt", "gpu-hang-hw-exception",
     ["rocmate doctor", "HSA_ENABLE_SDMA=0", "ROCm/TheRock/issues"]),
    ("kfd-ih-fifo-overflow-gfx1151-override-12-0-1.txt", "kfd-ih-fifo-overflow",
     ["Remove HSA_OVERRIDE_GFX_VERSION", "reboot"]),
    ("hipblaslt-unsupported-architecture-warning-gfx908.txt", "hipblaslt-unsupported-arch",
     ["Nothing to fix", "TORCH_BLAS_PREFER_HIPBLASLT"]),
    ("wsl-rocr-unsupported-gpu-rocminfo-7600xt.txt", "wsl-rocr-unsupported-gpu",
     ["WSL 2 list", "native Linux"]),
    ("wsl-thunk-proxy-queryadapterinfo-assert-7900xtx.txt", "wsl-thunk-proxy-assert",
     ["Adrenalin", "wsl --shutdown", "libhsa-runtime64-1"]),
    ("wsl-no-wddm-adapters-ryzen-ai-max-rocm72.txt", "wsl-no-wddm-adapters",
     ["/dev/dxg", "26.2.2", "HSA_ENABLE_DXG_DETECTION=1"]),
    ("libmiopen-so-cannot-open-therock-gfx1151-wheel.txt", "rocm-library-not-found",
     ["_rocm_sdk_core/lib", "LD_LIBRARY_PATH", "rocmate install --dry-run"]),
    ("libtorch-cuda-so-with-rocm-wheel-780m.txt", "libtorch-cuda-in-rocm-torch",
     ["torchaudio", "--force-reinstall"]),
    ("segfault-after-first-gpu-call-torch-exit.txt", "segfault-torch",
     ["faulthandler", "AMD_LOG_LEVEL=3", "ROCm/TheRock/issues"]),
    ("miopen-incorrect-params-forward-convolution-dcu.txt", "miopen-incorrect-params",
     ["MIOPEN_USER_DB_PATH", "MIOPEN_LOG_LEVEL", "cudnn.enabled = False"]),
    ("miopen-code-object-build-failed-comgr-vega-gfx900.txt", "miopen-code-object-build-failed",
     ["LD_LIBRARY_PATH", "rm -rf ~/.cache/miopen"]),
])
def test_each_transcript_gets_its_fix(name: str, pattern: str, words: list[str]) -> None:
    text = _body(name)
    answer = _match(text, NATIVE, pattern)
    fix = str(answer["fix"])
    for word in words:
        assert word in fix, (name, word)
    wsl = bool(re.search(r"WSL|thunk_proxy|/sources/wsl/", text))
    assert answer["platform"] == ("wsl" if wsl else "linux"), name
    if wsl:
        assert not BARE_METAL_ADVICE.search(fix), name
