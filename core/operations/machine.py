"""Checking the machine: the doctor, ``explain`` for a pasted error, and a snapshot for a bug
report. Each works on the live machine or on a replayed snapshot folder (``root``)."""

from __future__ import annotations

import os
import shlex
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from core.diagnose.doctor import DoctorReport, run_doctor
from core.diagnose.doctor_text import render_text
from core.diagnose.explain import Explanation, explain
from core.diagnose.finding import Finding
from core.i18n import t
from core.knowledge.loader import load_knowledge
from core.operations.errors import OperationError
from core.probe.torch import DEFAULT_TIMEOUT
from core.report.privacy import Identity, scrub_text
from core.snapshot import write_snapshot
from core.system import System, open_system
from core.termstyle import Style


def open_machine(root: str | Path | None) -> System:
    """The live machine, or the snapshot folder ``root``; a folder that is not there, or that
    cannot be read, is an input error (exit status 2)."""
    if root is None:
        return open_system(root)
    try:
        is_folder = Path(root).is_dir()
        if is_folder:
            os.listdir(root)
    except OSError as exc:
        raise OperationError(t("ops.machine.snapshot-folder-unreadable", "cannot read the "
                               "snapshot folder {path}: {error}", path=root,
                               error=exc.strerror or exc), status=2) from exc
    if not is_folder:
        raise OperationError(t("ops.machine.no-snapshot-folder", "no snapshot folder at {path}",
                               path=root), status=2)
    return open_system(root)


def check_machine(
    root: str | Path | None = None,
    *,
    python: str | None = None,
    probe_torch: bool = True,
    torch_timeout: float = DEFAULT_TIMEOUT,
) -> DoctorReport:
    """The doctor's answer for the machine: facts, findings and the verdict. A snapshot folder
    that records nothing gets a ``snapshot-empty`` finding first (the answer is an empty
    machine's, which is rarely what was meant)."""
    report = run_doctor(open_machine(root), python=python, probe_torch=probe_torch,
                        torch_timeout=torch_timeout)
    if root is not None and not any((Path(root) / name).exists() for name in _RECORDED):
        empty = Finding(
            "snapshot-empty", "warning",
            t("ops.machine.snapshot-empty.title", "{path} holds no recorded machine", path=root),
            t("ops.machine.snapshot-empty.detail", "A snapshot folder has {files} or {last} "
              "({command} writes them); this one has none, so the answer below is for a machine "
              "with nothing in it.", files="files/, commands/, env.json, user.json",
              last="devices.json", command="rocmate snapshot"),
            t("ops.machine.snapshot-empty.fix", "Replay the folder {command} wrote, or leave "
              "{option} out to check this machine.", command="rocmate snapshot", option="--root"))
        report = replace(report, findings=(empty, *report.findings))
    return report


_RECORDED = ("files", "commands", "env.json", "user.json", "devices.json", "torch.json",
             "kernel-check.json")


def benchmark_device(report: DoctorReport) -> str | None:
    """Where rocmate's benchmarks can run as the check found PyTorch: ``cuda:0`` when it sees a
    GPU (a ROCm or a CUDA build), ``cpu`` when it sees none, None without an answer from
    PyTorch (not installed, or the probe failed). The wizard offers its Benchmark page by this
    even where ROCm cannot be set up (an NVIDIA card, no GPU)."""
    torch = report.facts.torch
    if torch is None or not torch.installed or torch.problem:
        return None
    return "cuda:0" if torch.available and torch.device_count > 0 else "cpu"


def forum_post(report: DoctorReport) -> str:
    """The doctor's answer as Markdown for a forum post: the terminal text in a code block,
    with this user's and host's names and home folder taken out."""
    text = render_text(report, Style(False), verbose=True)
    return "rocmate doctor:\n\n```\n" + scrub_text(text, Identity.current()) + "```\n"


@dataclass(frozen=True)
class Explained:
    """What ``explain`` found for a pasted error on this machine."""

    text: str
    explanations: tuple[Explanation, ...]
    report: DoctorReport
    """The doctor's answer the causes were weighed against."""

    def to_json(self) -> dict[str, Any]:
        return {"schema": "rocmate.explain/1",
                "matches": [e.to_json() for e in self.explanations]}


def explain_error(
    text: str,
    root: str | Path | None = None,
    *,
    python: str | None = None,
    probe_torch: bool = True,
    torch_timeout: float = DEFAULT_TIMEOUT,
) -> Explained:
    """The likely causes of ``text`` on this machine, those its findings confirm first."""
    report = check_machine(root, python=python, probe_torch=probe_torch,
                           torch_timeout=torch_timeout)
    return Explained(text, tuple(explain(text, load_knowledge(), report)), report)


@dataclass(frozen=True)
class Snapshot:
    """A snapshot folder that was written, and how to replay it."""

    path: Path
    seconds: float
    python: str | None
    """The Python whose PyTorch was recorded (a replay answers with that recording)."""
    copied_from: Path | None = None
    """The replayed machine's folder, where the snapshot is a copy of it (nothing of this
    computer was recorded)."""

    @property
    def replay_command(self) -> str:
        return f"rocmate doctor --root {shlex.quote(str(self.path))}"


def take_snapshot(out: str | Path, *, python: str | None = None,
                  probe_torch: bool = True, root: str | Path | None = None) -> Snapshot:
    """Record what the doctor reads from this machine, anonymised, into the new folder ``out``.
    For a replayed machine (``root``) the snapshot is its folder: copied as it is, and nothing
    of this computer is read."""
    folder = Path(out)
    try:
        _check_new_folder(folder)
        start = time.perf_counter()
        if root is not None:
            return _copy_replay(Path(root), folder, start)
        write_snapshot(folder, run_doctor, python=python, probe_torch=probe_torch)
    except OSError as exc:  # a folder on the way that cannot be entered, a full disk
        where = exc.filename or folder
        raise OperationError(t("ops.machine.snapshot-not-written", "the snapshot cannot be "
                               "written to {path}: {error}; choose a folder you can write to",
                               path=where, error=exc.strerror or exc), status=2) from exc
    return Snapshot(folder, time.perf_counter() - start, python)


def _copy_replay(source: Path, folder: Path, start: float) -> Snapshot:
    """The replayed machine's folder ``source`` copied into ``folder`` (its links kept as
    links): the snapshot of a replay is the replay."""
    open_machine(source)  # a folder that is not there, or cannot be read, is an input error
    if folder.resolve().is_relative_to(source.resolve()):
        raise OperationError(t("ops.machine.snapshot-inside-replay", "{path} is inside the "
                               "replayed machine's folder {source}; choose a folder outside it",
                               path=folder, source=source), status=2)
    shutil.copytree(source, folder, symlinks=True, dirs_exist_ok=True)
    return Snapshot(folder, time.perf_counter() - start, None, source)


def _check_new_folder(folder: Path) -> None:
    """``folder`` may receive a snapshot: not there yet, or an empty folder (OSError where it
    cannot be looked at)."""
    if folder.exists() and not folder.is_dir():
        raise OperationError(t("ops.machine.snapshot-is-file", "{path} is a file; choose a new "
                               "folder", path=folder), status=2)
    if folder.exists() and any(folder.iterdir()):
        raise OperationError(t("ops.machine.snapshot-not-empty", "{path} is not empty; choose a "
                               "new folder", path=folder), status=2)
