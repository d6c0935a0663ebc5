"""The install runner, for real: user steps run, files written, log and state kept, resume works,
the privileged block goes through a helper process and pkexec's exit codes become words."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from core.install.plan import FileSpec, Plan, Step
from core.install.runner import Runner, RunState


def _plan(tmp: Path, *steps: Step, env: dict[str, str] | None = None) -> Plan:
    return Plan(strategy="pip-only", rocm="7.2", torch_index=None, steps=steps, env=env or {})


def _run(plan: Plan, folder: Path, helper: list[str] | None = None) -> tuple[bool, list[dict]]:
    events: list[dict[str, Any]] = []
    runner = Runner(plan, events.append, helper, folder=folder, fetch=lambda url: b"KEY")
    ok = asyncio.run(runner.run())
    return ok, events


def _counter_step(step_id: str, counter: Path, fail_if: Path | None = None) -> Step:
    code = (
        "import sys, pathlib\n"
        f"p = pathlib.Path({str(counter)!r}); p.write_text(p.read_text() + 'x' if p.exists() "
        "else 'x')\n"
        "print('Progress: 42%')\n"
        + (f"sys.exit(3 if pathlib.Path({str(fail_if)!r}).exists() else 0)\n" if fail_if else "")
    )
    return Step(step_id, step_id, "test step", argv=(sys.executable, "-c", code))


def test_user_steps_files_log_and_state(tmp_path: Path) -> None:
    target = tmp_path / "venv/bin/rocmate-env.sh"
    activate = tmp_path / "venv/bin/activate"
    activate.parent.mkdir(parents=True)
    activate.write_text("# activate\n")
    verify = Step(
        "verify",
        "verify",
        "env reaches the check",
        argv=(sys.executable, "-c", "import os,sys; sys.exit(os.environ['ROCMATE_T'] != 'yes')"),
        kind="verify",
    )
    plan = _plan(
        tmp_path,
        _counter_step("one", tmp_path / "count"),
        Step("env", "env", "file", file=FileSpec(str(target), content="export A=1\n"), kind="file"),
        Step(
            "act",
            "act",
            "append",
            file=FileSpec(str(activate), content=". x\n", append=True),
            kind="file",
        ),
        verify,
        env={"ROCMATE_T": "yes"},
    )
    ok, events = _run(plan, tmp_path / "state")
    assert ok, events
    assert target.read_text() == "export A=1\n"
    assert activate.read_text() == "# activate\n. x\n"
    outputs = [e for e in events if e["event"] == "output"]
    assert outputs and outputs[0]["percent"] == 42.0
    assert events[-1]["event"] == "done" and events[-1]["ok"] is True
    log = [json.loads(line) for line in (tmp_path / "state/install.log").read_text().splitlines()]
    assert [e["event"] for e in log] == [e["event"] for e in events]
    state = RunState.load(tmp_path / "state/state.json")
    assert list(state.done) == ["one", "env", "act", "verify"]
    assert all(state.is_done(s) for s in plan.steps)
    # Appending twice does not repeat the line.
    ok, _ = _run(plan, tmp_path / "state2")
    assert ok and activate.read_text() == "# activate\n. x\n"


def test_append_to_a_missing_file_creates_it(tmp_path: Path) -> None:
    """A venv without bin/activate.fish (python -m venv always writes one): the step makes it,
    holding just the line, rather than failing the whole set-up over a shell not in use."""
    fish = tmp_path / "venv/bin/activate.fish"
    line = f'source "{tmp_path}/venv/bin/rocmate-env.fish"\n'
    act = Step("act", "act", "append", file=FileSpec(str(fish), line, append=True), kind="file")
    ok, events = _run(_plan(tmp_path, act), tmp_path / "state")
    assert ok, events
    assert fish.read_text() == line and oct(fish.stat().st_mode & 0o777) == "0o644"


def test_failure_stops_and_resume_skips_finished_steps(tmp_path: Path) -> None:
    counter, breaker = tmp_path / "count", tmp_path / "broken"
    breaker.write_text("")
    plan = _plan(
        tmp_path,
        _counter_step("first", counter),
        _counter_step("second", tmp_path / "count2", fail_if=breaker),
    )
    ok, events = _run(plan, tmp_path / "state")
    assert not ok
    failed = [e for e in events if e.get("status") == "failed"]
    assert failed and failed[0]["id"] == "second" and failed[0]["exit"] == 3
    assert events[-1]["resume"] == "rocmate install --resume"
    breaker.unlink()
    ok, _ = _run(plan, tmp_path / "state")
    assert ok
    assert counter.read_text() == "x"  # the first step ran once only
    assert (tmp_path / "count2").read_text() == "xx"


def test_privileged_block_goes_to_the_helper_with_the_fetched_key(tmp_path: Path) -> None:
    record = tmp_path / "helper-input.json"
    fake_helper = [
        sys.executable,
        "-c",
        "import sys, json, pathlib\n"
        f"pathlib.Path({str(record)!r}).write_text(sys.stdin.read())\n"
        "print(json.dumps({'event': 'step', 'id': 'apt-keyring', 'status': 'done'}))\n",
    ]
    key = Step(
        "apt-keyring",
        "key",
        "key",
        privileged=True,
        file=FileSpec("/etc/apt/keyrings/rocm.gpg", source_url="https://example.invalid/key"),
        key_fingerprint="CA8BB4727A47B4D09B4EE8969386B48A1A693C5C",
        kind="file",
    )
    groups = Step(
        "groups",
        "groups",
        "groups",
        privileged=True,
        argv=("usermod", "-aG", "render,video", "ana"),
        after="relogin",
    )
    ok, events = _run(_plan(tmp_path, key, groups), tmp_path / "state", fake_helper)
    assert ok, events
    sent = json.loads(record.read_text())
    assert sent["schema"] == "rocmate.plan/1"
    assert [s["id"] for s in sent["steps"]] == ["apt-keyring", "groups"]
    assert sent["steps"][0]["file"]["content_b64"] == "S0VZ"  # base64 of the fetched b"KEY"
    assert any(e.get("via") == "helper" for e in events)
    assert events[-1]["needs"] == ["relogin"]


def test_dismissed_and_unauthorised_prompts_are_words(tmp_path: Path) -> None:
    step = Step(
        "groups",
        "groups",
        "groups",
        privileged=True,
        argv=("usermod", "-aG", "render,video", "ana"),
    )
    for code, words in ((126, "dismissed the password prompt"), (127, "Not authorised")):
        fake = tmp_path / f"bin{code}" / "pkexec"  # a stand-in that exits as pkexec does
        fake.parent.mkdir()
        fake.write_text(f"#!{sys.executable}\nimport sys\nsys.stdin.read()\nsys.exit({code})\n")
        fake.chmod(0o755)
        ok, events = _run(_plan(tmp_path, step), tmp_path / f"state{code}", [str(fake)])
        assert not ok
        assert events[-1]["exit"] == code
        assert words in events[-1]["error"]


def test_consent_step_is_skipped_without_consent(tmp_path: Path) -> None:
    purge = Step(
        "remove-old-rocm",
        "purge",
        "purge",
        privileged=True,
        argv=("apt-get", "purge", "-y", "rocm-core5.7.1"),
        consent=False,
    )
    ok, events = _run(_plan(tmp_path, purge), tmp_path / "state", None)
    assert ok
    assert [e["status"] for e in events if e["event"] == "step"] == ["skipped"]


def test_blocked_plan_and_missing_root_route(tmp_path: Path) -> None:
    blocked = Plan(strategy="pip-only", rocm=None, torch_index=None, steps=(), blocked="no GPU")
    ok, events = _run(blocked, tmp_path / "a")
    assert not ok and events[-1]["error"] == "no GPU"
    step = Step("groups", "g", "g", privileged=True, argv=("usermod", "-aG", "render", "a"))
    ok, events = _run(_plan(tmp_path, step), tmp_path / "b", None)
    assert not ok and "root" in events[-1]["error"]


def test_cancel_stops_a_silent_step(tmp_path: Path) -> None:
    import time as _time

    step = Step(
        "sleep", "sleep", "sleeps", argv=(sys.executable, "-c", "import time; time.sleep(30)")
    )
    events: list[dict[str, Any]] = []
    runner = Runner(_plan(tmp_path, step), events.append, None, folder=tmp_path / "s")

    async def go() -> bool:
        task = asyncio.ensure_future(runner.run())
        await asyncio.sleep(1.0)
        runner.cancel()
        return await task

    start = _time.monotonic()
    assert asyncio.run(go()) is False
    assert _time.monotonic() - start < 10
    assert {"event": "step", "id": "sleep", "status": "cancelled"}.items() <= events[-2].items()
    assert events[-1]["error"] == "cancelled"


def test_helper_failure_text_and_early_exit(tmp_path: Path) -> None:
    helper = [
        sys.executable,
        "-c",
        "import json\n"
        "print(json.dumps({'event': 'done', 'ok': False, 'error': 'apt-get update failed'}))\n"
        "raise SystemExit(1)\n",
    ]
    step = Step("apt-update", "update", "update", privileged=True, argv=("apt-get", "update"))
    ok, events = _run(_plan(tmp_path, step), tmp_path / "s", helper)
    assert not ok
    assert any(e["event"] == "helper-done" for e in events)
    assert events[-1]["event"] == "done" and events[-1]["error"] == "apt-get update failed"
    # A helper that exits before reading its input is a failure, not a crash.
    quitter = [sys.executable, "-c", "raise SystemExit(2)"]
    big = Step(
        "apt-install",
        "install",
        "install",
        privileged=True,
        argv=("apt-get", "install", "-y", *[f"rocm-p{i}" for i in range(30)]),
    )
    ok, events = _run(_plan(tmp_path, big), tmp_path / "t", quitter)
    assert not ok and events[-1]["exit"] == 2


def test_verify_sees_the_plan_variables_not_stale_ones(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("HSA_OVERRIDE_GFX_VERSION", "9.9.9")
    monkeypatch.setenv("HSA_OVERRIDE_GFX_VERSION_1", "9.9.9")
    check = (
        "import os, sys\n"
        "env = os.environ\n"
        "sys.exit(env.get('HSA_OVERRIDE_GFX_VERSION') != '10.3.0'"
        " or 'HSA_OVERRIDE_GFX_VERSION_1' in env)"
    )
    verify = Step("verify", "v", "v", argv=(sys.executable, "-c", check), kind="verify")
    ok, _ = _run(
        _plan(tmp_path, verify, env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}), tmp_path / "s"
    )
    assert ok


def _fake_helper(ok: bool = True) -> list[str]:
    return [
        sys.executable,
        "-c",
        "import sys, json\n"
        "sys.stdin.read()\n"
        f"print(json.dumps({{'event': 'done', 'ok': {ok!r}, 'error': None}}))\n",
    ]


def test_resume_runs_again_the_steps_whose_plan_changed(tmp_path: Path) -> None:
    """--resume after another --rocm/--venv/--strategy: a step with the same id but another
    content is not the step that finished, so it runs again; an unchanged one is skipped."""
    first, second = tmp_path / "c1", tmp_path / "c2"
    venv = _counter_step("venv", first)
    old_torch = Step("pip-torch", "t", "rocm7.1", argv=(sys.executable, "-c", "print('7.1')"))
    ok, _ = _run(_plan(tmp_path, venv, old_torch), tmp_path / "state")
    assert ok
    new_torch = _counter_step("pip-torch", second)  # same id, another argv (another index)
    ok, events = _run(_plan(tmp_path, venv, new_torch), tmp_path / "state")
    assert ok
    started = [e["id"] for e in events if e.get("status") == "start"]
    assert started == ["pip-torch"]
    assert first.read_text() == "x" and second.read_text() == "x"
    # A privileged step whose content changed goes to the helper again, too.
    apt_72 = Step("apt-source", "s", "s", privileged=True, kind="file",
                  file=FileSpec("/etc/apt/sources.list.d/rocm.list", content="7.2\n"))
    apt_71 = Step("apt-source", "s", "s", privileged=True, kind="file",
                  file=FileSpec("/etc/apt/sources.list.d/rocm.list", content="7.1\n"))
    ok, _ = _run(_plan(tmp_path, apt_72), tmp_path / "p", _fake_helper())
    ok, events = _run(_plan(tmp_path, apt_72), tmp_path / "p", _fake_helper())
    assert ok and not any(e["event"] == "privileged" for e in events)
    ok, events = _run(_plan(tmp_path, apt_71), tmp_path / "p", _fake_helper())
    assert ok and [e["steps"] for e in events if e["event"] == "privileged"] == [["apt-source"]]


def test_old_state_without_hashes_counts_nothing_as_done(tmp_path: Path) -> None:
    folder = tmp_path / "state"
    folder.mkdir()
    (folder / "state.json").write_text(json.dumps({"done": ["one"], "needs": ["relogin"]}))
    counter = tmp_path / "count"
    ok, _ = _run(_plan(tmp_path, _counter_step("one", counter)), folder)
    assert ok and counter.read_text() == "x"


def test_verify_always_runs_on_resume(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    verify = Step("verify", "v", "v", argv=_counter_step("v", counter).argv, kind="verify")
    for _ in range(2):
        ok, _ = _run(_plan(tmp_path, verify), tmp_path / "state")
        assert ok
    assert counter.read_text() == "xx"


def _relogin_plan(tmp_path: Path, verify_ok: Path) -> Plan:
    groups = Step("groups", "groups", "groups", privileged=True,
                  argv=("usermod", "-aG", "render,video", "ana"), after="relogin")
    check = (f"import pathlib, sys; sys.exit(0 if pathlib.Path({str(verify_ok)!r}).exists() "
             "else 1)")
    verify = Step("verify", "Check that PyTorch sees the GPU", "v",
                  argv=(sys.executable, "-c", check), kind="verify")
    return _plan(tmp_path, groups, verify)


def _run_runner(plan: Plan, folder: Path, helper: list[str] | None,
                in_new_groups: bool) -> tuple[bool, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    runner = Runner(plan, events.append, helper, folder=folder)
    runner.in_new_groups = lambda: in_new_groups
    return asyncio.run(runner.run()), events


def test_pending_relogin_turns_a_failed_verify_into_log_out_and_resume(tmp_path: Path) -> None:
    works = tmp_path / "gpu-works"
    plan = _relogin_plan(tmp_path, works)
    state = tmp_path / "state"
    ok, events = _run_runner(plan, state, _fake_helper(), in_new_groups=False)
    assert not ok
    waiting = {"event": "step", "id": "verify", "status": "needs-relogin"}
    assert waiting.items() <= events[-2].items()
    last = events[-1]
    assert last["needs"] == ["relogin"]
    assert last["error"] == (
        "PyTorch cannot use the GPU yet: your new groups (render, video) take effect only in a "
        "new login. Log out and back in, then run `rocmate install --resume`."
    )
    assert RunState.load(state / "state.json").needs == ["relogin"]
    # Resumed before logging out again: the same words, and usermod is not asked for again.
    ok, events = _run_runner(plan, state, None, in_new_groups=False)
    assert not ok and "Log out and back in" in events[-1]["error"]
    # Logged in again, and the check passes: the pending need is cleared.
    works.write_text("")
    ok, events = _run_runner(plan, state, None, in_new_groups=True)
    assert ok and events[-1]["needs"] == []
    assert RunState.load(state / "state.json").needs == []


def test_failed_verify_after_the_new_login_is_a_plain_failure(tmp_path: Path) -> None:
    plan = _relogin_plan(tmp_path, tmp_path / "never")
    state = tmp_path / "state"
    _run_runner(plan, state, _fake_helper(), in_new_groups=False)
    ok, events = _run_runner(plan, state, None, in_new_groups=True)
    assert not ok
    assert events[-2]["status"] == "failed" and events[-2]["id"] == "verify"
    assert events[-1]["error"] == "step verify failed"


def test_cli_ctrl_c_is_the_runs_cancel(tmp_path: Path, capsys: Any) -> None:
    """In the terminal the first Ctrl-C cancels (the runner then ends the step and says so)."""
    import os
    import signal
    import threading

    from core.cli import install as cli

    step = Step("sleep", "sleep", "s", argv=(sys.executable, "-c", "import time; time.sleep(30)"))
    events: list[dict[str, Any]] = []
    runner = Runner(_plan(tmp_path, step), events.append, None, folder=tmp_path / "s")
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        ok = asyncio.run(cli._run_cancellable(runner))
    finally:
        timer.cancel()
    assert ok is False and events[-1]["error"] == "cancelled"
    assert "Stopping... (Ctrl-C again to leave at once)" in capsys.readouterr().err
    cli._print_event({"event": "stopping", "message": "Asked the root helper to stop."})
    assert capsys.readouterr().out == "Asked the root helper to stop.\n"


def test_user_step_time_limit_and_a_child_that_ignores_the_cancel(tmp_path: Path) -> None:
    import time as _time

    slow = Step("slow", "slow", "s", argv=(sys.executable, "-c", "import time; time.sleep(30)"))
    events: list[dict[str, Any]] = []
    runner = Runner(_plan(tmp_path, slow), events.append, None, folder=tmp_path / "a")
    runner.step_timeout_s = 1.0
    start = _time.monotonic()
    assert asyncio.run(runner.run()) is False
    assert _time.monotonic() - start < 10
    failed = [e for e in events if e.get("status") == "failed"]
    assert failed[0]["error"] == "timed out after 1 s" and failed[0]["exit"] == -9
    # A child that ignores SIGTERM is killed once the grace time after the cancel is over.
    stubborn = Step(
        "stubborn", "stubborn", "s",
        argv=(sys.executable, "-c", "import signal, time\n"
              "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\n"
              "time.sleep(30)"),
    )
    events = []
    runner = Runner(_plan(tmp_path, stubborn), events.append, None, folder=tmp_path / "b")
    runner.stop_grace_s = 1.0

    def emit(event: dict[str, Any]) -> None:
        events.append(event)
        if event.get("line") == "ready":
            runner.cancel()

    runner.emit_to = emit
    start = _time.monotonic()
    assert asyncio.run(runner.run()) is False
    assert _time.monotonic() - start < 10
    assert events[-1]["error"] == "cancelled"
