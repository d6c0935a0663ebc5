"""The repairs history: before a repair changes anything, the environment is recorded under
rocmate's data folder, ``$XDG_DATA_HOME/rocmate/repairs/<time>-<name>/`` (``~/.local/share``
by default; rocmate's own data, beside its benchmark history):

- ``record.json`` (``"schema": "rocmate.repair-record/1"``): time, python, prefix, the index
  used, the family before (version, build, the index its build comes from, or null where none
  is known) and the versions planned after, the state and when it last changed;
- ``freeze-before.txt``: ``pip freeze --all`` of the environment before the repair;
- ``freeze-after.txt``: the same after it (when it got that far);
- ``plan.json``: the plan as carried out (``rocmate.plan/1`` with its ``repair`` object);
- ``install.log`` and ``state.json``: the runner's log of the repair (and of a rollback).

States: ``recorded`` (the repair is starting), ``repaired`` (the kernel check passed),
``check-failed`` (installed, but the check failed: kept, ``--rollback`` undoes it),
``failed-rolled-back`` (a step failed and the record was put back by itself),
``rollback-failed``, ``rolled-back`` (``rocmate install --rollback``), ``rolled-back-partly``
(a recorded build no index carries could not come back).
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = "rocmate.repair-record/1"
STATES = ("recorded", "repaired", "check-failed", "failed-rolled-back", "rollback-failed",
          "rolled-back", "rolled-back-partly")
UNDOABLE = ("recorded", "repaired", "check-failed", "rollback-failed")
"""States whose environment may still differ from the record: a rollback can restore it."""
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def repairs_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/rocmate/repairs`` (``~/.local/share`` when unset or relative)."""
    env = os.environ if env is None else env
    base = env.get("XDG_DATA_HOME", "")
    if not base or not Path(base).is_absolute():
        home = env.get("HOME") or str(Path.home())
        base = str(Path(home) / ".local" / "share")
    return Path(base) / "rocmate" / "repairs"


@dataclass
class RepairRecord:
    """One repair of the history (a folder of :func:`repairs_dir`)."""

    folder: Path
    time: str
    python: str
    prefix: str
    index: str | None
    before: list[dict[str, Any]]
    """[{name, version, build, source}] of the family before."""
    after: list[dict[str, Any]] = field(default_factory=list)
    """[{name, version}] the repair planned."""
    state: str = "recorded"
    updated: str | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def torch_before(self) -> str | None:
        return next((m.get("version") for m in self.before if m.get("name") == "torch"), None)

    @property
    def torch_after(self) -> str | None:
        return next((m.get("version") for m in self.after if m.get("name") == "torch"), None)

    @property
    def undoable(self) -> bool:
        """Whether a rollback may still restore it (its state is one of :data:`UNDOABLE`)."""
        return self.state in UNDOABLE

    def freeze_before(self) -> str:
        return _read(self.folder / "freeze-before.txt")

    def to_json(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "time": self.time, "python": self.python,
                "prefix": self.prefix, "index": self.index, "before": self.before,
                "after": self.after, "state": self.state, "updated": self.updated,
                "error": self.error, **self.extra}

    def save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / "record.json.tmp"
        tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, self.folder / "record.json")

    def set_state(self, state: str, error: str | None = None) -> None:
        self.state = state
        self.error = error
        self.updated = _now()
        self.save()

    @classmethod
    def load(cls, folder: Path) -> RepairRecord | None:
        """The record in ``folder``; None when it is missing or damaged."""
        try:
            data = json.loads((folder / "record.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            return None
        before, after = data.get("before"), data.get("after")
        python, prefix = data.get("python"), data.get("prefix")
        if not isinstance(python, str) or not isinstance(prefix, str):
            return None
        known = {"schema", "time", "python", "prefix", "index", "before", "after", "state",
                 "updated", "error"}
        return cls(
            folder=folder, time=str(data.get("time") or ""), python=python, prefix=prefix,
            index=data.get("index") if isinstance(data.get("index"), str) else None,
            before=[m for m in before if isinstance(m, dict)] if isinstance(before, list)
            else [],
            after=[m for m in after if isinstance(m, dict)] if isinstance(after, list) else [],
            state=str(data.get("state") or "recorded"),
            updated=data.get("updated") if isinstance(data.get("updated"), str) else None,
            error=data.get("error") if isinstance(data.get("error"), str) else None,
            extra={k: v for k, v in data.items() if k not in known},
        )


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def new_folder(prefix: str, base: Path | None = None) -> Path:
    """A fresh folder for a record of the environment at ``prefix``:
    ``<time>-<app>-<venv>`` (``20261205-014501-ComfyUI-venv``)."""
    base = base or repairs_dir()
    parts = [p for p in prefix.rstrip("/").split("/") if p][-2:]
    name = _SAFE.sub("_", "-".join(parts))[:60] or "python"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = base / f"{stamp}-{name}"
    number = 1
    while folder.exists():
        number += 1
        folder = base / f"{stamp}-{name}-{number}"
    return folder


def list_records(python: str | None = None, base: Path | None = None) -> list[RepairRecord]:
    """The history, newest first; only ``python``'s when given (the same interpreter path,
    or the same environment folder)."""
    base = base or repairs_dir()
    try:
        folders = sorted((p for p in base.iterdir() if p.is_dir()), reverse=True)
    except OSError:
        return []
    found = []
    for folder in folders:
        record = RepairRecord.load(folder)
        if record is None:
            continue
        if python is not None and not _same_environment(record, python):
            continue
        found.append(record)
    return found


def _same_environment(record: RepairRecord, python: str) -> bool:
    wanted = os.path.normpath(python)
    if wanted == os.path.normpath(record.python):
        return True
    return os.path.normpath(os.path.dirname(os.path.dirname(wanted))) == os.path.normpath(
        record.prefix)


def last_undoable(python: str, base: Path | None = None) -> RepairRecord | None:
    """The newest record of ``python`` that a rollback may still restore."""
    return next((r for r in list_records(python, base) if r.state in UNDOABLE), None)
