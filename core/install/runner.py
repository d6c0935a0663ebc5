"""Carries out a plan: user steps itself, the privileged block through the helper (one prompt).

Every event goes to a log file as it happens, and the steps that finished are kept in a state
file beside it, so a run can resume after a failure, a reboot or a new login. Progress is
streamed to a callback as dictionaries (the CLI prints them; the GUI will draw them).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.install.plan import Plan, Step
from core.system import clean_env

Event = dict[str, Any]
Emit = Callable[[Event], None]
STEP_TIMEOUT = 3 * 3600.0
POLL_S = 0.5
WATCHED_VARIABLES = (
    "HSA_OVERRIDE_GFX_VERSION",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "PYTORCH_HIP_ALLOC_CONF",
)
KEY_LIMIT = 64 * 1024
_PERCENT = re.compile(r"(\d{1,3}(?:\.\d+)?)\s*%")


@dataclass
class RunState:
    """What a run has finished, stored as JSON beside its log."""

    path: Path
    done: list[str] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)
    """"relogin" / "reboot" once a step that needs one has run."""

    @classmethod
    def load(cls, path: Path) -> RunState:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return cls(path)
        done = [str(s) for s in data.get("done", [])] if isinstance(data, dict) else []
        needs = [str(s) for s in data.get("needs", [])] if isinstance(data, dict) else []
        return cls(path, done, needs)

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"done": self.done, "needs": self.needs}))
        os.replace(tmp, self.path)


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local/state")
    return Path(base) / "rocmate" / "install"


class Runner:
    """Runs ``plan``; ``helper_argv`` starts the privileged helper (pkexec/sudo/direct)."""

    def __init__(
        self,
        plan: Plan,
        emit: Emit,
        helper_argv: list[str] | None,
        folder: Path | None = None,
        fetch: Callable[[str], bytes] | None = None,
    ) -> None:
        self.plan = plan
        self.emit_to = emit
        self.helper_argv = helper_argv
        self.folder = folder or state_dir()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log_path = self.folder / "install.log"
        self.state = RunState.load(self.folder / "state.json")
        self.fetch = fetch or _download
        self.cancelled = asyncio.Event()

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
        todo = [s for s in self.plan.steps if s.id not in self.state.done]
        privileged = [s for s in todo if s.privileged and s.consent is not False]
        skipped = [s for s in todo if s.privileged and s.consent is False]
        for step in skipped:
            self.emit(
                {
                    "event": "step",
                    "id": step.id,
                    "status": "skipped",
                    "reason": "needs your consent (--remove-old)",
                }
            )
        if privileged and not await self._privileged(privileged):
            return False
        for step in todo:
            if step.privileged:
                continue
            if self.cancelled.is_set():
                self.emit({"event": "done", "ok": False, "error": "cancelled"})
                return False
            if not await self._user_step(step):
                return False
        needs = sorted(set(self.state.needs))
        self.emit({"event": "done", "ok": True, "needs": needs})
        return True

    # -- privileged block ----------------------------------------------------------------------
    async def _privileged(self, steps: list[Step]) -> bool:
        if self.helper_argv is None:
            self.emit(
                {
                    "event": "done",
                    "ok": False,
                    "error": "root steps are needed, but no way to become root was found",
                }
            )
            return False
        try:
            payload = [self._prepared(step) for step in steps]
        except OSError as exc:
            self.emit({"event": "done", "ok": False, "error": f"could not fetch a key: {exc}"})
            return False
        document = json.dumps({"schema": "rocmate.plan/1", "steps": payload}).encode()
        self.emit({"event": "privileged", "steps": [s.id for s in steps]})
        code, last = await self._stream(self.helper_argv, document, "helper", helper=True)
        if code == 0:
            for step in steps:
                self._finished(step)
            return True
        from core.install.privilege import explain_exit

        message = explain_exit(code, os.path.basename(self.helper_argv[0])) or (
            last or f"the helper exited {code}"
        )
        self.emit({"event": "done", "ok": False, "error": message, "exit": code})
        return False

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
            code, last = await self._stream(list(step.argv), None, step.id, env=env)
            ok = code == 0
            if code == 130 and self.cancelled.is_set():
                self.emit({"event": "step", "id": step.id, "status": "cancelled"})
                self.emit({"event": "done", "ok": False, "error": "cancelled"})
                return False
            if not ok:
                self.emit(
                    {
                        "event": "step",
                        "id": step.id,
                        "status": "failed",
                        "exit": code,
                        "error": last,
                    }
                )
        if not ok:
            self.emit(
                {
                    "event": "done",
                    "ok": False,
                    "error": f"step {step.id} failed",
                    "resume": "rocmate install --resume",
                }
            )
            return False
        self._finished(step)
        self.emit({"event": "step", "id": step.id, "status": "done"})
        return True

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
        self.state.done.append(step.id)
        if step.after:
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
    ) -> tuple[int, str]:
        """Run one process, relaying its lines; (exit code, last line). 124 = timed out,
        130 = cancelled. stdin is written while stdout is read, so neither can block."""
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env=env if env is not None else clean_env(),
            )
        except OSError as exc:
            return 127, f"{argv[0]}: {exc.strerror or exc}"
        feeder = asyncio.ensure_future(_feed(proc, stdin))
        last = ""
        deadline = time.monotonic() + STEP_TIMEOUT
        assert proc.stdout is not None
        try:
            while True:
                if self.cancelled.is_set():
                    _stop(proc)
                    await proc.wait()
                    return 130, "cancelled"
                if time.monotonic() > deadline:
                    _stop(proc, kill=True)
                    await proc.wait()
                    return 124, "timed out"
                try:
                    raw = await asyncio.wait_for(proc.stdout.readline(), timeout=POLL_S)
                except TimeoutError:
                    continue
                if not raw:
                    break
                line = raw.decode("utf-8", errors="replace").rstrip()
                if line:
                    last = self._relay(step_id, line, helper) or line
        finally:
            await feeder
        return await proc.wait(), last

    def _relay(self, step_id: str, line: str, helper: bool) -> str | None:
        """Pass one line on; for the helper's own "done", its error text (the run's is later)."""
        if helper and line.startswith("{"):
            try:
                parsed = json.loads(line)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                if parsed.get("event") == "done":
                    parsed["event"] = "helper-done"
                self.emit({**parsed, "via": "helper"})
                error = parsed.get("error")
                return str(error) if error else None
        event: Event = {"event": "output", "id": step_id, "line": line}
        match = _PERCENT.search(line)
        if match and float(match.group(1)) <= 100:
            event["percent"] = float(match.group(1))
        self.emit(event)
        return None


async def _feed(proc: asyncio.subprocess.Process, data: bytes | None) -> None:
    """Write a child's whole input, then close it; a child that left early is not an error."""
    if data is None or proc.stdin is None:
        return
    with contextlib.suppress(ConnectionError, BrokenPipeError):
        proc.stdin.write(data)
        await proc.stdin.drain()
        proc.stdin.close()


def _stop(proc: asyncio.subprocess.Process, kill: bool = False) -> None:
    """Ask a child to stop; a root child (pkexec/sudo) may refuse a user's signal."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        proc.kill() if kill else proc.terminate()


def _download(url: str) -> bytes:
    if not url.startswith("https://"):
        raise OSError(f"refusing to fetch a key over plain HTTP: {url}")
    with urllib.request.urlopen(url, timeout=30) as response:
        return bytes(response.read(KEY_LIMIT))
