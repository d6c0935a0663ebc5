"""The ttm verbs refuse hostile values and paths: two hostile families of ``make faults``
(issue 35).

* "ttm: values and paths" — tests/install/test_helper_ttm.py's TTM_CASES: values above the RAM
  less the floor, zero, negative, signed, fractional, hexadecimal, absurd, not a whole GiB, a
  page pool unlike the limit; any other text in the file (another line, module or option, no
  header, CRLF); other paths (amd-ttm's ttm.conf, blacklist.conf, /lib, /usr/lib and /run's
  modprobe.d, the undo record itself, '..'); and a restore naming another path or argument.
* "ttm: plan strings" — every string of the steps ``rocmate memory apply`` and ``undo`` send
  (core/install/memory_plan.py), mutated as tests/faults/test_hostile_plans.py mutates the
  set-up's plans (shell metacharacters, '..', NUL, newlines, 5,000 characters, apt options);
  the mutations that table calls harmless (in a title or explanation) are left out.

Each is checked in-process against a fake system with 125 GiB of RAM; a sample of each family is
also sent for real, as root, to the helper in a throwaway Debian root: refused, having started no
process and written no file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.install.helper.policy import TTM_PAGES_PER_GIB
from core.install.helper.target import Policy, Target
from core.install.helper.validate import check_input
from core.install.memory_plan import apply_steps, undo_steps
from tests.faults.ledger import Ledger
from tests.faults.test_hostile_plans import Mutant, mutants
from tests.install.support import copy_root, trusting_policy
from tests.install.test_helper_hostile import Case, _assert_runs_nothing, _prepared_root
from tests.install.test_helper_ttm import MEMINFO, TTM_CASES, ttm_target

VALUES = "ttm: values and paths"
STRINGS = "ttm: plan strings"
SCHEMA = "rocmate.plan/1"


def memory_plans() -> dict[str, list[dict[str, Any]]]:
    """The root steps of ``rocmate memory apply`` (96 GiB) and ``undo``, as the runner sends
    them (privileged steps as JSON)."""
    return {"apply": [s.to_json() for s in apply_steps(96 * TTM_PAGES_PER_GIB)],
            "undo": [s.to_json() for s in undo_steps()]}


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    return ttm_target(tmp_path_factory.mktemp("ttm-faults"))


@pytest.fixture(scope="module")
def policy() -> Policy:
    return trusting_policy()


@pytest.fixture(scope="module")
def hostile_strings() -> list[Mutant]:
    return [m for m in mutants(memory_plans()) if not m.harmless]


def _refused(payload: bytes, target: Target, policy: Policy) -> list[str]:
    result = check_input(payload, target, policy)
    return [] if result.ok or result.actions else [r.reason for r in result.refused]


def test_the_unmutated_plans_are_accepted(target: Target, policy: Policy) -> None:
    """The control: what rocmate sends is accepted, so a refusal below is the mutation's."""
    for steps in memory_plans().values():
        doc = json.dumps({"schema": SCHEMA, "steps": steps}).encode()
        assert check_input(doc, target, policy).ok


def test_values_and_paths(target: Target, policy: Policy, ledger: Ledger) -> None:
    for case in TTM_CASES:
        ledger.tried(VALUES, case.name)
        reasons = _refused(case.payload, target, policy)
        assert any(case.reason in r for r in reasons), (case.name, reasons)


def test_plan_strings(hostile_strings: list[Mutant], target: Target, policy: Policy,
                      ledger: Ledger) -> None:
    assert len(hostile_strings) >= 200
    accepted = []
    for mutant in hostile_strings:
        ledger.tried(STRINGS, mutant.label)
        reasons = _refused(mutant.payload, target, policy)
        if not reasons or not all(reasons):
            accepted.append(mutant.label)
    assert not accepted, accepted[:20]


@pytest.fixture(scope="module")
def ttm_root(debian_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with copy_root(debian_root, tmp_path_factory.mktemp("ttm-faults") / "copy") as root:
        _prepared_root(root)
        (root / "etc/modprobe.d").mkdir(parents=True, exist_ok=True)
        (root / "proc/meminfo").write_text(MEMINFO)
        yield root


@pytest.mark.root
def test_a_sample_for_real(hostile_strings: list[Mutant], target: Target, policy: Policy,
                           ttm_root: Path, ledger: Ledger) -> None:
    """Every fourth value or path case, and the first mutant of each family and field kind."""
    for case in TTM_CASES[::4]:
        ledger.tried(VALUES, case.name + " (for real)")
        _assert_runs_nothing(case, ttm_root)
    chosen: dict[str, Mutant] = {}
    for mutant in hostile_strings:
        chosen.setdefault(mutant.sample_key, mutant)
    for mutant in chosen.values():
        ledger.tried(STRINGS, mutant.label + " (for real)")
        reason = _refused(mutant.payload, target, policy)[0]
        _assert_runs_nothing(Case(mutant.label, mutant.payload, reason), ttm_root)
