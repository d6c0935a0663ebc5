"""The device a suite runs on: what it is (for ``hello``), synchronisation, memory and precision.

Worker side: imports the standard library and torch only.
"""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import sys
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import torch

# Environment variables that change how a ROCm/CUDA run behaves; echoed in ``hello``.
ENV_VARS = (
    "HSA_OVERRIDE_GFX_VERSION",
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "PYTORCH_HIP_ALLOC_CONF",
    "PYTORCH_CUDA_ALLOC_CONF",
    "MIOPEN_FIND_MODE",
    "MIOPEN_USER_DB_PATH",
    "TORCH_BLAS_PREFER_HIPBLASLT",
    "OMP_NUM_THREADS",
)


class NoGpuError(RuntimeError):
    """A GPU device was asked for but PyTorch sees none."""


def _package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


@dataclass
class Device:
    """A resolved torch device with the helpers the harness needs."""

    torch_device: torch.device
    backend: str  # hip | cuda | cpu

    @property
    def is_gpu(self) -> bool:
        return self.torch_device.type == "cuda"

    def sync(self) -> None:
        if self.is_gpu:
            torch.cuda.synchronize(self.torch_device)

    def reset_peak_memory(self) -> None:
        if self.is_gpu:
            torch.cuda.reset_peak_memory_stats(self.torch_device)

    def peak_memory(self) -> dict[str, int | None]:
        """Peak bytes: allocated by tensors and reserved by the caching allocator (GPU), or the
        process's peak resident size (CPU, which includes the interpreter and libraries)."""
        if self.is_gpu:
            return {
                "peak_memory_bytes": int(torch.cuda.max_memory_allocated(self.torch_device)),
                "peak_memory_reserved_bytes": int(
                    torch.cuda.max_memory_reserved(self.torch_device)),
            }
        rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return {"peak_memory_bytes": int(rss_kib) * 1024, "peak_memory_reserved_bytes": None}

    def free_memory(self) -> int | None:
        if self.is_gpu:
            free, _total = torch.cuda.mem_get_info(self.torch_device)
            return int(free)
        return None

    def autocast(self, precision: str | None) -> contextlib.AbstractContextManager[Any]:
        """Autocast for ``amp-fp16`` / ``amp-bf16``; nothing for ``fp32``."""
        if precision in (None, "fp32"):
            return contextlib.nullcontext()
        dtype = torch.float16 if precision == "amp-fp16" else torch.bfloat16
        return torch.autocast(device_type=self.torch_device.type, dtype=dtype)

    def info(self) -> dict[str, Any]:
        """The device part of ``hello``."""
        out: dict[str, Any] = {"device": str(self.torch_device), "backend": self.backend}
        if self.is_gpu:
            idx = self.torch_device.index or 0
            props = torch.cuda.get_device_properties(idx)
            arch = getattr(props, "gcnArchName", "") if self.backend == "hip" else ""
            if not arch:
                arch = f"sm_{props.major}{props.minor}"
            free, total = torch.cuda.mem_get_info(self.torch_device)
            out.update(
                device_name=props.name,
                arch=arch.split(":")[0],
                arch_full=arch,
                total_memory_bytes=int(total),
                free_memory_bytes=int(free),
                multi_processor_count=int(props.multi_processor_count),
                pci_bus_id=_pci_bus_id(props),
            )
        else:
            out.update(
                device_name=_cpu_name(),
                arch=platform.machine(),
                threads=torch.get_num_threads(),
            )
        return out


def _cpu_name() -> str:
    """The CPU's model name (Linux), else what the platform module knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def _pci_bus_id(props: Any) -> str | None:
    bus = getattr(props, "pci_bus_id", None)
    dev = getattr(props, "pci_device_id", None)
    dom = getattr(props, "pci_domain_id", None)
    if bus is None or dev is None:
        return None
    return f"{int(dom or 0):04x}:{int(bus):02x}:{int(dev):02x}.0"


def resolve(spec: str) -> Device:
    """``cpu``, ``cuda`` or ``cuda:N`` -> Device; raises NoGpuError when no GPU is usable."""
    if spec == "cpu":
        return Device(torch.device("cpu"), "cpu")
    if not spec.startswith("cuda"):
        raise ValueError(f"unknown device {spec!r} (use cuda, cuda:N or cpu)")
    backend = "hip" if getattr(torch.version, "hip", None) else "cuda"
    if not torch.cuda.is_available():
        build = f"torch {torch.__version__}"
        if not (torch.version.hip or torch.version.cuda):
            raise NoGpuError(f"Torch not compiled with CUDA enabled ({build} is a CPU build)")
        raise NoGpuError(f"No {'HIP' if backend == 'hip' else 'CUDA'} GPUs are available ({build})")
    dev = torch.device(spec)
    idx = dev.index if dev.index is not None else 0
    count = torch.cuda.device_count()
    if idx >= count:
        raise NoGpuError(f"{spec} asked for, but PyTorch sees {count} GPU(s)")
    torch.cuda.set_device(idx)
    return Device(torch.device("cuda", idx), backend)


def software() -> dict[str, Any]:
    """The software part of ``hello``."""
    return {
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "torch": torch.__version__,
        "hip": getattr(torch.version, "hip", None),
        "cuda": getattr(torch.version, "cuda", None),
        "cudnn": _cudnn_version(),
        "torchvision": _package_version("torchvision"),
        "diffusers": _package_version("diffusers"),
        "transformers": _package_version("transformers"),
        "env": {k: os.environ[k] for k in ENV_VARS if k in os.environ},
    }


def _cudnn_version() -> int | None:
    try:
        v = torch.backends.cudnn.version()
    except Exception:
        return None
    return int(v) if v else None


def math_settings() -> dict[str, Any]:
    """TF32 and autotuning switches in force (they change fp32 results a lot)."""
    return {
        "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
        "cudnn_allow_tf32": bool(torch.backends.cudnn.allow_tf32),
        "matmul_allow_tf32": bool(torch.backends.cuda.matmul.allow_tf32),
    }
