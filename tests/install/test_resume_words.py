"""Resuming a set-up knows the steps it has done by what they do, not by their words: a
set-up started in English and resumed in Chinese (or after a translation changed) does not
run its finished steps again, and a state file an older rocmate wrote (words in its
fingerprints) still counts."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

from core.install.plan import Step
from core.install.runner import RunState, step_hash

STEP = Step("groups", "Add you to the render and video groups", "ROCm needs /dev/kfd.",
            privileged=True, argv=("usermod", "-aG", "render,video", "user"))


def test_a_step_in_another_language_is_the_same_step(tmp_path: Path) -> None:
    chinese = dataclasses.replace(STEP, title="把你加入 render 和 video 组",
                                  explain="ROCm 需要 /dev/kfd。")
    assert step_hash(chinese) == step_hash(STEP)
    other = dataclasses.replace(STEP, argv=("usermod", "-aG", "video", "user"))
    assert step_hash(other) != step_hash(STEP)
    state = RunState(tmp_path / "state.json", {}, [])
    state.done[STEP.id] = step_hash(STEP)
    assert state.is_done(chinese) and not state.is_done(other)


def test_an_older_state_file_still_counts_its_done_steps(tmp_path: Path) -> None:
    worded = json.dumps(STEP.to_json(), sort_keys=True, separators=(",", ":"))
    old = hashlib.sha256(worded.encode()).hexdigest()[:32]  # how rocmate 0.1 saved it
    assert RunState(tmp_path / "state.json", {STEP.id: old}, []).is_done(STEP)
