"""The suites: registry and defaults. Importing this package is cheap; a suite's module (and the
ML packages it needs) is imported only by :func:`load`."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

MODULES = {
    "resnet50-train": "core.bench.worker.suites.resnet50",
    "sd15-infer": "core.bench.worker.suites.sd15",
    "llm-train": "core.bench.worker.suites.llm",
    "gemm": "core.bench.worker.suites.gemm",
    "bandwidth": "core.bench.worker.suites.bandwidth",
    "llm-infer": "core.bench.worker.suites.llm_infer",
}

# The libraries a suite's module imports beyond torch (slow to import: said in a setup phase).
LIBRARIES: dict[str, tuple[str, ...]] = {
    "resnet50-train": ("torchvision",),
    "sd15-infer": ("diffusers", "transformers"),
    "llm-train": ("transformers",),
    "llm-infer": ("transformers",),
}

# Per suite: batch size and precision on a GPU (default size), and on the CPU or at --size tiny.
_DEFAULTS: dict[str, dict[str, Any]] = {
    "resnet50-train": {"batch_size": (64, 4), "precision": ("amp-fp16", "fp32")},
    "sd15-infer": {"batch_size": (1, 1), "precision": ("amp-fp16", "fp32")},
    "llm-train": {"batch_size": (4, 2), "precision": ("amp-bf16", "fp32")},
    # llm-infer casts the weights to the precision's dtype (no autocast); batch 1 as chat runs
    "llm-infer": {"batch_size": (1, 1), "precision": ("amp-bf16", "fp32")},
    # gemm runs every dtype and bandwidth copies bytes: --precision does not apply
    "gemm": {"batch_size": (1, 1), "precision": (None, None)},
    "bandwidth": {"batch_size": (1, 1), "precision": (None, None)},
}


def default(suite: str, key: str, *, gpu: bool, tiny: bool) -> Any:
    """A suite's default for ``batch_size`` or ``precision``."""
    big, small = _DEFAULTS[suite][key]
    if key == "precision":
        return big if gpu else small
    return small if tiny else big


def precision(suite: str, asked: str | None, *, gpu: bool) -> str | None:
    """The precision a suite runs at: the one asked for, else the default; None where the
    suite does not use one."""
    fixed = default(suite, "precision", gpu=gpu, tiny=False)
    if _DEFAULTS[suite]["precision"] == (None, None):
        return None
    return asked or fixed


def loading_words(suite: str) -> str:
    """What loading a suite does, in words, for its ``setup`` phase ("importing torchvision")."""
    libraries = LIBRARIES.get(suite)
    if libraries:
        return "importing " + " and ".join(libraries)
    return f"loading the {suite} suite"


def load(suite: str) -> ModuleType:
    """Import a suite's module (this is where a missing diffusers/transformers shows up)."""
    try:
        name = MODULES[suite]
    except KeyError:
        raise ValueError(f"unknown suite {suite!r} (known: {', '.join(MODULES)})") from None
    return importlib.import_module(name)
