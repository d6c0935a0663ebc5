"""Data-parallel runs: the worker as one rank of PyTorch's own launcher.

``rocmate bench SUITE --gpus N`` starts ``python -m torch.distributed.run --standalone
--nproc-per-node N -m core.bench.worker ...`` (core.bench.runner): one worker process per GPU,
each told its place by the launcher's ``RANK``, ``WORLD_SIZE`` and ``LOCAL_RANK``. The ranks
join one process group (``nccl`` on a GPU, which is RCCL on ROCm; ``gloo`` on the CPU), the
model is wrapped in DistributedDataParallel, and every step the ranks share their step times
(one small all_gather after the step's timing), so that every rank takes the same decisions
(warm-up settled, measured phase over) from the same numbers, and rank 0 can report the step as
the slowest rank saw it, with each rank's time beside it.

Only rank 0 speaks the protocol; the others send an ``error`` event only, when they fail. Each
rank dies with the launcher (``PR_SET_PDEATHSIG``): when rocmate kills the launcher (a cancel
past its grace, a hang), no rank is left holding a GPU.

Each rank also keeps a *pulse* (:class:`Pulse`): a small JSON file in the folder rocmate names
(``ROCMATE_PULSE_DIR``), rewritten every ``ROCMATE_PULSE_S`` seconds by a thread of its own, with
the steps the rank finished and the collectives it entered (the step-time all_gather and every
gradient all-reduce, counted by a DDP communication hook). A thread keeps writing while the
rank's main thread waits in a collective or on the GPU, so rocmate's watchdog (core.bench.ranks)
tells a rank that stopped (no pulse) from one that is stuck in its step (it entered fewer
collectives than the others) from a collective that never completes (all entered the same one).
The process group gives up on a collective after ``ROCMATE_COLLECTIVE_TIMEOUT_S`` (rocmate sets
it below its own watchdog), so the ranks' own timeout messages (NCCL/RCCL's, gloo's) reach the run
log; SIGUSR1 makes a rank print every thread's Python stack to stderr (faulthandler), which
rocmate asks for before it stops a hung run.

Worker side: standard library and torch only.
"""

from __future__ import annotations

import ctypes
import datetime as _dt
import faulthandler
import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from core.bench.worker.protocol import Emitter

if TYPE_CHECKING:  # torch is imported where it is used: a plain run says "importing PyTorch" first
    import torch

PR_SET_PDEATHSIG = 1
TIMEOUT_S = 600.0
"""How long a collective may wait for a rank before the process group gives up, unless rocmate
says (``ROCMATE_COLLECTIVE_TIMEOUT_S``)."""
PULSE_S = 2.0
"""How often a rank rewrites its pulse file, unless rocmate says (``ROCMATE_PULSE_S``)."""


@dataclass(frozen=True)
class Ranks:
    """This process's place in a data-parallel run."""

    rank: int
    world: int
    local_rank: int

    @property
    def leader(self) -> bool:
        return self.rank == 0


def from_env(env: dict[str, str] | None = None) -> Ranks | None:
    """The rank the launcher gave this process, or None when it was not started by it."""
    env = dict(os.environ) if env is None else env
    try:
        rank, world = int(env["RANK"]), int(env["WORLD_SIZE"])
        local = int(env.get("LOCAL_RANK", rank))
    except (KeyError, ValueError):
        return None
    if world < 1 or not 0 <= rank < world:
        return None
    return Ranks(rank=rank, world=world, local_rank=local)


def die_with_parent() -> None:
    """Be killed when the launcher ends (Linux); a launcher already gone ends this rank now."""
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the launcher ended before the call
        os.kill(os.getpid(), signal.SIGKILL)


def device_spec(asked: str, ranks: Ranks) -> str:
    """The device of this rank: its own GPU (the launcher's LOCAL_RANK), or the CPU."""
    return "cpu" if asked == "cpu" else f"cuda:{ranks.local_rank}"


