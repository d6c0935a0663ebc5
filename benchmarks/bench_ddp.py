"""Does the data-parallel path cost anything? The same suite plain and through
``--gpus N`` (PyTorch's launcher, DistributedDataParallel, the ranks' all_gather of step
times), alternated round by round so that drift of the machine hits both alike.

    python benchmarks/bench_ddp.py --python python3 --rounds 3 --gpus 1 --out OUT_DIR
    python benchmarks/bench_ddp.py --device cpu --tiny --rounds 1   # a dry run anywhere

Prints one line per run, then per suite the medians of each arm's headline figure and their
ratio (``--gpus N`` / plain; with N > 1 the ratio is the speed-up, per GPU it is the scaling
efficiency). Reports and run files go to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from bench_common import headline, line, run_rocmate

from core.bench.worker.options import BenchOptions

SUITES = {
    "resnet50-train": {"precision": "amp-bf16", "channels_last": True, "batch_size": 256},
    "llm-train": {"precision": "amp-bf16"},
}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--python", default="python3")
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--tiny", action="store_true")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--gpus", default="1")
    p.add_argument("--seconds", type=float, default=None)
    p.add_argument("--suites", default=",".join(SUITES))
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    size = "tiny" if args.tiny else "default"
    rows = []
    for suite in args.suites.split(","):
        settings = {} if args.tiny else SUITES[suite]
        figures: dict[str, list[float]] = {"plain": [], "gpus": []}
        for round_ in range(args.rounds):
            for arm in ("plain", "gpus"):
                options = BenchOptions(suite=suite, device=args.device, size=size,
                                       seconds=args.seconds,
                                       gpus=args.gpus if arm == "gpus" else None, **settings)
                name = f"{suite}-{arm}-r{round_}"
                _, report = run_rocmate(options, args.python, args.out, name,
                                        startup_timeout_s=1200)
                row = line(name, report)
                rows.append(row)
                print(json.dumps(row), flush=True)
                value, unit = headline(report)
                if value is not None:
                    figures[arm].append(value)
        if figures["plain"] and figures["gpus"]:
            plain, ddp = statistics.median(figures["plain"]), statistics.median(figures["gpus"])
            print(f"{suite}: plain {plain:,.1f} {unit}, --gpus {args.gpus} {ddp:,.1f} {unit}, "
                  f"ratio {ddp / plain:.3f} (medians of {args.rounds} rounds)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
