"""Runs that rocmate stopped before they ended (a crash, a killed or closed window, a power cut),
found in their run files and rebuilt, so the history shows them with the steps they had.

A run file (core.bench.runner) holds one run or more, each from its ``run`` line to its ``end``
line. A run without an ``end`` is *interrupted* once nothing is left to finish it:

* nobody holds the file: a runner holds a shared ``flock`` on it while it writes (the kernel
  drops the lock however the process ends), so a file this module cannot lock exclusively
  belongs to a live run and is left exactly as it is;
* its worker (``hello``'s ``pid``, a process running ``core.bench.worker``) is gone: a worker
  left running when rocmate died still sends events into a closed pipe and ends at its next one.

Such a run is rebuilt into a :class:`~core.bench.runner.RunOutcome` from its events (``hello``,
phases, steps, telemetry, with their ``rx_t``): status ``interrupted`` with an error that says
so in words, or, when the worker had already sent ``result`` and ``phase done`` (or an
``error``), the status the runner would have given it. :func:`recover` hands it to the caller to
keep (the history), then marks it by appending an ``end`` line with ``"recovered": true`` and the
run's position in the file (``run``), so it is never kept twice. A damaged line (a half-written
last line, a line of garbage) is skipped. Only whole runs are kept: the events of one run are
never mixed with another's.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import json
import logging
import math
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import IO, Any

from core.bench.partial import interrupted_result
from core.bench.runner import RunOutcome
from core.bench.telemetry import sysfs_ids
from core.bench.worker.entry import UsageError, build_parser
from core.bench.worker.errors import Translate, english
from core.bench.worker.options import BenchOptions
from core.report.model import ReportError, TelemetrySample
from core.system import LiveSystem, System

log = logging.getLogger(__name__)

MAX_RUN_FILE = 256 * 2**20  # a bigger file is not a run file rocmate wrote (200,000 steps: ~60 MB)
WORKER_MODULE = b"core.bench.worker"
_RUN = re.compile(rb'"event"\s*:\s*"run"')
_END = re.compile(rb'"event"\s*:\s*"end"')


@dataclass
class Interrupted:
    """A run without an ``end`` that nothing will finish, rebuilt from its run file."""

    path: Path
    index: int
    """Which run of the file it is (0: the first ``run`` line)."""
    outcome: RunOutcome


@dataclass
class Recovered(Interrupted):
    """A run :func:`recover` handed on and marked."""

    history_ids: list[int] = field(default_factory=list)
    not_kept: str | None = None
    """Why it could not be kept (a run too damaged for a report); it is marked all the same."""


Keep = Callable[[RunOutcome], list[int]]
"""Keeps a rebuilt run (adds it to the history) and returns its history ids; a ReportError or
ValueError means the run cannot be kept (it is marked, not retried); any other exception stops
the recovery and leaves the run for the next time."""


# --- reading a run file ---------------------------------------------------------------------------


def read_events(data: bytes) -> list[dict[str, Any]]:
    """The JSON objects of a run file, one a line; a damaged or half-written line is skipped."""
    events: list[dict[str, Any]] = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested too deeply
            continue
        if isinstance(event, dict) and isinstance(event.get("event"), str):
            events.append(event)
    return events


def runs_of(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The file's runs: each from its ``run`` line up to the next (lines before the first
    ``run`` belong to none)."""
    runs: list[list[dict[str, Any]]] = []
    for event in events:
        if event["event"] == "run":
            runs.append([event])
        elif runs:
            runs[-1].append(event)
    return runs


def unfinished(events: list[dict[str, Any]]) -> list[tuple[int, list[dict[str, Any]]]]:
    """The runs of a file that have no ``end`` and were not recovered: (index, events)."""
    runs = runs_of(events)
    recovered = {e.get("run") for e in events if e["event"] == "end" and e.get("recovered")}
    out = []
    for index, run in enumerate(runs):
        ended = any(e["event"] == "end" and not e.get("recovered") for e in run)
        if not ended and index not in recovered:
            out.append((index, run))
    return out


