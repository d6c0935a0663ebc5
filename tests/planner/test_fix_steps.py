"""One plan with the doctor (issue 33, item 2): every recorded machine whose doctor shows a
fixable finding (core.install.fix_steps.FIXABLE) gets the step or note that fixes it, and the
doctor, asked again about the machine as the plan leaves it, no longer shows that finding."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from core.diagnose.context import Context
from core.diagnose.doctor import run_doctor
from core.diagnose.engine import diagnose
from core.install.fix_steps import FIXABLE, OPTION
from core.install.plan import Plan
from core.install.planner import Choices, PlanError, make_plan
from core.knowledge.loader import load_knowledge
from core.probe.environment import ENV_SCRIPT, EnvironmentFacts, Setting
from core.probe.facts import Facts
from core.system import SnapshotSystem

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"
NAMED = {"rx7900xtx-override-wrong-bashrc", "hip-visible-devices-hides-qemu-vm"}
"""The machines issue 33 names: their plans ignored what the doctor marks wrong."""


def _machines() -> list[Path]:
    return sorted(p for p in MACHINES.iterdir() if (p / "SOURCE.md").is_file())


def _fixable(facts: Facts) -> set[str]:
    findings = diagnose(Context(facts, load_knowledge()))
    return {f.id for f in findings if f.id in FIXABLE and f.severity in ("error", "warning")}


def _stale(facts: Facts, plan: Plan, names: set[str]) -> list[Setting]:
    env = facts.environment
    return [s for s in env.settings if s.name in names and plan.env.get(s.name) != s.value
            and s.path != env.applied_from and not s.path.endswith("/" + ENV_SCRIPT)]


def _as_the_plan_leaves_it(facts: Facts, plan: Plan) -> Facts:
    """The machine after the plan, as a shell that activates its environment sees it: the
    commented-out lines gone from the start-up files (and from the login's environment), the
    environment's activation applied (unset, forced, or set where the shell has none)."""
    env = facts.environment
    commented = {(s.path, s.line) for step in plan.steps if step.consent_option == OPTION
                 for s in env.settings if step.argv and s.path in step.argv
                 and str(s.line) in step.argv}
    settings = tuple(s for s in env.settings if (s.path, s.line) not in commented)
    from_files = {s.name for s in settings}
    values = {k: v for k, v in env.values.items()
              if k not in plan.env_unset and (k in from_files or not any(
                  s.name == k for s in env.settings))}
    for key, value in plan.env.items():
        if key in plan.env_forced or key not in values:
            values[key] = value
    return replace(facts, environment=EnvironmentFacts(values=values, settings=settings))


def test_every_fixable_finding_of_every_recorded_machine_becomes_a_step() -> None:
    assert FIXABLE, "the table of fixable findings is empty"
    kb = load_knowledge()
    matched: list[str] = []
    for machine in _machines():
        facts = run_doctor(SnapshotSystem(machine), probe_torch=False).facts
        shown = _fixable(facts)
        if not shown:
            continue
        try:
            plan = make_plan(facts, kb, Choices(fix_shell_files=True))
        except PlanError:
            assert machine.name not in NAMED
            continue
        if plan.blocked:
            continue
        matched.append(machine.name)
        ctx = Context(facts, kb)
        home = facts.permissions.user.home.rstrip("/")
        for finding in shown:
            names = FIXABLE[finding](ctx)
            assert names, f"{machine.name}: {finding} names no variable"
            for setting in _stale(facts, plan, names):
                where = f"{machine.name}: {setting.path} line {setting.line}"
                if setting.path.startswith(home + "/") and "fish_variables" not in setting.path:
                    step = [s for s in plan.steps if s.argv is not None
                            and setting.path in s.argv and str(setting.line) in s.argv]
                    assert step, f"{where}: no step comments it out"
                    assert step[0].consent is True and step[0].consent_option == OPTION
                    assert not step[0].privileged, where
                    assert setting.text in (step[0].argv or ()), where  # the line as it is
                else:
                    assert any(setting.path in note for note in plan.notes), where
            for name in names:
                exported = facts.environment.values.get(name)
                if exported is not None and exported != plan.env.get(name):
                    assert name in plan.env_unset + plan.env_forced, f"{machine.name}: {name}"
        # the verify step's view: the same finding must not come back
        again = _fixable(_as_the_plan_leaves_it(facts, plan))
        assert not again & shown, f"{machine.name}: still {again & shown} after the plan"
    assert set(matched) >= NAMED, matched


def test_without_consent_the_step_is_shown_and_not_agreed_to() -> None:
    facts = run_doctor(SnapshotSystem(MACHINES / "rx7900xtx-override-wrong-bashrc"),
                       probe_torch=False).facts
    plan = make_plan(facts, load_knowledge(), Choices())
    step = next(s for s in plan.steps if s.consent_option == OPTION)
    assert step.consent is False
    assert step.title == "Comment out line 2 of /home/alice/.bashrc"
    assert "export HSA_OVERRIDE_GFX_VERSION=10.3.0" in step.explain
    assert step.to_json()["consent_option"] == OPTION
    assert plan.to_json()["env_unset"] == ["HSA_OVERRIDE_GFX_VERSION"]
    # the first of the user's steps (seen first on the page), the check last
    ids = [s.id for s in plan.steps]
    assert ids.index(step.id) < ids.index("venv") < ids.index("env-file") < ids.index("verify")


def test_a_machine_without_a_wrong_export_gets_no_such_step() -> None:
    """A right override exported from ~/.profile is left alone."""
    facts = run_doctor(SnapshotSystem(MACHINES / "rx6600xt-ubuntu2404-override-set"),
                       probe_torch=False).facts
    plan = make_plan(facts, load_knowledge(), Choices(fix_shell_files=True))
    assert not any(s.consent_option == OPTION for s in plan.steps)
    assert "env_unset" not in plan.to_json() and "env_forced" not in plan.to_json()


@pytest.mark.parametrize("shell", ["sh", "fish", "csh"])
def test_the_environment_files_unset_the_wrong_export(shell: str, tmp_path: Path) -> None:
    """The written env file, sourced by the real shell with the stale value exported, leaves
    HIP_VISIBLE_DEVICES unset (needs sh, fish, tcsh: skipped where one is missing)."""
    program = {"sh": "sh", "fish": "fish", "csh": "tcsh"}[shell]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    facts = run_doctor(SnapshotSystem(MACHINES / "hip-visible-devices-hides-qemu-vm"),
                       probe_torch=False).facts
    plan = make_plan(facts, load_knowledge(), Choices())
    suffix = "" if shell == "sh" else f"-{shell}"
    spec = next(s for s in plan.steps if s.id == f"env-file{suffix}").file
    assert spec is not None and spec.content
    script = tmp_path / f"rocmate-env.{shell}"
    script.write_text(spec.content)
    show = {"sh": f'. "{script}"; echo "[${{HIP_VISIBLE_DEVICES-gone}}]"',
            "fish": f'source "{script}"; set -q HIP_VISIBLE_DEVICES; '
                    'and echo "[$HIP_VISIBLE_DEVICES]"; or echo "[gone]"',
            "csh": f'source "{script}"; if ($?HIP_VISIBLE_DEVICES) then\n'
                   'echo "[$HIP_VISIBLE_DEVICES]"\nelse\necho "[gone]"\nendif'}[shell]
    argv = [program, "-f", "-c", show] if shell == "csh" else [program, "-c", show]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HIP_VISIBLE_DEVICES": "1"}
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30, check=True)
    assert out.stdout.strip() == "[gone]"


