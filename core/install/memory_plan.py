"""The plan that gives an APU's GPU more memory, and the plan that takes it back (issue 35).

A plan (``rocmate.plan/1``, strategy ``apu-memory``) of one root step: ``ttm-limit`` writes
/etc/modprobe.d/rocmate-ttm.conf (:data:`~core.install.helper.policy.TTM_CONF`) with ttm's
``pages_limit`` and ``page_pool_size`` for a whole number of GiB; the helper keeps what the file
held before, and ``ttm-restore`` (:func:`undo_plan`) puts that back. Both take effect at the
next boot (``after: "reboot"``). The same runner and helper as a set-up carry them out
(core/operations/memory.py); nothing here reads or changes the machine.
"""

from __future__ import annotations

import base64
import binascii
import json

from core.diagnose.memory_advice import GIB, MemoryAdvice
from core.i18n import local, t
from core.install.helper.policy import (
    TTM_CONF,
    TTM_MAX_GIB,
    TTM_PAGES_PER_GIB,
    TTM_UNDO,
    ttm_conf_text,
)
from core.install.plan import FileSpec, Plan, Step
from core.knowledge.apu_memory import load_apu_memory

__all__ = ["STRATEGY", "UndoRecord", "apply_steps", "memory_plan", "parse_undo_record",
           "undo_plan", "undo_steps"]

STRATEGY = "apu-memory"
"""The ``strategy`` of these plans (beside the set-up's pip-only, rocm-apt, wsl, therock)."""


def apply_steps(pages: int) -> tuple[Step, ...]:
    """The root step that sets ttm's limits to ``pages`` (4 KiB pages) from the next boot."""
    gib = pages // TTM_PAGES_PER_GIB
    return (Step(
        id="ttm-limit",
        title=t("memory.plan.step.limit", "Let the GPU map up to {gib} GiB of system memory",
                gib=gib),
        explain=t("memory.plan.step.limit.explain", "Writes {path} with ttm's pages_limit and "
                  "page_pool_size = {pages} ({gib} GiB x 262144 pages of 4 KiB); what the file "
                  "held before is kept for {command}. It takes effect at the next boot.",
                  path=TTM_CONF, pages=pages, gib=gib, command="rocmate memory undo"),
        privileged=True,
        file=FileSpec(TTM_CONF, ttm_conf_text(pages)),
        after="reboot",
        kind="file",
    ),)


def undo_steps() -> tuple[Step, ...]:
    """The root step that puts rocmate's ttm file back as it was before rocmate changed it."""
    return (Step(
        id="ttm-restore",
        title=t("memory.plan.step.restore", "Put {path} back as it was", path=TTM_CONF),
        explain=t("memory.plan.step.restore.explain", "Puts back what the file held before "
                  "rocmate first changed it (no file, if there was none), as kept in {record}. "
                  "It takes effect at the next boot.", record=TTM_UNDO),
        privileged=True,
        argv=("ttm-restore", TTM_CONF),
        after="reboot",
        kind="command",
    ),)


def _blocked(reason: str) -> Plan:
    return Plan(strategy=STRATEGY, rocm=None, torch_index=None, steps=(), blocked=reason)


def _notes(advice: MemoryAdvice) -> tuple[str, ...]:
    """What the plan must say beside its step: the restart, the initramfs, other settings."""
    table = load_apu_memory()
    notes = [t("memory.plan.note.reboot", "The new limit takes effect after a restart; then "
               "{command} shows it in force.", command="rocmate memory")]
    initramfs = next((n for n in table.notes if n.key == "initramfs"), None)
    if initramfs is not None:
        notes.append(f"{local(initramfs.text)} ({initramfs.source})")
    others = [s for s in advice.memory.system.configured
              if s.option in ("pages_limit", "page_pool_size", "gttsize", "gtt_size")
              and s.where != TTM_CONF]
    for setting in others:
        notes.append(t("memory.plan.note.other-setting", "{name}={value} is also configured in "
                       "{where}: two settings of one limit may disagree (rocmate doctor says "
                       "which is in force after the restart).", name=setting.name,
                       value=setting.value, where=setting.where))
    return tuple(notes)


