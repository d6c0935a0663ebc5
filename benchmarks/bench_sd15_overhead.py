"""Harness overhead, SD 1.5: rocmate's sd15-infer seconds/image against a plain diffusers
``StableDiffusionPipeline`` call with the same settings (SD 1.5 architecture, random fp16
weights, 512x512, 20 Euler steps, CFG 7.5, batch 1, ``output_type="np"``), alternating in one run.

The suite times that same pipeline call (its split comes from a text-encoder forward hook,
``callback_on_step_end`` and device events), so the ratio is the harness's own overhead plus the
run-to-run spread; the rocmate rounds' text encoder / UNet loop / VAE split is printed as well.

    python benchmarks/bench_sd15_overhead.py --python python3 --out OUT_DIR
    python benchmarks/bench_sd15_overhead.py --device cpu --tiny --python python3 --rounds 3
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from pathlib import Path

import torch
from bench_common import dump, headline, run_rocmate
from diffusers import (
    AutoencoderKL,
    EulerDiscreteScheduler,
    StableDiffusionPipeline,
    UNet2DConditionModel,
)
from transformers import CLIPTextConfig, CLIPTextModel

from core.bench.runner import WorkerOptions
from core.bench.suites import sd15 as cfg

SPLIT = ("text_encoder_s", "unet_loop_s", "vae_decode_s")


def plain_pipeline(device: str, tiny: bool, images: int, warmup: int, steps: int) -> float:
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
    return statistics.median([one() for _ in range(images)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="python3")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--images", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--inference-steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    plain: list[float] = []
    ours: list[float] = []
    split: dict[str, list[float]] = {}
    for r in range(args.rounds):
        plain.append(plain_pipeline(args.device, args.tiny, args.images, args.warmup,
                                    args.inference_steps))
        gc.collect()  # the pipeline's GPU memory goes back before the worker starts
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
        opts = WorkerOptions(suite="sd15-infer", device=args.device,
                             size="tiny" if args.tiny else "default", steps=args.images,
                             inference_steps=args.inference_steps)
        _, report = run_rocmate(opts, args.python, args.out, f"overhead-sd15-r{r}")
        value, _unit = headline(report)
        result = report.runs[0].result
        if value is None or result is None:
            return 1
        ours.append(value)
        parts = {k: result.figures[k].median for k in SPLIT}
        for k, v in parts.items():
            split.setdefault(k, []).append(v)
        print(f"round {r}: plain pipeline {plain[-1]:.4f} s/image, rocmate {ours[-1]:.4f} "
              f"s/image (text {parts['text_encoder_s']:.4f} + UNet loop "
              f"{parts['unet_loop_s']:.4f} + VAE {parts['vae_decode_s']:.4f} s)", flush=True)
    # Medians over rounds: at batch 1 the H200 is CPU-bound and single rounds swing by 20 %+.
    p, o = statistics.median(plain), statistics.median(ours)
    row = {"plain_s_per_image": p, "rocmate_s_per_image": o, "ratio": o / p,
           "within_3pct": abs(o / p - 1) <= 0.03, "plain_rounds": plain, "rocmate_rounds": ours,
           **{f"rocmate_{k}": statistics.median(v) for k, v in split.items()}}
    print(f"RESULT sd15: plain {p:.4f} s/image, rocmate {o:.4f} s/image ({o / p - 1:+.2%}) -> "
          f"{'OK' if row['within_3pct'] else 'OVER 3%'}", flush=True)
    dump([row], args.out / "overhead-sd15.json" if args.out else None)
    return 0 if row["within_3pct"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
