"""What a Python environment holds, read from its files through :mod:`core.system` (so a
replayed machine answers as the live one): pyvenv.cfg, the ``*.dist-info`` of its
site-packages, the PyTorch family among them with each member's build, the markers that say
whose environment it is (PEP 668's EXTERNALLY-MANAGED, conda's conda-meta), the requirements
files of the app the environment belongs to, and whether its owner can write it.

No Python is run: an environment whose interpreter is broken, or of another machine, is read
the same way. Nothing here raises on damaged input: what could not be read is in ``problems``.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

from core.knowledge.torch_family import TorchFamily, load_torch_family
from core.probe.parse.python_dist import (
    Build,
    Requirement,
    build_of,
    canonical_name,
    cfg_flag,
    parse_metadata,
    parse_pyvenv_cfg,
    parse_requirements,
)
from core.system import System

METADATA_LIMIT = 64 << 10
"""The headers come first; the long description after them is not needed."""
MAX_DISTRIBUTIONS = 5000
MAX_REQUIREMENT_FILES = 20
_PYTHON_DIR = re.compile(r"^python3\.[0-9]{1,3}$")
_DIST_DIR = re.compile(r"^(.+?)-([0-9][^-]*?)\.(dist-info|egg-info)$")


@dataclass(frozen=True)
class Distribution:
    """One installed distribution (a ``*.dist-info`` or ``*.egg-info`` folder)."""

    name: str
    """As its METADATA writes it."""
    version: str
    dist_info: str
    """The folder's path on the machine."""
    installer: str | None = None
    """What installed it (``pip``, ``uv``, ``conda``), from its INSTALLER file."""

    @property
    def key(self) -> str:
        return canonical_name(self.name)

    @property
    def build(self) -> Build:
        return build_of(self.version)


@dataclass(frozen=True)
class FamilyMember:
    """A distribution of the PyTorch family (resources/data/torch_family.toml)."""

    name: str
    """The canonical name: torch, torchvision, pytorch-triton-rocm, ..."""
    role: str
    version: str
    build: Build
    rocm: str
    """The table's ``rocm``: ``index``, ``replaced`` or ``none``."""
    dist_info: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role, "version": self.version,
                "build": self.build.to_json(), "rocm": self.rocm}


@dataclass(frozen=True)
class PythonEnvironment:
    """An environment as its files describe it."""

    python: str
    """The interpreter path as given."""
    prefix: str | None
    """The environment's folder (where pyvenv.cfg is, else the folder above bin/)."""
    exists: bool
    venv: bool
    """A pyvenv.cfg beside the interpreter or one folder up (PEP 405)."""
    home: str | None = None
    include_system_site_packages: bool | None = None
    version: str | None = None
    """pyvenv.cfg's ``version`` (or ``version_info``), else the lib/python3.X folder's."""
    site_packages: tuple[str, ...] = ()
    externally_managed: str | None = None
    """The EXTERNALLY-MANAGED marker's path where the (non-virtual) environment has one."""
    conda: bool = False
    conda_base: bool = False
    distributions: tuple[Distribution, ...] = ()
    family: tuple[FamilyMember, ...] = ()
    problems: tuple[str, ...] = ()

    def distribution(self, name: str) -> Distribution | None:
        key = canonical_name(name)
        return next((d for d in self.distributions if d.key == key), None)

    def member(self, name: str) -> FamilyMember | None:
        key = canonical_name(name)
        return next((m for m in self.family if m.name == key), None)

    @property
    def torch(self) -> FamilyMember | None:
        return next((m for m in self.family if m.role == "torch"), None)

    @property
    def has_pip(self) -> bool:
        return self.distribution("pip") is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "python": self.python, "prefix": self.prefix, "exists": self.exists,
            "venv": self.venv, "home": self.home,
            "include_system_site_packages": self.include_system_site_packages,
            "version": self.version, "site_packages": list(self.site_packages),
            "externally_managed": self.externally_managed, "conda": self.conda,
            "conda_base": self.conda_base, "distributions": len(self.distributions),
            "family": [m.to_json() for m in self.family], "problems": list(self.problems),
        }


