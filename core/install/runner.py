"""Carries out a plan: user steps itself, the privileged block through the helper (one prompt).

Every event goes to a log file as it happens, and the steps that finished are kept in a state
file beside it, so a run can resume after a failure, a reboot or a new login. A finished step is
remembered with a hash of the step as planned: ``--resume`` after a change of ``--rocm``,
``--venv`` or ``--strategy`` runs the changed steps again. The verify step always runs. A
pending "relogin"/"reboot" is cleared by the next run that succeeds. Progress is streamed to a
callback as dictionaries (the CLI prints them; the GUI will draw them).

Stopping a child (cancel, or its time limit): the runner asks it to stop and then keeps reading
its output until it ends, so the child never blocks on a full pipe (a root helper stuck in a
write would hold dpkg's lock). A root helper started through sudo/pkexec cannot be signalled by
the user; it is asked through its stdin instead when it accepts ``--cancel-on-eof``
(privilege.CANCEL_ON_EOF): the plan then goes as one line, stdin stays open, and closing it means
"stop and roll back". The privileged block's limit is longer than the sum of the helper's own
step limits, so the helper always ends, and reports, first. Starting, reading, signalling and
reaping a child are core.child's (shared with the benchmark runner); when to stop it and what
to say are here.
"""

from __future__ import annotations

import asyncio
import base64
import grp
import hashlib
import http.client
import json
import os
import re
import signal
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.child import Child, signal_name
from core.i18n import t
from core.install.helper.policy import SCHEMA
from core.install.plan import Plan, Step
from core.system import clean_env

Event = dict[str, Any]
Emit = Callable[[Event], None]
STEP_TIMEOUT = 3 * 3600.0
"""A user step's limit (pip downloading several GB of wheels)."""
POLL_S = 0.5
STOP_GRACE_S = 60.0
"""How long a child that was told to stop (or killed) may take to end before it is left alone."""
EXIT_DRAIN_S = 2.0
"""After a child ended, how long its output is still read while something else holds the pipe."""
WATCHED_VARIABLES = (
    "HSA_OVERRIDE_GFX_VERSION",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "PYTORCH_HIP_ALLOC_CONF",
)
KEY_LIMIT = 64 * 1024
_PERCENT = re.compile(r"(\d{1,3}(?:\.\d+)?)\s*%")
STATE_VERSION = 2
RESUME = "rocmate install --resume"
"""The command that goes on after a stop (the done event's ``resume``)."""

# The helper's own limits (core/install/helper/: TIMEOUTS, APT_LOCK_WAIT_S; its child is given
# 10 s + 5 s to end after a time-out). The runner waits for the privileged block longer than the
# sum of these over the block's steps, plus HELPER_SLACK_S for starting, rolling back and the
# password prompt. tests/install/test_runner_safety.py checks them against the helper's numbers.
HELPER_STEP_LIMITS_S = {
    # update: a retry may start just before the 120 s lock wait ends, and run its full 900 s
    ("apt-get", "update"): 900.0 + 120.0 + 900.0,
    ("apt-get", "install"): 4 * 3600.0,
    ("apt-get", "purge"): 3600.0,
    ("usermod", None): 60.0,
}
HELPER_DEFAULT_LIMIT_S = 3600.0
"""A command the table above does not name (the helper's default)."""
HELPER_FILE_LIMIT_S = 60.0
"""A file step (gpg reads a keyring, with its 60 s limit)."""
HELPER_STOP_S = 15.0
HELPER_SLACK_S = 15 * 60.0


def step_hash(step: Step) -> str:
    """What the step does, as a short fingerprint (what resume compares): its title and
    explanation are left out, so a set-up resumed in another language (--lang) still knows
    the steps it has done."""
    return _fingerprint({k: v for k, v in step.to_json().items()
                         if k not in ("title", "explain")})


def _worded_hash(step: Step) -> str:
    """The fingerprint an older rocmate saved (its words included): still counts as done."""
    return _fingerprint(step.to_json())


def _fingerprint(data: dict[str, object]) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def helper_limit(steps: Sequence[Step]) -> float:
    """Seconds the runner gives the privileged block: more than the helper's limits add up to."""
    total = HELPER_SLACK_S
    for step in steps:
        if step.argv is None:
            total += HELPER_FILE_LIMIT_S
            continue
        program = os.path.basename(step.argv[0])
        command = step.argv[1] if program == "apt-get" and len(step.argv) > 1 else None
        limit = HELPER_STEP_LIMITS_S.get((program, command), HELPER_DEFAULT_LIMIT_S)
        total += limit + HELPER_STOP_S
    return total


