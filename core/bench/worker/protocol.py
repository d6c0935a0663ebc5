"""The benchmark worker protocol: JSON lines on stdout (docs/contracts.md, "Benchmark worker
protocol").

Worker side and parent side share this module, so it imports the standard library only.

Every line is one JSON object with an ``"event"`` key:

``hello``   versions, device, backend (``hip`` | ``cuda`` | ``cpu``), resolved settings
``phase``   ``phase``: ``setup`` | ``warmup`` | ``measure`` | ``done`` (``part``: a sub-benchmark,
            e.g. bf16); ``setup`` says in ``what`` what the worker prepares before its first
            step (imports, model build, weights, matrices) and may come before ``hello``
``step``    ``phase``, ``index``, ``seconds``, ``items``, ``throughput``, ``unit`` and suite figures
``result``  the summary: ``headline``, ``figures`` (median, p10/p90, cv ...), memory, warm-up,
            ``details``
``error``   ``kind`` (one of :data:`ERROR_KINDS`), ``message``, ``advice``, ``detail``

A stream ends with ``result`` then ``phase`` ``done``, or with one ``error``. ``setup`` phases
were added later: a reader accepts streams without them (an older worker sends none).
"""

from __future__ import annotations

import json
import math
import time
from typing import IO, Any

PROTOCOL_VERSION = 1

EVENTS = ("hello", "phase", "step", "result", "error")
PHASES = ("setup", "warmup", "measure", "done")
ERROR_KINDS = ("oom", "no-gpu", "no-binary-for-gpu", "missing-package", "interrupted", "other")
SUITES = ("resnet50-train", "sd15-infer", "llm-train", "llm-infer", "gemm", "bandwidth")
PRECISIONS = ("fp32", "amp-fp16", "amp-bf16")
SIZES = ("tiny", "default")


def json_safe(value: Any) -> Any:
    """Return ``value`` with non-finite floats replaced by None (JSON has no NaN/Infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def encode(event: dict[str, Any]) -> str:
    """One event as one line of JSON (no trailing newline)."""
    if event.get("event") not in EVENTS:
        raise ValueError(f"unknown event {event.get('event')!r}")
    return json.dumps(json_safe(event), allow_nan=False, separators=(",", ":"), default=str)


def decode(line: str | bytes) -> dict[str, Any] | None:
    """Parse one line; None when it is not a protocol event (blank, not JSON, no known event)."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply
        return None
    if not isinstance(obj, dict) or obj.get("event") not in EVENTS:
        return None
    return obj


class Emitter:
    """Writes events to the protocol stream, one flushed line each."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream
        self.error_sent = False
        self.count = 0
        self.started = time.perf_counter()
        """When the stream opened: the clock of the ``setup`` phases' ``t``."""

    def emit(self, event: str, **fields: Any) -> None:
        line = encode({"event": event, **fields})
        self._stream.write(line + "\n")
        self._stream.flush()
        self.count += 1
        if event == "error":
            self.error_sent = True

    def setup(self, what: str, **fields: Any) -> None:
        """A ``phase`` ``setup`` event: what the worker prepares now, in plain words ("importing
        PyTorch", "building the model"), and ``t``, the seconds since the worker started."""
        self.emit("phase", phase="setup", what=what, t=time.perf_counter() - self.started,
                  **{k: v for k, v in fields.items() if v is not None})
