"""A plan made for a replayed machine is only shown: the set-up operation and the runner
refuse it, so neither front end can carry it out on this computer; a snapshot of a replay is
a copy of its folder; a removal the user did not agree to is never in the shell script."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from core.install.plan_text import shell_script
from core.install.planner import Choices
from core.install.runner import Runner
from core.operations.errors import OperationError
from core.operations.machine import take_snapshot
from core.operations.setup import plan_setup, prepare_setup

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"


def test_a_replayed_plan_is_refused_by_the_operation_and_the_runner(tmp_path: Path) -> None:
    plan = plan_setup(MACHINES / "rx6600-ubuntu2404-fresh")
    assert plan.replay == str(MACHINES / "rx6600-ubuntu2404-fresh")
    with pytest.raises(OperationError, match="replayed machine") as refused:
        prepare_setup(plan, lambda event: None)
    assert refused.value.status == 2
    events: list[dict[str, object]] = []
    runner = Runner(plan, events.append, ["/nonexistent/pkexec"], folder=tmp_path)
    assert asyncio.run(runner.run()) is False
    assert [e["event"] for e in events] == ["plan", "done"]
    assert "replayed machine" in str(events[-1]["error"])


def test_a_snapshot_of_a_replay_is_a_copy_of_its_folder(tmp_path: Path) -> None:
    source = MACHINES / "rx6600-ubuntu2404-fresh"
    snapshot = take_snapshot(tmp_path / "out", root=source)
    assert snapshot.copied_from == source
    copied = sorted(p.relative_to(tmp_path / "out") for p in (tmp_path / "out").rglob("*"))
    assert copied == sorted(p.relative_to(source) for p in source.rglob("*"))
    with pytest.raises(OperationError, match="inside"):
        take_snapshot(source / "files" / "new", root=source)


def test_an_unagreed_removal_is_named_but_never_in_the_script() -> None:
    machine = MACHINES / "rocm-multiple-2x-rx7900xtx"
    unticked = shell_script(plan_setup(machine))
    assert "apt-get purge" not in unticked and "left out" in unticked
    assert "sudo apt-get purge -y" in shell_script(plan_setup(machine, Choices(remove_old=True)))