@dataclass
class RunState:
    """What a run has finished, stored as JSON beside its log."""

    path: Path
    done: dict[str, str] = field(default_factory=dict)
    """step id -> :func:`step_hash` of the step that finished."""
    needs: list[str] = field(default_factory=list)
    """"relogin" / "reboot" once a step that needs one has run (until a later run succeeds)."""

    @classmethod
    def load(cls, path: Path) -> RunState:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return cls(path)
        if not isinstance(data, dict):
            return cls(path)
        done_raw = data.get("done")
        # A state file without hashes (version 1) cannot tell which plan its steps belonged to:
        # nothing counts as done, so every step runs again (they are made to be repeatable).
        done = (
            {str(k): str(v) for k, v in done_raw.items()} if isinstance(done_raw, dict) else {}
        )
        needs_raw = data.get("needs")
        needs = [str(s) for s in needs_raw] if isinstance(needs_raw, list) else []
        return cls(path, done, needs)

    def is_done(self, step: Step) -> bool:
        return self.done.get(step.id) in (step_hash(step), _worded_hash(step))

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps({"version": STATE_VERSION, "done": self.done, "needs": self.needs})
        )
        os.replace(tmp, self.path)


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local/state")
    return Path(base) / "rocmate" / "install"


@dataclass
class _Ended:
    """How one child process ended."""

    code: int | None
    """Exit status (negative: killed by that signal); None when it did not start or was left
    running."""
    last: str = ""
    """Its last line of plain output (the helper's JSON events are not kept here)."""
    started: bool = True
    stopped: str | None = None
    """"cancelled" or "timed out" when the runner asked it to stop."""
    signalled: bool = False
    """Whether the runner's signal reached it (a root child refuses a user's signal)."""
    pid: int | None = None


@dataclass
class _HelperView:
    """What the helper's events said (to tell its end in words)."""

    error: str | None = None
    done: bool = False
    step: str | None = None


