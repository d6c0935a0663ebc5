"""Runs a benchmark worker in the target Python and turns its event stream into a RunOutcome.

* The worker runs as ``PYTHON -E -B -u -m core.bench.worker ...`` with its working directory set
  to a fresh temporary folder that holds a copy of the package ``core/bench/worker/`` (and the
  empty ``__init__.py`` files above it) and nothing else. ``-m`` puts that folder first on
  ``sys.path``; ``-E`` makes the interpreter ignore PYTHONPATH/PYTHONHOME (which may point at
  rocmate's own packages, e.g. from a PyInstaller bundle), so only the target environment's own
  site-packages (and its user site, where a ``pip install --user torch`` lives) are importable
  besides ``core``. The environment comes from ``core.system.clean_env()``.
* Every event is appended to a run file (JSON lines) the moment it arrives, with telemetry
  samples between them, so a crash of the caller loses nothing. The runner holds a shared
  ``flock`` on the file while it writes (the kernel drops it however the process ends): a run
  file without an ``end`` that nobody holds is an interrupted run (core.bench.recover).
* Besides the worker's events (``setup`` phases included, from newer workers) the file holds
  the runner's own lines: ``run`` first, ``telemetry``, parent errors and ``end`` last.
* A watchdog kills the worker's process group when no event arrives for ``watchdog_s`` seconds
  (``startup_timeout_s`` until the first step: model build, compile and autotuning come first).
* A data-parallel run (``--gpus``) is watched per rank too (core.bench.ranks): each rank's pulse
  file says it lives, how many steps it finished and how many collectives it entered. A rank
  whose process is stopped ends the run at once; a collective that times out inside the ranks
  (``collective_timeout_s``, below the watchdog) or a run the watchdog ends is told by which
  rank held the others up. Before it kills a hung run the runner asks every rank for its Python
  stacks (SIGUSR1); a ``rank-log`` line in the run file keeps the ranks' pulses and the
  collective library's words.
* :meth:`BenchRunner.cancel` sends SIGINT (the worker reports ``interrupted`` with its steps),
  SIGTERM after ``interrupt_grace_s`` (a worker that inherited SIGINT ignored, from a rocmate
  started by ``sh -c 'rocmate &'``, cannot ignore it: the worker turns it into the same
  report), then SIGKILL to its group after ``kill_grace_s``. A run cancelled before the worker
  said ``done`` is cancelled, even if the worker went on to finish it. The worker is started,
  read, signalled and reaped through core.child (shared with the set-up runner).
* However the worker ends, the outcome has exactly one of ``result`` or ``error``; a run cut
  short with enough measured steps also has ``partial``, the result of those steps
  (core.bench.partial).
* The errors' fields are English, as the run file and the report keep them; the advice texts
  the runner writes itself are the functions ``*_advice`` below, which take a translator
  (``core.i18n.t``) where a host shows them in the user's language.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import fcntl
import json
import os
import re
import resource
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

import core.bench
from core.bench import ranks as rankwatch
from core.bench.failures import failure_patterns, hand_to_worker
from core.bench.partial import interrupted_result
from core.bench.telemetry import DeviceIds, Sampler, open_sampler, sysfs_ids
from core.bench.worker import errors
from core.bench.worker.errors import PATTERNS_FILE, Translate, english
from core.bench.worker.options import BenchOptions
from core.bench.worker.protocol import decode
from core.bundle import worker_sources
from core.child import Child, signal_name
from core.report.model import TelemetrySample
from core.system import LiveSystem, System, clean_env

EventCallback = Callable[[dict[str, Any]], None]

STDERR_KEEP = 64 * 1024
LINE_LIMIT = 16 * 1024 * 1024
END_GRACE_S = 10.0  # after its last event (done, error) a worker gets this long to exit
STEP_WATCHDOG_FACTOR = 3.0  # the watchdog never fires before 3x the longest step seen
COLLECTIVE_GRACE_S = 30.0  # a data-parallel run's watchdog waits this long past the collective
# timeout, so that the ranks' own timeout (and the collective library's words) comes first
STACKS_WAIT_S = 1.0  # how long the ranks get to print their stacks before a hung run is killed


@dataclass
class RunOutcome:
    """Everything one worker run produced."""

    suite: str
    python: str
    options: BenchOptions
    started: str  # ISO 8601 UTC
    status: str = "error"  # ok | error | cancelled | interrupted (core.bench.recover only)
    duration_s: float = 0.0
    hello: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    phases: list[dict[str, Any]] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    telemetry: list[TelemetrySample] = field(default_factory=list)
    telemetry_source: str | None = None
    power_source: dict[str, Any] | None = None  # sampler, power, energy: what power came from
    device_ids: DeviceIds | None = None
    returncode: int | None = None
    stderr_tail: str = ""
    run_file: str | None = None
    partial: dict[str, Any] | None = None
    """A run cut short (Ctrl-C, Cancel, a killed worker): the ``result`` its measured steps
    make, marked ``interrupted`` (core.bench.partial); beside its error, never instead."""


def run_file_advice(t: Translate = english) -> str:
    """Advice for a run file that cannot be written."""
    return t("bench.advice.run-file",
             "Choose a run file in a folder you can write to (--run-file), or free space on the "
             "disk that holds it.")


def start_advice(t: Translate = english) -> str:
    """Advice for a Python that cannot be started."""
    return t("bench.advice.cannot-start",
             "Pass --python with the path of the Python that holds the ROCm PyTorch (for example "
             "~/.local/share/rocmate/venv/bin/python).")


def hung_advice(t: Translate = english) -> str:
    """Advice for a worker the watchdog killed (``cause``: hung)."""
    return t("bench.advice.hung",
             "The worker stopped making progress (a GPU hang, a stuck compile, or a stopped "
             "process). Run it again; if it hangs again, run `rocmate doctor` and attach the run "
             "file to a bug report.")


def rank_advice(t: Translate = english) -> str:
    """Advice for a data-parallel run that one rank ended or held up."""
    return t("bench.advice.rank",
             "In a data-parallel run every rank waits for the others at each step, so one rank "
             "that ends or stops answering stops them all. Its own words are in the run's log. "
             "Run `rocmate doctor` to see the GPUs and how they are connected, try fewer GPUs "
             "(--gpus) or one card at a time (HIP_VISIBLE_DEVICES), and set NCCL_DEBUG=INFO to "
             "see what RCCL says.")


def killed_advice(advice: str, t: Translate = english) -> str:
    """Advice for a worker killed by SIGKILL for no reason its output shows: the kernel's
    out-of-memory killer first, then ``advice`` (the kind's own)."""
    return t("bench.advice.killed",
             "The worker was killed (SIGKILL). If nobody stopped it, the kernel's out-of-memory "
             "killer may have (see `journalctl -k | grep -i oom`): try a smaller --batch-size. "
             "{advice}", advice=advice)


def prepare_worker_root(dest: Path) -> Path:
    """Copy the worker package ``core/bench/worker/`` (sources only) into ``dest``, with the
    ``__init__.py`` of ``core`` and ``core/bench`` (they import nothing) and no other file. The
    packaged program copies them from its worker folder (core.bundle.worker_sources): its own
    modules are compiled into its archive, not files."""
    packaged = worker_sources()
    src_core = packaged / "core" if packaged else Path(core.bench.__file__).resolve().parent.parent
    src_bench = src_core / "bench"
    target = dest / "core"
    (target / "bench").mkdir(parents=True, exist_ok=True)
    shutil.copy2(src_core / "__init__.py", target / "__init__.py")
    shutil.copy2(src_bench / "__init__.py", target / "bench" / "__init__.py")
    shutil.copytree(src_bench / "worker", target / "bench" / "worker",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", PATTERNS_FILE),
                    dirs_exist_ok=True)
    hand_to_worker(target / "bench" / "worker")  # the error texts it sorts failures by
    return dest


def worker_command(python: str, options: BenchOptions) -> list[str]:
    """The argv that starts a worker (run it with cwd = a folder from prepare_worker_root); a
    data-parallel run (``--gpus``) starts PyTorch's own launcher, which starts one worker per
    GPU (core.bench.worker.parallel)."""
    if options.gpus is None:
        return [python, "-E", "-B", "-u", "-m", "core.bench.worker", *options.to_argv()]
    ranks = "gpu" if options.gpus == "all" else options.gpus
    return [python, "-E", "-B", "-u", "-m", "torch.distributed.run", "--standalone",
            "--nproc-per-node", ranks, "-m", "core.bench.worker", *options.to_argv()]


def rank_env(env: Mapping[str, str]) -> dict[str, str]:
    """What a data-parallel run's ranks get: the launcher starts them without ``-E``, so none of
    the user's ``PYTHON*`` variables (a PYTHONPATH would load other code), unbuffered and
    without bytecode files, as a plain worker; RCCL's warnings on (a collective that times out
    says so in the run's log) unless the user chose a level."""
    kept = {k: v for k, v in env.items() if not k.startswith("PYTHON")}
    return {**kept, "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1",
            "NCCL_DEBUG": env.get("NCCL_DEBUG", "WARN")}


_FAILED_RANK = re.compile(r"rank\s*:\s*(\d+)\s*\(local_rank")
_FAILED_CODE = re.compile(r"exitcode\s*:\s*(-?\d+)")


def failed_rank(stderr: str) -> tuple[int, int] | None:
    """The first failed rank and its exit status, from torch.distributed.run's summary of a
    failed run ("Root Cause (first observed failure)": ``rank : 1 (local_rank: 1)``, ``exitcode
    : -9 (pid: ...)``)."""
    root = stderr.rfind("Root Cause")
    text = stderr[root:] if root >= 0 else stderr
    rank, code = _FAILED_RANK.search(text), _FAILED_CODE.search(text)
    if rank is None or code is None:
        return None
    return int(rank[1]), int(code[1])


def default_runs_dir(env: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/rocmate/runs``: where the run files go, beside the history."""
    from core.report.history import default_path

    return default_path(env).parent / "runs"


def default_run_file(env: Mapping[str, str], suite: str) -> Path:
    """``$XDG_DATA_HOME/rocmate/runs/<UTC time>-<suite>.jsonl``."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    return default_runs_dir(env) / f"{stamp}-{suite}.jsonl"


def hold_run_file(file: IO[str]) -> None:
    """A shared lock on a run file for as long as it is open here: the sign of a live run.
    Shared, so two runs told to append to one file both get it; it waits only for a recovery
    that holds the file for a moment (core.bench.recover). A file system without locks
    (rare) goes without."""
    with contextlib.suppress(OSError):
        fcntl.flock(file.fileno(), fcntl.LOCK_SH)


class BenchRunner:
    """One worker run. Create, then ``await run()``; ``cancel()`` from the same event loop."""

    def __init__(
        self,
        options: BenchOptions,
        *,
        python: str,
        run_file: Path | str | None = None,
        watchdog_s: float = 180.0,
        startup_timeout_s: float = 900.0,
        telemetry: bool = True,
        telemetry_interval_s: float = 0.5,
        env: Mapping[str, str | None] | None = None,
        memory_limit_bytes: int | None = None,
        kill_grace_s: float = 10.0,
        interrupt_grace_s: float = 3.0,
        on_event: EventCallback | None = None,
        system: System | None = None,
        run_record: Mapping[str, Any] | None = None,
        pulse_s: float = 2.0,
        collective_timeout_s: float | None = None,
    ) -> None:
        """``run_record``: more fields for the run file's ``run`` line (e.g. ``history``:
        whether the caller keeps the run in the history, which a recovery honours).
        ``pulse_s``: how often each rank of a data-parallel run writes its pulse;
        ``collective_timeout_s``: how long its collectives wait for a rank (3/4 of the
        watchdog unless given)."""
        self.options = options
        # a relative path would break: the worker starts in its own folder (symlinks are kept,
        # a venv's python must stay the venv's)
        self.python = os.path.abspath(python) if os.sep in python else python
        self.run_file = Path(run_file) if run_file else None
        self.watchdog_s = watchdog_s
        self.startup_timeout_s = startup_timeout_s
        self.telemetry = telemetry
        self.telemetry_interval_s = telemetry_interval_s
        self.extra_env = dict(env or {})
        self.memory_limit_bytes = memory_limit_bytes
        self.kill_grace_s = max(kill_grace_s, interrupt_grace_s)
        self.interrupt_grace_s = interrupt_grace_s
        self.on_event = on_event
        self.system: System = system or LiveSystem()
        self.run_record = dict(run_record or {})
        self.child: Child | None = None
        self._cancelled = False
        self._done_seen = False  # the worker said ``phase done``
        self._done_before_cancel = False  # ... before a cancel: its measurement stands
        self._hung = False
        self._waited_s = 0.0
        self._steps_seen = 0  # the watchdog's running maximum of step times
        self._longest_step = 0.0
        self._t0 = 0.0
        self._file: IO[str] | None = None
        self._sampler: Sampler | None = None
        self._stderr = bytearray()
        self._file_error: str | None = None  # why the run file could not be written
        self.pulse_s = pulse_s
        self.collective_timeout_s = (collective_timeout_s if collective_timeout_s is not None
                                     else max(1.0, 0.75 * watchdog_s))
        self._pulse_dir: Path | None = None  # where the ranks write their pulses
        self._stall: rankwatch.Stall | None = None  # who held a data-parallel run up

    @property
    def pid(self) -> int | None:
        return self.child.pid if self.child else None

    def _now(self) -> float:
        return time.monotonic() - self._t0

    # -- outputs ---------------------------------------------------------------------------------

    def _record(self, event: dict[str, Any]) -> None:
        if self._file is not None:
            try:
                self._file.write(json.dumps(event, separators=(",", ":"), default=str) + "\n")
                self._file.flush()
            except OSError as exc:  # a full disk: the run stops with a readable error
                self._run_file_failed(exc)
        if self.on_event is not None:
            self.on_event(event)

    def _run_file_failed(self, exc: OSError) -> None:
        """The run file cannot be written any more: a run is not measured without its run
        file (a crash would lose it), so the worker is stopped and the run ends with the
        reason (:meth:`_finish`)."""
        file, self._file = self._file, None
        with contextlib.suppress(OSError):
            if file is not None:
                file.close()
        self._file_error = (f"cannot write the run file {self.run_file}: "
                            f"{exc.strerror or exc}")
        self._kill()

    # -- control ---------------------------------------------------------------------------------

    def cancel(self) -> None:
        """Ask the worker to stop: SIGINT, SIGTERM after a short grace, SIGKILL after a longer
        one. A cancel before the worker has started stops it as soon as it has."""
        if not self._cancelled:
            self._done_before_cancel = self._done_seen
        self._cancelled = True
        self._interrupt()

    def _interrupt(self) -> None:
        """SIGINT now (the worker's own Ctrl-C: it reports ``interrupted``), then SIGTERM (a
        worker that inherited SIGINT ignored, or sits in a long call, makes it the same
        ``interrupted`` report), then SIGKILL to its group; each only while it still runs."""
        if self.child is not None and self.child.returncode is None:
            self.child.escalate([(0.0, signal.SIGINT, False),
                                 (self.interrupt_grace_s, signal.SIGTERM, False),
                                 (self.kill_grace_s, signal.SIGKILL, True)])

    def _kill(self) -> None:
        if self.child is not None:  # the worker and any compile workers it started
            self.child.signal(signal.SIGKILL, group=True)

    def _env(self) -> dict[str, str]:
        env = clean_env(self.extra_env)
        if self.options.gpus is None:
            return env
        pulses = {"ROCMATE_PULSE_S": f"{self.pulse_s:g}",
                  "ROCMATE_COLLECTIVE_TIMEOUT_S": f"{self.collective_timeout_s:g}"}
        if self._pulse_dir is not None:
            pulses["ROCMATE_PULSE_DIR"] = str(self._pulse_dir)
        return rank_env(env) | pulses

    def _preexec(self) -> None:
        if self.memory_limit_bytes:
            resource.setrlimit(resource.RLIMIT_AS,
                               (self.memory_limit_bytes, self.memory_limit_bytes))

    # -- the run ---------------------------------------------------------------------------------

    async def run(self) -> RunOutcome:
        started = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        out = RunOutcome(suite=self.options.suite, python=self.python, options=self.options,
                         started=started)
        self._t0 = time.monotonic()
        workdir = Path(tempfile.mkdtemp(prefix="rocmate-worker-"))
        try:
            if self.run_file is not None and not self._open_run_file(out):
                return out
            argv = worker_command(self.python, self.options)
            self._record({**self.run_record, "event": "run", "schema": "rocmate.run/1",
                          "suite": out.suite, "argv": argv, "started": started, "rx_t": 0.0})
            # copying the package and loading the error texts takes tens of ms: not on the
            # caller's event loop (the desktop app's window)
            await asyncio.to_thread(prepare_worker_root, workdir)
            if self.options.gpus is not None:
                self._pulse_dir = workdir / "ranks"
                self._pulse_dir.mkdir()
            if self._file_error is None:
                await self._run_worker(argv, workdir, out)
        finally:
            out.duration_s = self._now()
            self._finish(out)
            if self._sampler is not None:
                self._sampler.close()
            self._record({"event": "end", "status": out.status, "rx_t": out.duration_s,
                          "returncode": out.returncode})
            if self._file is not None:
                with contextlib.suppress(OSError):
                    self._file.close()
            shutil.rmtree(workdir, ignore_errors=True)
        return out

    def _open_run_file(self, out: RunOutcome) -> bool:
        """Open the run file for appending; on failure the run ends with a readable error."""
        assert self.run_file is not None
        try:
            self.run_file.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.run_file, "a", encoding="utf-8")  # noqa: SIM115
            hold_run_file(self._file)
        except OSError as exc:
            out.error = self._parent_error(
                "other", f"cannot write the run file {self.run_file}: {exc.strerror or exc}",
                advice=run_file_advice())
            return False
        out.run_file = str(self.run_file)
        return True

    def _read_limit(self, out: RunOutcome) -> tuple[float, bool]:
        """How long to wait for the next line, and whether running out of it means a hang.

        Until the first step: the start-up timeout (build, compile, autotuning). Then the
        watchdog, but never less than a few times the longest step seen (a big model on a slow
        device is slow, not hung). After ``done`` or an ``error`` the worker has said all it
        will: a short grace to exit, and a worker that lingers is not hung, only stopped."""
        finished = out.error is not None or any(p.get("phase") == "done" for p in out.phases)
        if finished:
            return END_GRACE_S, False
        if not out.steps:
            return self.startup_timeout_s, True
        for step in out.steps[self._steps_seen:]:  # only the steps new since the last line
            self._longest_step = max(self._longest_step, float(step.get("seconds") or 0.0))
        self._steps_seen = len(out.steps)
        limit = max(self.watchdog_s, STEP_WATCHDOG_FACTOR * self._longest_step)
        if self.options.gpus is not None:
            limit = max(limit, self.collective_timeout_s + COLLECTIVE_GRACE_S)
        return limit, True

    async def _run_worker(self, argv: list[str], workdir: Path, out: RunOutcome) -> None:
        try:
            self.child = child = await Child.start(
                argv, env=self._env(), cwd=str(workdir), new_session=True,
                preexec=self._preexec if self.memory_limit_bytes else None,
                line_limit=LINE_LIMIT)
        except OSError as exc:
            out.error = self._parent_error(
                "other", f"cannot start {self.python}: {exc.strerror or exc}",
                advice=start_advice())
            self._record({**out.error, "rx_t": self._now()})
            return
        if self._cancelled:  # cancelled while the process was starting
            self._interrupt()
        stderr_task = child.keep_stderr(self._stderr, STDERR_KEEP)
        telemetry_task: asyncio.Task[None] | None = None
        ranks_task = (asyncio.create_task(self._watch_ranks(out))
                      if self._pulse_dir is not None else None)
        try:
            while True:
                limit, hang_if_silent = self._read_limit(out)
                self._waited_s = limit
                try:
                    line = await child.line(limit)
                except ValueError:  # a line over LINE_LIMIT: not protocol; skip it
                    self._stderr.extend(b"[stdout] (a line too long to read was skipped)\n")
                    continue
                if line is None:  # the watchdog: nothing came for ``limit`` seconds
                    self._hung = hang_if_silent and not self._cancelled
                    if self._hung and self._pulse_dir is not None:
                        pulses, states = self._ranks_now()
                        self._stall = self._diagnose(pulses, states)
                        await self._ask_for_stacks(pulses, states)
                    self._kill()
                    break
                if not line:
                    break
                event = decode(line)
                if event is None:
                    text = line.decode("utf-8", "replace").rstrip()
                    self._stderr.extend(f"[stdout] {text}\n".encode())
                    continue
                event["rx_t"] = self._now()
                self._dispatch(event, out)
                self._record(event)
                if event["event"] == "hello":
                    out.device_ids = sysfs_ids(self.system, event.get("pci_bus_id"))
                    if self.telemetry and telemetry_task is None:
                        telemetry_task = asyncio.create_task(self._sample_loop(event, out))
            out.returncode = await child.reap(30, group=True)
        finally:
            # the worker is gone; whatever it started in its group (compile workers) goes too
            out.returncode = await child.finish(group=True)
            for task in (telemetry_task, ranks_task):
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stderr_task, timeout=5)
            out.stderr_tail = self._stderr[-STDERR_KEEP:].decode("utf-8", "replace")

    def _dispatch(self, event: dict[str, Any], out: RunOutcome) -> None:
        kind = event["event"]
        if kind == "hello":
            out.hello = event
        elif kind == "phase":
            out.phases.append(event)
            self._done_seen = self._done_seen or event.get("phase") == "done"
        elif kind == "step":
            out.steps.append(event)
        elif kind == "result":
            out.result = event
        elif kind == "error" and out.error is None:
            out.error = {**event, "source": "worker"}
            if self._pulse_dir is not None and self._stall is None:  # the others still live
                self._stall = self._diagnose(*self._ranks_now())

    # -- the ranks of a data-parallel run --------------------------------------------------------

    @property
    def _silent_after_s(self) -> float:
        """How long a rank's pulse may be silent before the rank counts as stopped."""
        return max(5 * self.pulse_s, 2.0)

    def _ranks_now(self) -> tuple[dict[int, rankwatch.RankPulse], dict[int, str | None]]:
        """Each rank's last pulse and its process's state now."""
        assert self._pulse_dir is not None
        pulses = rankwatch.read_pulses(self._pulse_dir)
        return pulses, {r: rankwatch.process_state(p.pid) for r, p in pulses.items()}

    def _diagnose(self, pulses: dict[int, rankwatch.RankPulse],
                  states: dict[int, str | None] | None = None) -> rankwatch.Stall | None:
        """Who holds the run up, from the pulses and, while the ranks live, their states."""
        gpus = self.options.gpus  # "all": as many as the launcher made (the ranks' pulses)
        world = int(gpus) if gpus is not None and gpus.isdigit() else max(
            [r + 1 for r in pulses] + [1])
        if states is None:
            return rankwatch.diagnose(pulses, world, time.time())
        return rankwatch.diagnose(pulses, world, time.time(), states, self._silent_after_s)

    async def _watch_ranks(self, out: RunOutcome) -> None:
        """The per-rank watchdog: a rank whose process is stopped and whose pulse has gone
        silent ends the run now (the others would wait for it until the collective timeout)."""
        while True:
            await asyncio.sleep(self.pulse_s)
            if out.error is not None or any(p.get("phase") == "done" for p in out.phases):
                return
            pulses, states = await asyncio.to_thread(self._ranks_now)
            if rankwatch.stopped_ranks(pulses, states, time.time(), self._silent_after_s):
                self._stall = self._diagnose(pulses, states)
                self._hung = not self._cancelled
                self._waited_s = (self._stall.silent_s if self._stall else 0.0)
                await self._ask_for_stacks(pulses, states)
                self._kill()
                return

    async def _ask_for_stacks(self, pulses: dict[int, rankwatch.RankPulse],
                              states: dict[int, str | None]) -> None:
        """Every live rank prints its threads' Python stacks to stderr (SIGUSR1), for the run
        log; a stopped rank cannot, and is not waited for."""
        asked = False
        for rank, pulse in pulses.items():
            if states.get(rank) not in (None, *rankwatch.STOPPED_STATES):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pulse.pid, signal.SIGUSR1)
                    asked = True
        if asked:
            await asyncio.sleep(STACKS_WAIT_S)

    def _log_ranks(self, out: RunOutcome) -> None:
        """The run file's ``rank-log`` line: each rank's last pulse and what the collective
        library and the ranks' stacks said, in their stderr or their error."""
        assert self._pulse_dir is not None
        pulses = rankwatch.read_pulses(self._pulse_dir)
        words = self._stderr.decode("utf-8", "replace") + "\n" + _error_words(out)
        self._record({"event": "rank-log", "rx_t": self._now(),
                      "pulses": [asdict(p) for p in sorted(pulses.values(),
                                                           key=lambda p: p.rank)],
                      "log": rankwatch.collective_log(words)})

    async def _sample_loop(self, hello: dict[str, Any], out: RunOutcome) -> None:
        """Sample until cancelled. Telemetry is a bonus: if it fails, it stops (the run file
        says why) and the run goes on."""
        try:
            await self._sample(hello, out)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._record({"event": "telemetry-stopped", "rx_t": self._now(),
                          "reason": f"{type(exc).__name__}: {exc}"})

    async def _sample(self, hello: dict[str, Any], out: RunOutcome) -> None:
        self._sampler = await asyncio.to_thread(open_sampler, self.system, hello)
        if self._sampler is None:
            return
        out.telemetry_source = self._sampler.kind
        ids = await asyncio.to_thread(self._sampler.ids)
        if ids.pci_id or out.device_ids is None:
            out.device_ids = ids
        sampler = self._sampler
        while True:
            sample = await asyncio.to_thread(sampler.sample, self._now())
            out.telemetry.append(sample)
            record = {"event": "telemetry", "rx_t": sample.t, **_sample_dict(sample)}
            self._record(record)
            if out.power_source is None and (sample.power_w is not None
                                             or sample.energy_j is not None):
                power, counter = sampler.power_reading()
                out.power_source = {"sampler": sampler.kind, "power": power, "energy": counter}
                self._record({"event": "telemetry-source", "rx_t": sample.t,
                              **out.power_source})
            await asyncio.sleep(self.telemetry_interval_s)

    # -- the end ---------------------------------------------------------------------------------

    def _parent_error(self, kind: str, message: str, *, advice: str | None = None,
                      detail: str = "") -> dict[str, Any]:
        ctx = errors.Context(suite=self.options.suite, batch_size=self.options.batch_size,
                             python=self.python)
        return {"event": "error", "kind": kind, "message": message,
                "advice": advice or errors.advice_for(kind, ctx, text=detail,
                                                      patterns=failure_patterns()),
                "detail": detail[-4000:], "source": "parent"}

    def _finish(self, out: RunOutcome) -> None:
        """Decide the status; make sure a failed run carries exactly one error.

        A run whose worker sent ``result`` and ``phase done`` is ok even when the process then
        failed to exit cleanly (some ROCm stacks crash at interpreter shutdown): the
        measurement was complete. The return code stays in the outcome. A run cancelled before
        ``done`` is not ok even when the worker finished it (it ignored the cancel): the user
        stopped it, and its measured steps make its partial result."""
        done = any(p.get("phase") == "done" for p in out.phases)
        finished = done and (not self._cancelled or self._done_before_cancel)
        if out.result is not None and out.error is None and finished:
            out.status = "ok"
            return
        out.result = None
        if out.error is None and self._file_error is not None:
            out.error = self._parent_error("other", self._file_error, advice=run_file_advice())
            self._record({**out.error, "rx_t": self._now()})
        if self._pulse_dir is not None:
            self._log_ranks(out)
        stalled = self._stall_error(out)
        if stalled is not None:
            out.error = stalled
            self._record({**out.error, "rx_t": self._now()})
        elif out.error is None:
            out.error = self._death_error(out)
            self._record({**out.error, "rx_t": self._now()})
        elif self._rank_ended(out):  # the launcher stopped rank 0 because another rank ended
            out.error = self._rank_error(out)
            self._record({**out.error, "rx_t": self._now()})
        cancelled = self._cancelled or out.error.get("kind") == "interrupted"
        out.status = "cancelled" if cancelled else "error"
        out.partial = interrupted_result(out)

    def _stall_error(self, out: RunOutcome) -> dict[str, Any] | None:
        """A data-parallel run that hung, or whose collective timed out inside the ranks: the
        error names the rank that held the others up (core.bench.ranks), with rank 0's words
        and the stderr in the detail. None for any other end."""
        if self._pulse_dir is None or self._cancelled or self._file_error is not None:
            return None
        stderr = self._stderr.decode("utf-8", "replace")
        said = _error_words(out)
        if self._hung:
            cause, waited = "hung", self._waited_s
        elif rankwatch.collective_timed_out(said) or rankwatch.collective_timed_out(stderr):
            cause, waited = "collective-timeout", self.collective_timeout_s
        else:
            return None
        stall = self._stall or self._diagnose(rankwatch.read_pulses(self._pulse_dir))
        if stall is None:
            return None
        # i18n: english (the protocol's message; its advice is shown translated)
        detail = f"rank 0: {said.strip()}\n{out.stderr_tail}" if out.error else out.stderr_tail
        return self._parent_error("other", stall.message(waited), advice=rank_advice(),
                                  detail=detail) | {"cause": cause, **stall.fields()}

    def _rank_ended(self, out: RunOutcome) -> bool:
        """A data-parallel run that nobody cancelled, whose rank 0 reported an error (a broken
        connection, or the launcher's SIGTERM) because another rank had ended first, as the
        launcher's summary says: that rank is the news, not rank 0's words."""
        if self.options.gpus is None or self._cancelled or out.error is None:
            return False
        if out.error.get("source") != "worker" or out.error.get("rank", 0) != 0:
            return False
        found = failed_rank(self._stderr.decode("utf-8", "replace"))
        return found is not None and found[0] != 0

    def _rank_error(self, out: RunOutcome) -> dict[str, Any]:
        """Which rank ended and how, from the launcher's summary; rank 0's own words stay in
        the detail."""
        world = (out.hello or {}).get("world_size") or self.options.gpus
        rank, code = failed_rank(self._stderr.decode("utf-8", "replace")) or (0, 0)
        how = f"exit code {code}"
        if code < 0:
            with contextlib.suppress(ValueError):
                how = f"killed by {signal.Signals(-code).name}"
        said = (out.error or {}).get("message") or ""
        # i18n: english (the protocol's message; its advice is shown translated)
        message = f"rank {rank} of {world} ended ({how}) and the others were stopped"
        return self._parent_error("other", message, advice=rank_advice(),
                                  detail=f"rank 0: {said}\n{out.stderr_tail}") | {
                                      "cause": "rank"}

    def _death_error(self, out: RunOutcome) -> dict[str, Any]:
        """The worker ended without an error event: say how, from the outside."""
        rc = out.returncode
        tail = out.stderr_tail
        ctx = errors.Context(suite=self.options.suite, batch_size=self.options.batch_size,
                             python=self.python,
                             backend=(out.hello or {}).get("backend"),
                             arch=(out.hello or {}).get("arch"))
        if self._cancelled:
            return self._parent_error("interrupted", "the run was cancelled")
        if self._hung:
            waited = self._waited_s
            return self._parent_error(
                "other", f"the worker sent nothing for {waited:.0f} s and was killed (hung)",
                advice=rank_advice() if self.options.gpus is not None else hung_advice(),
                detail=tail) | {"cause": "hung"}
        if rc is not None and rc < 0:
            sig = signal_name(-rc)  # "signal 34": a real-time signal has no name
            # i18n: english (the protocol's message; its advice is shown translated)
            info = errors.from_output(tail, ctx, message=f"the worker was killed by {sig}",
                                      patterns=failure_patterns())
            advice = info.advice
            if info.kind == "other" and -rc == signal.SIGKILL:
                advice = killed_advice(advice)
            return self._parent_error(info.kind, info.message, advice=advice,
                                      detail=tail) | {"cause": "killed", "signal": sig}
        if out.hello is None and not tail.strip() and rc not in (0, None):
            msg = f"the worker exited with code {rc} before it said hello"
        elif rc == 0:
            msg = "the worker ended without a result"
        else:
            msg = f"the worker exited with code {rc}"
        info = errors.from_output(tail, ctx, message=msg, patterns=failure_patterns())
        return self._parent_error(info.kind, info.message, advice=info.advice,
                                  detail=tail) | {"cause": "exited"}


def _error_words(out: RunOutcome) -> str:
    """What the run's error said: its message and its detail."""
    return "\n".join(str((out.error or {}).get(k) or "") for k in ("message", "detail"))


def _sample_dict(s: TelemetrySample) -> dict[str, Any]:
    return {k: v for k, v in asdict(s).items() if v not in (None, {})}