def _moved(machine: str, path: str | None) -> Facts:
    """The recorded machine with its one stale line in ``path`` instead (None: in no file, as
    when it was exported by hand in the terminal rocmate was started from)."""
    facts = run_doctor(SnapshotSystem(MACHINES / machine), probe_torch=False).facts
    env = facts.environment
    settings = () if path is None else tuple(replace(s, path=path) for s in env.settings)
    return replace(facts, environment=replace(env, settings=settings))


def test_a_system_file_a_fish_universal_and_a_bare_export_are_named_in_notes() -> None:
    """Lines rocmate does not change as the user get the words to change them instead; the
    environment's activation unsets the value all the same."""
    kb = load_knowledge()
    machine = "hip-visible-devices-hides-qemu-vm"
    for path, words in (("/etc/environment", "sudoedit /etc/environment"),
                        ("/home/alice/.config/fish/fish_variables",
                         "set -eU HIP_VISIBLE_DEVICES"),
                        (None, "unset HIP_VISIBLE_DEVICES")):
        plan = make_plan(_moved(machine, path), kb, Choices(fix_shell_files=True))
        assert not any(s.consent_option == OPTION for s in plan.steps), path
        assert any(words in note for note in plan.notes), (path, plan.notes)
        assert plan.env_unset == ("HIP_VISIBLE_DEVICES",)
