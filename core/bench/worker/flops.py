"""FLOP counts for "achieved TFLOP/s": counted by PyTorch's FlopCounterMode on the suite's own
model and shapes (a multiply-add counts as 2 FLOPs), usually on the meta device so that counting
costs no memory and no device time. Only matrix products, convolutions and attention are
counted, as is usual for MFU figures.

Worker side: standard library and torch only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


def count_flops(fn: Callable[[], Any]) -> float | None:
    """FLOPs done by ``fn()``; None when counting fails (the figure is then left out)."""
    try:
        from torch.utils.flop_counter import FlopCounterMode

        with FlopCounterMode(display=False) as counter:
            fn()
        total = float(counter.get_total_flops())
    except Exception as exc:  # counting is a bonus; never fail a run over it
        log.warning("FLOP counting failed: %s", exc)
        return None
    return total if total > 0 else None


def matmul_flops(m: int, n: int, k: int) -> float:
    """FLOPs of an (m x k) @ (k x n) product."""
    return 2.0 * m * n * k