def _maybe_unfinished(data: bytes) -> bool:
    """Cheap first look: fewer ``end`` lines than ``run`` lines (a quote inside a JSON string
    is escaped, so only an ``event`` key can match)."""
    return len(_RUN.findall(data)) > len(_END.findall(data))


# --- is anything still running it -----------------------------------------------------------------


def worker_alive(pid: object, system: System | None = None) -> bool:
    """Whether ``pid`` is a running benchmark worker (not a zombie, not a process that took the
    number since)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    system = system or LiveSystem()
    if system.exists("/proc/self/stat"):
        stat = system.read_text(f"/proc/{pid}/stat")
        if not stat:
            return False
        fields_after_name = stat.rsplit(")", 1)[-1].split()
        if not fields_after_name or fields_after_name[0] in ("Z", "X", "x"):
            return False
        cmdline = system.read_bytes(f"/proc/{pid}/cmdline") or b""
        return WORKER_MODULE in cmdline
    try:  # no /proc: whether a process has the number is all one can tell
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _worker_pid(run: list[dict[str, Any]]) -> object:
    hello = next((e for e in run if e["event"] == "hello"), None)
    return hello.get("pid") if hello else None


@contextlib.contextmanager
def _claimed(path: Path) -> Iterator[IO[bytes] | None]:
    """The run file, open to read and append under an exclusive lock; None when someone holds
    it (a live run, or another rocmate recovering it right now)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        log.warning("run file %s cannot be opened: %s", path, exc)
        yield None
        return
    with os.fdopen(fd, "a+b") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield None
            return
        try:
            f.seek(0)
            yield f
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def _locked_by_someone(path: Path) -> bool:
    """Whether a runner (or a recovery) holds the file now."""
    with _claimed(path) as f:
        return f is None


def _run_files(runs_dir: Path) -> list[Path]:
    try:
        return sorted(p for p in runs_dir.glob("*.jsonl") if p.is_file() and not p.is_symlink())
    except OSError:
        return []


_FINISHED: set[tuple[str, int, int]] = set()
"""Run files (path, size, mtime) read and found finished: the history is looked at again and
again in one app, and a finished file that has not changed need not be read again."""


def _candidate(path: Path) -> bool:
    """A file worth a closer look: readable, not too big, and maybe holding an unfinished run."""
    try:
        st = path.stat()
        if st.st_size > MAX_RUN_FILE:
            log.warning("run file %s is too big to be one of rocmate's; left alone", path)
            return False
        seen = (str(path), st.st_size, st.st_mtime_ns)
        if seen in _FINISHED:
            return False
        if _maybe_unfinished(path.read_bytes()):
            return True
        _FINISHED.add(seen)
        return False
    except OSError:
        return False


# --- rebuilding the outcome -----------------------------------------------------------------------


def rebuild(run: list[dict[str, Any]], path: Path, system: System | None = None) -> RunOutcome:
    """One run's outcome from its events (``run`` first)."""
    system = system or LiveSystem()
    head = run[0]
    argv = [str(a) for a in head.get("argv") or [] if isinstance(a, (str, int, float))]
    options = _options(argv, head.get("suite"))
    out = RunOutcome(suite=str(head.get("suite") or options.suite), python=argv[0] if argv else "",
                     options=options, started=str(head.get("started") or ""),
                     run_file=str(path))
    last_t = 0.0
    for event in run[1:]:
        rx_t = event.get("rx_t")
        if isinstance(rx_t, (int, float)) and not isinstance(rx_t, bool):
            last_t = max(last_t, float(rx_t))
        _take(event, out)
    out.duration_s = last_t
    if out.hello is not None:
        out.device_ids = sysfs_ids(system, _text(out.hello.get("pci_bus_id")))
    _decide(out, path)
    _partial(out)
    return out


