"""A set-up plan as data (``rocmate.plan/1``): steps for the runner and the helper."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.install.helper.policy import SCHEMA

STRATEGIES = ("pip-only", "rocm-apt", "wsl", "therock")
"""The set-up routes a plan can take (docs/contracts.md, ``strategy``)."""


@dataclass(frozen=True)
class FileSpec:
    """A file a step writes; a keyring fetched at run time has ``source_url`` instead of content."""

    path: str
    content: str | None = None
    mode: str = "0644"
    append: bool = False
    source_url: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "mode": self.mode}
        if self.content is not None:
            data["content"] = self.content
        if self.append:
            data["append"] = True
        if self.source_url:
            data["source_url"] = self.source_url
        return data


@dataclass(frozen=True)
class Step:
    id: str
    title: str
    explain: str
    privileged: bool = False
    argv: tuple[str, ...] | None = None
    file: FileSpec | None = None
    key_fingerprint: str | None = None
    consent: bool | None = None
    """For removals: only run with the user's explicit yes."""
    consent_option: str | None = None
    """The option that gives that yes (None: ``--remove-old``, as in plans before it was
    named; ``--fix-shell-files`` for a line of a start-up file commented out, issue 33)."""
    after: str | None = None
    """"relogin" or "reboot" when the step takes effect only after that."""
    kind: str = "command"
    """"command", "file", "check" (the runner's own checks) or "verify"."""

    def __post_init__(self) -> None:
        if (self.argv is None) == (self.file is None):
            raise ValueError(f"step {self.id}: exactly one of argv and file")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "privileged": self.privileged,
            "title": self.title,
            "explain": self.explain,
            "kind": self.kind,
        }
        if self.argv is not None:
            data["argv"] = list(self.argv)
        if self.file is not None:
            data["file"] = self.file.to_json()
        if self.key_fingerprint:
            data["key_fingerprint"] = self.key_fingerprint
        if self.consent is not None:
            data["consent"] = self.consent
        if self.consent_option:
            data["consent_option"] = self.consent_option
        if self.after:
            data["after"] = self.after
        return data


@dataclass(frozen=True)
class Preflight:
    """A check made before any step runs (kernel driver, headers, DKMS, Secure Boot, disk)."""

    id: str
    ok: bool
    title: str
    detail: str = ""
    stops: bool = False
    """A failed check that stops the plan: its steps would fail (a wheel with no build for this
    Python), so the plan is shown but not carried out (issue 33)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "ok": self.ok, "title": self.title,
                                "detail": self.detail}
        if self.stops:
            data["stops"] = True
        return data


@dataclass(frozen=True)
class Plan:
    strategy: str
    rocm: str | None
    torch_index: str | None
    steps: tuple[Step, ...]
    env: dict[str, str] = field(default_factory=dict)
    venv: str | None = None
    packages: tuple[str, ...] = ()
    torch_packages: tuple[str, ...] = ()
    preview: bool = False
    preflight: tuple[Preflight, ...] = ()
    notes: tuple[str, ...] = ()
    blocked: str | None = None
    """Why no plan can be made for this machine (the steps are then empty)."""
    replay: str | None = None
    """The snapshot folder of the replayed machine the plan was made for (None: this
    computer). Such a plan is only shown: nothing carries it out here."""
    nothing_to_do: bool = False
    """The doctor finds PyTorch working on the card already (its verdict Ready, or Not yet
    proved with PyTorch seeing the GPU): the steps are only what a fresh environment would
    add, and ``notes[0]`` says so (issue 33)."""

    env_unset: tuple[str, ...] = ()
    """Variables the environment's activation unsets: exported with a value the doctor finds
    wrong, and the plan sets none (issue 33)."""
    env_forced: tuple[str, ...] = ()
    """Variables of :attr:`env` the activation sets even where the shell exports another
    value (the doctor finds that one wrong); the others it sets only where the shell has none."""

    @property
    def stopped_by(self) -> tuple[Preflight, ...]:
        """The failed checks that keep this plan from being carried out (none: it can be)."""
        return tuple(p for p in self.preflight if p.stops and not p.ok)

    @property
    def privileged_steps(self) -> list[Step]:
        return [s for s in self.steps if s.privileged]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "strategy": self.strategy,
            "rocm": self.rocm,
            "torch_index": self.torch_index,
            "venv": self.venv,
            "preview": self.preview,
            "packages": list(self.packages),
            "torch_packages": list(self.torch_packages),
            "env": dict(self.env),
            "preflight": [p.to_json() for p in self.preflight],
            "notes": list(self.notes),
            "blocked": self.blocked,
            "nothing_to_do": self.nothing_to_do,
            **({"env_unset": list(self.env_unset)} if self.env_unset else {}),
            **({"env_forced": list(self.env_forced)} if self.env_forced else {}),
            "steps": [s.to_json() for s in self.steps],
        }