class Runner:
    """Runs ``plan``; ``helper_argv`` starts the privileged helper (pkexec/sudo/direct).

    ``helper_problem`` says why there is no ``helper_argv`` (privilege.helper_route's words)."""

    def __init__(
        self,
        plan: Plan,
        emit: Emit,
        helper_argv: list[str] | None,
        folder: Path | None = None,
        fetch: Callable[[str], bytes] | None = None,
        helper_problem: str | None = None,
    ) -> None:
        self.plan = plan
        self.emit_to = emit
        self.helper_argv = helper_argv
        self.helper_problem = helper_problem
        self.folder = folder or state_dir()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log_path = self.folder / "install.log"
        self.state = RunState.load(self.folder / "state.json")
        self.fetch = fetch or _download
        self.cancelled = asyncio.Event()
        self.helper_limit_s: float | None = None
        """The privileged block's limit; None: :func:`helper_limit` of its steps."""
        self.stop_grace_s = STOP_GRACE_S
        self.step_timeout_s = STEP_TIMEOUT
        self.in_new_groups: Callable[[], bool] = _in_new_groups
        self._new_needs: list[str] = []
        self._helper = _HelperView()

    def emit(self, event: Event) -> None:
        event = {"time": round(time.time(), 3), **event}
        with open(self.log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(event) + "\n")
        self.emit_to(event)

    def cancel(self) -> None:
        self.cancelled.set()

    async def run(self) -> bool:
        self.emit({"event": "plan", "strategy": self.plan.strategy, "steps": len(self.plan.steps)})
        if self.plan.blocked:
            self.emit({"event": "done", "ok": False, "error": self.plan.blocked})
            return False
        if self.plan.replay is not None:  # made for a replayed machine: nothing runs here
            self.emit({"event": "done", "ok": False, "error": t(
                "install.error.replayed-plan", "this plan is for the replayed machine in "
                "{folder}: nothing of it runs on this computer", folder=self.plan.replay)})
            return False
        todo = [s for s in self.plan.steps if s.kind == "verify" or not self.state.is_done(s)]
        privileged = [s for s in todo if s.privileged and s.consent is not False]
        skipped = [s for s in todo if s.consent is False]  # a root or a user step (issue 33)
        for step in skipped:
            self.emit(
                {
                    "event": "step",
                    "id": step.id,
                    "status": "skipped",
                    "reason": t("install.step.skipped.needs-consent",
                                "needs your consent ({option})",
                                option=step.consent_option or "--remove-old"),
                }
            )
        if privileged and not await self._privileged(privileged):
            return False
        for step in todo:
            if step.privileged or step.consent is False:
                continue
            if self.cancelled.is_set():
                error = t("install.error.cancelled-after-root",
                          "cancelled (after the root steps had finished)") if privileged \
                    else _cancelled()
                self.emit({"event": "done", "ok": False, "error": error})
                return False
            if not await self._user_step(step):
                return False
        # A need from an earlier run (the new login, the reboot) has evidently been met: this
        # run got through, its verify step included.
        self.state.needs = sorted(set(self._new_needs))
        self.state.save()
        self.emit({"event": "done", "ok": True, "needs": self.state.needs})
        return True

    # -- privileged block ----------------------------------------------------------------------
    async def _privileged(self, steps: list[Step]) -> bool:
        if self.helper_argv is None:
            error = self.helper_problem or t(
                "install.error.no-root-route",
                "root steps are needed, but no way to become root was found")
            self.emit({"event": "done", "ok": False, "error": error})
            return False
        missing = _missing_program(self.helper_argv[0])
        if missing:
            self.emit({"event": "done", "ok": False, "error": missing})
            return False
        try:
            payload = [self._prepared(step) for step in steps]
        except (OSError, ValueError, http.client.HTTPException) as exc:
            error = t("install.error.key-fetch", "could not fetch a key: {reason}", reason=exc)
            self.emit({"event": "done", "ok": False, "error": error})
            return False
        document = json.dumps({"schema": SCHEMA, "steps": payload}).encode()
        self.emit({"event": "privileged", "steps": [s.id for s in steps]})
        self._helper = _HelperView()
        limit = self.helper_limit_s if self.helper_limit_s is not None else helper_limit(steps)
        ended = await self._stream(
            self.helper_argv, document, "helper", helper=True, limit=limit,
            keep_stdin=_cancels_on_eof(self.helper_argv),
        )
        if ended.code == 0:
            for step in steps:
                self._finished(step)
            return True
        error = self._helper_error(ended, limit)
        event: Event = {"event": "done", "ok": False, "error": error}
        if ended.code is not None:
            event["exit"] = ended.code
        self.emit(event)
        return False

    def _helper_error(self, ended: _Ended, limit: float) -> str:
        """One readable sentence for a privileged block that did not succeed."""
        from core.install.privilege import explain_exit

        view = self._helper
        said = view.error if view.done else None
        if not ended.started:
            return t("install.error.helper-not-started", "could not start the root helper: "
                     "{reason}", reason=ended.last)
        if ended.code is None:  # left running
            return _left_running(ended, view.step, limit)
        if ended.stopped == "cancelled":
            return t("install.error.cancelled-said", "cancelled ({reason})", reason=said) \
                if said else _cancelled()
        if ended.stopped == "timed out":
            if said:
                return t("install.error.helper-timed-out-said",
                         "the root helper did not finish within {duration} ({reason})",
                         duration=_duration(limit), reason=said)
            return t("install.error.helper-timed-out",
                     "the root helper did not finish within {duration}",
                     duration=_duration(limit))
        via = self.helper_argv[0] if self.helper_argv else ""
        words = explain_exit(ended.code, os.path.basename(via))
        if words:
            return words
        if said:
            return said
        if ended.code < 0:
            name = signal_name(-ended.code)
            if view.step:
                return t("install.error.helper-signalled-in-step",
                         "the root helper was stopped by {signal} before it finished (in step "
                         "{step}); files it had written may not have been put back",
                         signal=name, step=view.step)
            return t("install.error.helper-signalled",
                     "the root helper was stopped by {signal} before it finished; files it had "
                     "written may not have been put back", signal=name)
        if ended.last:
            return t("install.error.helper-exited-said", "the root helper exited {code}: {output}",
                     code=ended.code, output=ended.last)
        return t("install.error.helper-exited", "the root helper exited {code} without saying why",
                 code=ended.code)

    def _prepared(self, step: Step) -> dict[str, Any]:
        data = step.to_json()
        spec = step.file
        if spec is not None and spec.source_url and spec.content is None:
            key = self.fetch(spec.source_url)
            data["file"]["content_b64"] = base64.b64encode(key).decode()
        return data

    # -- user steps ----------------------------------------------------------------------------
    async def _user_step(self, step: Step) -> bool:
        self.emit({"event": "step", "id": step.id, "status": "start", "title": step.title})
        if step.file is not None:
            ok = self._write_file(step)
        else:
            assert step.argv is not None
            env = self._verify_env() if step.kind == "verify" else None
            ended = await self._stream(
                list(step.argv), None, step.id, env=env, limit=self.step_timeout_s
            )
            ok = ended.code == 0
            if ended.stopped == "cancelled":
                self.emit({"event": "step", "id": step.id, "status": "cancelled"})
                self.emit({"event": "done", "ok": False, "error": _cancelled()})
                return False
            if not ok:
                if step.kind == "verify" and self._waiting_for():
                    return self._verify_waits(step, ended)
                self.emit(
                    {
                        "event": "step",
                        "id": step.id,
                        "status": "failed",
                        "exit": ended.code,
                        "error": (
                            t("install.error.step-timed-out", "timed out after {duration}",
                              duration=_duration(self.step_timeout_s))
                            if ended.stopped == "timed out"
                            else ended.last or _ended_words(ended)
                        ),
                    }
                )
        if not ok:
            self.emit(
                {
                    "event": "done",
                    "ok": False,
                    "error": t("install.error.step-failed", "step {step} failed", step=step.id),
                    "resume": RESUME,
                }
            )
            return False
        self._finished(step)
        self.emit({"event": "step", "id": step.id, "status": "done"})
        return True

    def _waiting_for(self) -> str | None:
        """"relogin" or "reboot" while one is pending (from this run or an earlier one); a
        relogin no longer counts once this process has the new groups."""
        pending = set(self.state.needs) | set(self._new_needs)
        if "reboot" in pending:
            return "reboot"
        if "relogin" in pending and not self.in_new_groups():
            return "relogin"
        return None

    def _verify_waits(self, step: Step, ended: _Ended) -> bool:
        """The check failed while a new login (or a reboot) is still pending: say that."""
        need = self._waiting_for()
        if need == "reboot":
            error = t("install.error.verify-needs-reboot",
                      "PyTorch cannot use the GPU yet: a change of this set-up takes effect only "
                      "after a restart. Restart the computer, then run {command}.",
                      command=f"`{RESUME}`")
        else:
            error = t("install.error.verify-needs-relogin",
                      "PyTorch cannot use the GPU yet: your new groups (render, video) take "
                      "effect only in a new login. Log out and back in, then run {command}.",
                      command=f"`{RESUME}`")
        self.emit(
            {
                "event": "step",
                "id": step.id,
                "status": f"needs-{need}",
                "exit": ended.code,
                "output": ended.last,
            }
        )
        self.emit(
            {
                "event": "done",
                "ok": False,
                "needs": [need],
                "error": error,
                "resume": RESUME,
            }
        )
        return False

    def _verify_env(self) -> dict[str, str]:
        """The plan's variables, and none of the user's stale ones (an old override)."""
        env = clean_env()
        for name in list(env):
            if name.startswith(WATCHED_VARIABLES):
                del env[name]
        env.update(self.plan.env)
        return env

    def _write_file(self, step: Step) -> bool:
        spec = step.file
        assert spec is not None
        try:
            path = Path(spec.path)
            content = spec.content or ""
            if spec.append:
                existing = path.read_text() if path.exists() else ""
                if content in existing:
                    return True
                content = (
                    existing + ("" if existing.endswith("\n") or not existing else "\n") + content
                )
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
            path.chmod(int(spec.mode, 8))
            return True
        except OSError as exc:
            self.emit({"event": "step", "id": step.id, "status": "failed", "error": str(exc)})
            return False

    def _finished(self, step: Step) -> None:
        self.state.done[step.id] = step_hash(step)
        if step.after:
            self._new_needs.append(step.after)
            if step.after not in self.state.needs:
                self.state.needs.append(step.after)
        self.state.save()

    # -- processes -----------------------------------------------------------------------------
    async def _stream(
        self,
        argv: list[str],
        stdin: bytes | None,
        step_id: str,
        env: dict[str, str] | None = None,
        helper: bool = False,
        limit: float = STEP_TIMEOUT,
        keep_stdin: bool = False,
    ) -> _Ended:
        """Run one process, relaying its lines, until its output ends.

        stdin is written while stdout is read, so neither can block. On a cancel or at ``limit``
        the child is asked to stop (a signal; for ``keep_stdin`` also the end of its stdin) and
        its output is still read to the end: a child that cannot be signalled (root) goes on
        writing, and must not block on a full pipe. One that does not end within the grace time
        after that (or, after a cancel, within ``limit``) is left alone, its pipe closed."""
        try:
            child = await Child.start(
                argv, env=env if env is not None else clean_env(), stdin=stdin,
                keep_stdin=keep_stdin, merged=True, line_limit=1 << 20)
        except OSError as exc:
            return _Ended(None, f"{argv[0]}: {exc.strerror or exc}", started=False)
        ended = _Ended(None, pid=child.pid)
        deadline = time.monotonic() + limit
        give_up: float | None = None
        exited: float | None = None
        left_running = False
        try:
            while True:
                now = time.monotonic()
                if ended.stopped is None and self.cancelled.is_set():
                    ended.stopped = "cancelled"
                    ended.signalled = child.signal(signal.SIGTERM)
                    child.close_stdin()
                    # A helper that heard us rolls back and ends; one that could not hear us
                    # finishes its steps, within its own limits (shorter than ``limit``).
                    give_up = deadline if helper else now + self.stop_grace_s
                    if helper:
                        self._stopping(ended, keep_stdin)
                elif ended.stopped != "timed out" and now > deadline:
                    ended.stopped = "timed out"
                    ended.signalled = child.signal(signal.SIGTERM if helper else signal.SIGKILL)
                    child.close_stdin()
                    give_up = now + self.stop_grace_s
                if give_up is not None and now > give_up:
                    left_running = (child.returncode is None
                                    and not child.signal(signal.SIGKILL))
                    break
                if child.returncode is not None:
                    # A daemon the child started may hold the pipe: read what is left, but do
                    # not wait for it.
                    exited = exited if exited is not None else now
                    if now - exited > EXIT_DRAIN_S:
                        break
                try:
                    raw = await child.line(POLL_S)
                except ValueError:  # longer than the reader's limit (the reader dropped it)
                    raw = t("install.output.line-too-long",
                            "(a line of more than 1 MiB was left out)").encode()
                if raw is None:
                    continue
                if not raw:
                    break
                line = raw.decode("utf-8", errors="replace").rstrip()
                if line:
                    plain = self._relay(step_id, line, helper)
                    if plain:
                        ended.last = line
        finally:
            await child.close()  # nothing reads any more: a child still writing gets EPIPE
        if left_running:
            return ended
        # a root child that closed its output but does not end is left alone (code None)
        ended.code = await child.reap(max(self.stop_grace_s, deadline - time.monotonic()))
        return ended

    def _stopping(self, ended: _Ended, keep_stdin: bool) -> None:
        """Say what happens while the helper is being stopped."""
        if ended.signalled or keep_stdin:
            message = t("install.stopping.rolling-back", "Asked the root helper to stop; waiting "
                        "while it puts back what it changed.")
        else:
            message = t("install.stopping.cannot-interrupt",
                        "The root helper runs as root and cannot be interrupted from here; "
                        "waiting for it to finish the steps it was given (its output keeps "
                        "coming).")
        self.emit({"event": "stopping", "reason": "cancelled", "message": message})

    def _relay(self, step_id: str, line: str, helper: bool) -> bool:
        """Pass one line on; False when it was one of the helper's own JSON events."""
        if helper and line.startswith("{"):
            try:
                parsed = json.loads(line)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                kind = parsed.get("event")
                if kind == "done":
                    parsed["event"] = "helper-done"
                    self._helper.done = True
                    error = parsed.get("error")
                    self._helper.error = str(error) if error else None
                elif kind == "step" and parsed.get("status") == "start":
                    self._helper.step = str(parsed.get("id"))
                self.emit({**parsed, "via": "helper"})
                return False
        event: Event = {"event": "output", "id": step_id, "line": line}
        match = _PERCENT.search(line)
        if match and float(match.group(1)) <= 100:
            event["percent"] = float(match.group(1))
        self.emit(event)
        return True


