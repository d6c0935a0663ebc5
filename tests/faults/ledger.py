"""The count of ``make faults``: what each test injected, whether the app survived it, whether
data was lost; which hostile inputs were tried and refused; how many fuzz examples each parser
saw.

A test records as it goes, through the ``ledger`` fixture (tests/faults/conftest.py):

* ``ledger.inject(kind, area)`` at the moment the fault is really injected (the process killed,
  the disk filled, the lock taken). A test that passes survived every fault it injected; one
  that fails survived none of them.
* ``ledger.lost(kind, what)`` where a check finds data gone that must have been kept (it also
  fails the test).
* ``ledger.tried(family, name)`` for each hostile input sent; it counts as refused when the
  test passes (the test asserts the refusal).
* ``ledger.example(parser)`` once per fuzz example a parser was given.

At the end of the session the counts are written as JSON to ``$ROCMATE_FAULTS_LEDGER`` (when
set); ``python -m tests.faults.table FILE`` prints the table and the closing line.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LEDGER_ENV = "ROCMATE_FAULTS_LEDGER"


@dataclass
class TestRecord:
    """What one test recorded (kept until its outcome is known)."""

    faults: list[tuple[str, str]] = field(default_factory=list)
    lost: list[tuple[str, str]] = field(default_factory=list)
    hostile: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Ledger:
    """The session's counts; see the module's docstring."""

    injected: Counter[tuple[str, str]] = field(default_factory=Counter)
    survived: Counter[tuple[str, str]] = field(default_factory=Counter)
    lost_count: Counter[tuple[str, str]] = field(default_factory=Counter)
    lost_what: list[str] = field(default_factory=list)
    tried_count: Counter[str] = field(default_factory=Counter)
    refused_count: Counter[str] = field(default_factory=Counter)
    examples: Counter[str] = field(default_factory=Counter)
    current: TestRecord | None = None

    # -- what tests call ------------------------------------------------------------------

    def inject(self, kind: str, area: str) -> None:
        self._record().faults.append((area, kind))

    def lost(self, kind: str, what: str) -> None:
        record = self._record()
        area = next((a for a, k in record.faults if k == kind), "?")
        record.lost.append((area, kind))
        self.lost_what.append(f"{kind}: {what}")
        raise AssertionError(f"data lost after {kind}: {what}")

    def tried(self, family: str, name: str) -> None:
        self._record().hostile.append((family, name))

    def example(self, parser: str) -> None:
        self.examples[parser] += 1

    # -- what the plugin calls ------------------------------------------------------------

    def start_test(self) -> None:
        self.current = TestRecord()

    def end_test(self, passed: bool) -> None:
        record, self.current = self.current, None
        if record is None:
            return
        for key in record.faults:
            self.injected[key] += 1
            if passed:
                self.survived[key] += 1
        for key in record.lost:
            self.lost_count[key] += 1
        for family, _name in record.hostile:
            self.tried_count[family] += 1
            if passed:
                self.refused_count[family] += 1

    def _record(self) -> TestRecord:
        if self.current is None:  # recorded outside a test (a module-level call): count it alone
            self.current = TestRecord()
        return self.current

    def as_json(self) -> dict[str, Any]:
        faults = sorted(self.injected)
        return {
            "faults": [{"area": a, "kind": k, "injected": self.injected[(a, k)],
                        "survived": self.survived[(a, k)], "lost": self.lost_count[(a, k)]}
                       for a, k in faults],
            "lost": self.lost_what,
            "hostile": [{"family": f, "tried": self.tried_count[f],
                         "refused": self.refused_count[f]} for f in sorted(self.tried_count)],
            "fuzz": dict(sorted(self.examples.items())),
        }

    def write(self) -> Path | None:
        target = os.environ.get(LEDGER_ENV)
        if not target:
            return None
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.as_json(), indent=1) + "\n")
        return path


LEDGER = Ledger()
"""The one ledger of this pytest session."""
