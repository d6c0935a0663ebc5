"""Throwaway virtual environments and a local wheel folder for the repair tests (issue 34).

Real pip in a real venv, against small stand-in wheels built here, offline: pip reads no
configuration (``PIP_CONFIG_FILE=/dev/null``: this machine's pip.conf names /opt/wheels and
file:///opt/pypi) and no index (``PIP_NO_INDEX=1``), only ``PIP_FIND_LINKS`` = the folder. The
plans keep their real index URLs (download.pytorch.org/whl/rocm6.2, .../whl/cpu): with
``--no-index`` pip ignores them, as a user with a local mirror would see it. The wheels are
named and versioned as download.pytorch.org's (torch 2.5.1+cpu, 2.5.1+rocm6.2; torch's ROCm
build requires pytorch-triton-rocm==3.1.0, as the real one's METADATA does); they hold a
package folder with one small module each, nothing of PyTorch (no GPU or ROCm is needed).
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

FAMILY_DIRS = ("torch", "torchvision", "torchaudio", "triton")
"""Top-level folders of the family's packages (left out of the byte comparison)."""


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def wheel(folder: Path, name: str, version: str, requires: tuple[str, ...] = (),
          package: str | None = None, extras: dict[str, tuple[str, ...]] | None = None) -> Path:
    """A pure-Python stand-in wheel ``name==version`` whose package ``package`` (default: the
    name) holds ``__init__.py`` with the version in it; ``extras``: extra -> requirements."""
    dist = name.replace("-", "_")
    package = package or dist
    info = f"{dist}-{version}.dist-info"
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
            *(f"Requires-Dist: {r}" for r in requires)]
    for extra, needs in (extras or {}).items():
        meta.append(f"Provides-Extra: {extra}")
        meta += [f'Requires-Dist: {r}; extra == "{extra}"' for r in needs]
    files = {
        f"{package}/__init__.py": f"__version__ = {version!r}\n".encode(),
        f"{info}/METADATA": ("\n".join(meta) + "\n").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: rocmate-test\nRoot-Is-Purelib: true\n"
                         b"Tag: py3-none-any\n",
    }
    record = [_record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = folder / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    return path


def offline_env(wheels: Path) -> dict[str, str]:
    """The variables that keep every pip of a test on ``wheels`` alone."""
    return {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1"}


def make_venv(prefix: Path, wheels: Path, packages: list[str]) -> Path:
    """``python -m venv prefix`` (pip from ensurepip, offline) with ``packages`` installed
    from ``wheels``; returns its python."""
    env = {**os.environ, **offline_env(wheels)}
    subprocess.run([sys.executable, "-m", "venv", str(prefix)], check=True, env=env,
                   capture_output=True, timeout=300)
    python = prefix / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--isolated", "--no-index",
                    "--find-links", str(wheels), *packages], check=True, env=env,
                   capture_output=True, timeout=300)
    return python


def freeze(python: Path, wheels: Path) -> str:
    env = {**os.environ, **offline_env(wheels)}
    out = subprocess.run([str(python), "-m", "pip", "freeze", "--all"], check=True, env=env,
                         capture_output=True, text=True, timeout=120)
    return out.stdout


def site_packages(prefix: Path) -> Path:
    return next((prefix / "lib").glob("python3.*/site-packages"))


def outside_family(prefix: Path, family: tuple[str, ...] = FAMILY_DIRS) -> dict[str, str]:
    """sha256 of every file of site-packages and bin/ that is not the family's (its package
    folders and dist-info folders) and not a byte-code cache: what a repair must not touch."""
    site = site_packages(prefix)
    found: dict[str, str] = {}
    for root in (site, prefix / "bin"):
        for path in sorted(root.rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            rel = path.relative_to(prefix)
            top = path.relative_to(root).parts[0]
            name = top.split("-")[0].lower()
            if root == site and (name in family or name.startswith(("pytorch_triton",))):
                continue
            found[str(rel)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found