def memory_plan(advice: MemoryAdvice, gib: int | None = None) -> Plan:
    """The plan that gives the GPU of ``advice`` ``gib`` GiB (default: what the advice says).
    Blocked where it cannot be done safely; without steps when nothing needs to change."""
    memory = advice.memory
    if advice.safe_bytes is None:
        return _blocked(t("memory.plan.blocked.no-ram", "the machine's RAM is not known "
                          "(/proc/meminfo), so no size can be called safe"))
    if memory.system.ttm_module == "amdttm":
        return _blocked(t("memory.plan.blocked.amdttm", "AMD's DKMS driver is loaded, whose "
                          "memory manager is amdttm, not ttm: rocmate writes only ttm's "
                          "options. Give amdttm the same line by hand (see {command}).",
                          command="rocmate memory"))
    most = int(advice.safe_bytes // GIB)
    want = gib if gib is not None else advice.target_gib
    if want is None:
        return Plan(strategy=STRATEGY, rocm=None, torch_index=None, steps=(),
                    notes=(t("memory.plan.nothing", "Nothing to change: the GPU can already use "
                             "what the goal needs."),))
    if not 1 <= want <= min(most, TTM_MAX_GIB):
        return _blocked(t("memory.plan.blocked.size", "{gib} GiB cannot be given: between 1 "
                          "and {most} GiB (the RAM less {floor} GiB for the system)", gib=want,
                          most=most, floor=f"{(advice.floor_bytes or 0) / GIB:.1f}"))
    pages = want * TTM_PAGES_PER_GIB
    if advice.distro == "nixos":
        return _blocked(t("memory.plan.blocked.nixos", "NixOS makes /etc/modprobe.d from its "
                          "configuration, so rocmate does not write there: add "
                          "boot.extraModprobeConfig = \"options ttm pages_limit={pages} "
                          "page_pool_size={pages}\"; to configuration.nix ({gib} GiB), run "
                          "'sudo nixos-rebuild boot', then restart", pages=pages, gib=want))
    return Plan(strategy=STRATEGY, rocm=None, torch_index=None,
                steps=apply_steps(pages), notes=_notes(advice))


class UndoRecord:
    """What the helper kept of rocmate's ttm file (read from :data:`TTM_UNDO`, world-readable)."""

    def __init__(self, existed: bool, content: str | None) -> None:
        self.existed = existed
        self.content = content


def parse_undo_record(text: str | None) -> UndoRecord | None:
    """The record's meaning for the user (None: no record, or not one rocmate wrote)."""
    if not text:
        return None
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("path") != TTM_CONF \
            or not isinstance(doc.get("existed"), bool):
        return None
    if not doc["existed"]:
        return UndoRecord(False, None)
    try:
        content = base64.b64decode(str(doc.get("content_b64")), validate=True)
    except (binascii.Error, ValueError):
        return None
    return UndoRecord(True, content.decode("utf-8", errors="replace"))


def undo_plan(record: UndoRecord | None) -> Plan:
    """The plan that puts rocmate's ttm file back; without steps when rocmate has changed
    nothing."""
    if record is None:
        return Plan(strategy=STRATEGY, rocm=None, torch_index=None, steps=(), notes=(
            t("memory.plan.nothing-to-undo", "Nothing to undo: rocmate has not changed {path} "
              "(or it was undone already).", path=TTM_CONF),))
    what = t("memory.plan.undo.absent", "{path} is removed (there was none before).",
             path=TTM_CONF) if not record.existed else t(
        "memory.plan.undo.restored", "{path} gets back what it held before: {content}",
        path=TTM_CONF, content=" | ".join((record.content or "").strip().splitlines()))
    return Plan(strategy=STRATEGY, rocm=None, torch_index=None, steps=undo_steps(),
                notes=(what, t("memory.plan.note.reboot", "The new limit takes effect after a "
                                "restart; then {command} shows it in force.",
                                command="rocmate memory")))
