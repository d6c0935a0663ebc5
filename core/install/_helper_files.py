"""File writes of the privileged helper, each one undoable, none through a symbolic link.

Folders are opened one component at a time with ``O_NOFOLLOW`` from the target's root, so a link
swapped in after the checks is never followed; files are written to a temporary name in the same
folder and renamed over the old one. :class:`Transaction` keeps what every write replaced (in
memory) and puts it all back, newest first, when a later step fails.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import glob
import os
import secrets
import stat
from dataclasses import dataclass, field

from core.install._helper_target import Target

__all__ = ["FileFailed", "Transaction"]

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
MAX_READ = 256 << 20
HSA_GLOB = "libhsa-runtime64.so*"
HSA_NAME = "libhsa-runtime64.so"
HSA_SOURCE_GLOB = "/opt/rocm/lib/libhsa-runtime64.so.1.*"


class FileFailed(RuntimeError):
    """A write could not be made safely (the message says why)."""


@dataclass(frozen=True)
class _Saved:
    """What a name in a folder held before the run touched it (None: nothing)."""

    name: str
    data: bytes | None = None
    link: str | None = None
    mode: int = 0o644
    uid: int = 0
    gid: int = 0


@dataclass
class _Undo:
    """One change to undo: a folder and the names in it as they were."""

    folder: str
    saved: list[_Saved] = field(default_factory=list)
    created_folder: bool = False


def open_folder(target: Target, folder: str, create: bool = False) -> tuple[int, bool]:
    """An fd for the target's ``folder``, walked without following links; (fd, created)."""
    fd = os.open(target.real_root, DIR_FLAGS)
    created = False
    try:
        parts = [p for p in folder.split("/") if p]
        for number, part in enumerate(parts):
            try:
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not (create and number == len(parts) - 1):
                    raise
                os.mkdir(part, 0o755, dir_fd=fd)
                created = True
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise FileFailed(f"{folder} goes through a symbolic link or a non-folder") from exc
        raise FileFailed(f"cannot open {folder}: {exc.strerror}") from exc
    return fd, created


def _read(dir_fd: int, name: str) -> _Saved | None:
    """The current state of ``name`` in the folder (None when absent)."""
    try:
        info = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return _Saved(name, link=os.readlink(name, dir_fd=dir_fd), uid=info.st_uid,
                      gid=info.st_gid)
    if not stat.S_ISREG(info.st_mode):
        raise FileFailed(f"{name} is not a plain file")
    fd = os.open(name, READ_FLAGS, dir_fd=dir_fd)
    try:
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
            raise FileFailed(f"{name} changed while it was read")
        chunks = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > MAX_READ:
                raise FileFailed(f"{name} is too large to keep a copy of")
            chunks.append(chunk)
    finally:
        os.close(fd)
    return _Saved(name, data=b"".join(chunks), mode=stat.S_IMODE(info.st_mode),
                  uid=info.st_uid, gid=info.st_gid)


def _write(dir_fd: int, name: str, data: bytes, mode: int, uid: int, gid: int) -> None:
    """Write ``name`` atomically: a fresh temporary file in the folder, then a rename."""
    temp = f".rocmate-{secrets.token_hex(8)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o600, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if os.geteuid() == 0:
            os.fchown(fd, uid, gid)
        os.fchmod(fd, mode)
        os.fsync(fd)
    except OSError:
        os.close(fd)
        os.unlink(temp, dir_fd=dir_fd)
        raise
    os.close(fd)
    os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    os.fsync(dir_fd)


def _restore(dir_fd: int, saved: _Saved) -> str:
    """Put one name back as it was; a description of what was done."""
    if saved.data is None and saved.link is None:
        try:
            os.unlink(saved.name, dir_fd=dir_fd)
        except FileNotFoundError:
            return ""
        return "removed"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(saved.name, dir_fd=dir_fd)
    if saved.link is not None:
        os.symlink(saved.link, saved.name, dir_fd=dir_fd)
        if os.geteuid() == 0:
            os.chown(saved.name, saved.uid, saved.gid, dir_fd=dir_fd, follow_symlinks=False)
    else:
        assert saved.data is not None
        _write(dir_fd, saved.name, saved.data, saved.mode, saved.uid, saved.gid)
    return "restored"


