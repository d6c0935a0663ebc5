"""A data-parallel run's GPUs (issue 32, item 3): the doctor never offers an iGPU or an unusable
card for data-parallel training, and the run itself keeps its ranks off them. Each machine is a
recorded one (tests/fixtures/machines/, SOURCE.md names the public thread): the facts are read
from its folder, so nothing here looks at this computer, and no worker starts.

A run through ``rocmate bench --gpus 2 --device cpu`` would prove nothing here: CPU ranks take
no GPU, so rocmate chooses none (test_cpu_ranks_choose_nothing). The tests build the run
(``BenchmarkRun``) on the recorded machine and read the environment its worker would get."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from core.bench.worker.options import BenchOptions
from core.diagnose.context import data_parallel_gpus
from core.operations.benchmark import (
    BenchmarkRequest,
    BenchmarkRun,
    machine_facts,
    rank_gpus,
)
from core.operations.errors import OperationError
from core.operations.machine import check_machine
from core.operations.suites import SuiteSequence
from core.probe.facts import Facts
from core.system import open_system

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
TWO_XTX_RAPHAEL = MACHINES / "k32-2x-rx7900xtx-raphael-igpu"  # ROCm/rccl#876
IGPU_FIRST = MACHINES / "igpu-first-raphael-rx7900xtx"
RX7800XT_RX580 = MACHINES / "rx7800xt-rx580-debian13-rocm72"  # ROCm/legacy-rocm-build#5942
MI300X_X4 = MACHINES / "mi300x-x4-ubuntu2204"


def facts_of(folder: Path) -> Facts:
    facts = machine_facts(open_system(folder))
    assert facts is not None
    return facts


def run_on(folder: Path, gpus: str, tmp_path: Path, device: str = "cuda") -> BenchmarkRun:
    """The run as ``rocmate bench resnet50-train --gpus N`` sets it up on the recorded machine:
    built, not started."""
    options = BenchOptions("resnet50-train", device=device, gpus=gpus)
    request = BenchmarkRequest(options, python=sys.executable, run_file=tmp_path / "run.jsonl",
                               history=False)
    return BenchmarkRun(request, system=open_system(folder))


def test_the_doctor_offers_the_two_cards_not_the_igpu() -> None:
    report = check_machine(TWO_XTX_RAPHAEL, probe_torch=False)
    gpus = report.facts.gpus.gpus
    assert [g.gfx for g in gpus] == ["gfx1100", "gfx1100", "gfx1036"]
    assert gpus[2].integrated and gpus[2].slot == "0000:16:00.0"  # the thread's Raphael iGPU
    offered = data_parallel_gpus(gpus, report.supports)
    assert offered == list(gpus[:2])
    several = [f for f in report.findings if f.id == "gpus-several"]
    assert len(several) == 1
    assert "2 GPUs for data-parallel training: 2 × Radeon RX 7900 XTX" in several[0].title
    assert "Raphael" not in several[0].title


def test_the_ranks_go_on_the_two_cards(tmp_path: Path) -> None:
    ranks = rank_gpus(BenchOptions("resnet50-train", gpus="2"), facts_of(TWO_XTX_RAPHAEL))
    assert ranks.variables == {"HIP_VISIBLE_DEVICES": "0,1"}  # KFD nodes 1, 2; the iGPU is 2
    assert ranks.said == ("data-parallel ranks on GPUs 0,1 (HIP_VISIBLE_DEVICES=0,1); left "
                          "out: the integrated Radeon Graphics (Raphael)")
    assert ranks.problem is None
    run = run_on(TWO_XTX_RAPHAEL, "all", tmp_path)  # `all` counts what PyTorch sees: two
    assert run.runner.extra_env["HIP_VISIBLE_DEVICES"] == "0,1"
    assert run.ranks == ranks
    assert "HIP_VISIBLE_DEVICES" not in run.variables  # not rocmate-env.sh's: said apart


def test_more_ranks_than_cards_do_not_start(tmp_path: Path) -> None:
    with pytest.raises(OperationError) as refused:
        run_on(TWO_XTX_RAPHAEL, "3", tmp_path)
    assert refused.value.status == 2
    assert str(refused.value) == (
        "--gpus 3: this machine has 2 GPU(s) a data-parallel run can use (2 × Radeon RX 7900 "
        "XTX); not the integrated Radeon Graphics (Raphael); give --gpus 2 or fewer, or --gpus "
        "all")


def test_one_card_and_an_igpu_first(tmp_path: Path) -> None:
    """The iGPU is ROCm's device 0: the single-GPU run a data-parallel run is compared with
    (``--gpus 1``), and ``all``, take the card only; two ranks are refused."""
    for gpus in ("1", "all"):
        run = run_on(IGPU_FIRST, gpus, tmp_path)
        assert run.runner.extra_env["HIP_VISIBLE_DEVICES"] == "1"
        assert run.ranks.said == ("the rank on GPU 1 (HIP_VISIBLE_DEVICES=1); left out: the "
                                  "integrated Radeon Graphics (Raphael)")
    with pytest.raises(OperationError, match=r"--gpus 2: this machine has 1 GPU\(s\) a data-"
                       r"parallel run can use \(Radeon RX 7900 XTX\); not the integrated Radeon "
                       r"Graphics \(Raphael\); leave --gpus out to run on one GPU"):
        run_on(IGPU_FIRST, "2", tmp_path)


def test_an_unsupported_card_is_left_out() -> None:
    ranks = rank_gpus(BenchOptions("llm-train", gpus="all"), facts_of(RX7800XT_RX580))
    assert ranks.variables == {"HIP_VISIBLE_DEVICES": "1"}
    assert "left out: Radeon RX 580 Series (gfx803, not usable with ROCm PyTorch)" in str(
        ranks.said)


def test_four_mi300x_need_no_variable(tmp_path: Path) -> None:
    facts = facts_of(MI300X_X4)
    for gpus in ("2", "4", "all"):
        assert rank_gpus(BenchOptions("resnet50-train", gpus=gpus), facts).variables == {}
    run = run_on(MI300X_X4, "4", tmp_path)
    assert "HIP_VISIBLE_DEVICES" not in run.runner.extra_env and run.ranks.said is None
    assert rank_gpus(BenchOptions("resnet50-train", gpus="5"), facts).problem == (
        "--gpus 5: this machine has 4 GPU(s) a data-parallel run can use (4 × Instinct MI300X); "
        "give --gpus 4 or fewer, or --gpus all")


@pytest.mark.parametrize("variable", ["HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                                      "CUDA_VISIBLE_DEVICES"])
def test_the_users_choice_stands(variable: str, tmp_path: Path) -> None:
    """The user's own HIP_VISIBLE_DEVICES (the recorded login environment with it added):
    rocmate chooses nothing, says nothing more, and refuses nothing."""
    folder = tmp_path / "machine"
    shutil.copytree(TWO_XTX_RAPHAEL, folder, symlinks=True)
    env = json.loads((folder / "env.json").read_text())
    env[variable] = "1"
    (folder / "env.json").write_text(json.dumps(env))
    for gpus in ("2", "3", "all"):
        ranks = rank_gpus(BenchOptions("resnet50-train", gpus=gpus), facts_of(folder))
        assert (ranks.variables, ranks.said, ranks.problem) == ({}, None, None)
    run = run_on(folder, "2", tmp_path)
    assert run.runner.extra_env.get("HIP_VISIBLE_DEVICES") is None  # the worker keeps the user's
    # a value the worker gets from elsewhere (rocmate-env.sh) counts the same
    given = rank_gpus(BenchOptions("resnet50-train", gpus="2"), facts_of(TWO_XTX_RAPHAEL),
                      {"ROCR_VISIBLE_DEVICES": "0"})
    assert given.variables == {}


def test_cpu_ranks_choose_nothing(tmp_path: Path) -> None:
    """``--device cpu``: the ranks are processes on the CPU; no GPU is chosen or counted."""
    run = run_on(TWO_XTX_RAPHAEL, "3", tmp_path, device="cpu")
    assert run.ranks.variables == {} and run.ranks.problem is None and run.facts is None
    plain = rank_gpus(BenchOptions("resnet50-train"), facts_of(TWO_XTX_RAPHAEL))
    assert plain.variables == {}  # no --gpus: the run's own --device says where it goes


def test_the_app_refuses_before_the_first_suite(tmp_path: Path) -> None:
    """The Benchmark page hands its System check's facts to the sequence: the refusal comes
    before the single-GPU run that would otherwise go first."""
    facts = facts_of(TWO_XTX_RAPHAEL)
    first = BenchmarkRequest(BenchOptions("resnet50-train", gpus="1"), python=sys.executable,
                             history=False)
    many = BenchmarkRequest(BenchOptions("resnet50-train", gpus="3"), python=sys.executable,
                            history=False)
    with pytest.raises(OperationError, match="--gpus 3: this machine has 2 GPU"):
        SuiteSequence([first, many], facts=facts)
    assert SuiteSequence([first], facts=facts).facts is facts
