"""Print ``make faults``' table from the ledger the fault tests wrote, and end with the one line:

    faults: N injected, N survived, 0 lost; hostile: M tried, M refused

Exit status 1 when anything was lost, a hostile input got through, or the ledger is missing or
holds fewer than the issue's minimum (15 kinds of fault, 40 hostile inputs).

    python -m tests.faults.table build/faults/ledger.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

MIN_KINDS = 15
MIN_HOSTILE = 40


def render(data: dict) -> tuple[list[str], bool]:
    lines: list[str] = []
    faults = data["faults"]
    lines.append(f"{'area':<12} {'fault':<52} {'injected':>8} {'survived':>8} {'lost':>5}")
    for row in faults:
        lines.append(f"{row['area']:<12} {row['kind']:<52} {row['injected']:>8} "
                     f"{row['survived']:>8} {row['lost']:>5}")
    for what in data["lost"]:
        lines.append(f"  lost: {what}")
    lines.append("")
    lines.append(f"{'hostile input family':<65} {'tried':>8} {'refused':>8}")
    for row in data["hostile"]:
        lines.append(f"{row['family']:<65} {row['tried']:>8} {row['refused']:>8}")
    lines.append("")
    lines.append(f"{'fuzzed parser':<65} {'examples':>8}")
    for parser, count in data["fuzz"].items():
        lines.append(f"{parser:<65} {count:>8}")
    lines.append("")
    injected = sum(r["injected"] for r in faults)
    survived = sum(r["survived"] for r in faults)
    lost = max(sum(r["lost"] for r in faults), len(data["lost"]))
    tried = sum(r["tried"] for r in data["hostile"])
    refused = sum(r["refused"] for r in data["hostile"])
    kinds = len({r["kind"] for r in faults})
    ok = (lost == 0 and not data["lost"] and survived == injected and refused == tried
          and kinds >= MIN_KINDS and tried >= MIN_HOSTILE)
    if kinds < MIN_KINDS or tried < MIN_HOSTILE:
        lines.append(f"too few: {kinds} kinds of fault (at least {MIN_KINDS}), {tried} hostile "
                     f"inputs (at least {MIN_HOSTILE})")
    lines.append(f"faults: {injected} injected, {survived} survived, {lost} lost; "
                 f"hostile: {tried} tried, {refused} refused")
    return lines, ok


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    path = Path(argv[0])
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        print(f"no ledger at {path}: {error}", file=sys.stderr)
        return 1
    lines, ok = render(data)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
