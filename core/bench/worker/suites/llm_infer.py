"""``llm-infer``: language-model inference at batch 1, the figures hobbyists compare: prompt
processing (tokens/s over a 512-token prompt), time to first token, and decode (tokens/s over
128 generated tokens, greedy argmax, no sampling), with a KV cache (transformers' DynamicCache).

The model is llm-train's Llama-architecture decoder (transformers' ``LlamaForCausalLM`` from a
``LlamaConfig``, random weights) at a preset of real shapes: ``auto`` picks the largest of
``8b`` (Llama-3.1-8B), ``3b`` and ``1b`` whose weights, cache and activations fit the card's
free memory. On a GPU the weights are cast to bf16 (``amp-bf16``, the default) or fp16
(``amp-fp16``): plain half-precision inference, no autocast; fp32 on the CPU.

Two parts, each with its warm-up and measured phase:

* ``prefill``: a step is the prompt's forward pass into an empty cache (only the last position's
  logits, as ``generate`` does) and the argmax of the first token: ``prefill_throughput``
  (prompt tokens/s) and ``ttft`` (the step's seconds: time to first token, tokenizer excluded).
* ``decode``: the cache holds the prompt once; a step crops it back to the prompt and generates
  :data:`DECODE_TOKENS` tokens one forward pass each, every next token the argmax of the last
  one's logits, with no host synchronisation inside the step: ``decode_throughput`` (the
  headline) and ``decode_token_time`` (seconds per generated token; a name ending in "token"
  would read as a secret to the report's privacy scrubber, core.report.privacy).

The attention kernel PyTorch's scaled_dot_product_attention ran (flash, memory-efficient, cudnn,
math) is read from the profiler's operator names for one prefill and one decode pass and
reported in ``details.sdpa`` with the backend switches; on ROCm, whether
``TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL`` was set (AOTriton's flash and memory-efficient
kernels on cards it lists as experimental).

These are PyTorch eager figures of one harness; llama.cpp (GGUF, quantised weights, its own
kernels) is another harness and its tokens/s are not comparable with these.
"""

from __future__ import annotations

import inspect
import os
from typing import Any

import torch
from transformers import DynamicCache, LlamaForCausalLM

from core.bench.worker.harness import Harness, Options, PerStep, Workload
from core.bench.worker.suites import llm

PROMPT_TOKENS = 512
DECODE_TOKENS = 128
TINY_PROMPT_TOKENS = 32
TINY_DECODE_TOKENS = 8
ORDER = ("8b", "3b", "1b")
FIT_FRACTION = 0.85  # of free memory the estimate may use
DTYPES = {"fp32": torch.float32, "amp-fp16": torch.float16, "amp-bf16": torch.bfloat16}
AOTRITON_EXPERIMENTAL = "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL"
NOT_COMPARABLE = ("PyTorch eager (transformers) at batch 1; llama.cpp and other GGUF runners "
                  "are another harness with quantised weights and their own kernels: their "
                  "tokens/s are not comparable with these")

# aten operator -> the SDPA backend it is
_SDPA_OPS = {
    "aten::_scaled_dot_product_flash_attention": "flash",
    "aten::_scaled_dot_product_flash_attention_for_cpu": "flash (cpu)",
    "aten::_scaled_dot_product_efficient_attention": "memory-efficient",
    "aten::_scaled_dot_product_cudnn_attention": "cudnn",
    "aten::_scaled_dot_product_attention_math": "math",
    "aten::_scaled_dot_product_fused_attention_overrideable": "fused (backend's own)",
}


def estimate_bytes(preset: str, batch: int, tokens: int, dtype_bytes: int = 2) -> int:
    """Inference memory: the weights, the KV cache of ``tokens`` positions, a prefill layer's
    activations (with a math-attention score matrix, the worst case) and the last logits."""
    hidden, inter, layers, heads, kv, vocab = llm.PRESETS[preset]
    head_dim = hidden // heads
    weights = llm.param_count(preset) * dtype_bytes
    cache = 2 * layers * kv * head_dim * tokens * batch * dtype_bytes
    act = batch * tokens * (4 * hidden + 3 * inter) * dtype_bytes
    scores = batch * heads * tokens * tokens * 4
    return int((weights + cache + act + scores + batch * vocab * 4) * 1.1)