def _seconds(env: dict[str, str], name: str, default: float) -> float:
    try:
        value = float(env.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


def collective_timeout_s(env: dict[str, str] | None = None) -> float:
    """How long a collective waits for the other ranks before the process group gives up."""
    return _seconds(dict(os.environ) if env is None else env,
                    "ROCMATE_COLLECTIVE_TIMEOUT_S", TIMEOUT_S)


def join(ranks: Ranks, gpu: bool) -> str:
    """Join the process group; the backend's name."""
    import torch.distributed as dist

    backend = "nccl" if gpu else "gloo"
    dist.init_process_group(backend,
                            timeout=_dt.timedelta(seconds=collective_timeout_s()))
    return backend


class Pulse:
    """This rank's sign of life: its steps and the collectives it entered, rewritten to
    ``<folder>/rank<R>.json`` by a daemon thread (write, then rename: a reader never sees half a
    file). Counting is a plain increment on the main thread; the thread only reads."""

    def __init__(self, folder: Path, ranks: Ranks, every_s: float) -> None:
        self.path = folder / f"rank{ranks.rank}.json"
        self.ranks = ranks
        self.every_s = every_s
        self.steps = 0
        self.collectives = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="rocmate-pulse", daemon=True)

    def start(self) -> None:
        self._write()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _beat(self) -> None:
        while not self._stop.wait(self.every_s):
            self._write()

    def _write(self) -> None:
        record = {"rank": self.ranks.rank, "world": self.ranks.world, "pid": os.getpid(),
                  "steps": self.steps, "collectives": self.collectives, "t": time.time()}
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(record))
            os.replace(tmp, self.path)
        except OSError:  # the folder is gone (rocmate ended the run): nothing to tell
            self._stop.set()


PULSE: Pulse | None = None
"""This process's pulse, once :func:`start_pulse` ran (a rank of a data-parallel run)."""


def start_pulse(ranks: Ranks, env: dict[str, str] | None = None) -> Pulse | None:
    """Start this rank's pulse where rocmate asked for it (``ROCMATE_PULSE_DIR``), and let
    SIGUSR1 print every thread's stack to stderr."""
    global PULSE
    env = dict(os.environ) if env is None else env
    with_stacks = getattr(faulthandler, "register", None)
    if with_stacks is not None:
        with_stacks(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    folder = env.get("ROCMATE_PULSE_DIR")
    if not folder or not Path(folder).is_dir():
        return None
    PULSE = Pulse(Path(folder), ranks, _seconds(env, "ROCMATE_PULSE_S", PULSE_S))
    PULSE.start()
    return PULSE


def stepped() -> None:
    """This rank finished a step."""
    if PULSE is not None:
        PULSE.steps += 1


def entering_collective() -> None:
    """This rank enters a collective (it will wait there for every other rank)."""
    if PULSE is not None:
        PULSE.collectives += 1


def leave() -> None:
    import torch.distributed as dist

    if dist.is_initialized():
        dist.destroy_process_group()


def agree(values: list[float], device: torch.device) -> list[list[float]]:
    """Every rank's ``values``, by rank (one all_gather)."""
    import torch
    import torch.distributed as dist

    mine = torch.tensor(values, dtype=torch.float64, device=device)
    gathered = [torch.empty_like(mine) for _ in range(dist.get_world_size())]
    entering_collective()
    dist.all_gather(gathered, mine)
    return [t.tolist() for t in gathered]


def wrap(model: torch.nn.Module, device: torch.device) -> torch.nn.Module:
    """The model under DistributedDataParallel (gradients averaged across the ranks), each
    collective counted in the pulse: every gradient all-reduce, and the broadcast of the
    buffers at the start of each forward where there is one."""
    from torch.nn.parallel import DistributedDataParallel

    if device.type == "cuda":
        ddp = DistributedDataParallel(model, device_ids=[device.index])
    else:
        ddp = DistributedDataParallel(model)
    ddp.register_comm_hook(None, _counted_allreduce)
    syncs_buffers = getattr(ddp, "will_sync_module_buffers", lambda: False)
    if syncs_buffers():  # its forward begins with a broadcast of the buffers (BatchNorm's)
        ddp.register_forward_pre_hook(lambda _module, _args: entering_collective())
    return ddp


def _counted_allreduce(_state, bucket):
    """DDP's own averaging all-reduce of one gradient bucket, counted first. No annotations:
    DDP refuses a hook whose are not its own classes (and this module's are strings)."""
    import torch.distributed as dist

    entering_collective()
    buffer = bucket.buffer()
    buffer.div_(dist.get_world_size())
    future = dist.all_reduce(buffer, async_op=True).get_future()
    return future.then(lambda done: done.value()[0])


def software() -> dict[str, Any]:
    """The collective library's version for ``hello`` (RCCL's on ROCm, NCCL's on CUDA)."""
    import torch

    try:
        version = torch.cuda.nccl.version() if torch.cuda.is_available() else None
    except (AttributeError, RuntimeError):
        version = None
    if isinstance(version, tuple):
        version = ".".join(str(v) for v in version)
    return {"nccl_version": str(version) if version else None}


class ErrorsOnly(Emitter):
    """A rank other than 0: its events are not sent, but for an ``error`` (marked with its
    rank), which the launcher's stdout carries to rocmate like rank 0's."""

    def __init__(self, stream: IO[str], rank: int) -> None:
        super().__init__(stream)
        self.rank = rank

    def emit(self, event: str, **fields: Any) -> None:
        if event == "error":
            super().emit(event, rank=self.rank, **fields)