def _options(argv: list[str], suite: object) -> BenchOptions:
    """The options the worker was started with (its argv after ``-m core.bench.worker``)."""
    tail = argv[argv.index("core.bench.worker") + 1:] if "core.bench.worker" in argv else []
    try:
        values = vars(build_parser().parse_args(tail))
        return BenchOptions.from_values(values)
    except (UsageError, SystemExit, TypeError, ValueError):
        return BenchOptions(suite=str(suite or "unknown"))


def _take(event: dict[str, Any], out: RunOutcome) -> None:
    """One event into the outcome, as the runner took it when it came."""
    kind = event["event"]
    if kind == "hello" and out.hello is None:
        out.hello = event
    elif kind == "phase":
        out.phases.append(event)
    elif kind == "step" and _usable_step(event):
        out.steps.append(event)
    elif kind == "result" and _usable_result(event):
        out.result = event
    elif kind == "error" and out.error is None:
        out.error = {**event, "source": _text(event.get("source")) or "worker"}
    elif kind == "telemetry":
        sample = _sample(event)
        if sample is not None:
            out.telemetry.append(sample)
    elif kind == "telemetry-source" and out.power_source is None:
        source = {k: _text(event.get(k)) for k in ("sampler", "power", "energy")}
        if source["sampler"]:
            out.power_source = source


def _decide(out: RunOutcome, path: Path) -> None:
    """The status the runner would have given the run, else interrupted."""
    done = any(p.get("phase") == "done" for p in out.phases)
    if out.result is not None and out.error is None and done:
        out.status = "ok"
        return
    out.result = None
    if out.error is not None:
        out.status = "cancelled" if out.error.get("kind") == "interrupted" else "error"
        return
    out.status = "interrupted"
    out.error = stopped_error(len(out.steps), path)


def _partial(out: RunOutcome) -> None:
    """The result of the measured steps of a run cut short (core.bench.partial)."""
    out.partial = interrupted_result(out)


def stopped_error(steps: int, path: Path, t: Translate = english) -> dict[str, Any]:
    """The error of a run rocmate stopped before it ended, in words (English, as the run file
    and the report keep it; ``t=core.i18n.t`` gives its words in the user's language)."""
    if steps == 0:
        message = t("bench.interrupted.message.no-step",
                    "rocmate stopped before the run ended (the window was closed or rocmate "
                    "crashed); it had not measured a step yet")
    elif steps == 1:
        message = t("bench.interrupted.message.one-step",
                    "rocmate stopped before the run ended (the window was closed or rocmate "
                    "crashed); the 1 step it had is kept")
    else:
        message = t("bench.interrupted.message.steps",
                    "rocmate stopped before the run ended (the window was closed or rocmate "
                    "crashed); the {steps} steps it had are kept", steps=f"{steps:,}")
    return {"event": "error", "kind": "interrupted", "source": "parent", "cause": "rocmate-stopped",
            "message": message,
            "advice": t("bench.interrupted.advice",
                        "Run the benchmark again for a full result. Every event the run sent up "
                        "to then is in its run file, {file}.", file=path.name),
            "detail": ""}


_NUMBER = (int, float)


def _number(v: object) -> bool:
    return isinstance(v, _NUMBER) and not isinstance(v, bool)


def _usable_step(event: dict[str, Any]) -> bool:
    """A step a report can hold (a damaged one would spoil the whole report)."""
    return (_number(event.get("seconds")) and isinstance(event.get("index"), int)
            and isinstance(event.get("items"), int) and isinstance(event.get("phase"), str)
            and _number(event.get("rx_t")))


def _usable_result(event: dict[str, Any]) -> bool:
    """A result a report can be built from (a damaged one would stop the recovery)."""
    figures = event.get("figures") or {}
    if not isinstance(event.get("headline"), str) or not isinstance(figures, dict):
        return False
    if not all(isinstance(f, dict) for f in figures.values()):
        return False
    for key in ("warmup", "measure"):
        part = event.get(key) or {}
        if not isinstance(part, dict) or not all(
                _number(part[k]) and math.isfinite(part[k]) for k in ("steps", "seconds", "items")
                if k in part):
            return False
    return isinstance(event.get("details") or {}, dict)


