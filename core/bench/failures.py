"""The error texts a benchmark failure is sorted by, from the knowledge base: handed to the
worker as a file in its clean folder, and used here for a worker that died without saying why.

The rows of resources/data/explain.toml that carry a ``kind`` are the one list of error texts:
``rocmate explain`` matches them for a pasted error, the worker sorts its exceptions with them.
"""

from __future__ import annotations

import json
from pathlib import Path

from core.bench.worker.errors import PATTERNS_FILE, Patterns
from core.knowledge.error_patterns import FAILURE_KINDS
from core.knowledge.loader import Knowledge, load_knowledge


def failure_patterns(kb: Knowledge | None = None) -> Patterns:
    """``{kind: [regex, ...]}`` in :data:`FAILURE_KINDS` order, each kind's rows in file order."""
    kb = kb or load_knowledge()
    out: Patterns = {kind: [] for kind in FAILURE_KINDS}
    for pattern in kb.patterns:
        if pattern.kind is not None:
            out[pattern.kind].extend(pattern.match)
    return {kind: regexes for kind, regexes in out.items() if regexes}


def hand_to_worker(worker_package: Path, kb: Knowledge | None = None) -> Path:
    """Write the patterns beside the worker's errors module in its clean folder."""
    path = worker_package / PATTERNS_FILE
    path.write_text(json.dumps(failure_patterns(kb), indent=1), encoding="utf-8")
    return path
