"""The benchmark options, defined once (docs/contracts.md, "Benchmark worker protocol").

:class:`BenchOptions` is the one place an option is spelled: its field holds the name, type,
default, choices, bounds and help. From it come the worker's command line (:func:`add_arguments`
on the worker side), the argv the host starts a worker with (:meth:`BenchOptions.to_argv`),
``rocmate bench``'s flags (the same :func:`add_arguments`, with the CLI's wording where it
differs), the values a front end builds from its widgets (:meth:`BenchOptions.from_values`), the
checks before a run (:meth:`BenchOptions.problems`) and the report's settings (the worker sends
``settings`` = the resolved options, see core.bench.worker.harness.Options).

Worker side: imports the standard library only.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import Any

from core.bench.worker.errors import Translate, english
from core.bench.worker.protocol import PRECISIONS, SIZES, SUITES


@dataclass(frozen=True)
class OptionInfo:
    """What a field of :class:`BenchOptions` needs beyond its name, type and default."""

    help: str
    cli_help: str | None = None  # rocmate bench's wording, where it differs from the worker's
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    minimum: float | None = None  # the smallest value allowed
    above: float | None = None  # values must be greater than this
    maximum: float | None = None
    flag: bool = False  # a switch: --name / --no-name
    suites: tuple[str, ...] | None = None  # the suites that take it (None: every suite)


def _option(default: Any, help: str, **info: Any) -> Any:
    return field(default=default, metadata={"option": OptionInfo(help=help, **info)})


# The largest batch size or step count a run can ask for: beyond it nothing fits in memory or
# finishes, and the report's integers stay within what JSON readers hold exactly.
_COUNT_MAX = 2**31 - 1
# Seeds are 64-bit in Stable Diffusion front ends; torch.manual_seed takes up to 2**64 - 1.
_SEED_MAX = 2**64 - 1
# A measured phase longer than a week is a typo.
_SECONDS_MAX = 7 * 24 * 3600.0
# The suites that take an option (OptionInfo.suites): what each suite's code reads.
_MODELS = ("resnet50-train", "sd15-infer", "llm-train")  # a model, a batch, a precision
_LLM = ("llm-train", "llm-infer")  # a Llama preset and a sequence length
PARALLEL_SUITES = ("resnet50-train", "llm-train")
"""The suites with a data-parallel mode (``--gpus``)."""


@dataclass(frozen=True)
class BenchOptions:
    """One benchmark run's options as the user gave them (None: the suite decides)."""

    suite: str = _option(MISSING, "the suite to run", choices=SUITES)
    device: str = _option("cuda:0", "cuda, cuda:N or cpu (default cuda:0)",
                          cli_help="cuda:N or cpu (default cuda:0)")
    size: str = _option("default", "tiny = shapes small enough for a CPU test in seconds",
                        cli_help="tiny = small shapes for a quick smoke run", choices=SIZES)
    precision: str | None = _option(
        None, "default: amp-fp16 (resnet50, sd15), amp-bf16 (llm) on a GPU; fp32 on cpu; gemm "
              "and bandwidth do not take it", cli_help="", choices=PRECISIONS,
        suites=(*_MODELS, "llm-infer"))
    batch_size: int | None = _option(None, "", metavar="N", minimum=1, maximum=_COUNT_MAX,
                                     suites=(*_MODELS, "llm-infer"))
    warmup_steps: int | None = _option(
        None, "fixed warm-up instead of 'until step times settle'",
        cli_help="a fixed warm-up instead of 'until step times settle'", metavar="N", minimum=0,
        maximum=_COUNT_MAX)
    steps: int | None = _option(None, "measure exactly N steps", metavar="N", minimum=1,
                                maximum=_COUNT_MAX)
    seconds: float | None = _option(None, "measure for T seconds (default 10)",
                                    cli_help="measure for T seconds", metavar="T", above=0.0,
                                    maximum=_SECONDS_MAX)
    compile: bool = _option(False, "torch.compile the model", flag=True, suites=_MODELS)
    channels_last: bool = _option(False, "channels_last memory format", flag=True,
                                  suites=("resnet50-train", "sd15-infer"))
    model: str | None = _option(None, "sd15-infer: local diffusers folder or .safetensors file",
                                cli_help="sd15-infer: local diffusers folder or .safetensors "
                                         "file (real weights)", metavar="PATH",
                                suites=("sd15-infer",))
    preset: str | None = _option(None, "llm-train, llm-infer: auto (default), 0.5b, 1b, 3b, "
                                       "7b, 8b",
                                 cli_help="llm-train and llm-infer model size (default auto: "
                                          "the largest that fits)",
                                 choices=("auto", "0.5b", "1b", "3b", "7b", "8b"), suites=_LLM)
    seq_len: int | None = _option(None, "llm-train: tokens per sequence (default 1024); "
                                        "llm-infer: prompt tokens (default 512)",
                                  cli_help="llm-train sequence length, llm-infer prompt length",
                                  metavar="N", minimum=1, maximum=_COUNT_MAX, suites=_LLM)
    inference_steps: int | None = _option(None, "sd15-infer: denoising steps (default 20)",
                                          cli_help="sd15-infer denoising steps (default 20)",
                                          metavar="N", minimum=1, maximum=_COUNT_MAX,
                                          suites=("sd15-infer",))
    seed: int | None = _option(None, "", minimum=0, maximum=_SEED_MAX,
                               suites=(*_MODELS, "llm-infer", "gemm"))
    gpus: str | None = _option(
        None, "data-parallel on N GPUs or all (one rank each, started by "
              "torch.distributed.run; resnet50-train and llm-train)",
        cli_help="data-parallel on N GPUs, or all: one process per GPU (torch.distributed, "
                 "DistributedDataParallel); resnet50-train and llm-train", metavar="N|all",
        suites=PARALLEL_SUITES)

    # -- turning the one definition into what each side needs ---------------------------------
    def to_argv(self) -> list[str]:
        """The worker's arguments for these options (a value left to the suite is not passed)."""
        argv = ["--suite", self.suite, "--device", self.device, "--size", self.size]
        for spec in fields(self)[3:]:
            value = getattr(self, spec.name)
            if _info(spec.name).flag:
                if value:
                    argv.append(flag_of(spec.name))
            elif value is not None:
                argv += [flag_of(spec.name), str(value)]
        return argv

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> BenchOptions:
        """Options from a mapping of field names (an argparse namespace's ``vars``, a form)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in values.items() if k in names})

    def problems(self, t: Translate = english) -> list[str]:
        """What is wrong with these options, in words (empty when a run may start); ``t``:
        ``core.i18n.t`` for the user's language (the worker keeps English)."""
        out: list[str] = []
        for spec in fields(self):
            value = getattr(self, spec.name)
            if not self.given(spec.name):
                continue
            if not takes(self.suite, spec.name):
                out.append(_not_taken(self.suite, spec.name, t))
                continue
            message = _problem(spec.name, value, t)
            if message:
                out.append(message)
        if self.gpus == "all" and self.device == "cpu":
            out.append(t("bench.option.gpus-all-on-cpu", "--gpus all counts GPUs: with "
                         "--device cpu give a number of ranks"))
        return out

    def settings(self) -> dict[str, Any]:
        """The options as a report's settings hold them."""
        return {f.name: getattr(self, f.name) for f in fields(BenchOptions)}

    def given(self, name: str) -> bool:
        """Whether option ``name`` was given (a switch turned on, a value not left to the
        suite)."""
        value = getattr(self, name)
        return bool(value) if _info(name).flag else value is not None

    def for_suite(self) -> BenchOptions:
        """These options without those the suite does not take (a front end's form holds
        every suite's settings; each suite gets its own)."""
        dropped: dict[str, Any] = {f.name: f.default for f in fields(self)
                                   if not takes(self.suite, f.name) and self.given(f.name)}
        return replace(self, **dropped)


