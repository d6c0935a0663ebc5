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

Worker side: standard library and torch only.
"""

from __future__ import annotations

import ctypes
import datetime as _dt
import os
import signal
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from core.bench.worker.protocol import Emitter

if TYPE_CHECKING:  # torch is imported where it is used: a plain run says "importing PyTorch" first
    import torch

PR_SET_PDEATHSIG = 1
TIMEOUT_S = 600.0
"""How long a collective may wait for a rank before the process group gives up (rocmate's
watchdog usually ends a silent run first)."""


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


def join(ranks: Ranks, gpu: bool) -> str:
    """Join the process group; the backend's name."""
    import torch.distributed as dist

    backend = "nccl" if gpu else "gloo"
    dist.init_process_group(backend, timeout=_dt.timedelta(seconds=TIMEOUT_S))
    return backend


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
    dist.all_gather(gathered, mine)
    return [t.tolist() for t in gathered]


def wrap(model: torch.nn.Module, device: torch.device) -> torch.nn.Module:
    """The model under DistributedDataParallel (gradients averaged across the ranks)."""
    from torch.nn.parallel import DistributedDataParallel

    if device.type == "cuda":
        return DistributedDataParallel(model, device_ids=[device.index])
    return DistributedDataParallel(model)


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
