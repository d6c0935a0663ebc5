"""The AppImage's licence files: rocmate's LICENSE and THIRD-PARTY-NOTICES.txt, written into
``usr/share/licenses/rocmate/`` (packaging/build_appimage.py calls :func:`write_notices`).

Every file PyInstaller put in the bundle is traced to where it came from, by its source path:

* a wheel in the build venv (its RECORD lists the file): the wheel's licence files from its
  dist-info, else the texts packaging/notices.toml names for it (PySide6 and shiboken6 ship
  none);
* the build's Python (its prefix): Python's LICENSE.txt;
* a Debian package (``dpkg -S``): its /usr/share/doc/PACKAGE/copyright, and the texts in
  /usr/share/common-licenses/ that copyright file refers to;
* rocmate's own sources: LICENSE.

The bootloader (the ``rocmate`` program) is PyInstaller's. A file whose origin cannot be found
stops the build: the image never carries a library without its notice.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
LICENCE_FOLDER = "usr/share/licenses/rocmate"
NOTICES_NAME = "THIRD-PARTY-NOTICES.txt"
COMMON_LICENSES = Path("/usr/share/common-licenses")
LICENCE_FILE = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE|AUTHORS)", re.IGNORECASE)
RULE = "=" * 78

# Run in the build venv's Python: every installed distribution, its licence and its files.
_DISTRIBUTIONS = r"""
import json, sys
from importlib.metadata import distributions
out = {"prefix": sys.base_prefix, "version": sys.version.split()[0], "dists": []}
for dist in distributions():
    meta = dist.metadata
    licence = meta.get("License-Expression") or meta.get("License") or ""
    if not licence or len(licence) > 200:
        licence = "; ".join(c.split(" :: ")[-1] for c in meta.get_all("Classifier") or []
                            if c.startswith("License ::")) or licence[:200]
    files = [str(dist.locate_file(f).resolve()) for f in dist.files or []]
    out["dists"].append({"name": meta["Name"], "version": dist.version, "licence": licence,
                         "author": meta.get("Author") or meta.get("Author-email") or "",
                         "files": files})
print(json.dumps(out))
"""


class NoticeError(Exception):
    """A bundled file whose licence could not be found."""


@dataclass
class Component:
    """One piece of other people's software in the image, with the bundle's files from it."""

    name: str
    version: str
    licence: str
    origin: str
    texts: list[Path] = field(default_factory=list)
    files: set[str] = field(default_factory=set)
    modules: int = 0
    data: int = 0
    note: str = ""


def build_python_facts(python: str) -> dict:
    """The build venv's Python: its prefix, version and distributions (with their files)."""
    done = subprocess.run([python, "-I", "-c", _DISTRIBUTIONS], capture_output=True, text=True,
                          timeout=300, check=False)
    if done.returncode != 0:
        raise NoticeError(f"could not list the build venv's packages: {done.stderr[-500:]}")
    return json.loads(done.stdout)


def read_toc(path: Path) -> list[tuple[str, str, str]]:
    """The (name, source, kind) entries of one of PyInstaller's TOC files."""
    value = ast.literal_eval(path.read_text())
    entries = value[0] if isinstance(value, tuple) and isinstance(value[0], list) else value
    if isinstance(entries, tuple):  # PYZ-00.toc: (archive name, entries)
        entries = entries[1]
    return [(str(e[0]), str(e[1]), str(e[2])) for e in entries if len(e) == 3]


def bundled_sources(work: Path, internal: Path) -> list[tuple[str, str, str]]:
    """Every file still in the bundle (COLLECT, after pruning) and every module in the archive
    (PYZ): (name in the bundle, source path, kind)."""
    folder = work / "pyinstaller-work" / "rocmate"
    collected = [e for e in read_toc(folder / "COLLECT-00.toc")
                 if (internal / e[0]).exists() and e[1]]
    modules = [e for e in read_toc(folder / "PYZ-00.toc") if e[1] and e[1] != "-"]
    return collected + modules


