"""Issue 30/9: advice that installs PyTorch names the ROCm index or says ``rocmate install``.
A bare ``pip install torch`` (or ``torch==X``) takes PyPI's default wheel, which on Linux is a
CUDA build: on an AMD machine it is the wrong advice however it is worded around it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomllib

from core.bench.worker.errors import Context, advice_for
from core.i18n import t
from core.i18n_catalogue import collect
from tests.diagnose.test_card_verdict import TORCH_25, ids, replay, rocm_torch

ROOT = Path(__file__).resolve().parents[2]
PIP_TORCH = re.compile(r"pip3? install[^\n]*\btorch", re.I)


def safe(advice: str) -> bool:
    """Whether every way ``advice`` offers to install PyTorch is a ROCm one."""
    return not PIP_TORCH.search(advice) or "--index-url" in advice or "rocmate install" in advice


@pytest.mark.parametrize("package", ["torch", "torchvision", "torchaudio"])
@pytest.mark.parametrize("system_python", [False, True])
def test_a_missing_torch_is_never_a_bare_pip_line(package: str, system_python: bool) -> None:
    ctx = Context(python="/home/u/venvs/torch/bin/python", externally_managed=system_python)
    for translate in (None, t):
        advice = advice_for("missing-package", ctx, package=package,
                            **({"t": translate} if translate else {}))
        assert package in advice and "rocmate install" in advice, advice
        assert "--index-url" in advice or system_python, advice
        assert not re.search(r"pip install torch\w*(?![\w-])(?! --index-url)", advice), advice


def test_another_missing_package_keeps_its_plain_pip_line() -> None:
    ctx = Context(python="/home/u/venvs/torch/bin/python")
    advice = advice_for("missing-package", ctx, package="diffusers")
    assert "/home/u/venvs/torch/bin/python -m pip install diffusers" in advice


def test_keeping_a_legacy_wheel_names_its_index(tmp_path: Path) -> None:
    names = ["AMD Instinct MI60 / MI50"] * 8
    answer = replay(tmp_path, "vega20-x8-epyc-aspeed", torch=rocm_torch(names, TORCH_25))
    fix = ids(answer)["gfx-legacy-unverified"]["fix"]  # issue 32: unverified, still pinned
    assert "torch==2.5.1+rocm6.2" in fix
    assert "--index-url https://download.pytorch.org/whl/rocm6.2" in fix


def test_no_text_or_data_row_offers_a_bare_pip_install_of_torch() -> None:
    texts = [(text.key, text.english) for text in collect().values()]
    for path in sorted((ROOT / "resources/data").glob("*.toml")):
        def strings(node: object, where: str) -> list[tuple[str, str]]:
            if isinstance(node, str):
                return [(where, node)]
            if isinstance(node, dict):
                return [s for k, v in node.items() for s in strings(v, f"{where}.{k}")]
            if isinstance(node, list):
                return [s for i, v in enumerate(node) for s in strings(v, f"{where}[{i}]")]
            return []
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        # a source cites, a cause describes the mistake ("'pip install torch' without an index
        # URL installs ..."): only what rocmate tells the user to do is advice
        texts += [pair for pair in strings(data, path.name)
                  if not pair[0].rsplit(".", 1)[-1].startswith(("source", "cause"))]
    unsafe = [key for key, text in texts if not safe(text)]
    assert not unsafe, unsafe
