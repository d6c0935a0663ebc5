"""``sd15-infer``: Stable Diffusion 1.5 text-to-image at 512x512, 20 Euler steps, classifier-free
guidance 7.5, batch 1, timed per image as the plain diffusers call a user makes:
``StableDiffusionPipeline(...)(prompt, height=512, width=512, num_inference_steps=20,
guidance_scale=7.5, output_type="np")`` (no safety checker, no progress bar).

The split into text encoder / UNet loop / VAE decode (and UNet it/s) comes from marks taken
inside that call without changing its work: a forward hook on the text encoder (after its last
forward), ``callback_on_step_end`` at the last denoising step, and the call's return. Each mark is
a ``time.perf_counter()`` stamp plus, on a GPU, a CUDA/HIP event recorded on the stream; the
events are read after the image's final synchronisation, so nothing stalls inside the loop.

Weights: random, built from the SD 1.5 architecture configs (nothing is downloaded), unless
``--model`` points to a local diffusers folder or a single .safetensors/.ckpt file. The tokenizer
for random weights is a byte-level CLIP tokenizer made on the spot (the prompt's tokens do not
change the work). ``--size tiny`` uses a small UNet, VAE and text encoder at 32x32 pixels.
``amp-fp16``/``amp-bf16`` run the models in that dtype, as diffusers pipelines do with
``torch_dtype``.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from diffusers import (
    AutoencoderKL,
    EulerDiscreteScheduler,
    StableDiffusionPipeline,
    UNet2DConditionModel,
)
from transformers import CLIPTextConfig, CLIPTextModel, CLIPTokenizer

from core.bench.worker.flops import count_flops
from core.bench.worker.harness import Harness, Options, PerStep, Workload, figure

PROMPT = "a photograph of an astronaut riding a horse on mars"
GUIDANCE = 7.5

# The SD 1.5 architecture (stable-diffusion-v1-5 unet/vae/text_encoder/scheduler configs).
UNET_SD15: dict[str, Any] = {
    "sample_size": 64, "in_channels": 4, "out_channels": 4, "layers_per_block": 2,
    "block_out_channels": (320, 640, 1280, 1280),
    "down_block_types": ("CrossAttnDownBlock2D",) * 3 + ("DownBlock2D",),
    "up_block_types": ("UpBlock2D",) + ("CrossAttnUpBlock2D",) * 3,
    "cross_attention_dim": 768, "attention_head_dim": 8, "norm_num_groups": 32,
    "act_fn": "silu", "flip_sin_to_cos": True, "freq_shift": 0, "downsample_padding": 1,
    "center_input_sample": False, "mid_block_scale_factor": 1, "norm_eps": 1e-5,
}
VAE_SD15: dict[str, Any] = {
    "in_channels": 3, "out_channels": 3, "latent_channels": 4, "layers_per_block": 2,
    "block_out_channels": (128, 256, 512, 512),
    "down_block_types": ("DownEncoderBlock2D",) * 4,
    "up_block_types": ("UpDecoderBlock2D",) * 4,
    "norm_num_groups": 32, "act_fn": "silu", "sample_size": 512, "scaling_factor": 0.18215,
}
CLIP_SD15: dict[str, Any] = {
    "vocab_size": 49408, "hidden_size": 768, "intermediate_size": 3072,
    "num_hidden_layers": 12, "num_attention_heads": 12, "max_position_embeddings": 77,
    "hidden_act": "quick_gelu", "projection_dim": 768,
    # the ids of make_tokenizer()'s special tokens
    "bos_token_id": 512, "eos_token_id": 513, "pad_token_id": 513,
}
SCHEDULER_SD15: dict[str, Any] = {
    "num_train_timesteps": 1000, "beta_start": 0.00085, "beta_end": 0.012,
    "beta_schedule": "scaled_linear", "steps_offset": 1, "prediction_type": "epsilon",
    "timestep_spacing": "leading",
}

UNET_TINY: dict[str, Any] = {
    **UNET_SD15, "sample_size": 16, "layers_per_block": 1, "block_out_channels": (32, 64),
    "down_block_types": ("CrossAttnDownBlock2D", "DownBlock2D"),
    "up_block_types": ("UpBlock2D", "CrossAttnUpBlock2D"), "cross_attention_dim": 32,
}
VAE_TINY: dict[str, Any] = {
    **VAE_SD15, "layers_per_block": 1, "block_out_channels": (32, 64),
    "down_block_types": ("DownEncoderBlock2D",) * 2, "up_block_types": ("UpDecoderBlock2D",) * 2,
    "sample_size": 32,
}
CLIP_TINY: dict[str, Any] = {
    **CLIP_SD15, "vocab_size": 1000, "hidden_size": 32, "intermediate_size": 37,
    "num_hidden_layers": 2, "num_attention_heads": 4, "projection_dim": 32,
}


@dataclass
class Components:
    """The parts of a Stable Diffusion pipeline that run per image."""

    unet: Any
    vae: Any
    text_encoder: Any
    tokenizer: Any
    scheduler: Any
    weights: str
    resolution: int


def _bytes_to_unicode() -> list[str]:
    """GPT-2/CLIP byte-level alphabet (256 printable stand-ins for the 256 byte values)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
    bs += list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


