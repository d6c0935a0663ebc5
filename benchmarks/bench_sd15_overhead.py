"""Harness overhead, SD 1.5: rocmate's sd15-infer seconds/image against a plain diffusers
``StableDiffusionPipeline`` call with the same settings (SD 1.5 architecture, random fp16
weights, 512x512, 20 Euler steps, CFG 7.5, batch 1, ``output_type="np"``), alternating in one run.

The suite times that same pipeline call (its split comes from a text-encoder forward hook,
``callback_on_step_end`` and device events), so the ratio is the harness's own overhead plus the
run-to-run spread; the rocmate rounds' text encoder / UNet loop / VAE split is printed as well.

    python benchmarks/bench_sd15_overhead.py --python python3 --out OUT_DIR
    python benchmarks/bench_sd15_overhead.py --python python3 --in-process-blocks 8 --rounds 3 \
        --arms plain,plain-like-worker,rocmate,rocmate-no-telemetry --out OUT_DIR
    python benchmarks/bench_sd15_overhead.py --device cpu --tiny --python python3 --rounds 3
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import torch
from bench_common import dump, median_ci, run_rocmate
from diffusers import (
    AutoencoderKL,
    EulerDiscreteScheduler,
    StableDiffusionPipeline,
    UNet2DConditionModel,
)
from transformers import CLIPTextConfig, CLIPTextModel

from core.bench.worker.device import resolve
from core.bench.worker.harness import Harness, Options, Workload
from core.bench.worker.options import BenchOptions
from core.bench.worker.protocol import Emitter
from core.bench.worker.suites import sd15 as cfg
from core.system import clean_env

SPLIT = ("text_encoder_s", "unet_loop_s", "vae_decode_s")


def plain_pipeline(device: str, tiny: bool, images: int, warmup: int, steps: int
                   ) -> list[float]:
    """Seconds per image of ``images`` plain pipeline calls after ``warmup`` more."""
    dtype = torch.float16 if device.startswith("cuda") else torch.float32
    with torch.device(device):  # the networks are created on the device, as in rocmate
        unet = UNet2DConditionModel(**(cfg.UNET_TINY if tiny else cfg.UNET_SD15))
        vae = AutoencoderKL(**(cfg.VAE_TINY if tiny else cfg.VAE_SD15))
        text_encoder = CLIPTextModel(CLIPTextConfig(**(cfg.CLIP_TINY if tiny else
                                                       cfg.CLIP_SD15)))
    with tempfile.TemporaryDirectory() as tmp:  # the scheduler keeps its tables on the CPU
        pipe = StableDiffusionPipeline(
            unet=unet, vae=vae, text_encoder=text_encoder, tokenizer=cfg.make_tokenizer(tmp),
            scheduler=EulerDiscreteScheduler(**cfg.SCHEDULER_SD15),
            safety_checker=None, feature_extractor=None, requires_safety_checker=False)
    pipe = pipe.to(device, dtype)
    for m in (unet, vae, text_encoder):
        m.eval()  # as from_pretrained leaves them (and as rocmate does)
    pipe.set_progress_bar_config(disable=True)
    size = 32 if tiny else 512
    torch.backends.cudnn.benchmark = True

    def sync() -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    def one() -> float:
        sync()
        t0 = time.perf_counter()
        pipe(cfg.PROMPT, height=size, width=size, num_inference_steps=steps,
             guidance_scale=cfg.GUIDANCE, output_type="np")
        sync()
        return time.perf_counter() - t0

    for _ in range(warmup):
        one()
    return [one() for _ in range(images)]


def plain_round(args: argparse.Namespace, like_worker: bool = False) -> list[float]:
    """One plain round in a fresh process (this script with ``--plain-once``): both sides then
    start from a new interpreter and a new device context, and free their memory on exit.
    ``like_worker`` starts it the way rocmate's runner starts its worker: ``-E -B -u``, its own
    session, a temporary working folder and ``clean_env()``."""
    flags = ["-E", "-B", "-u"] if like_worker else []
    argv = [sys.executable, *flags, os.path.abspath(__file__), "--plain-once",
            "--device", args.device, "--images", str(args.images), "--warmup", str(args.warmup),
            "--inference-steps", str(args.inference_steps)] + (["--tiny"] if args.tiny else [])
    with tempfile.TemporaryDirectory() as cwd:
        done = subprocess.run(argv, stdout=subprocess.PIPE, text=True, check=True,
                              cwd=cwd if like_worker else None,
                              env=clean_env() if like_worker else None,
                              start_new_session=like_worker)
    return [float(t) for t in json.loads(done.stdout.strip().splitlines()[-1])]


def rocmate_round(args: argparse.Namespace, name: str, telemetry: bool
                  ) -> tuple[list[float], dict[str, float]] | None:
    """One rocmate run: its measured seconds per image, and the median text / UNet / VAE split."""
    opts = BenchOptions(suite="sd15-infer", device=args.device,
                         size="tiny" if args.tiny else "default", steps=args.images,
                         inference_steps=args.inference_steps)
    _, report = run_rocmate(opts, args.python, args.out, name, telemetry=telemetry)
    run = report.runs[0]
    if run.result is None:
        return None
    times = [s.seconds for s in run.steps if s.phase == "measure"]
    return times, {k: run.result.figures[k].median for k in SPLIT}


ARMS = ("plain", "plain-like-worker", "rocmate", "rocmate-no-telemetry")


class HostSampler(threading.Thread):
    """Every 0.5 s: the host's CPU steal and iowait shares (/proc/stat), the cgroup's CPU
    throttling (cpu.stat) and the load average, as JSON lines with wall-clock times, so slow
    stretches in the image times can be set against what the host was doing."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.stop = threading.Event()

    @staticmethod
    def _read() -> dict[str, float]:
        row: dict[str, float] = {"t": time.time()}
        cpu = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        row |= dict(zip(("user", "nice", "system", "idle", "iowait", "irq", "softirq",
                         "steal"), map(float, cpu), strict=False))
        try:
            for line in Path("/sys/fs/cgroup/cpu.stat").read_text().splitlines():
                k, v = line.split()
                row["cg_" + k] = float(v)
        except (OSError, ValueError):  # no cgroup v2 here, or a line of another shape
            pass
        row["load1"] = float(Path("/proc/loadavg").read_text().split()[0])
        return row

    def run(self) -> None:
        with self.path.open("w") as f:
            while not self.stop.wait(0.5):
                f.write(json.dumps(self._read()) + "\n")
                f.flush()