def _in_new_groups() -> bool:
    """Whether this process has the render and video groups already (a new login happened)."""
    if os.geteuid() == 0:
        return True
    have = {*os.getgroups(), os.getegid()}
    for name in ("render", "video"):
        try:
            gid = grp.getgrnam(name).gr_gid
        except KeyError:
            continue  # a group that does not exist is not waited for
        if gid not in have:
            return False
    return True


def _cancels_on_eof(argv: Sequence[str]) -> bool:
    from core.install.privilege import CANCEL_ON_EOF

    return CANCEL_ON_EOF in argv


def _missing_program(program: str) -> str | None:
    """Words for a helper route whose first program (pkexec, sudo) is not there."""
    if not os.path.isabs(program) or os.path.exists(program):
        return None
    name = os.path.basename(program)
    if name == "pkexec":
        return t("install.error.pkexec-missing",
                 "{name} is not installed ({path} is missing): install the {package} package, or "
                 "run {command} in a terminal", name=name, path=program,
                 package="pkexec (policykit-1)", command="`rocmate install`")
    return t("install.error.program-missing", "{name} is not installed ({path} is missing)",
             name=name, path=program)


def _ended_words(ended: _Ended) -> str:
    if ended.code is None:
        return t("install.ended.not-started", "could not be started") if not ended.started \
            else t("install.ended.did-not-end", "did not end")
    if ended.code < 0:
        return t("install.ended.signal", "stopped by {signal}",
                 signal=signal_name(-ended.code))
    return t("install.ended.exit-code", "exit code {code}", code=ended.code)