def choose(preset: str | None, free: int | None, batch: int, tokens: int, tiny: bool,
           dtype_bytes: int) -> tuple[str, str]:
    """(preset, why)."""
    if tiny:
        return "tiny", "--size tiny"
    if preset and preset != "auto":
        if preset not in llm.PRESETS or preset == "tiny":
            raise ValueError(f"unknown --preset {preset!r} (known: auto, {', '.join(ORDER)})")
        return preset, "--preset"
    if free is None:
        return "1b", "no GPU memory figure (cpu): smallest preset"
    for name in ORDER:
        if estimate_bytes(name, batch, tokens, dtype_bytes) <= free * FIT_FRACTION:
            return name, f"largest preset that fits {FIT_FRACTION:.0%} of free memory"
    return "1b", "smallest preset (the estimate says it may not fit)"


def build(preset: str, dtype: torch.dtype, dev: torch.device, positions: int,
          seed: int) -> LlamaForCausalLM:
    """The model with random weights, made in ``dtype`` on ``dev`` (an 8B model in fp32 first
    would not fit a 24 GB card)."""
    cfg = llm.config(preset, positions)
    cfg.use_cache = True
    torch.manual_seed(seed)
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(dev):
            model = LlamaForCausalLM(cfg)
    finally:
        torch.set_default_dtype(old)
    return model.eval()


@torch.inference_mode()
def prefill(model: Any, prompt: torch.Tensor, cache: DynamicCache, kw: str) -> torch.Tensor:
    """The prompt's forward pass into ``cache`` (the last position's logits only, as
    ``generate`` computes them) and the first token, the argmax, as a (batch, 1) tensor."""
    logits = model(input_ids=prompt, use_cache=True, logits_to_keep=1, **{kw: cache}).logits
    return logits[:, -1:].argmax(-1)


@torch.inference_mode()
def decode(model: Any, cache: DynamicCache, token: torch.Tensor, count: int,
           kw: str) -> torch.Tensor:
    """``count`` greedy decode steps after ``token``: each feeds the last token and takes the
    argmax of its logits, on the device (no host synchronisation). Returns the last token."""
    for _ in range(count):
        logits = model(input_ids=token, use_cache=True, **{kw: cache}).logits
        token = logits[:, -1:].argmax(-1)
    return token


def rewind(cache: DynamicCache, length: int) -> None:
    """Crop ``cache`` back to its first ``length`` positions (the prompt's)."""
    grown = cache.get_seq_length() - length  # a Python int: no synchronisation
    if grown > 0:
        cache.crop(-grown)  # negative: remove that many (transformers 4.4x to 5.x alike)


def sdpa_used(fn: Any) -> list[str]:
    """The SDPA backends the aten operators run by ``fn`` name (CPU-side profiler, one call)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    names = {e.key for e in prof.key_averages()}
    return sorted({backend for op, backend in _SDPA_OPS.items() if op in names})


def sdpa_switches() -> dict[str, Any]:
    """PyTorch's SDPA switches and which fused kernels this build has."""
    cuda = torch.backends.cuda
    out: dict[str, Any] = {}
    for key, name in (("flash_enabled", "flash_sdp_enabled"),
                      ("mem_efficient_enabled", "mem_efficient_sdp_enabled"),
                      ("math_enabled", "math_sdp_enabled"),
                      ("cudnn_enabled", "cudnn_sdp_enabled"),
                      ("flash_available", "is_flash_attention_available")):
        fn = getattr(cuda, name, None)
        try:
            out[key] = bool(fn()) if fn else None
        except Exception:  # a build without the switch: unknown, not an error
            out[key] = None
    return out


