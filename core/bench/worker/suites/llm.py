"""``llm-train``: a Llama-architecture decoder (transformers' LlamaConfig, random weights) trained
on random tokens of a fixed sequence length: autocast bf16 by default, fused AdamW on a GPU.

The model size is a preset of real shapes (``0.5b`` ... ``7b``); ``auto`` picks the largest that
fits the card's free memory by an estimate of weights, gradients, AdamW state and activations,
and lowers the batch when even the smallest does not fit at the default batch.
"""

from __future__ import annotations

from typing import Any

import torch
from transformers import LlamaConfig, LlamaForCausalLM

from core.bench.worker.flops import count_flops
from core.bench.worker.harness import Harness, Options, PerStep, Workload

# name -> (hidden, intermediate, layers, heads, kv heads, vocab); shapes of known models.
PRESETS: dict[str, tuple[int, int, int, int, int, int]] = {
    "tiny": (64, 172, 2, 4, 4, 512),
    "0.5b": (1024, 4096, 24, 16, 16, 32000),
    "1b": (2048, 5632, 22, 32, 4, 32000),  # TinyLlama-1.1B
    "3b": (3200, 8640, 26, 32, 32, 32000),  # OpenLLaMA-3B
    "7b": (4096, 11008, 32, 32, 32, 32000),  # Llama-2-7B
    "8b": (4096, 14336, 32, 32, 8, 128256),  # Llama-3.1-8B (llm-infer's largest)
}
ORDER = ("7b", "3b", "1b", "0.5b")
FIT_FRACTION = 0.85  # of free memory the estimate may use


def config(preset: str, seq_len: int) -> LlamaConfig:
    hidden, inter, layers, heads, kv, vocab = PRESETS[preset]
    kwargs: dict[str, Any] = {"attn_implementation": "sdpa"}
    return LlamaConfig(
        hidden_size=hidden, intermediate_size=inter, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=kv, vocab_size=vocab,
        max_position_embeddings=max(seq_len, 2048), tie_word_embeddings=False,
        use_cache=False, **kwargs,
    )


def param_count(preset: str) -> int:
    """The model's parameters, untied input and output embeddings counted apart."""
    hidden, inter, layers, heads, kv, vocab = PRESETS[preset]
    head_dim = hidden // heads
    attn = hidden * hidden * 2 + 2 * hidden * kv * head_dim
    mlp = 3 * hidden * inter
    return layers * (attn + mlp + 2 * hidden) + 2 * vocab * hidden + hidden


def estimate_bytes(preset: str, batch: int, seq_len: int) -> int:
    """Training memory: fp32 weights + grads + AdamW m, v (16 B/param), bf16 weight copies made
    by autocast (2 B/param), activations (~34 B per token, layer and hidden unit) and logits."""
    hidden, _inter, layers, _h, _kv, vocab = PRESETS[preset]
    tokens = batch * seq_len
    params = param_count(preset)
    act = tokens * layers * hidden * 34 + tokens * vocab * 14
    return int((18 * params + act) * 1.1)


def choose(preset: str | None, free: int | None, batch: int, batch_given: bool,
           seq_len: int, tiny: bool) -> tuple[str, int, str]:
    """(preset, batch, why)."""
    if tiny:
        return "tiny", batch, "--size tiny"
    if preset and preset != "auto":
        if preset not in PRESETS:
            raise ValueError(f"unknown --preset {preset!r} (known: auto, {', '.join(ORDER)})")
        return preset, batch, "--preset"
    if free is None:
        return "0.5b", batch, "no GPU memory figure (cpu): smallest preset"
    budget = free * FIT_FRACTION
    for name in ORDER:
        if estimate_bytes(name, batch, seq_len) <= budget:
            return name, batch, f"largest preset that fits {FIT_FRACTION:.0%} of free memory"
    b = batch
    while not batch_given and b > 1:
        b //= 2
        if estimate_bytes("0.5b", b, seq_len) <= budget:
            return "0.5b", b, "smallest preset, batch lowered to fit free memory"
    return "0.5b", b, "smallest preset (the estimate says it may not fit)"


def run(h: Harness, opts: Options) -> dict[str, Any]:
    dev = h.device.torch_device
    seq_len = opts.seq_len or (32 if opts.tiny else 1024)
    preset, bs, why = choose(opts.preset, h.device.free_memory(), opts.batch_size,
                             opts.batch_size_given, seq_len, opts.tiny)
    cfg = config(preset, seq_len)
    torch.manual_seed(opts.seed)
    h.setup(f"building the model (preset {preset}, random weights)")
    with torch.device(dev):
        model = LlamaForCausalLM(cfg)
    model.train()
    params = sum(p.numel() for p in model.parameters())
    model = h.data_parallel(model)
    ids = torch.randint(0, cfg.vocab_size, (bs, seq_len), device=dev)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=h.device.is_gpu)
    forward = torch.compile(model) if opts.compile else model

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        with h.device.autocast(opts.precision):
            loss = forward(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()

    def fwd_bwd_meta() -> None:
        # Without a cache, transformers looks for packed sequences in the position ids, which
        # calls .item() and cannot run on the meta device; a cache changes no matrix product.
        with torch.device("meta"):
            m = LlamaForCausalLM(cfg)
            x = torch.zeros((1, seq_len), dtype=torch.long)
        m(input_ids=x, labels=x, use_cache=True).loss.backward()

    h.setup("counting the model's FLOPs")
    flops_seq = count_flops(fwd_bwd_meta)
    flops_step = flops_seq * bs if flops_seq else None
    tokens = bs * seq_len
    per_step = {"throughput": PerStep("tokens/s", tokens * h.world),
                "step_time": PerStep("s", kind="time", higher_is_better=False)}
    if flops_step:
        per_step["tflops"] = PerStep("TFLOP/s", flops_step * h.world / 1e12)
    w = Workload(step=step, items=tokens, unit="tokens/s",
                 max_warmup_steps=10 if opts.tiny else 30, min_steps=10,
                 first_step="compiling the model (torch.compile)" if opts.compile else None,
                 figures=per_step)
    part = h.run(w)
    figures = part.figures()
    parallel_figures, parallel_details = h.parallel_part(part, "tokens/s")
    figures.update(parallel_figures)
    return {
        "headline": "throughput",
        "figures": figures,
        "warmup": part.warmup,
        "measure": part.measure,
        "settings": {**opts.settings(), "batch_size": bs, "preset": preset, "seq_len": seq_len},
        "details": {
            "model": f"Llama architecture, preset {preset}, random weights",
            "preset_reason": why,
            "params": params,
            "hidden_size": cfg.hidden_size,
            "layers": cfg.num_hidden_layers,
            "vocab_size": cfg.vocab_size,
            "tokens_per_step": tokens,
            "flops_per_item": flops_step / tokens if flops_step else None,
            "optimizer": f"AdamW lr 1e-4{' fused' if h.device.is_gpu else ''}",
            "attention": "sdpa",
            "estimated_bytes": estimate_bytes(preset, bs, seq_len) if preset != "tiny" else None,
            **parallel_details,
        },
    }
