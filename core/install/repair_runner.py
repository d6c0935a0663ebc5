"""Carries out a repair (or a rollback) plan with a way back (issue 34).

A :class:`RepairRunner` is the set-up :class:`~core.install.runner.Runner` with three things
around the steps: before any of them it records the environment (``pip freeze --all``, the
family and the index each build comes from, the plan) under the repairs history
(:mod:`core.install.repair_record`); when a step that changes the environment fails or is
cancelled, it puts the record back by itself (a rollback plan through a second runner) and
compares ``pip freeze --all`` with the record; and it keeps the record's state. A failed kernel
check leaves the new builds in place (the record says ``check-failed``; ``rocmate install
--rollback`` undoes it). Its events are the runner's, plus ``record`` (where the record is),
``rollback`` (status ``start``) and ``rollback-check`` (``same``, ``differences``); there is
one ``done`` event at the end, with ``record``, ``state`` and, after an automatic rollback,
``rolled_back: true``.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from core.i18n import t
from core.install.repair import (
    ROLLBACK_STRATEGY,
    RepairPlan,
    Restore,
    family_sources,
    make_rollback_plan,
    parse_freeze,
)
from core.install.repair_record import RepairRecord, new_folder, repairs_dir
from core.install.runner import Emit, Event, Runner
from core.knowledge.loader import load_knowledge
from core.knowledge.torch_family import load_torch_family
from core.probe.python_packages import read_environment
from core.system import LiveSystem, clean_env

FREEZE_TIMEOUT_S = 180.0


async def pip_freeze(python: str, timeout: float = FREEZE_TIMEOUT_S) -> tuple[str | None, str]:
    """(``pip freeze --all`` of ``python``, or None when it failed; what it said)."""
    try:
        proc = await asyncio.create_subprocess_exec(
            python, "-m", "pip", "freeze", "--all", "--disable-pip-version-check",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=clean_env())
    except OSError as exc:
        return None, str(exc)
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return None, "timed out"
    text = out.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        return None, err.decode("utf-8", errors="replace").strip()[-500:]
    return text, ""


def freeze_differences(before: str, after: str) -> list[str]:
    """The lines in which two ``pip freeze --all`` outputs differ (``-old``, ``+new``)."""
    old, new = parse_freeze(before), parse_freeze(after)
    lines = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            if key in old:
                lines.append(f"-{old[key]}")
            if key in new:
                lines.append(f"+{new[key]}")
    return lines


class _HeldRunner(Runner):
    """A runner whose ``done`` event is kept back (logged, not sent) for the caller to end
    with one ``done`` of its own; it remembers the step that failed."""

    def __init__(self, plan: RepairPlan, emit: Emit, folder: Path) -> None:
        super().__init__(plan, emit, None, folder=folder)
        self.held: Event | None = None
        self.failed_step: str | None = None

    def emit(self, event: Event) -> None:
        if event.get("event") == "step" and event.get("status") not in ("start", "done",
                                                                        "skipped"):
            self.failed_step = str(event.get("id"))
        if event.get("event") == "done":
            self.held = event  # the caller's own done, logged then, says how it ended
            return
        super().emit(event)


class RepairRunner(_HeldRunner):
    """Runs a repair or rollback plan (:func:`core.operations.repair.prepare_repair`);
    ``record`` is the record it writes or restores."""

    def __init__(self, plan: RepairPlan, emit: Emit, *, base: Path | None = None,
                 record: RepairRecord | None = None) -> None:
        assert plan.repair is not None
        self.rollback = plan.strategy == ROLLBACK_STRATEGY
        if self.rollback:
            assert record is not None
            folder = record.folder / "rollback"
        else:
            folder = new_folder(plan.repair.prefix, base or repairs_dir())
        super().__init__(plan, emit, folder)
        self.repair_plan = plan
        self.record: RepairRecord | None = record

    async def run(self) -> bool:
        if self.plan.blocked or self.plan.replay is not None:
            ok = await super().run()
            self._done(self.held or {"event": "done", "ok": ok})
            return ok
        if self.rollback:
            return await self._rollback_run()
        return await self._repair_run()

    def _done(self, event: Event, **extra: Any) -> None:
        """The one ``done``: a repair is never resumed (``rocmate install --resume`` is the
        set-up's), it is rolled back or planned again."""
        done = {k: v for k, v in {**event, **extra}.items() if k not in ("resume", "time")}
        Runner.emit(self, done)

    # -- a repair ------------------------------------------------------------------------------
    async def _repair_run(self) -> bool:
        plan = self.repair_plan
        repair = plan.repair
        assert repair is not None
        self.emit({"event": "step", "id": "repair-record", "status": "start",
                   "title": t("repair.step.record.title", "Record the environment")})
        freeze, said = await pip_freeze(repair.python)
        if freeze is None:
            error = t("repair.error.record", "could not record the environment ({reason}): "
                      "nothing was changed", reason=said or "pip freeze failed")
            self.emit({"event": "step", "id": "repair-record", "status": "failed",
                       "error": error})
            self._done({"event": "done", "ok": False, "error": error})
            return False
        env = read_environment(LiveSystem(), repair.python)
        kb, family = load_knowledge(), load_torch_family()
        sources = family_sources(kb, family, env.family)
        record = RepairRecord(
            folder=self.folder, time=_stamp(), python=repair.python, prefix=repair.prefix,
            index=repair.index,
            before=[{"name": m.name, "version": m.version, "build": m.build.to_json(),
                     "source": sources.get(m.name)} for m in env.family],
            after=[{"name": c.name, "version": c.after} for c in repair.changes
                   if c.action in ("replace", "add")])
        (self.folder / "freeze-before.txt").write_text(freeze, encoding="utf-8")
        (self.folder / "plan.json").write_text(json.dumps(plan.to_json(), indent=1) + "\n",
                                               encoding="utf-8")
        record.set_state("recorded")
        self.record = record
        self.emit({"event": "step", "id": "repair-record", "status": "done"})
        self.emit({"event": "record", "folder": str(self.folder)})
        ok = await Runner.run(self)
        after, _ = await pip_freeze(repair.python)
        if after is not None:
            (self.folder / "freeze-after.txt").write_text(after, encoding="utf-8")
        held = self.held or {"event": "done", "ok": ok}
        if ok:
            record.set_state("repaired")
            self._done(held, record=str(self.folder), state="repaired")
            return True
        step = next((s for s in self.plan.steps if s.id == self.failed_step), None)
        if step is not None and step.kind == "verify":
            record.set_state("check-failed", str(held.get("error") or ""))
            self._done(held, record=str(self.folder), state="check-failed",
                       rollback=f"rocmate install --rollback {repair.python}")
            return False
        # a step that changes the environment failed (or was cancelled): put it back
        back = await self._roll_back(record, freeze)
        state = "failed-rolled-back" if back else "rollback-failed"
        record.set_state(state, str(held.get("error") or ""))
        error = str(held.get("error") or "")
        words = (t("repair.error.rolled-back", "{error}; the environment was put back as it "
                   "was", error=error) if back else
                 t("repair.error.rollback-failed", "{error}; putting the environment back "
                   "failed too: see {folder}", error=error, folder=str(self.folder)))
        self._done(held, error=words, record=str(self.folder), state=state, rolled_back=back)
        return False

    async def _roll_back(self, record: RepairRecord, freeze: str) -> bool:
        """Put ``freeze`` back (after a failed step); True when ``pip freeze --all`` then
        matches it."""
        self.emit({"event": "rollback", "status": "start", "record": str(record.folder)})
        plan = rollback_of(record, freeze)
        inner = _HeldRunner(plan, self.emit_to, record.folder / "rollback")
        ok = await inner.run()
        return ok and await self._compare(record.python, freeze)

    async def _compare(self, python: str, freeze: str) -> bool:
        now, said = await pip_freeze(python)
        differences = freeze_differences(freeze, now) if now is not None else [said]
        self.emit({"event": "rollback-check", "same": not differences,
                   "differences": differences[:40]})
        return not differences

    # -- a rollback ----------------------------------------------------------------------------
    async def _rollback_run(self) -> bool:
        record = self.record
        assert record is not None and self.repair_plan.repair is not None
        ok = await Runner.run(self)
        held = self.held or {"event": "done", "ok": ok}
        same = ok and await self._compare(record.python, record.freeze_before())
        if same:
            state = "rolled-back"
        elif ok and self.repair_plan.repair.unreachable:
            state = "rolled-back-partly"
        else:
            state = "rollback-failed"
        record.set_state(state, None if ok else str(held.get("error") or ""))
        self._done(held, ok=ok and state != "rollback-failed", record=str(record.folder),
                   state=state)
        return ok and state != "rollback-failed"


def rollback_of(record: RepairRecord, freeze: str | None = None) -> RepairPlan:
    """The plan that restores ``record`` in its environment as it is now."""
    sources = {str(m.get("name")): (str(m["source"]) if m.get("source") else None)
               for m in record.before}
    restore = Restore(record=str(record.folder), python=record.python, prefix=record.prefix,
                      freeze=parse_freeze(freeze if freeze is not None
                                          else record.freeze_before()),
                      sources=sources)
    return make_rollback_plan(restore, read_environment(LiveSystem(), record.python))


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