def make_tokenizer(folder: str) -> CLIPTokenizer:
    """A byte-level CLIP tokenizer with no merges: real CLIP code path, no download."""
    vocab: dict[str, int] = {}
    for suffix in ("", "</w>"):
        for ch in _bytes_to_unicode():
            vocab[ch + suffix] = len(vocab)
    for special in ("<|startoftext|>", "<|endoftext|>"):
        vocab[special] = len(vocab)
    vocab_file = os.path.join(folder, "vocab.json")
    merges_file = os.path.join(folder, "merges.txt")
    with open(vocab_file, "w", encoding="utf-8") as f:
        json.dump(vocab, f)
    with open(merges_file, "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
    return CLIPTokenizer(vocab_file, merges_file, model_max_length=77)


def build_random(tiny: bool, device: torch.device, dtype: torch.dtype, workdir: str) -> Components:
    """SD 1.5 (or tiny) components with random weights, created directly on the device."""
    with torch.device(device):
        unet: Any = UNet2DConditionModel(**(UNET_TINY if tiny else UNET_SD15))
        vae: Any = AutoencoderKL(**(VAE_TINY if tiny else VAE_SD15))
        text_encoder: Any = CLIPTextModel(CLIPTextConfig(**(CLIP_TINY if tiny else CLIP_SD15)))
    return Components(
        unet=unet.to(dtype),
        vae=vae.to(dtype),
        text_encoder=text_encoder.to(dtype),
        tokenizer=make_tokenizer(workdir),
        scheduler=EulerDiscreteScheduler(**SCHEDULER_SD15),
        weights="random (tiny SD-like architecture)" if tiny else "random (SD 1.5 architecture)",
        resolution=32 if tiny else 512,
    )


def write_config_folder(folder: str) -> str:
    """A diffusers-format folder holding SD 1.5's configs and tokenizer but no weights, for
    ``from_single_file(config=...)`` without the hub."""
    root = Path(folder) / "sd15-config"
    for sub in ("unet", "vae", "text_encoder", "tokenizer", "scheduler"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    index = {
        "_class_name": "StableDiffusionPipeline",
        "unet": ["diffusers", "UNet2DConditionModel"],
        "vae": ["diffusers", "AutoencoderKL"],
        "text_encoder": ["transformers", "CLIPTextModel"],
        "tokenizer": ["transformers", "CLIPTokenizer"],
        "scheduler": ["diffusers", "EulerDiscreteScheduler"],
        "safety_checker": [None, None],
        "feature_extractor": [None, None],
    }
    (root / "model_index.json").write_text(json.dumps(index))
    (root / "unet" / "config.json").write_text(
        json.dumps({"_class_name": "UNet2DConditionModel", **UNET_SD15}))
    (root / "vae" / "config.json").write_text(
        json.dumps({"_class_name": "AutoencoderKL", **VAE_SD15}))
    (root / "scheduler" / "scheduler_config.json").write_text(
        json.dumps({"_class_name": "EulerDiscreteScheduler", **SCHEDULER_SD15}))
    CLIPTextConfig(**CLIP_SD15).save_pretrained(root / "text_encoder")
    make_tokenizer(str(root / "tokenizer")).save_pretrained(root / "tokenizer")
    return str(root)


def load_local(path: str, device: torch.device, dtype: torch.dtype, workdir: str) -> Components:
    """Real weights from a local diffusers folder or a single checkpoint file (offline)."""
    p = Path(path).expanduser()
    if p.is_dir():
        pipe = StableDiffusionPipeline.from_pretrained(
            str(p), torch_dtype=dtype, local_files_only=True, safety_checker=None,
            requires_safety_checker=False)
        weights = f"local folder {p.name}"
    elif p.is_file():
        pipe = StableDiffusionPipeline.from_single_file(
            str(p), config=write_config_folder(workdir), torch_dtype=dtype,
            local_files_only=True, safety_checker=None, requires_safety_checker=False)
        weights = f"local file {p.name}"
    else:
        raise FileNotFoundError(f"--model {path}: no such folder or file")
    pipe = pipe.to(device)
    sample = getattr(pipe.unet.config, "sample_size", 64) or 64
    return Components(
        unet=pipe.unet, vae=pipe.vae, text_encoder=pipe.text_encoder, tokenizer=pipe.tokenizer,
        scheduler=EulerDiscreteScheduler.from_config(pipe.scheduler.config), weights=weights,
        resolution=int(sample) * 2 ** (len(pipe.vae.config.block_out_channels) - 1),
    )


def build_pipeline(c: Components) -> Any:
    """The diffusers pipeline a user would build from these parts: no safety checker (the suite
    times generation, not filtering), no progress bar."""
    pipe: Any = StableDiffusionPipeline(
        vae=c.vae, text_encoder=c.text_encoder, tokenizer=c.tokenizer, unet=c.unet,
        scheduler=c.scheduler, safety_checker=None, feature_extractor=None,
        requires_safety_checker=False)
    pipe.set_progress_bar_config(disable=True)
    return pipe


class Marks:
    """Named time stamps inside one image without stalling the device: ``time.perf_counter()``
    always, plus a CUDA/HIP event recorded on the current stream on a GPU. A name marked again
    keeps its last stamp."""

    def __init__(self, gpu: bool) -> None:
        self.gpu = gpu
        self.marks: dict[str, tuple[float, Any]] = {}

    def mark(self, name: str) -> None:
        ev = None
        if self.gpu:
            ev = torch.cuda.Event(enable_timing=True)
            ev.record()
        self.marks[name] = (time.perf_counter(), ev)

    def seconds(self, a: str, b: str) -> float:
        """Seconds from mark ``a`` to mark ``b`` (on a GPU: call after the device was
        synchronised)."""
        (ta, ea), (tb, eb) = self.marks[a], self.marks[b]
        if ea is not None and eb is not None:
            return float(ea.elapsed_time(eb)) / 1000.0
        return tb - ta


# The marks of one image, in order: the split is text encoder = start..text_encoded,
# UNet loop = text_encoded..denoised (timesteps, initial latents, the guided steps), VAE decode =
# denoised..end (decode, post-processing, the image on the host).
MARKS = ("start", "text_encoded", "denoised", "end")


class PipelineTimer:
    """Marks inside ``StableDiffusionPipeline.__call__``, added without changing its work."""

    def __init__(self, pipe: Any, gpu: bool) -> None:
        self.gpu = gpu
        self.current = Marks(gpu)
        # after every text-encoder forward (prompt, then the empty prompt): the last one counts
        self._hook = pipe.text_encoder.register_forward_hook(self._text_encoded)

    def _text_encoded(self, _module: Any, _args: Any, _output: Any) -> None:
        self.current.mark("text_encoded")

    def on_step_end(self, pipe: Any, i: int, _t: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``callback_on_step_end``: marks the end of the last denoising step."""
        if i == pipe.num_timesteps - 1:
            self.current.mark("denoised")
        return kwargs

    def start(self) -> Marks:
        self.current = Marks(self.gpu)
        self.current.mark("start")
        return self.current

    def close(self) -> None:
        self._hook.remove()


def image_step(pipe: Any, timer: PipelineTimer, prompt: str | list[str], resolution: int,
               steps: int, sync: Callable[[], None]) -> Callable[[], dict[str, float]]:
    """The timed step: one plain pipeline call (an image, or a batch), output as a numpy array
    on the host, and its text encoder / UNet loop / VAE split from the timer's marks."""

    def step() -> dict[str, float]:
        marks = timer.start()
        pipe(prompt, height=resolution, width=resolution, num_inference_steps=steps,
             guidance_scale=GUIDANCE, output_type="np",
             callback_on_step_end=timer.on_step_end, callback_on_step_end_tensor_inputs=[])
        marks.mark("end")
        sync()  # the image's final synchronisation; the events are read after it
        missing = [m for m in MARKS if m not in marks.marks]
        if missing:
            raise RuntimeError(f"sd15-infer: the pipeline call left no {missing} mark")
        text_s = marks.seconds("start", "text_encoded")
        unet_s = marks.seconds("text_encoded", "denoised")
        vae_s = marks.seconds("denoised", "end")
        return {"unet_it_s": steps / unet_s if unet_s > 0 else 0.0, "text_encoder_s": text_s,
                "unet_loop_s": unet_s, "vae_decode_s": vae_s}

    return step


def run(h: Harness, opts: Options) -> dict[str, Any]:
    dev = h.device.torch_device
    dtype = {"fp32": torch.float32, "amp-fp16": torch.float16, "amp-bf16": torch.bfloat16}[
        opts.precision or "fp32"]
    steps = opts.inference_steps or 20
    bs = opts.batch_size
    torch.manual_seed(opts.seed)  # the pipeline draws its initial latents from this generator
    if h.device.is_gpu:
        torch.backends.cudnn.benchmark = True
    with tempfile.TemporaryDirectory(prefix="rocmate-sd15-") as workdir:
        t0 = time.perf_counter()
        if opts.model:
            h.setup(f"loading the weights ({os.path.basename(opts.model.rstrip(os.sep))})")
            c = load_local(opts.model, dev, dtype, workdir)
        else:
            h.setup("building the model (random weights)")
            c = build_random(opts.tiny, dev, dtype, workdir)
        pipe = build_pipeline(c)
        h.device.sync()
        setup_s = time.perf_counter() - t0
    for m in (c.unet, c.vae, c.text_encoder):
        m.eval()
    if opts.channels_last:
        c.unet.to(memory_format=torch.channels_last)  # in place: the pipeline's unet
    vae_factor = 2 ** (len(c.vae.config.block_out_channels) - 1)
    latent = c.resolution // vae_factor
    h.setup("counting the UNet's FLOPs (one forward)")
    unet_flops = _unet_flops(c.unet, bs, c.unet.config.in_channels, latent,
                             emb_dim=c.text_encoder.config.hidden_size,
                             seq=c.tokenizer.model_max_length, dev=dev, dtype=dtype)
    if opts.compile:
        pipe.unet = torch.compile(c.unet)  # as diffusers' docs compile a pipeline's UNet
    timer = PipelineTimer(pipe, h.device.is_gpu)
    prompt: str | list[str] = PROMPT if bs == 1 else [PROMPT] * bs

    step = image_step(pipe, timer, prompt, c.resolution, steps, h.device.sync)
    w = Workload(step=step, items=bs, unit="images/s", min_warmup_steps=2,
                 max_warmup_steps=8 if opts.tiny else 15, min_steps=5,
                 first_step="compiling the model (torch.compile)" if opts.compile else None,
                 figures={
                     "seconds_per_image": PerStep("s/image", bs, kind="time",
                                                  higher_is_better=False),
                     "throughput": PerStep("images/s", bs),
                     "unet_it_s": PerStep("it/s", kind="series", name="unet_it_s"),
                     **{name: PerStep("s", kind="series", name=name, higher_is_better=False)
                        for name in ("text_encoder_s", "unet_loop_s", "vae_decode_s")}})
    try:
        part = h.run(w)
    finally:
        timer.close()
    figures = part.figures()
    if unet_flops:
        figures["unet_tflops"] = figure(
            [steps * unet_flops / s / 1e12 for s in part.series["unet_loop_s"]], "TFLOP/s")
    return {
        "headline": "seconds_per_image",
        "figures": figures,
        "warmup": part.warmup,
        "measure": part.measure,
        "details": {
            "weights": c.weights,
            "resolution": c.resolution,
            "inference_steps": steps,
            "guidance_scale": GUIDANCE,
            "scheduler": "EulerDiscreteScheduler",
            "pipeline": "StableDiffusionPipeline",
            "output_type": "np",
            "dtype": str(dtype).replace("torch.", ""),
            "unet_flops_per_step": unet_flops,
            "unet_params": sum(p.numel() for p in c.unet.parameters()),
            "setup_s": setup_s,
            "compile_mode": "default" if opts.compile else None,
        },
    }


def _unet_flops(unet: Any, bs: int, channels: int, latent: int, *, emb_dim: int, seq: int,
                dev: torch.device, dtype: torch.dtype) -> float | None:
    """FLOPs of one guided UNet step (2 x batch), counted on one real forward."""

    def fwd() -> None:
        x = torch.zeros((2 * bs, channels, latent, latent), device=dev, dtype=dtype)
        emb = torch.zeros((2 * bs, seq, emb_dim), device=dev, dtype=dtype)
        with torch.inference_mode():
            unet(x, torch.tensor(10, device=dev), encoder_hidden_states=emb, return_dict=False)

    return count_flops(fwd)
