"""The benchmark options come from one definition: worker flags, CLI flags, argv and settings."""

from __future__ import annotations

import argparse
import math
from dataclasses import fields

import pytest

from core.bench.worker.entry import build_parser
from core.bench.worker.harness import Options
from core.bench.worker.options import BenchOptions, add_arguments, flag_of, takes
from core.bench.worker.protocol import SUITES
from core.cli import build_parser as cli_parser


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings if s.startswith("--")}


def test_the_worker_and_the_cli_take_every_option() -> None:
    names = {flag_of(f.name) for f in fields(BenchOptions)}
    worker = _flags(build_parser())
    assert names <= worker
    bench = cli_parser()._subparsers._group_actions[0].choices["bench"]  # type: ignore[union-attr]
    assert names - {"--suite"} <= _flags(bench)


def test_argv_round_trips_through_the_worker_parser() -> None:
    given = BenchOptions(suite="llm-train", device="cpu", size="tiny", precision="amp-bf16",
                         batch_size=3, warmup_steps=0, steps=4, seconds=1.5, compile=True,
                         channels_last=True, model="/m", preset="1b", seq_len=64,
                         inference_steps=5, seed=2**64 - 1)
    parsed = BenchOptions.from_values(vars(build_parser().parse_args(given.to_argv())))
    assert parsed == given
    assert BenchOptions(suite="gemm").to_argv() == ["--suite", "gemm", "--device", "cuda:0",
                                                    "--size", "default"]


def test_resolved_options_report_every_field_once() -> None:
    given = BenchOptions(suite="resnet50-train", device="cpu", size="tiny")
    opts = Options.resolve(given, precision="fp32", batch_size=2, device="cpu")
    assert list(opts.settings()) == [f.name for f in fields(BenchOptions)]
    assert opts.seed == 0 and opts.batch_size == 2 and not opts.batch_size_given


@pytest.mark.parametrize(("change", "words"), [
    ({"batch_size": 0}, "--batch-size must be at least 1"),
    ({"batch_size": -1}, "--batch-size must be at least 1"),
    ({"batch_size": 10**16}, "--batch-size must be at most"),
    ({"steps": 0}, "--steps must be at least 1"),
    ({"warmup_steps": -1}, "--warmup-steps must be 0 or more"),
    ({"seconds": 0.0}, "--seconds must be positive"),
    ({"seconds": math.nan}, "--seconds must be a finite number"),
    ({"seconds": math.inf}, "--seconds must be a finite number"),
    ({"seq_len": 0}, "--seq-len must be at least 1"),
    ({"inference_steps": 0}, "--inference-steps must be at least 1"),
    ({"seed": 2**64}, "--seed must be at most"),
    ({"size": "huge"}, "--size must be one of tiny, default"),
])
def test_bad_values_are_named(change: dict[str, object], words: str) -> None:
    suite = next(s for s in SUITES if all(takes(s, name) for name in change))
    problems = BenchOptions.from_values({"suite": suite, **change}).problems()
    assert len(problems) == 1 and words in problems[0], problems


def test_good_values_have_no_problems() -> None:
    assert BenchOptions(suite="sd15-infer", seed=18446744073709551615, seconds=2.0,
                        warmup_steps=0).problems() == []


def test_add_arguments_on_a_fresh_parser() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser, cli=True, skip=("suite",))
    args = parser.parse_args(["--compile", "--steps", "3"])
    assert args.compile is True and args.steps == 3 and args.channels_last is False
