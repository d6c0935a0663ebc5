"""Turn a failure into one protocol ``error``: a kind, a message and advice a person can act on.

Shared by the worker (exceptions) and the parent (a dead worker's stderr), so standard library only.

The events are English (a contract: the host stores them in run files and reports). The advice
is words a person reads, so each text is a ``t("bench.advice...", "English", **fields)`` call
through a translator parameter: :func:`english` by default (the worker has no catalogue), or
``core.i18n.t`` where a host shows the advice in the user's language. The catalogue extractor
(core/i18n_catalogue.py) finds these calls by their name ``t``.
"""

from __future__ import annotations

import json
import os
import re
import sys
import sysconfig
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

PATTERNS_FILE = "error_patterns.json"
"""Written beside this module in the worker's clean folder by the host
(core/bench/failures.py): ``{"kind": [regex, ...], ...}`` in the order texts are sorted by,
taken from the knowledge base's error patterns (resources/data/explain.toml, rows with a
``kind``). That list is the one set of error texts for ``rocmate explain`` and the worker."""

Patterns = dict[str, list[str]]


def load_patterns(folder: Path | None = None) -> Patterns:
    """The patterns handed to this worker (empty when none were: no text is then sorted)."""
    path = (folder or Path(__file__).resolve().parent) / PATTERNS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): [str(r) for r in v] for k, v in data.items() if isinstance(v, list)}


_HANDED: Patterns | None = None


def _patterns(given: Patterns | None) -> Patterns:
    global _HANDED
    if given is not None:
        return given
    if _HANDED is None:
        _HANDED = load_patterns()
    return _HANDED


class Translate(Protocol):
    """What turns a text's id and English into the words shown: :func:`english`, or
    ``core.i18n.t`` (the same signature)."""

    def __call__(self, key: str, english: str, /, **values: object) -> str: ...


def english(key: str, text: str, /, **values: object) -> str:
    """The English itself, its ``{fields}`` filled (as ``core.i18n.t`` fills them: a text
    given values writes a literal brace twice)."""
    return text.format(**values) if values else text


@dataclass
class Context:
    """What the advice may mention: the run's settings, as far as they are known."""

    suite: str | None = None
    backend: str | None = None  # hip | cuda | cpu
    arch: str | None = None
    batch_size: int | None = None
    python: str | None = None
    externally_managed: bool = False
    """The Python is a distribution's own, which pip may not change (PEP 668)."""


def externally_managed() -> bool:
    """Whether this Python refuses ``pip install`` (PEP 668: Debian's and Ubuntu's system
    Python); a virtual environment made from it never does."""
    if sys.prefix != sys.base_prefix:
        return False
    stdlib = sysconfig.get_path("stdlib")
    return bool(stdlib) and os.path.isfile(os.path.join(stdlib, "EXTERNALLY-MANAGED"))


@dataclass
class ErrorInfo:
    """The fields of one protocol ``error`` event."""

    kind: str
    message: str
    advice: str
    detail: str = ""
    package: str | None = None

    def event_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "kind": self.kind,
            "message": self.message,
            "advice": self.advice,
            "detail": self.detail,
        }
        if self.package:
            fields["package"] = self.package
        return fields


def classify_text(text: str, patterns: Patterns | None = None) -> str | None:
    """The kind a piece of output points to (a protocol error kind, or gpu-fault), or None."""
    for kind, regexes in _patterns(patterns).items():
        for pat in regexes:
            if re.search(pat, text, re.I):
                return kind
    return None


def _kind(found: str | None) -> str:
    """The protocol's kind for what :func:`classify_text` found (a GPU fault is "other")."""
    return "other" if found in (None, "gpu-fault") else str(found)


def _alloc_var(backend: str | None) -> str:
    return "PYTORCH_CUDA_ALLOC_CONF" if backend == "cuda" else "PYTORCH_HIP_ALLOC_CONF"