def _short(version: str | None) -> str | None:
    """``3.11.4`` -> ``3.11``."""
    if not version:
        return None
    match = re.match(r"^\s*(3\.[0-9]{1,3})", version)
    return match.group(1) if match else None


def _cfg(system: System, python: str) -> tuple[str | None, dict[str, str] | None]:
    """The folder holding pyvenv.cfg (beside the interpreter or one up) and its keys."""
    here = posixpath.dirname(python)
    for folder in (here, posixpath.dirname(here)):
        path = posixpath.join(folder, "pyvenv.cfg")
        if system.exists(path):
            return folder, parse_pyvenv_cfg(system.read_text(path, 1 << 16) or "")
    return None, None


def _site_folders(system: System, prefix: str, version: str | None,
                  venv: bool) -> tuple[list[str], str | None]:
    """The site-packages folders of ``prefix`` (those that exist) and the lib/python3.X
    version they were found under."""
    versions = [version] if version else []
    for lib in ("lib", "lib64"):
        for name in system.list_dir(posixpath.join(prefix, lib)) or []:
            if _PYTHON_DIR.match(name) and name[6:] not in versions:
                versions.append(name[6:])
    found: list[str] = []
    for ver in versions:
        for lib in ("lib", "lib64"):
            for leaf in ("site-packages",) if venv else ("site-packages", "dist-packages"):
                path = posixpath.join(prefix, lib, f"python{ver}", leaf)
                if path not in found and system.is_dir(path):
                    found.append(path)
    if not venv and prefix == "/usr":
        for path in ["/usr/lib/python3/dist-packages",
                     *(f"/usr/local/lib/python{v}/dist-packages" for v in versions)]:
            if path not in found and system.is_dir(path):
                found.append(path)
    # two names for one folder (lib64 -> lib) are read once
    unique: dict[str, str] = {}
    for path in found:
        unique.setdefault(system.resolve(path), path)
    return list(unique.values()), versions[0] if versions else None


def _distributions(system: System, folders: list[str],
                   problems: list[str]) -> list[Distribution]:
    seen: set[str] = set()
    found: list[Distribution] = []
    for folder in folders:
        names = system.list_dir(folder)
        if names is None:
            problems.append(f"unreadable: {folder}")
            continue
        for entry in names:
            match = _DIST_DIR.match(entry)
            if not match or len(found) >= MAX_DISTRIBUTIONS:
                continue
            path = posixpath.join(folder, entry)
            meta = "METADATA" if match.group(3) == "dist-info" else "PKG-INFO"
            meta_path = posixpath.join(path, meta) if system.is_dir(path) else path
            parsed = parse_metadata(system.read_text(meta_path, METADATA_LIMIT) or "")
            if parsed is None:
                problems.append(f"damaged: {meta_path}")
                parsed = (match.group(1), match.group(2))
            dist = Distribution(parsed[0], parsed[1], path, _installer(system, path))
            if dist.key in seen:
                continue  # the first on the path wins, as for the interpreter
            seen.add(dist.key)
            found.append(dist)
    return found


def _installer(system: System, dist_info: str) -> str | None:
    text = system.read_text(posixpath.join(dist_info, "INSTALLER"), 256)
    line = (text or "").strip().splitlines()[:1]
    return line[0][:64] if line else None


def family_of(distributions: tuple[Distribution, ...] | list[Distribution],
              table: TorchFamily) -> tuple[FamilyMember, ...]:
    """The PyTorch family among ``distributions``, in the table's order."""
    by_key = {d.key: d for d in distributions}
    members = []
    for row in table.members:
        dist = by_key.get(row.name)
        if dist is not None:
            members.append(FamilyMember(row.name, row.role, dist.version, dist.build, row.rocm,
                                        dist.dist_info))
    return tuple(members)


