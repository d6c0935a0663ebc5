"""Harness overhead, LLM inference: rocmate's ``llm-infer`` against a hand-written PyTorch loop
with the same model and cache, alternating in one run.

The plain side builds the same Llama-architecture decoder (transformers' LlamaForCausalLM from
the preset's LlamaConfig, random weights, made in bf16 on the card), fills a DynamicCache with a
512-token prompt, and times (perf_counter between device synchronisations, as any hand-written
benchmark does) the prompt's forward pass with the first token's argmax (prefill) and 128
greedy decode steps (decode), the cache cropped back to the prompt before each round. The
rocmate side is ``rocmate bench llm-infer`` through its runner (a worker subprocess, telemetry
on). The ratios rocmate / plain of the medians are printed; the goal is within 3 %.

    python benchmarks/bench_llm_infer_overhead.py --python python3 --rounds 2 --out OUT_DIR
    python benchmarks/bench_llm_infer_overhead.py --device cpu --tiny --rounds 1
    python benchmarks/bench_llm_infer_overhead.py --in-process-blocks 20 --rounds 0 --out OUT

``--in-process-blocks N`` adds the comparison that host noise cannot blur (as
bench_sd15_overhead.py does for SD): one process, one model (rocmate's own build), and N blocks
in which the hand-written prefill and decode alternate with rocmate's timed steps through its
harness (the worker's own step functions, timed and streamed as in a run), the order swapped
every block (ABBA: plain, rocmate, rocmate, plain, then the mirror). Each block gives one ratio
per part from adjacent steps, so a host that drifts between fast and slow stretches over seconds
cancels out of it; the median of the ratios and its sign-test interval are printed. Python's
garbage is collected before every timed step, outside its timing, on both sides alike. Then the
harness's own cost per step is timed directly: an empty step through ``Harness.measure`` against
the same empty step timed by hand, as a share of the hand-written decode step.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import io
import json
import statistics
import time
from pathlib import Path
from typing import Any

import torch
from bench_common import median_ci, run_rocmate
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

from core.bench.worker.device import resolve
from core.bench.worker.harness import Harness, Options, Workload
from core.bench.worker.options import BenchOptions
from core.bench.worker.protocol import Emitter
from core.bench.worker.suites import llm, llm_infer


def plain_model(preset: str, dtype: torch.dtype, device: str) -> LlamaForCausalLM:
    hidden, inter, layers, heads, kv, vocab = llm.PRESETS[preset]
    cfg = LlamaConfig(hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
                      num_attention_heads=heads, num_key_value_heads=kv, vocab_size=vocab,
                      max_position_embeddings=2048, tie_word_embeddings=False,
                      attn_implementation="sdpa")
    torch.manual_seed(0)
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    with torch.device(device):
        model = LlamaForCausalLM(cfg)
    torch.set_default_dtype(old)
    return model.eval()


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def timed(fn: Any, device: str, warmup: int, seconds: float, min_rounds: int) -> list[float]:
    """Seconds of each measured call of ``fn`` after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    sync(device)
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < min_rounds or time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        fn()
        sync(device)
        times.append(time.perf_counter() - t0)
    return times


@torch.inference_mode()
def plain(model: LlamaForCausalLM, device: str, prompt_len: int, new: int,
          seconds: float) -> dict[str, float]:
    """Prefill tokens/s, TTFT and decode tokens/s, the medians of a hand-written loop."""
    cfg = model.config
    prompt = torch.randint(0, cfg.vocab_size, (1, prompt_len), device=device)
    # the cache's argument: `cache` in transformers 5.2x, `past_key_values` before
    kw = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"

    def prefill(cache: DynamicCache) -> torch.Tensor:
        out = model(input_ids=prompt, use_cache=True, logits_to_keep=1, **{kw: cache})
        return out.logits[:, -1:].argmax(-1)

    pre = timed(lambda: prefill(DynamicCache(config=cfg)), device, 10, seconds / 3, 10)
    cache = DynamicCache(config=cfg)
    first = prefill(cache)

    def decode_round() -> None:
        extra = cache.get_seq_length() - prompt_len
        if extra > 0:
            cache.crop(-extra)
        token = first
        for _ in range(new):
            out = model(input_ids=token, use_cache=True, **{kw: cache})
            token = out.logits[:, -1:].argmax(-1)

    dec = timed(decode_round, device, 5, seconds, 5)
    ttft = statistics.median(pre)
    return {"prefill_throughput": prompt_len / ttft, "ttft": ttft,
            "decode_throughput": new / statistics.median(dec),
            "prefill_rounds": len(pre), "decode_rounds": len(dec)}