def advice_for(kind: str, ctx: Context, *, package: str | None = None, text: str = "",
               patterns: Patterns | None = None, t: Translate = english) -> str:
    """Plain advice for an error kind (for "other", from what the text shows); ``t``: the
    translator (:func:`english`, or ``core.i18n.t`` to show it in the user's language)."""
    py = ctx.python or "python"
    if kind == "oom":
        return _oom_advice(ctx, t)
    if kind == "no-binary-for-gpu":
        if ctx.arch:
            return t("bench.advice.no-binary-for-gpu.arch",
                     "This PyTorch has no GPU code for the card's gfx target ({arch}). Run "
                     "`rocmate doctor`: if it reports gfx-needs-override, set "
                     "HSA_OVERRIDE_GFX_VERSION to the value it gives for this card (a value "
                     "meant for another card can hang the GPU) and run again; if it reports "
                     "torch-arch-missing, install a PyTorch wheel built for this card.",
                     arch=ctx.arch)
        return t("bench.advice.no-binary-for-gpu",
                 "This PyTorch has no GPU code for the card's gfx target. Run `rocmate doctor`: "
                 "if it reports gfx-needs-override, set HSA_OVERRIDE_GFX_VERSION to the value it "
                 "gives for this card (a value meant for another card can hang the GPU) and run "
                 "again; if it reports torch-arch-missing, install a PyTorch wheel built for "
                 "this card.")
    if kind == "no-gpu":
        return t("bench.advice.no-gpu",
                 "PyTorch in the target environment sees no GPU. Run `rocmate doctor` and fix what "
                 "it reports (torch-no-gpu, torch-not-rocm, kfd-no-access, not-in-render-group, "
                 "hip-visible-devices-hides). Use --device cpu for a smoke run without a GPU.")
    if kind == "missing-package":
        name = package or t("bench.advice.the-missing-package", "the missing package")
        if ctx.externally_managed and name.startswith("torch"):
            return t("bench.advice.missing-package.system-python.torch",
                     "The target Python ({python}) lacks {package}, and it is the system's own "
                     "Python, which pip may not change (externally managed, PEP 668). Let "
                     "{command} make a virtual environment with the ROCm build of PyTorch for "
                     "this card and run the benchmark there.", python=py, package=name,
                     command="`rocmate install`")
        if ctx.externally_managed:
            return t("bench.advice.missing-package.system-python",
                     "The target Python ({python}) lacks {package}, and it is the system's own "
                     "Python, which pip may not change (externally managed, PEP 668). Make a "
                     "virtual environment for PyTorch and run the benchmark there: `rocmate "
                     "install` makes one, or {command}, then --python ~/venvs/torch/bin/python.",
                     python=py, package=name,
                     command=f"python3 -m venv ~/venvs/torch && ~/venvs/torch/bin/pip install "
                             f"{name}")
        command = f"{py} -m pip install {name}"
        if name.startswith("torch"):  # PyPI's torch is a CUDA build: never a bare pip line
            return t("bench.advice.missing-package.torch.index",
                     "The target Python lacks {package}. Install the ROCm build into that "
                     "environment: {command} --index-url with the ROCm index that {dry_run} names "
                     "for this card (without it pip installs a CUDA build), or let {install} set "
                     "up an environment that has it.", package=name, command=command,
                     dry_run="`rocmate install --dry-run`", install="`rocmate install`")
        return t("bench.advice.missing-package",
                 "The target Python lacks {package}. Install it into that environment: "
                 "{command}, or pick another Python with --python.", package=name,
                 command=command)
    if kind == "interrupted":
        return t("bench.advice.interrupted",
                 "The run was stopped before it finished: its result, where it has one, is "
                 "made of the steps measured until then. Run it again for a full result.")
    if text and classify_text(text, patterns) == "gpu-fault":
        return t("bench.advice.gpu-fault",
                 "The GPU faulted. A common cause is HSA_OVERRIDE_GFX_VERSION set to a value that "
                 "does not fit the card: run `rocmate doctor` (override-wrong). Otherwise try a "
                 "smaller batch and report the run file.")
    return t("bench.advice.other",
             "Unexpected failure. Run `rocmate doctor` to check the set-up; if it reports "
             "nothing, attach the run file (it holds every event) to a bug report.")


