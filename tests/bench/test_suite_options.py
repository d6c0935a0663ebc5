"""Each suite takes only its own options (issue 30, item 8): ``rocmate bench`` refuses another
suite's option before it starts anything, as it refuses ``--gpus``, and the app never sends one."""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

import pytest

from core.bench.worker.options import BenchOptions, flag_of, takes
from core.bench.worker.protocol import SUITES
from core.cli import bench as cli
from core.operations.suites import Settings, options_for, plan_choices
from tests.bench.helpers import PYTHON


def bench(*words: str) -> int:
    parser = argparse.ArgumentParser(prog="rocmate")
    cli.add_parsers(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["bench", *words])
    return int(args.func(args))



@pytest.mark.parametrize(("suite", "words", "flag"), [
    ("gemm", ["--inference-steps", "5"], "--inference-steps"),
    ("resnet50-train", ["--preset", "7b"], "--preset"),
    ("bandwidth", ["--batch-size", "7"], "--batch-size"),
    ("gemm", ["--compile"], "--compile"),
])
def test_bench_refuses_another_suites_option(
        suite: str, words: list[str], flag: str, xdg: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    rc = bench(suite, "--python", PYTHON, "--device", "cpu", "--size", "tiny", *words)
    cap = capsys.readouterr()
    assert rc == 2, cap.err
    lines = cap.err.strip().splitlines()
    assert len(lines) == 1, cap.err
    assert lines[0].startswith(f"rocmate bench: {flag}: ") and f"{suite} does not take" \
        in lines[0], lines[0]
    assert cap.out == ""
    assert not (xdg / "rocmate").exists()  # nothing started: no run file, no history


def test_the_refusal_in_chinese(xdg: Path, chinese: None,
                                capsys: pytest.CaptureFixture[str]) -> None:
    rc = bench("gemm", "--python", PYTHON, "--device", "cpu", "--size", "tiny",
               "--inference-steps", "5")
    err = capsys.readouterr().err
    assert rc == 2
    assert "--inference-steps" in err and "不" in err and "does not take" not in err, err


def test_every_option_names_its_suites() -> None:
    assert takes("sd15-infer", "inference_steps") and not takes("gemm", "inference_steps")
    assert takes("llm-train", "preset") and not takes("resnet50-train", "preset")
    assert not takes("bandwidth", "batch_size") and takes("bandwidth", "steps")
    for spec in fields(BenchOptions):  # every option some suite takes
        assert any(takes(s, spec.name) for s in SUITES), flag_of(spec.name)


def test_the_app_sends_each_suite_only_its_options() -> None:
    settings = Settings(device="cpu", size="tiny", precision="fp32", batch_size=3,
                        channels_last=True, compile=True, steps=4, model=None, gpus="2")
    for plan in plan_choices(None, gpu=False, tiny=True, gpus="2"):
        for options in options_for(plan, settings):
            assert options.problems() == [], (plan.choice.suites, options)
