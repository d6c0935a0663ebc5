"""The record itself: a replayed machine whose snapshot files are there but cannot be read.

What such a file holds is unknown, so the rules that need it say nothing (they never read a
damaged ``user.json`` as "in no group" or a damaged ``devices.json`` as "no /dev/kfd"), and this
rule says which files they are.
"""

from __future__ import annotations

from core.diagnose.context import Context
from core.diagnose.finding import Finding
from core.i18n import t


def snapshot_damaged(ctx: Context) -> list[Finding]:
    """snapshot-damaged: which files of the replayed folder could not be used, and why."""
    damaged = ctx.facts.damaged
    if not damaged:
        return []
    reasons = {
        "unreadable": t("doctor.snapshot-damaged.reason.unreadable", "cannot be read"),
        "not-json": t("doctor.snapshot-damaged.reason.not-json", "is not JSON"),
        "not-an-object": t("doctor.snapshot-damaged.reason.not-an-object",
                           "is not a JSON object"),
    }
    lines = "; ".join(f"{each.path} {reasons.get(each.reason, each.reason)}" for each in damaged)
    return [Finding(
        "snapshot-damaged", "warning",
        t("doctor.snapshot-damaged.title", "The replayed machine's record is damaged: {files}",
          files=", ".join(each.path for each in damaged)),
        t("doctor.snapshot-damaged.detail", "{lines}. What these files record is left out of "
          "this check rather than guessed, so findings that need them are missing.",
          lines=lines),
        t("doctor.snapshot-damaged.fix", "Record the machine again into a new folder: {command}",
          command="rocmate snapshot NEW_FOLDER"))]