def in_process(args: argparse.Namespace, blocks: int, prompt_len: int,
               new: int) -> dict[str, Any]:
    """Adjacent pairs in one process: the hand-written prefill and decode against rocmate's
    timed steps through its harness, on one model and its cache (see the module's doc)."""
    dev = resolve(args.device)
    dtype = torch.bfloat16 if dev.is_gpu else torch.float32
    preset = "tiny" if args.tiny else args.preset
    model = llm_infer.build(preset, dtype, dev.torch_device, prompt_len + new, 0)
    cfg = model.config
    kw = llm_infer.cache_keyword(model)
    prompt = torch.randint(0, cfg.vocab_size, (1, prompt_len), device=dev.torch_device)
    cache = DynamicCache(config=cfg)
    first = llm_infer.prefill(model, prompt, cache, kw)
    harness = Harness(Emitter(io.StringIO()), dev,
                      Options(suite="llm-infer", device=args.device, steps=1))

    @torch.inference_mode()
    def plain_prefill() -> float:
        dev.sync()
        t0 = time.perf_counter()
        out = model(input_ids=prompt, use_cache=True, logits_to_keep=1,
                    **{kw: DynamicCache(config=cfg)})
        out.logits[:, -1:].argmax(-1)
        dev.sync()
        return time.perf_counter() - t0

    @torch.inference_mode()
    def plain_decode() -> float:
        dev.sync()
        t0 = time.perf_counter()
        extra = cache.get_seq_length() - prompt_len
        if extra > 0:
            cache.crop(-extra)
        token = first
        for _ in range(new):
            token = model(input_ids=token, use_cache=True, **{kw: cache}).logits[:, -1:].argmax(-1)
        dev.sync()
        return time.perf_counter() - t0

    def our_decode() -> None:
        llm_infer.rewind(cache, prompt_len)
        llm_infer.decode(model, cache, first, new, kw)

    def our_prefill() -> None:  # as the suite's prefill_step
        llm_infer.prefill(model, prompt, DynamicCache(config=cfg), kw)

    ours = {"prefill": Workload(step=our_prefill, items=prompt_len, unit="tokens/s",
                                part="prefill"),
            "decode": Workload(step=our_decode, items=new, unit="tokens/s", part="decode")}
    plain_fn = {"prefill": plain_prefill, "decode": plain_decode}
    for part, warm in (("prefill", 10), ("decode", 3)):
        for _ in range(warm):
            plain_fn[part]()
            harness.measure(ours[part])
    out: dict[str, Any] = {"preset": preset, "blocks": blocks, "order": "ABBA"}
    times: dict[str, dict[str, list[float]]] = {p: {"plain": [], "rocmate": []} for p in ours}
    ratios: dict[str, list[float]] = {p: [] for p in ours}

    def one(part: str, side: str) -> float:
        gc.collect()
        return plain_fn[part]() if side == "plain" else harness.measure(ours[part])[0][0]

    for b in range(blocks):
        order = ("plain", "rocmate") if b % 2 == 0 else ("rocmate", "plain")
        for part in ("prefill", "decode"):
            got: dict[str, float] = {"plain": 0.0, "rocmate": 0.0}
            for side in (*order, *reversed(order)):
                dt = one(part, side)
                got[side] += dt
                times[part][side].append(dt)
            ratios[part].append(got["rocmate"] / got["plain"])  # seconds: > 1 is slower
        print(f"block {b}: " + ", ".join(
            f"{p} plain {times[p]['plain'][-2]:.4g}+{times[p]['plain'][-1]:.4g} s, rocmate "
            f"{times[p]['rocmate'][-2]:.4g}+{times[p]['rocmate'][-1]:.4g} s"
            for p in ours), flush=True)
        out["times"], out["ratios"] = times, ratios
        if args.out:  # as it goes: a call cut short keeps its blocks
            (args.out / "llm-infer-in-process.json").write_text(json.dumps(out) + "\n")
    for part in ours:
        p = statistics.median(times[part]["plain"])
        o = statistics.median(times[part]["rocmate"])
        lo, hi, coverage = median_ci(ratios[part])
        paired = statistics.median(ratios[part])
        print(f"RESULT llm-infer {part} in one process ({blocks} ABBA blocks, preset "
              f"{preset}): plain {p:.4g} s, rocmate's step {o:.4g} s ({o / p - 1:+.2%}); median "
              f"of the pair ratios {paired - 1:+.2%} ({coverage:.1%} CI {lo - 1:+.2%} .. "
              f"{hi - 1:+.2%}) in seconds per step (+ is rocmate slower)", flush=True)
        out[part] = {"plain_s": p, "rocmate_s": o, "median_pair_ratio": paired,
                     "pair_ratio_ci": [lo, hi, coverage], "plain": times[part]["plain"],
                     "rocmate": times[part]["rocmate"]}
    out["harness_cost"] = harness_cost(harness, dev, statistics.median(times["decode"]["plain"]))
    return out


