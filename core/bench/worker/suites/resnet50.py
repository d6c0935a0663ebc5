"""``resnet50-train``: torchvision ResNet-50 trained from random init on synthetic data that is
already on the device; SGD with momentum; fp32 or autocast fp16/bf16; NCHW or channels_last;
eager or torch.compile. ``--size tiny`` shrinks it to one bottleneck per stage at 32x32 pixels."""

from __future__ import annotations

from typing import Any

import torch
import torchvision
from torch import nn

from core.bench.worker.device import math_settings
from core.bench.worker.flops import count_flops
from core.bench.worker.harness import Harness, Options, PerStep, Workload


def build_model(tiny: bool) -> tuple[nn.Module, int, int]:
    """The model (random init), its input resolution and its number of classes."""
    if tiny:
        from torchvision.models.resnet import Bottleneck, ResNet

        return ResNet(Bottleneck, [1, 1, 1, 1], num_classes=10), 32, 10
    return torchvision.models.resnet50(weights=None), 224, 1000


def _flops_per_image(tiny: bool, res: int) -> float | None:
    """Forward + backward FLOPs of one image, counted on the meta device (batch 2: batch norm
    needs more than one value per channel)."""

    def fwd_bwd() -> None:
        with torch.device("meta"):
            model, _, _ = build_model(tiny)
            x = torch.empty(2, 3, res, res)
        model(x).sum().backward()

    total = count_flops(fwd_bwd)
    return total / 2 if total else None


def run(h: Harness, opts: Options) -> dict[str, Any]:
    dev = h.device.torch_device
    torch.manual_seed(opts.seed)
    if h.device.is_gpu:
        torch.backends.cudnn.benchmark = True  # fixed shapes: let cuDNN/MIOpen pick kernels once
    h.setup("building the model")
    model, res, classes = build_model(opts.tiny)
    fmt = torch.channels_last if opts.channels_last else torch.contiguous_format
    model = model.to(dev).to(memory_format=fmt)
    model.train()
    params = sum(p.numel() for p in model.parameters())
    model = h.data_parallel(model)
    bs = opts.batch_size
    x = torch.randn(bs, 3, res, res, device=dev).contiguous(memory_format=fmt)
    y = torch.randint(0, classes, (bs,), device=dev)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler(dev.type, enabled=opts.precision == "amp-fp16")
    forward = torch.compile(model) if opts.compile else model

    def step() -> None:
        optimizer.zero_grad(set_to_none=True)
        with h.device.autocast(opts.precision):
            loss = criterion(forward(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()

    h.setup("counting the model's FLOPs")
    flops_img = _flops_per_image(opts.tiny, res)
    per_step = {"throughput": PerStep("images/s", bs * h.world),
                "step_time": PerStep("s", kind="time", higher_is_better=False)}
    if flops_img:
        per_step["tflops"] = PerStep("TFLOP/s", flops_img * bs * h.world / 1e12)
    w = Workload(step=step, items=bs, unit="images/s", max_warmup_steps=12 if opts.tiny else 60,
                 first_step="compiling the model (torch.compile)" if opts.compile else None,
                 figures=per_step)
    part = h.run(w)
    figures = part.figures()
    parallel_figures, parallel_details = h.parallel_part(part, "images/s")
    figures.update(parallel_figures)
    return {
        "headline": "throughput",
        "figures": figures,
        "warmup": part.warmup,
        "measure": part.measure,
        "details": {
            "model": "torchvision resnet50, random init" if not opts.tiny else
                     "ResNet bottleneck [1,1,1,1], random init (tiny)",
            "resolution": res,
            "classes": classes,
            "params": params,
            "flops_per_item": flops_img,
            "memory_format": "channels_last" if opts.channels_last else "nchw",
            "optimizer": "SGD lr 0.01 momentum 0.9 wd 1e-4",
            "grad_scaler": opts.precision == "amp-fp16",
            "data": "synthetic, on device",
            **math_settings(),
            **parallel_details,
        },
    }