def run(h: Harness, opts: Options) -> dict[str, Any]:
    dev = h.device.torch_device
    dtype = DTYPES[opts.precision or "fp32"]
    prompt_len = opts.seq_len or (TINY_PROMPT_TOKENS if opts.tiny else PROMPT_TOKENS)
    new_tokens = TINY_DECODE_TOKENS if opts.tiny else DECODE_TOKENS
    bs = opts.batch_size
    positions = prompt_len + new_tokens
    dtype_bytes = torch.finfo(dtype).bits // 8
    preset, why = choose(opts.preset, h.device.free_memory(), bs, positions, opts.tiny,
                         dtype_bytes)
    h.setup(f"building the model (preset {preset}, random weights, "
            f"{str(dtype).replace('torch.', '')})", part="prefill")
    model = build(preset, dtype, dev, positions, opts.seed)
    cfg = model.config
    params = sum(p.numel() for p in model.parameters())
    prompt = torch.randint(0, cfg.vocab_size, (bs, prompt_len), device=dev)
    kw = cache_keyword(model)

    def prefill_step() -> None:
        prefill(model, prompt, DynamicCache(config=cfg), kw)

    # Before any step (every setup comes before the first step): the decode part's cache is
    # filled here, by the same prefill, while the profiler reads the attention kernels.
    h.setup("filling the cache with the prompt; checking which attention kernel PyTorch runs",
            part="prefill")
    used_prefill = sdpa_used(lambda: prefill(model, prompt, DynamicCache(config=cfg), kw))
    cache = DynamicCache(config=cfg)
    first = prefill(model, prompt, cache, kw)
    used_decode = sdpa_used(lambda: decode(model, cache, first, 1, kw))
    h.device.reset_peak_memory()

    tokens = bs * prompt_len
    part_prefill = h.run(Workload(
        step=prefill_step, items=tokens, unit="tokens/s", part="prefill",
        max_warmup_steps=10 if opts.tiny else 50, min_steps=10,
        default_seconds=1.0 if opts.tiny else 3.0,
        figures={"prefill_throughput": PerStep("tokens/s", tokens),
                 "ttft": PerStep("s", kind="time", higher_is_better=False)}))

    def decode_step() -> None:
        rewind(cache, prompt_len)
        decode(model, cache, first, new_tokens, kw)

    generated = bs * new_tokens
    part_decode = h.run(Workload(
        step=decode_step, items=generated, unit="tokens/s", part="decode",
        max_warmup_steps=10 if opts.tiny else 20, min_steps=3 if opts.tiny else 5,
        default_seconds=1.0 if opts.tiny else 10.0,
        figures={"decode_throughput": PerStep("tokens/s", generated),
                 "decode_token_time": PerStep("s", new_tokens, kind="time",
                                           higher_is_better=False)}))

    figures = {**part_prefill.figures(), **part_decode.figures()}
    sdpa: dict[str, Any] = {"prefill": used_prefill, "decode": used_decode}
    if h.device.is_gpu:
        sdpa.update(sdpa_switches())
    details: dict[str, Any] = {
        "model": f"Llama architecture, preset {preset}, random weights",
        "preset_reason": why,
        "params": params,
        "hidden_size": cfg.hidden_size,
        "layers": cfg.num_hidden_layers,
        "kv_heads": cfg.num_key_value_heads,
        "vocab_size": cfg.vocab_size,
        "dtype": str(dtype).replace("torch.", ""),
        "precision_note": "the weights are cast to this dtype (no autocast)",
        "prompt_tokens": prompt_len,
        "decode_tokens": new_tokens,
        "decoding": "greedy (argmax), no sampling; no host synchronisation inside a step",
        "cache": "transformers DynamicCache, cropped back to the prompt before each decode step",
        "ttft": "a prefill step's seconds: prompt forward pass + first token's argmax",
        "attention": "sdpa",
        "sdpa": sdpa,
        "estimated_bytes": (estimate_bytes(preset, bs, positions, dtype_bytes)
                            if preset != "tiny" else None),
        "transformers": _transformers_version(),
        "comparison": NOT_COMPARABLE,
        "parts": {"prefill": {"warmup": part_prefill.warmup, "measure": part_prefill.measure},
                  "decode": {"warmup": part_decode.warmup, "measure": part_decode.measure}},
    }
    if torch.version.hip:
        details["aotriton_experimental"] = os.environ.get(AOTRITON_EXPERIMENTAL)
    return {
        "headline": "decode_throughput",
        "figures": figures,
        "warmup": part_decode.warmup,
        "measure": part_decode.measure,
        "settings": {**opts.settings(), "preset": preset, "seq_len": prompt_len},
        "details": details,
    }


def cache_keyword(model: Any) -> str:
    """The forward argument that takes the cache: ``cache`` in newer transformers (5.2x),
    ``past_key_values`` before (still taken, with a warning, until 5.40)."""
    params = inspect.signature(model.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


def _transformers_version() -> str | None:
    import transformers

    return getattr(transformers, "__version__", None)