def harness_cost(harness: Harness, dev: Any, decode_s: float, n: int = 2000) -> dict[str, Any]:
    """The harness's own seconds per step: an empty step (a device synchronisation only)
    through ``Harness.measure`` one step at a time, as a run's steps are, against the same
    step timed by hand, alternating in batches; and that cost as a share of ``decode_s``."""
    empty = Workload(step=lambda: None, items=1, unit="steps/s", part="decode")

    def by_hand() -> float:
        t0 = time.perf_counter()
        dev.sync()
        return time.perf_counter() - t0

    plain_s: list[float] = []
    ours_s: list[float] = []
    for _ in range(10):
        t0 = time.perf_counter()
        for _ in range(n // 10):
            by_hand()
        plain_s.append((time.perf_counter() - t0) / (n // 10))
        t0 = time.perf_counter()
        for _ in range(n // 10):
            harness.measure(empty)
        ours_s.append((time.perf_counter() - t0) / (n // 10))
    cost = statistics.median(ours_s) - statistics.median(plain_s)
    print(f"RESULT harness cost per step: {cost * 1e6:.1f} us (an empty step: by hand "
          f"{statistics.median(plain_s) * 1e6:.1f} us, through the harness "
          f"{statistics.median(ours_s) * 1e6:.1f} us), {cost / decode_s:.5%} of the "
          f"hand-written decode step ({decode_s:.4g} s)", flush=True)
    return {"per_step_s": cost, "by_hand_s": statistics.median(plain_s),
            "harness_s": statistics.median(ours_s), "share_of_decode_step": cost / decode_s}


def rocmate_figures(args: argparse.Namespace, name: str) -> dict[str, Any]:
    opts = BenchOptions(suite="llm-infer", device=args.device,
                        size="tiny" if args.tiny else "default", preset=args.preset)
    _outcome, report = run_rocmate(opts, args.python, args.out, name)
    run = report.runs[0]
    if run.result is None:
        return {"status": run.status}
    row: dict[str, Any] = {k: f.median for k, f in run.result.figures.items()}
    row["cv_decode"] = run.result.figures["decode_throughput"].cv
    row["peak_gib"] = (run.result.peak_memory_bytes or 0) / 2**30
    row["preset"] = run.settings.get("preset")
    row["sdpa"] = (run.result.details or {}).get("sdpa")
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default="python3")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--preset", default="8b", help="the preset both sides run (default 8b)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--in-process-blocks", type=int, default=0,
                    help="first, N alternating blocks in one process (0: none)")
    args = ap.parse_args()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    gpu = args.device.startswith("cuda")
    preset = "tiny" if args.tiny else args.preset
    if args.tiny:
        args.preset = None
    prompt_len, new = (32, 8) if args.tiny else (512, 128)
    if args.in_process_blocks:
        paired = in_process(args, args.in_process_blocks, prompt_len, new)
        if args.out:
            (args.out / "llm-infer-in-process.json").write_text(json.dumps(paired) + "\n")
        gc.collect()
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
    if args.rounds < 1:
        return 0
    model = plain_model(preset, torch.bfloat16 if gpu else torch.float32, args.device)
    rows: list[dict[str, Any]] = []
    for r in range(args.rounds):
        p = plain(model, args.device, prompt_len, new, args.seconds)
        print(f"round {r} plain:   {json.dumps(p)}", flush=True)
        q = rocmate_figures(args, f"llm-infer-round{r}")
        print(f"round {r} rocmate: {json.dumps(q, default=str)}", flush=True)
        rows.append({"round": r, "plain": p, "rocmate": q})
        gc.collect()
    for key in ("prefill_throughput", "decode_throughput", "ttft"):
        ratios = [row["rocmate"][key] / row["plain"][key] for row in rows
                  if key in row["rocmate"]]
        plain_med = statistics.median(row["plain"][key] for row in rows)
        roc = [row["rocmate"][key] for row in rows if key in row["rocmate"]]
        print(f"{key}: plain {plain_med:.4g}, rocmate {statistics.median(roc) if roc else None}"
              f", ratio rocmate/plain per round {[round(x, 4) for x in ratios]}", flush=True)
    if args.out:
        (args.out / "llm-infer-overhead.json").write_text(json.dumps(rows, indent=1,
                                                                     default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