def takes(suite: str, name: str) -> bool:
    """Whether ``suite`` takes option ``name`` (a field of :class:`BenchOptions`)."""
    allowed = _info(name).suites
    return allowed is None or suite in allowed


def _not_taken(suite: str, name: str, t: Translate) -> str:
    """The refusal of an option the suite does not take, in words."""
    allowed = _info(name).suites or ()
    if name == "gpus":
        return t("bench.option.gpus-not-for-suite",
                 "--gpus: only {suites} have a data-parallel mode",
                 suites=" and ".join(allowed))
    return t("bench.option.not-for-suite",
             "{option}: {suite} does not take it; it is for {suites}", option=flag_of(name),
             suite=suite, suites=", ".join(allowed))


def flag_of(name: str) -> str:
    return "--" + name.replace("_", "-")


def _info(name: str) -> OptionInfo:
    info: OptionInfo = BenchOptions.__dataclass_fields__[name].metadata["option"]
    return info


_DEVICE = re.compile(r"cpu|cuda(:[0-9]{1,3})?")
_GPUS = re.compile(r"all|[1-9]|[1-5][0-9]|6[0-4]")


def _problem(name: str, value: Any, t: Translate = english) -> str | None:
    """What is wrong with one option's value, in words (``t``: the translator)."""
    info = _info(name)
    if value is None or info.flag:
        return None
    if name == "device" and not _DEVICE.fullmatch(str(value)):
        return t("bench.option.bad-device", "--device must be cpu, cuda or cuda:N (not {value})",
                 value=repr(value))
    if name == "gpus" and not _GPUS.fullmatch(str(value)):
        return t("bench.option.bad-gpus", "--gpus must be a number from 1 to 64 or all (not "
                 "{value})", value=repr(value))
    flag = flag_of(name) if name != "suite" else t("bench.option.the-suite", "the suite")
    if info.choices is not None and value not in info.choices:
        return t("bench.option.not-a-choice", "{flag} must be one of {choices} (not {value})",
                 flag=flag, choices=", ".join(info.choices), value=repr(value))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return t("bench.option.not-finite", "{flag} must be a finite number (not {value})",
                 flag=flag, value=value)
    if info.minimum is not None and value < info.minimum:
        if info.minimum == 0:
            return t("bench.option.below-zero", "{flag} must be 0 or more (not {value})",
                     flag=flag, value=value)
        return t("bench.option.below-minimum", "{flag} must be at least {minimum} (not "
                 "{value})", flag=flag, minimum=f"{info.minimum:g}", value=value)
    if info.above is not None and value <= info.above:
        return t("bench.option.not-positive", "{flag} must be positive (not {value})",
                 flag=flag, value=value)
    if info.maximum is not None and value > info.maximum:
        return t("bench.option.above-maximum", "{flag} must be at most {maximum} (not "
                 "{value})", flag=flag, maximum=f"{info.maximum:g}", value=value)
    return None