def read_environment(system: System, python: str,
                     table: TorchFamily | None = None) -> PythonEnvironment:
    """The environment of the interpreter at ``python`` (an absolute path on that machine)."""
    python = (python or "").strip()
    if not python.startswith("/"):
        return PythonEnvironment(python, None, exists=False, venv=False,
                                 problems=("not an absolute path",))
    python = posixpath.normpath(python)
    exists = system.exists(python)
    problems: list[str] = []
    folder, cfg = _cfg(system, python)
    venv = cfg is not None
    if folder is not None:
        prefix = folder
    else:
        bin_dir = posixpath.dirname(python)
        prefix = posixpath.dirname(bin_dir) if posixpath.basename(bin_dir) == "bin" else bin_dir
    cfg = cfg or {}
    version = _short(cfg.get("version") or cfg.get("version_info"))
    folders, found_version = _site_folders(system, prefix, version, venv)
    version = version or found_version
    marker = None
    if not venv and version:
        for lib in ("lib", "lib64"):
            path = posixpath.join(prefix, lib, f"python{version}", "EXTERNALLY-MANAGED")
            if system.exists(path):
                marker = path
                break
    conda = system.is_dir(posixpath.join(prefix, "conda-meta"))
    conda_base = conda and (system.is_dir(posixpath.join(prefix, "envs"))
                            or system.is_dir(posixpath.join(prefix, "condabin")))
    if not folders:
        problems.append("no site-packages found")
    dists = tuple(_distributions(system, folders, problems))
    return PythonEnvironment(
        python=python,
        prefix=prefix,
        exists=exists,
        venv=venv,
        home=cfg.get("home"),
        include_system_site_packages=cfg_flag(cfg.get("include-system-site-packages")),
        version=version,
        site_packages=tuple(folders),
        externally_managed=marker,
        conda=conda,
        conda_base=conda_base,
        distributions=dists,
        family=family_of(dists, table or load_torch_family()),
        problems=tuple(problems),
    )


@dataclass(frozen=True)
class AppRequirement:
    """A requirement of the PyTorch family in the app's own requirements file."""

    file: str
    requirement: Requirement

    @property
    def name(self) -> str:
        return canonical_name(self.requirement.name)


def app_requirements(system: System, env: PythonEnvironment,
                     table: TorchFamily | None = None) -> tuple[AppRequirement, ...]:
    """What the app pins of the family: ``requirements*.txt`` in the folder that holds the
    environment (ComfyUI/venv -> ComfyUI/requirements.txt). Read only."""
    if env.prefix is None:
        return ()
    family = {m.name for m in (table or load_torch_family()).members}
    app = posixpath.dirname(env.prefix.rstrip("/"))
    found: list[AppRequirement] = []
    names = [n for n in system.list_dir(app) or []
             if n.startswith("requirements") and n.endswith(".txt")]
    for name in names[:MAX_REQUIREMENT_FILES]:
        path = posixpath.join(app, name)
        for req in parse_requirements(system.read_text(path, 1 << 18) or ""):
            if canonical_name(req.name) in family:
                found.append(AppRequirement(path, req))
    return tuple(found)


_STAT = re.compile(r"^\s*([0-9]+)\s+([0-7]{3,4})\s*$")


def writable(system: System, path: str) -> bool | None:
    """Whether the environment's owner can write ``path``; None when not known (a replayed
    machine that did not record it, no ``test`` program).

    ``test -w`` asks the kernel as this user (a read-only mount says no even to root). Root
    passes every permission bit, so when rocmate runs as root the folder's owner bits decide:
    a venv its owner made read-only stays refused, as pip run by that owner would fail with
    "Permission denied", and a root-run pip would leave root-owned files in a user's venv."""
    answer = system.run(("test", "-w", path))
    if not answer.found or answer.timed_out:
        return None
    if answer.returncode != 0:
        return False
    if system.user().uid == 0:
        stat = system.run(("stat", "-L", "-c", "%u %a", path))
        match = _STAT.match(stat.output) if stat.ok else None
        if match is None:
            return None
        return bool(int(match.group(2), 8) & 0o200)
    return True