def _oom_advice(ctx: Context, t: Translate) -> str:
    """Out of memory: a smaller batch (and for the LLM a smaller model), the allocator setting
    against fragmentation, fewer programs on the GPU."""
    if ctx.backend == "cpu":
        return t("bench.advice.oom.cpu",
                 "The worker ran out of memory. Use a smaller --batch-size or --size tiny, or "
                 "close other programs.")
    variable = _alloc_var(ctx.backend)
    llm = ctx.suite == "llm-train"
    if ctx.batch_size and ctx.batch_size > 1:
        option = f"--batch-size {max(1, ctx.batch_size // 2)}"
        if llm:
            return t("bench.advice.oom.llm.batch",
                     "Out of GPU memory: try a smaller batch ({option}), or a smaller model "
                     "(--preset 1b or 0.5b) or a shorter --seq-len, set "
                     "{variable}=expandable_segments:True to reduce fragmentation, and close "
                     "other programs that use the GPU (a desktop, a browser, games).",
                     option=option, variable=variable)
        return t("bench.advice.oom.batch",
                 "Out of GPU memory: try a smaller batch ({option}), set "
                 "{variable}=expandable_segments:True to reduce fragmentation, and close other "
                 "programs that use the GPU (a desktop, a browser, games).",
                 option=option, variable=variable)
    if llm:
        return t("bench.advice.oom.llm",
                 "Out of GPU memory: try a smaller --batch-size, or a smaller model (--preset 1b "
                 "or 0.5b) or a shorter --seq-len, set {variable}=expandable_segments:True to "
                 "reduce fragmentation, and close other programs that use the GPU (a desktop, a "
                 "browser, games).", variable=variable)
    return t("bench.advice.oom",
             "Out of GPU memory: try a smaller --batch-size, set "
             "{variable}=expandable_segments:True to reduce fragmentation, and close other "
             "programs that use the GPU (a desktop, a browser, games).", variable=variable)


def reinstall_advice(package: str, ctx: Context, t: Translate = english) -> str:
    """Advice for a package that imports but is broken (``torch`` without ``torch._C``)."""
    return t("bench.advice.broken-package",
             "Reinstall {package} in the target Python ({command}, from the same index), or "
             "pick another Python with --python.", package=package,
             command=f"{ctx.python or 'python'} -m pip install --force-reinstall {package}")


# Lines torch appends to device and compiler errors; they say nothing about the failure itself.
_BOILERPLATE = re.compile(
    r"^(?:Compile with `TORCH_USE_|For debugging consider passing|"
    r"\S+ kernel errors might be asynchronously reported|Set TORCHDYNAMO_VERBOSE|"
    r"You can suppress this exception|Set TORCH_LOGS|To execute this test, run|"
    r"Device-side assertion tracking was not enabled)",
    re.I,
)


def _message_line(text: str, kind: str | None, patterns: Patterns | None = None) -> str:
    """The line of an error text that says what went wrong: the one the classifier matched,
    else the first line that is not torch's boilerplate."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if kind is not None:
        for pattern in _patterns(patterns).get(kind, ()):
            hit = next((ln for ln in lines if re.search(pattern, ln, re.I)), None)
            if hit:
                return hit
    useful = [ln for ln in lines if not _BOILERPLATE.match(ln)]
    return useful[0] if useful else (lines[0] if lines else text.strip())


# Import names whose pip package is called otherwise.
_PIP_NAMES = {"PIL": "Pillow", "yaml": "PyYAML", "cv2": "opencv-python",
              "sklearn": "scikit-learn", "google": "protobuf"}


def from_exception(exc: BaseException, ctx: Context,
                   patterns: Patterns | None = None) -> ErrorInfo:
    """Classify an exception raised in the worker (``patterns``: default, those handed to it)."""
    detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-4000:]
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, KeyboardInterrupt):
        kind = "interrupted"
        message = "interrupted"
    elif isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.split(".")[0]
        package = _PIP_NAMES.get(top, top)
        if exc.name != top and top in sys.modules:  # torch imports, torch._C does not: broken
            return ErrorInfo(
                kind="missing-package",
                message=f"{top} is installed but broken: no module named {exc.name!r}",
                advice=reinstall_advice(package, ctx),
                detail=detail,
                package=package,
            )
        return ErrorInfo(
            kind="missing-package",
            message=f"No module named {top!r} in the target Python",
            advice=advice_for("missing-package", ctx, package=package),
            detail=detail,
            package=package,
        )
    elif isinstance(exc, MemoryError):
        kind = "oom"
        message = "out of memory (MemoryError)"
    else:
        found = classify_text(text, patterns)
        kind = _kind(found)
        message = _message_line(str(exc), found, patterns) or type(exc).__name__
        if kind == "other":
            message = f"{type(exc).__name__}: {message}"
    return ErrorInfo(kind=kind, message=message[:500],
                     advice=advice_for(kind, ctx, text=text, patterns=patterns), detail=detail)


def from_output(text: str, ctx: Context, *, message: str,
                patterns: Patterns | None = None) -> ErrorInfo:
    """Classify a worker that died without an ``error`` event, from its stderr."""
    kind = _kind(classify_text(text, patterns))
    return ErrorInfo(kind=kind, message=message,
                     advice=advice_for(kind, ctx, text=text, patterns=patterns),
                     detail=text[-4000:])