def add_arguments(parser: argparse.ArgumentParser, *, cli: bool = False,
                  skip: tuple[str, ...] = ()) -> None:
    """Add every option to ``parser``: the worker's (``cli`` false, ``--suite`` required) or
    ``rocmate bench``'s (``cli`` true: the CLI's wording; ``suite`` left to the caller when
    named in ``skip``)."""
    for spec in fields(BenchOptions):
        if spec.name in skip:
            continue
        info = _info(spec.name)
        help_text = info.cli_help if cli and info.cli_help is not None else info.help
        kwargs: dict[str, Any] = {"help": help_text or None}
        if info.metavar:
            kwargs["metavar"] = info.metavar
        if info.flag:
            kwargs["action"] = "store_true" if cli else argparse.BooleanOptionalAction
            kwargs["default"] = False
        else:
            kwargs["type"] = _type_of(spec.name)
            kwargs["choices"] = info.choices
            kwargs["default"] = None if spec.default is MISSING else spec.default
        if spec.name == "suite":
            kwargs["required"] = True
        parser.add_argument(flag_of(spec.name), **kwargs)


def _type_of(name: str) -> type:
    annotation = str(BenchOptions.__dataclass_fields__[name].type)
    if annotation.startswith("int"):
        return int
    if annotation.startswith("float"):
        return float
    return str