def normalised(name: str) -> str:
    """A distribution's name as PyPI compares them (PEP 503): PySide6_Essentials is
    pyside6-essentials."""
    return re.sub(r"[-_.]+", "-", name).lower()


def found_text(pattern: str) -> Path:
    """The file a notices.toml text names (a glob: the first match, e.g. libicu*)."""
    matches = sorted(Path("/").glob(pattern.lstrip("/")))
    if not matches:
        raise NoticeError(f"{pattern} (packaging/notices.toml) is not on the build machine")
    return matches[0]


def dist_texts(files: list[str]) -> list[Path]:
    """A distribution's licence files in its dist-info (licenses/ and LICENSE*, COPYING*, ...)."""
    texts = []
    for file in files:
        path = Path(file)
        parts = path.parts
        info = [i for i, p in enumerate(parts) if p.endswith(".dist-info")]
        if not info or not path.is_file():
            continue
        inside = parts[info[-1] + 1:]
        if inside[0] == "licenses" or LICENCE_FILE.match(inside[-1]):
            texts.append(path)
    return sorted(texts)


def debian_package(path: str) -> str | None:
    """The Debian package that installed ``path`` (merged /usr or not), or None."""
    candidates = [path, os.path.realpath(path)]
    candidates += ["/usr" + c for c in list(candidates) if c.startswith("/lib")]
    for candidate in candidates:
        done = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True,
                              timeout=60, check=False)
        if done.returncode == 0 and ":" in done.stdout:
            return done.stdout.split(":", 1)[0].strip()
    return None


def debian_component(package: str) -> Component:
    """A Debian package: its version and its copyright file."""
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True,
                             text=True, timeout=60, check=False).stdout.strip()
    copyright_file = Path("/usr/share/doc") / package.split(":")[0] / "copyright"
    if not copyright_file.is_file():
        raise NoticeError(f"Debian package {package} has no {copyright_file}")
    return Component(package.split(":")[0], version, "see its copyright file",
                     "Debian package, as the build machine has it", [copyright_file])


class Tracer:
    """Finds, for each bundled file, the component it came from."""

    def __init__(self, facts: dict, extra: dict, work: Path) -> None:
        self.prefix = Path(facts["prefix"]).resolve()
        self.work = work.resolve()
        self.owners: dict[str, Component] = {}
        self.components: dict[str, Component] = {}
        python = Component("Python", facts["version"], "PSF-2.0",
                           "the interpreter and its standard library, from the build machine",
                           [self.prefix / "lib" / f"python{facts['version'][:4].rstrip('.')}"
                            / "LICENSE.txt"])
        self.components["Python"] = python
        for dist in facts["dists"]:
            component = self._wheel(dist, extra.get(normalised(dist["name"]), {}))
            for file in dist["files"]:
                self.owners.setdefault(file, component)

    def _wheel(self, dist: dict, extra: dict) -> Component:
        texts = dist_texts(dist["files"])
        texts += [found_text(t) for t in extra.get("texts", [])]
        note = extra.get("note", "")
        if not texts:
            note = note or (f"The package ships no licence file; its metadata says: "
                            f"{dist['licence']} (author: {dist['author'] or 'not named'}).")
        return Component(dist["name"], dist["version"], dist["licence"],
                         "Python package (wheel) from PyPI", texts, note=note)

    def trace(self, name: str, source: str, kind: str) -> None:
        """Count one bundled file (or archived module) for the component it came from."""
        real = str(Path(source).resolve())
        component = self.owners.get(real)
        if component is None and Path(real).is_relative_to(self.work):
            # what PyInstaller made: the stdlib's base_library.zip, or its own files
            component = self.components["Python"] if name == "base_library.zip" else \
                self._named("pyinstaller")
        if component is None and Path(real).is_relative_to(ROOT):
            return  # rocmate's own sources: LICENSE
        if component is None and Path(real).is_relative_to(self.prefix):
            component = self.components["Python"]
        if component is None:
            package = debian_package(source)
            if package is None:
                raise NoticeError(f"where does {name} ({source}) come from? No wheel, not "
                                  "Python, no Debian package: its licence is unknown")
            key = package.split(":")[0]
            component = self.components.setdefault(key, debian_component(package))
        self.components.setdefault(component.name, component)
        if kind == "PYMODULE":
            component.modules += 1
        elif kind in ("BINARY", "EXTENSION"):
            component.files.add(name)
        else:
            component.data += 1


    def claim(self, dist: str, name: str) -> None:
        """``name`` in the bundle came from the distribution ``dist`` (not traced by path)."""
        self._named(dist).files.add(name)

    def _named(self, dist: str) -> Component:
        """The component of the build venv's distribution ``dist``."""
        found = {normalised(c.name): c for c in self.owners.values()}.get(dist)
        if found is None:
            raise NoticeError(f"{dist} is not in the build venv")
        return self.components.setdefault(found.name, found)


