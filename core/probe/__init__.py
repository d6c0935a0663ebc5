"""Facts about the machine: platform, GPUs, ROCm, PyTorch, permissions."""