_SAMPLE_NUMBERS = {f.name for f in fields(TelemetrySample)} - {"temps_c", "clocks_mhz"}


def _sample(event: dict[str, Any]) -> TelemetrySample | None:
    """A telemetry line as a sample; None when it is not one."""
    if not _number(event.get("t")):
        return None
    values: dict[str, Any] = {k: event[k] for k in _SAMPLE_NUMBERS
                              if k in event and _number(event[k])}
    for key in ("vram_used_bytes", "vram_total_bytes"):
        if key in values:
            values[key] = int(values[key])
    for key in ("temps_c", "clocks_mhz"):
        raw = event.get(key)
        if isinstance(raw, dict):
            values[key] = {str(k): float(v) for k, v in raw.items() if _number(v)}
    return TelemetrySample(**values)


def _text(v: object) -> str | None:
    return v if isinstance(v, str) and v else None


# --- finding and recovering -----------------------------------------------------------------------


def interrupted_runs(runs_dir: Path, system: System | None = None) -> list[Interrupted]:
    """The interrupted runs in ``runs_dir`` (``*.jsonl``), rebuilt; nothing is written. A file a
    live run holds, or a run whose worker still runs, is not one."""
    system = system or LiveSystem()
    found: list[Interrupted] = []
    for path in _run_files(runs_dir):
        if not _candidate(path) or _locked_by_someone(path):
            continue
        try:
            events = read_events(path.read_bytes())
        except OSError:
            continue
        for index, run in unfinished(events):
            if not worker_alive(_worker_pid(run), system):
                found.append(Interrupted(path, index, rebuild(run, path, system)))
    return found


def recover(runs_dir: Path, keep: Keep, system: System | None = None) -> list[Recovered]:
    """Hand every interrupted run in ``runs_dir`` to ``keep`` and mark it in its file, each
    file locked while that happens (two rocmates recovering at once keep a run once)."""
    system = system or LiveSystem()
    done: list[Recovered] = []
    for path in _run_files(runs_dir):
        if not _candidate(path):
            continue
        with _claimed(path) as f:
            if f is None:
                continue
            data = f.read()
            for index, run in unfinished(read_events(data)):
                if worker_alive(_worker_pid(run), system):
                    continue
                outcome = rebuild(run, path, system)
                item = Recovered(path, index, outcome)
                if _no_history(run):
                    item.not_kept = "the run was started without the history (--no-history)"
                else:
                    try:
                        item.history_ids = keep(outcome)
                    except (ReportError, ValueError) as exc:
                        item.not_kept = f"no report could be made of it: {exc}"
                        log.warning("interrupted run %s #%d: %s", path, index, item.not_kept)
                data = _mark(f, data, item)
                done.append(item)
    return done


def _no_history(run: list[dict[str, Any]]) -> bool:
    """The run was started not to be kept in the history (``"history": false`` on its line)."""
    return run[0].get("history") is False


def _mark(f: IO[bytes], data: bytes, item: Recovered) -> bytes:
    """Append the run's ``end`` line (on a line of its own after a half-written one); returns
    the file's bytes as they now are."""
    end = {"event": "end", "status": item.outcome.status, "rx_t": item.outcome.duration_s,
           "returncode": None, "recovered": True, "run": item.index,
           "history_ids": item.history_ids,
           "recovered_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}
    if item.not_kept:
        end["not_kept"] = item.not_kept
    line = json.dumps(end, separators=(",", ":")).encode() + b"\n"
    if data and not data.endswith(b"\n"):
        line = b"\n" + line
    f.write(line)
    f.flush()
    os.fsync(f.fileno())
    return data + line