def _cancelled() -> str:
    return t("install.error.cancelled", "cancelled")


def _left_running(ended: _Ended, step: str | None, limit: float) -> str:
    """Words for a root helper that was asked to stop (or ran past its limit) and is still
    running: it cannot be stopped from here."""
    if ended.stopped == "cancelled":
        if step:
            return t("install.error.left-running.cancelled-in-step",
                     "the root helper was cancelled and could not be stopped from here (it runs "
                     "as root); it may still be running (process {pid}), in step {step}. apt "
                     "may stay locked until it ends.", pid=ended.pid, step=step)
        return t("install.error.left-running.cancelled",
                 "the root helper was cancelled and could not be stopped from here (it runs as "
                 "root); it may still be running (process {pid}). apt may stay locked until it "
                 "ends.", pid=ended.pid)
    if step:
        return t("install.error.left-running.timed-out-in-step",
                 "the root helper did not finish within {duration} and could not be stopped "
                 "from here (it runs as root); it may still be running (process {pid}), in step "
                 "{step}. apt may stay locked until it ends.",
                 duration=_duration(limit), pid=ended.pid, step=step)
    return t("install.error.left-running.timed-out",
             "the root helper did not finish within {duration} and could not be stopped from "
             "here (it runs as root); it may still be running (process {pid}). apt may stay "
             "locked until it ends.", duration=_duration(limit), pid=ended.pid)


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{max(1, minutes)} min" if seconds >= 60 else f"{int(seconds)} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h" + (f" {minutes} min" if minutes else "")


def _download(url: str) -> bytes:
    """The key at ``url`` (https only, at most KEY_LIMIT bytes); OSError with the reason."""
    if not url.startswith("https://"):
        raise OSError(t("install.key.plain-http", "refusing to fetch a key over plain HTTP: {url}",
                        url=url))
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            data = bytes(response.read(KEY_LIMIT + 1))
            rest = getattr(response, "length", None)
    except (http.client.HTTPException, ValueError) as exc:
        raise OSError(f"{url}: {type(exc).__name__}: {exc}") from exc
    if len(data) > KEY_LIMIT:
        raise OSError(t("install.key.too-large", "{url}: larger than {size} KiB, not a signing key",
                        url=url, size=KEY_LIMIT // 1024))
    if rest:
        raise OSError(t("install.key.cut-short",
                        "{url}: the download was cut short ({got} bytes, {missing} missing)",
                        url=url, got=len(data), missing=rest))
    return data