def common_licences(texts: list[Path]) -> list[Path]:
    """The texts in /usr/share/common-licenses/ that Debian copyright files refer to."""
    names: set[str] = set()
    for path in texts:
        if path.name == "copyright":
            names.update(re.findall(r"/usr/share/common-licenses/([A-Za-z0-9.+-]+)",
                                    path.read_text(errors="replace")))
    return [COMMON_LICENSES / n for n in sorted(names) if (COMMON_LICENSES / n).is_file()]


def label(text: Path) -> str:
    """A licence text's name in the notices: its path inside the dist-info, else in full."""
    parts = text.parts
    info = [i for i, p in enumerate(parts) if p.endswith(".dist-info")]
    return "/".join(parts[info[-1] + 1:]) if info else str(text)


def render(components: list[Component]) -> str:
    """THIRD-PARTY-NOTICES.txt: the list of components with their files, then every text."""
    lines = ["Third-party software in the rocmate AppImage", RULE, "",
             "rocmate itself is under the MIT licence (LICENSE beside this file). The image also",
             "carries the software below, each under its own licence; the full texts follow the",
             "list. The libraries are plain shared libraries in usr/lib/rocmate/_internal/: under",
             "the LGPL you may replace them (extract the image with --appimage-extract).", ""]
    for c in components:
        lines.append(f"* {c.name} {c.version}: {c.licence} ({c.origin})")
        if c.files:
            lines.append("  files: " + ", ".join(sorted(c.files)))
        counted = [f"{c.modules} Python modules in the program's archive"] if c.modules else []
        counted += [f"{c.data} other files"] if c.data else []
        if counted:
            lines.append("  " + ", ".join(counted))
        if c.note:
            lines.append("  " + c.note)
    used = [t for c in components for t in c.texts]
    shown: set[Path] = set()
    for c in components:
        for text in c.texts:
            if text.resolve() in shown:
                lines += ["", f"{c.name} {c.version}: {label(text)} (the same text as above)"]
                continue
            shown.add(text.resolve())
            lines += ["", RULE, f"{c.name} {c.version}: {label(text)}", RULE, "",
                      text.read_text(errors="replace").rstrip()]
    for text in [t for t in common_licences(used) if t.resolve() not in shown]:
        shown.add(text.resolve())
        lines += ["", RULE, f"{text} (referred to by the Debian copyright files above)", RULE,
                  "", text.read_text(errors="replace").rstrip()]
    return "\n".join(lines) + "\n"


def write_notices(python: str, work: Path, bundle: Path, appdir: Path) -> int:
    """Write LICENSE and THIRD-PARTY-NOTICES.txt into the AppDir; the number of components."""
    extra = tomllib.loads((ROOT / "packaging" / "notices.toml").read_text())
    tracer = Tracer(build_python_facts(python), extra.get("package", {}), work)
    for name, source, kind in bundled_sources(work, bundle / "_internal"):
        tracer.trace(name, source, kind)
    tracer.claim("pyinstaller", "rocmate (the program: PyInstaller's bootloader)")
    components = sorted((c for c in tracer.components.values()
                         if c.files or c.modules or c.data),
                        key=lambda c: c.name.lower())
    folder = appdir / LICENCE_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "LICENSE", folder / "LICENSE")
    (folder / NOTICES_NAME).write_text(render(components))
    return len(components)