def in_process(args: argparse.Namespace, blocks: int, per_block: int) -> dict[str, object]:
    """One process, one pipeline (rocmate's own build): blocks of plain calls alternate with
    blocks of rocmate's timed step through its harness (marks, text-encoder hook, step callback,
    step events). Host noise and process differences fall out; what is left is the harness.
    With one image per block the pairs are adjacent images, so a host that drifts between fast
    and slow stretches over seconds cancels out of the paired ratios."""
    dev = resolve(args.device)
    dtype = torch.float16 if dev.is_gpu else torch.float32
    if dev.is_gpu:
        torch.backends.cudnn.benchmark = True
    with tempfile.TemporaryDirectory() as tmp:
        c = cfg.build_random(args.tiny, dev.torch_device, dtype, tmp)
        pipe = cfg.build_pipeline(c)
    for m in (c.unet, c.vae, c.text_encoder):
        m.eval()
    harness = Harness(Emitter(io.StringIO()), dev,
                      Options(suite="sd15-infer", device=args.device, steps=per_block))
    timer = cfg.PipelineTimer(pipe, dev.is_gpu)
    ours = Workload(step=cfg.image_step(pipe, timer, cfg.PROMPT, c.resolution,
                                        args.inference_steps, dev.sync),
                    items=1, unit="images/s")

    def plain() -> float:
        dev.sync()
        t0 = time.perf_counter()
        pipe(cfg.PROMPT, height=c.resolution, width=c.resolution,
             num_inference_steps=args.inference_steps, guidance_scale=cfg.GUIDANCE,
             output_type="np")
        dev.sync()
        return time.perf_counter() - t0

    for _ in range(args.warmup):
        plain()
    plain_t: list[float] = []
    ours_t: list[float] = []
    ratios: list[float] = []
    ends: list[float] = []
    for b in range(blocks):
        sides = ("plain", "rocmate") if b % 2 == 0 else ("rocmate", "plain")
        got: dict[str, list[float]] = {}
        for side in sides:
            if side == "plain":
                got[side] = [plain() for _ in range(per_block)]
            else:
                got[side] = harness.measure(ours)[0]
        ends.append(time.time())
        plain_t += got["plain"]
        ours_t += got["rocmate"]
        ratios.append(statistics.median(got["rocmate"]) / statistics.median(got["plain"]))
    timer.close()
    p, o = statistics.median(plain_t), statistics.median(ours_t)
    paired = statistics.median(ratios)
    lo, hi, coverage = median_ci(ratios)
    print(f"RESULT sd15 in one process ({blocks} alternating blocks of {per_block} images): "
          f"plain {p:.4f} s/image, rocmate's step {o:.4f} ({o / p - 1:+.2%}); median of the "
          f"per-block ratios {paired - 1:+.2%} ({coverage:.1%} CI {lo - 1:+.2%} .. "
          f"{hi - 1:+.2%})", flush=True)
    return {"plain_s_per_image": p, "rocmate_s_per_image": o, "ratio": o / p,
            "median_block_ratio": paired, "block_ratio_ci": [lo, hi, coverage],
            "block_images": per_block, "block_end_times": ends,
            "plain_images": plain_t, "rocmate_images": ours_t}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="python3")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--images", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=20,
                    help="plain-pipeline warm-up images: more than rocmate's warm-up cap (15), "
                         "so both sides measure the settled state")
    ap.add_argument("--inference-steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--arms", default="plain,rocmate",
                    help=f"comma-separated, from {', '.join(ARMS)}: plain-like-worker starts the "
                         "plain process as the runner starts its worker; rocmate-no-telemetry runs "
                         "rocmate without the parent's sampling")
    ap.add_argument("--in-process-blocks", type=int, default=0,
                    help="first compare in one process: N alternating blocks of images")
    ap.add_argument("--block-images", type=int, default=5,
                    help="images per in-process block (1: adjacent images are the pairs)")
    ap.add_argument("--host-log", type=Path,
                    help="sample the host's CPU steal, cgroup throttling and load here")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--plain-once", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.plain_once:  # one plain round, in a fresh process like rocmate's worker
        print(json.dumps(plain_pipeline(args.device, args.tiny, args.images, args.warmup,
                                        args.inference_steps)))
        return 0
    arms = args.arms.split(",")
    if "plain" not in arms or not set(arms) <= set(ARMS):
        ap.error(f"--arms: 'plain' and any of {', '.join(ARMS[1:])}")
    if args.rounds and not args.tiny and not args.device.startswith("cuda"):
        ap.error("--device cpu needs --tiny")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    if args.host_log:
        HostSampler(args.host_log).start()
    if args.in_process_blocks:
        row_in = in_process(args, args.in_process_blocks, args.block_images)
        dump([row_in], args.out / "overhead-sd15-in-process.json" if args.out else None)
        gc.collect()  # this process's pipeline and its device memory go before the rounds
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
    if args.rounds < 1:
        return 0
    medians: dict[str, list[float]] = {a: [] for a in arms}
    images: dict[str, list[float]] = {a: [] for a in arms}
    row_spans: list[dict[str, list[float]]] = []
    for r in range(args.rounds):
        # Rotate which arm goes first, so a drift over the run (host load, clocks) cancels.
        order = arms[r % len(arms):] + arms[:r % len(arms)]
        split: dict[str, float] = {}
        spans: dict[str, list[float]] = {}
        for arm in order:
            t_arm = time.time()
            if arm.startswith("plain"):
                times = plain_round(args, like_worker=arm == "plain-like-worker")
            else:
                got = rocmate_round(args, f"overhead-sd15-r{r}-{arm}", arm == "rocmate")
                if got is None:
                    return 1
                times, split = got
            medians[arm].append(statistics.median(times))
            images[arm].extend(times)
            spans[arm] = [t_arm, time.time()]
        row_spans.append(spans)
        p = medians["plain"][-1]
        cells = [f"{a} {medians[a][-1]:.4f}"
                 + ("" if a == "plain" else f" ({medians[a][-1] / p - 1:+.1%})") for a in arms]
        parts = " + ".join(f"{k} {v:.4f}" for k, v in split.items())
        print(f"round {r}: {', '.join(cells)} s/image; rocmate's split: {parts}", flush=True)
    # Medians over rounds: at batch 1 the H200 is CPU-bound and single rounds swing by 20 %+.
    p = statistics.median(medians["plain"])
    row: dict[str, object] = {"plain_s_per_image": p, "rounds": medians, "images": images,
                              "round_spans": row_spans,
                              "settings": vars(args) | {"out": str(args.out)}}
    ok = True
    for arm in [a for a in arms if a != "plain"]:
        o = statistics.median(medians[arm])
        paired = statistics.median(a / b for a, b in zip(medians[arm], medians["plain"],
                                                          strict=True))
        pooled = statistics.median(images[arm]) / statistics.median(images["plain"])
        within = abs(o / p - 1) <= 0.03
        ok = ok and (within or arm != "rocmate")
        row[arm] = {"s_per_image": o, "ratio": o / p, "median_round_ratio": paired,
                    "pooled_image_ratio": pooled, "within_3pct": within}
        print(f"RESULT sd15 {arm}: plain {p:.4f} s/image, {arm} {o:.4f} s/image "
              f"({o / p - 1:+.2%}) -> {'OK' if within else 'OVER 3%'}; median of the "
              f"per-round ratios {paired - 1:+.2%}, of all images {pooled - 1:+.2%}", flush=True)
    dump([row], args.out / "overhead-sd15.json" if args.out else None)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