@dataclass
class Transaction:
    """Every file change of one run, to be undone if the run fails."""

    target: Target
    undo: list[_Undo] = field(default_factory=list)

    def write(self, path: str, data: bytes, mode: int = 0o644) -> str:
        """Write a root-owned file; "unchanged" if it already holds exactly this, else "done"."""
        folder, name = os.path.split(path)
        fd, created = open_folder(self.target, folder, create=True)
        record = _Undo(folder, created_folder=created)
        if created:
            self.undo.append(record)
        try:
            old = _read(fd, name)
            if old is not None and old.link is not None:
                raise FileFailed(f"{path} is a symbolic link; refusing to write through it")
            owner = os.geteuid()  # root's, when the helper runs as it should
            if old is not None and (old.data, old.mode, old.uid) == (data, mode, owner):
                return "unchanged"
            record.saved.append(old or _Saved(name))
            if not created:
                self.undo.append(record)
            _write(fd, name, data, mode, 0, 0)
        except OSError as exc:
            raise FileFailed(f"cannot write {path}: {exc.strerror}") from exc
        finally:
            os.close(fd)
        return "done"

    def hsa_swap(self, folder: str, copy: bool) -> str:
        """Remove the bundled ``libhsa-runtime64.so*`` in ``folder``; copy the system one in."""
        source = _hsa_source(self.target) if copy else None
        fd, _ = open_folder(self.target, folder)
        try:
            info = os.fstat(fd)
            present = sorted(n for n in os.listdir(fd) if fnmatch.fnmatch(n, HSA_GLOB))
            if source is None and not present:
                return "unchanged"
            if source is not None and present == [HSA_NAME]:
                current = _read(fd, HSA_NAME)
                if current is not None and current.data == source:
                    return "unchanged"
            record = _Undo(folder)
            self.undo.append(record)
            for name in present:
                saved = _read(fd, name)
                if saved is None:
                    continue
                if saved.data is not None and saved.uid != info.st_uid:
                    raise FileFailed(f"{folder}/{name} does not belong to the folder's owner")
                record.saved.append(saved)
                os.unlink(name, dir_fd=fd)
            if source is not None:
                if HSA_NAME not in present:
                    record.saved.append(_Saved(HSA_NAME))
                _write(fd, HSA_NAME, source, 0o755, info.st_uid, info.st_gid)
        except OSError as exc:
            raise FileFailed(f"cannot change {folder}: {exc.strerror}") from exc
        finally:
            os.close(fd)
        return "done"

    def rollback(self) -> list[str]:
        """Undo every change, newest first; what was done, one line per file."""
        done: list[str] = []
        for record in reversed(self.undo):
            done.extend(self._undo_one(record))
        self.undo.clear()
        return done

    def _undo_one(self, record: _Undo) -> list[str]:
        """Put back the names of one folder; remove the folder if this run created it."""
        done: list[str] = []
        try:
            fd, _ = open_folder(self.target, record.folder)
        except FileFailed as exc:
            return [f"could not restore {record.folder}: {exc}"]
        try:
            for saved in reversed(record.saved):
                try:
                    what = _restore(fd, saved)
                except OSError as exc:
                    what = f"could not restore ({exc.strerror})"
                if what:
                    done.append(f"{what} {os.path.join(record.folder, saved.name)}")
        finally:
            os.close(fd)
        if record.created_folder:
            try:
                os.rmdir(self.target.host(record.folder))
                done.append(f"removed folder {record.folder}")
            except OSError:
                pass
        return done


def _hsa_source(target: Target) -> bytes:
    """The system HSA runtime (the one file behind /opt/rocm/lib/libhsa-runtime64.so.1.*)."""
    real_opt = os.path.realpath(target.host("/opt"))
    found = {os.path.realpath(p) for p in glob.glob(target.host(HSA_SOURCE_GLOB))}
    files = sorted(p for p in found if os.path.isfile(p) and p.startswith(real_opt + "/rocm"))
    if len(files) != 1:
        raise FileFailed(
            f"expected one {HSA_SOURCE_GLOB}, found {len(files)} (install ROCm for WSL first)"
        )
    real = files[0]
    relative = os.path.relpath(real, target.real_root)
    folder, name = os.path.split("/" + relative)
    fd, _ = open_folder(target, folder)
    try:
        saved = _read(fd, name)
    finally:
        os.close(fd)
    if saved is None or saved.data is None or saved.uid != 0:
        raise FileFailed(f"{real} is not a root-owned file")
    return saved.data
