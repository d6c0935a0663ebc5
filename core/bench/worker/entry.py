"""The benchmark worker: ``python -m core.bench.worker --suite NAME [options]``.

Runs one suite in the *target* Python (the environment holding ROCm PyTorch) and speaks the
protocol of :mod:`core.bench.worker.protocol` on stdout, one JSON object per line. Everything else a
library prints (Python or C, e.g. MIOpen logs) is sent to stderr, so stdout stays clean.

Imports only the standard library, torch, torchvision, diffusers, transformers and core.bench.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import signal
import sys
import time
from typing import IO, Any, NoReturn

from core.bench.worker import errors
from core.bench.worker.options import BenchOptions, add_arguments
from core.bench.worker.protocol import PROTOCOL_VERSION, Emitter


class UsageError(Exception):
    """Bad command line (reported as an ``error`` event, not argparse's exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    """The worker's command line: every option of :class:`BenchOptions`."""
    p = _Parser(prog="python -m core.bench.worker", description=__doc__.splitlines()[0])
    add_arguments(p)
    return p


def _claim_stdout() -> IO[str]:
    """Keep the real stdout for the protocol; point fd 1 and sys.stdout at stderr."""
    sys.stdout.flush()
    proto_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(proto_fd, "w", encoding="utf-8", buffering=1)


def _on_sigterm(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def _given(args: argparse.Namespace) -> BenchOptions:
    given = BenchOptions.from_values(vars(args))
    problems = given.problems()
    if problems:
        raise UsageError("; ".join(problems))
    return given


def run(argv: list[str] | None, emitter: Emitter) -> int:
    ctx = errors.Context(python=sys.executable,
                         externally_managed=errors.externally_managed())
    try:
        args = build_parser().parse_args(argv)
        given = _given(args)
        ctx.suite = args.suite
        ctx.batch_size = args.batch_size

        ranks = _ranks(args)
        emitter.setup("importing PyTorch")
        import torch  # noqa: F401  (a missing torch is reported as missing-package)

        from core.bench.worker import device as devmod
        from core.bench.worker import parallel, suites
        from core.bench.worker.harness import Harness, Options

        if args.device != "cpu":
            emitter.setup("starting the GPU runtime")
        try:
            dev = devmod.resolve(parallel.device_spec(args.device, ranks) if ranks
                                 else args.device)
        except devmod.NoGpuError as exc:
            info = errors.ErrorInfo("no-gpu", str(exc), errors.advice_for("no-gpu", ctx))
            emitter.emit("error", **info.event_fields())
            return 1
        ctx.backend = dev.backend
        dinfo = dev.info()
        ctx.arch = dinfo.get("arch")
        tiny = args.size == "tiny"
        opts = Options.resolve(
            given,
            precision=suites.precision(args.suite, args.precision, gpu=dev.is_gpu),
            batch_size=args.batch_size
            or suites.default(args.suite, "batch_size", gpu=dev.is_gpu, tiny=tiny),
            device=str(dev.torch_device),
        )
        ctx.batch_size = opts.batch_size
        settings = opts.settings()
        import core

        group: dict[str, Any] = {}
        if ranks:
            emitter.setup("joining the other ranks (torch.distributed)")
            group = {"world_size": ranks.world,
                     "backend_collective": parallel.join(ranks, dev.is_gpu),
                     **parallel.software()}
        emitter.emit(
            "hello",
            protocol=PROTOCOL_VERSION,
            pid=os.getpid(),
            worker_root=os.path.dirname(os.path.dirname(os.path.abspath(core.__file__))),
            suite=args.suite,
            settings=settings,
            **devmod.software(),
            **dinfo,
            **group,
        )
        emitter.setup(suites.loading_words(args.suite))
        module = suites.load(args.suite)
        harness = Harness(emitter, dev, opts, ranks=ranks)
        result: dict[str, Any] = module.run(harness, opts)
        result.update(dev.peak_memory())
        emitter.emit("result", suite=args.suite, settings=result.pop("settings", settings),
                     **result)
        emitter.emit("phase", phase="done", t=time.perf_counter() - harness.started)
        return 0
    except UsageError as exc:
        emitter.emit("error", kind="other", message=str(exc),
                     advice="Check the options (python -m core.bench.worker --help).", detail="")
        return 2
    except BaseException as exc:  # every failure becomes one error event
        if isinstance(exc, SystemExit) and exc.code in (0, None):
            return 0
        info = errors.from_exception(exc, ctx)
        if not emitter.error_sent:
            emitter.emit("error", **info.event_fields())
        return 130 if info.kind == "interrupted" else 1


def _ranks(args: argparse.Namespace) -> Any:
    """This rank of a data-parallel run (core.bench.worker.parallel), or None for a plain run;
    ``--gpus`` needs the launcher."""
    from core.bench.worker import parallel

    ranks = parallel.from_env()
    if args.gpus is not None and ranks is None:
        raise UsageError("--gpus: start the worker through torch.distributed.run "
                         "(rocmate bench --gpus does)")
    return ranks if args.gpus is not None else None


def main(argv: list[str] | None = None) -> int:
    stream = _claim_stdout()
    faulthandler.enable(sys.stderr)
    signal.signal(signal.SIGTERM, _on_sigterm)
    from core.bench.worker import parallel

    words = sys.argv[1:] if argv is None else argv
    ranks = parallel.from_env() if "--gpus" in words else None
    if ranks is not None:  # a rank of a data-parallel run: it ends with its launcher
        parallel.die_with_parent()
        parallel.start_pulse(ranks)
    emitter: Emitter = (parallel.ErrorsOnly(stream, ranks.rank)
                        if ranks is not None and not ranks.leader else Emitter(stream))
    try:
        return run(argv, emitter)
    finally:
        if ranks is not None:
            parallel.leave()
        stream.flush()


if __name__ == "__main__":
    sys.exit(main())
