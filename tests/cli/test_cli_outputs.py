"""Every read-only command prints what it printed before the code was reshaped.

The outputs in tests/fixtures/cli-outputs/ were recorded (``python -m tests.cli_outputs
--record``) before the operations were split from the commands; doctor, explain, install
--dry-run, env and report show/render/compare run over every recorded machine and report.
A change that a user should see is recorded again on purpose, and the commit says why.
"""

from __future__ import annotations

import difflib

import pytest

from tests import cli_outputs


@pytest.fixture(scope="module")
def outputs() -> dict[str, dict[str, object]]:
    return cli_outputs.collect(cli_outputs.FIXED_HOME)


def test_every_recorded_command_still_runs(outputs: dict[str, dict[str, object]]) -> None:
    recorded = {p.stem for p in cli_outputs.RECORDED.glob("*.out")}
    assert recorded == set(outputs), "re-record after adding a machine or a report fixture"
    assert len(recorded) > 400


def test_outputs_are_byte_identical(outputs: dict[str, dict[str, object]]) -> None:
    changed: list[str] = []
    for name, result in sorted(outputs.items()):
        path = cli_outputs.RECORDED / f"{name}.out"
        if not path.is_file():
            continue
        before = path.read_text(encoding="utf-8")
        now = cli_outputs.recorded_text(result)
        if before != now:
            diff = difflib.unified_diff(before.splitlines(), now.splitlines(), "recorded", "now",
                                        lineterm="", n=1)
            changed.append(f"{name}:\n" + "\n".join(list(diff)[:20]))
    assert not changed, f"{len(changed)} outputs changed:\n" + "\n\n".join(changed[:5])
