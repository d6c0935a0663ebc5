"""``bandwidth``: device memory copy rate (GB/s, 1 GB = 1e9 bytes) counting bytes read plus bytes
written, as a copy moves each byte twice; on a GPU also host-to-device and device-to-host over the
bus from pinned memory (a slow or narrow PCIe link shows up here). Buffers: 1 GiB on the device,
256 MiB for bus copies (tiny: 8 MiB / 4 MiB)."""

from __future__ import annotations

from typing import Any

import torch

from core.bench.worker.harness import Harness, Options, PerStep, Workload
from core.bench.worker.suites.gemm import burst_size

MIB = 1 << 20


def run(h: Harness, opts: Options) -> dict[str, Any]:
    dev = h.device.torch_device
    dev_bytes = (8 if opts.tiny else 1024) * MIB
    bus_bytes = (4 if opts.tiny else 256) * MIB
    figures: dict[str, Any] = {}
    parts: dict[str, Any] = {}

    def measure(name: str, dst: torch.Tensor, src: torch.Tensor, moved: int) -> None:
        def one() -> None:
            dst.copy_(src, non_blocking=True)

        reps = burst_size(one, h.device.sync)

        def step() -> None:
            for _ in range(reps):
                one()

        w = Workload(step=step, items=reps, unit="copies/s", part=name, min_warmup_steps=3,
                     max_warmup_steps=10 if opts.tiny else 40, min_steps=10,
                     default_seconds=1.0 if opts.tiny else 2.0,
                     figures={f"{name}_gbs": PerStep("GB/s", moved * reps / 1e9)})
        part = h.run(w)
        figures.update(part.figures())
        parts[name] = {"buffer_bytes": dst.numel() * dst.element_size(), "copies_per_step": reps,
                       "bytes_counted_per_copy": moved, "warmup": part.warmup,
                       "measure": part.measure}

    h.setup("allocating the buffers")
    src = torch.empty(dev_bytes // 4, device=dev, dtype=torch.float32).uniform_()
    dst = torch.empty_like(src)
    measure("d2d", dst, src, 2 * dev_bytes)
    del src, dst
    if h.device.is_gpu:
        host = torch.empty(bus_bytes // 4, dtype=torch.float32).uniform_().pin_memory()
        on_dev = torch.empty(bus_bytes // 4, device=dev, dtype=torch.float32)
        measure("h2d", on_dev, host, bus_bytes)
        measure("d2h", host, on_dev, bus_bytes)
    first = parts["d2d"]
    return {
        "headline": "d2d_gbs",
        "figures": figures,
        "warmup": first["warmup"],
        "measure": first["measure"],
        "details": {"parts": parts, "gb": 1e9, "counting": "d2d: read + write; bus: bytes moved"},
    }
