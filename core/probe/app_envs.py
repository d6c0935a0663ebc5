"""The Python environments of common AI apps (ComfyUI, the Stable Diffusion web UIs, InvokeAI,
Stability Matrix's and Pinokio's apps, ...) in the places resources/data/app_envs.toml names,
and the PyTorch each holds (issue 34).

Everything goes through :class:`core.system.System`, so a replayed machine answers from its
recorded home folder. Only those places are looked at (a few stat calls and folder listings,
no Python is started, no file is read): the PyTorch family (resources/data/torch_family.toml)
and each member's build come from the names of the ``*.dist-info`` folders as pip and uv write
them (``torch-2.5.1+cpu.dist-info``), read with :mod:`core.probe.python_packages`' rules. The
repair reads the whole environment (:func:`core.probe.python_packages.read_environment`)."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

from core.knowledge.app_envs import AppPlace, load_app_places
from core.knowledge.torch_family import TorchFamily, load_torch_family
from core.probe.parse.python_dist import canonical_name
from core.probe.python_packages import Distribution, FamilyMember, family_of
from core.system import System

PYTHONS = ("bin/python3", "bin/python")
_DIST_INFO = re.compile(r"^(?P<name>[A-Za-z0-9_.]+?)-(?P<version>[0-9][^-]*?)\.dist-info$")
MAX_WILDCARD = 64
"""Folders looked into for one ``*`` (Stability Matrix's packages): more are not looked at."""


@dataclass(frozen=True)
class AppEnv:
    """A Python environment of an app, and its torch family as installed."""

    app: str
    """The app's id in app_envs.toml (``comfyui``)."""
    name: str
    """The app's name, with the package for a folder found by ``*`` (``Stability Matrix:
    ComfyUI``)."""
    folder: str
    """The environment's folder (``/home/alice/ComfyUI/venv``)."""
    python: str
    family: tuple[FamilyMember, ...] = ()
    site_packages: str | None = None
    """Where the family was read; None when no site-packages folder was found."""
    unverified: bool = False

    @property
    def torch(self) -> FamilyMember | None:
        return next((m for m in self.family if m.role == "torch"), None)

    @property
    def build(self) -> str:
        """``rocm``, ``cuda``, ``cpu``, ``pypi`` (no local tag: PyPI's Linux wheels are CUDA
        builds), ``other`` (a tag rocmate does not know, a self-built torch) or ``missing``."""
        torch = self.torch
        if torch is None:
            return "missing"
        return "pypi" if torch.build.kind == "none" else torch.build.kind

    @property
    def wheel_rocm(self) -> str | None:
        """The ROCm series of a ROCm build (``6.2`` of ``2.5.1+rocm6.2``)."""
        torch = self.torch
        return torch.build.series if torch is not None and torch.build.kind == "rocm" else None

    def to_json(self) -> dict[str, Any]:
        return {"app": self.app, "name": self.name, "folder": self.folder,
                "python": self.python,
                "torch": self.torch.version if self.torch else None,
                "build": self.build,
                "family": [m.to_json() for m in self.family]}


def find_app_envs(system: System, home: str, places: tuple[AppPlace, ...] | None = None,
                  table: TorchFamily | None = None) -> tuple[AppEnv, ...]:
    """Every environment of the table's apps under ``home`` (each folder once, in the table's
    order); never raises for what the machine holds."""
    table = table or load_torch_family()
    found: list[AppEnv] = []
    seen: set[str] = set()
    for place in places if places is not None else load_app_places():
        for pattern in place.envs:
            for folder, matched in _expand(system, home, pattern):
                if folder in seen:
                    continue
                python = next((posixpath.join(folder, p) for p in PYTHONS
                               if system.exists(posixpath.join(folder, p))), None)
                if python is None:
                    continue
                seen.add(folder)
                site, family = read_family(system, folder, table)
                name = f"{place.name}: {matched}" if matched else place.name
                found.append(AppEnv(place.id, name, folder, python, family, site,
                                    place.unverified))
    return tuple(found)


def _expand(system: System, home: str, pattern: str) -> list[tuple[str, str]]:
    """The folders ``pattern`` names under ``home``, each with the folder name its ``*``
    matched ("" without one)."""
    results: list[tuple[str, str]] = [(home.rstrip("/") or "/", "")]
    for part in pattern.split("/"):
        step: list[tuple[str, str]] = []
        for base, matched in results:
            if part != "*":
                step.append((posixpath.join(base, part), matched))
                continue
            names = system.list_dir(base) or []
            step += [(posixpath.join(base, n), n) for n in names[:MAX_WILDCARD]
                     if not n.startswith(".")]
        results = step
        if not results:
            break
    return results


def read_family(system: System, folder: str,
                table: TorchFamily) -> tuple[str | None, tuple[FamilyMember, ...]]:
    """The PyTorch family installed in the environment at ``folder``: its site-packages and
    the members found there (in the table's order), from the dist-info folders' names alone."""
    site = _site_packages(system, folder)
    if site is None:
        return None, ()
    wanted = {m.name for m in table.members}
    dists = []
    for entry in system.list_dir(site) or []:
        match = _DIST_INFO.match(entry)
        if match is not None and canonical_name(match["name"]) in wanted:
            dists.append(Distribution(match["name"], match["version"],
                                      posixpath.join(site, entry)))
    return site, family_of(dists, table)


def _site_packages(system: System, folder: str) -> str | None:
    """``<folder>/lib/python3.X/site-packages`` (the newest where several are there)."""
    lib = posixpath.join(folder, "lib")
    versions = [n for n in system.list_dir(lib) or [] if re.fullmatch(r"python3\.\d+", n)]
    for name in sorted(versions, key=lambda n: int(n.split(".")[1]), reverse=True):
        site = posixpath.join(lib, name, "site-packages")
        if system.is_dir(site):
            return site
    return None
