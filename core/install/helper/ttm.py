"""Carrying out the ttm verbs (issue 35): ``ttm-limit`` writes rocmate's ttm file and keeps what
it replaced; ``ttm-restore`` puts that back.

Both go through the run's :class:`~core.install.helper.files.Transaction`, so a later failure
(or a cancel) undoes them as it undoes any write. The undo record, :data:`TTM_UNDO`, is JSON::

    {"schema": "rocmate.ttm-undo/1", "path": "/etc/modprobe.d/rocmate-ttm.conf",
     "existed": true, "content_b64": "...", "mode": 420}

It keeps the oldest state: once a record is there, a second ``ttm-limit`` (another size) leaves
it alone, so an undo always goes back to what the machine had before rocmate first changed the
file (nothing, usually). ``ttm-restore`` trusts the record only as a plain file of the helper's
own user that no one else may write, in a folder that is not a link.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
from dataclasses import dataclass

from core.install.helper.files import FileFailed, Transaction
from core.install.helper.policy import TTM_CONF, TTM_UNDO
from core.install.helper.validate import TtmLimit, TtmRestore

__all__ = ["RECORD_SCHEMA", "Record", "parse_record", "restore", "set_limit"]

RECORD_SCHEMA = "rocmate.ttm-undo/1"
MAX_RECORD = 256 * 1024
MAX_PREVIOUS = 64 * 1024
FILE_MODE = 0o644


@dataclass(frozen=True)
class Record:
    """What :data:`TTM_CONF` held before rocmate changed it (``data`` None: no file)."""

    data: bytes | None
    mode: int = FILE_MODE

    def to_bytes(self) -> bytes:
        content = None if self.data is None else base64.b64encode(self.data).decode("ascii")
        return (json.dumps({"schema": RECORD_SCHEMA, "path": TTM_CONF,
                            "existed": self.data is not None, "content_b64": content,
                            "mode": self.mode}, indent=1) + "\n").encode("ascii")


def parse_record(raw: bytes) -> Record:
    """The record in ``raw``; :class:`FileFailed` naming what is wrong with it."""
    if len(raw) > MAX_RECORD:
        raise FileFailed(f"{TTM_UNDO} is too large to be rocmate's record")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FileFailed(f"{TTM_UNDO} is not rocmate's record (not JSON)") from exc
    if not isinstance(doc, dict) or doc.get("schema") != RECORD_SCHEMA \
            or doc.get("path") != TTM_CONF or not isinstance(doc.get("existed"), bool):
        raise FileFailed(f"{TTM_UNDO} is not a record of {TTM_CONF}")
    mode = doc.get("mode", FILE_MODE)
    if type(mode) is not int or not 0 <= mode <= 0o777:
        raise FileFailed(f"{TTM_UNDO} names an impossible file mode")
    if not doc["existed"]:
        return Record(None)
    encoded = doc.get("content_b64")
    if not isinstance(encoded, str):
        raise FileFailed(f"{TTM_UNDO} has no content for a file that existed")
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise FileFailed(f"{TTM_UNDO} holds content that is not base64") from exc
    if len(data) > MAX_PREVIOUS:
        raise FileFailed(f"{TTM_UNDO} holds more than {MAX_PREVIOUS // 1024} KiB")
    return Record(data, mode)


def _load(tx: Transaction) -> Record | None:
    """The record, when there is one that only this user could have written."""
    found = tx.read(TTM_UNDO)
    if found is None:
        return None
    raw, mode, uid = found
    if uid != os.geteuid() or mode & 0o022:
        raise FileFailed(f"{TTM_UNDO} is not root's alone (owner uid {uid}, mode {mode:o}); "
                         "it is not trusted")
    return parse_record(raw)


def set_limit(action: TtmLimit, tx: Transaction) -> str:
    """Write rocmate's ttm file; before the first change, keep what it held in the record.
    "unchanged" when it holds exactly this already."""
    current = tx.read(TTM_CONF)
    if current is not None and current == (action.data, FILE_MODE, os.geteuid()):
        return "unchanged"
    if _load(tx) is None:
        previous = Record(None) if current is None else Record(current[0], current[1] & 0o777)
        tx.write(TTM_UNDO, previous.to_bytes(), FILE_MODE)
    return tx.write(TTM_CONF, action.data, FILE_MODE)


def restore(action: TtmRestore, tx: Transaction) -> str:
    """Put rocmate's ttm file back as the record says it was, then remove the record.
    "unchanged" when there is no record (nothing was changed, or it was undone already)."""
    record = _load(tx)
    if record is None:
        return "unchanged"
    if record.data is None:
        tx.remove(TTM_CONF)
    else:
        tx.write(TTM_CONF, record.data, record.mode)
    tx.remove(TTM_UNDO)
    return "done"
