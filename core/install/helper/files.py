"""File writes of the privileged helper, each one undoable, none through a symbolic link.

Folders are opened one component at a time with ``O_NOFOLLOW`` from the target's root, so a link
swapped in after the checks is never followed; files are written to a temporary name in the same
folder and renamed over the old one, so a name holds either its old or its new content, never
nothing (also when a rollback puts the old content back on a full disk). :class:`Transaction`
keeps what every write replaced (in memory) and puts it all back, newest first, when a later step
fails; a temporary file that an interruption left behind is removed by the same rollback.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from dataclasses import dataclass, field

from core.install.helper.target import Target

__all__ = ["FileFailed", "Transaction"]

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_READ = 4 << 20
"""The largest file whose old content a write keeps (rocmate's apt files are a few KiB)."""


class FileFailed(RuntimeError):
    """A write could not be made safely (the message says why)."""


@dataclass(frozen=True)
class _Saved:
    """What a name in a folder held before the run touched it (``data`` None: nothing)."""

    name: str
    data: bytes | None = None
    mode: int = 0o644
    uid: int = 0
    gid: int = 0


@dataclass
class _Undo:
    """One change to undo: a folder, the names in it as they were, and the temporary names the
    run's writes there used (any one still present is a leftover to remove)."""

    folder: str
    saved: list[_Saved] = field(default_factory=list)
    created_folder: bool = False
    temps: list[str] = field(default_factory=list)


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


def _read(dir_fd: int, name: str, shown: str) -> _Saved | None:
    """The current content of ``name`` in the folder (None when absent); ``shown`` names it in
    messages. A symbolic link, or anything but a plain file, is refused."""
    try:
        info = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise FileFailed(f"{shown} is a symbolic link; refusing to write through it")
    if not stat.S_ISREG(info.st_mode):
        raise FileFailed(f"{shown} is not a plain file")
    fd = os.open(name, READ_FLAGS, dir_fd=dir_fd)
    try:
        opened = os.fstat(fd)
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
            raise FileFailed(f"{shown} changed while it was read")
        chunks = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > MAX_READ:
                raise FileFailed(f"{shown} is too large to keep a copy of")
            chunks.append(chunk)
    finally:
        os.close(fd)
    return _Saved(name, data=b"".join(chunks), mode=stat.S_IMODE(info.st_mode),
                  uid=info.st_uid, gid=info.st_gid)


def _write(dir_fd: int, name: str, data: bytes, mode: int, uid: int, gid: int,
           temps: list[str]) -> None:
    """Write ``name`` atomically: a fresh temporary file in the folder, then a rename over it.

    Whatever stops the write (an error, :class:`Cancelled`), the temporary file is removed again
    and ``name`` is as it was. Its name goes into ``temps`` before it is created, so that a
    rollback removes it should even that clean-up be cut short."""
    temp = f".rocmate-{secrets.token_hex(8)}.tmp"
    temps.append(temp)
    ours = True  # the temporary name, while it may hold a file this call created
    try:
        try:
            fd = os.open(temp, TEMP_FLAGS, 0o600, dir_fd=dir_fd)
        except FileExistsError:
            ours = False  # someone else's file: never remove it
            temps.remove(temp)
            raise
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if os.geteuid() == 0:
                os.fchown(fd, uid, gid)
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        ours = False
    finally:
        if ours:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
    os.fsync(dir_fd)


def _restore(dir_fd: int, saved: _Saved, temps: list[str]) -> str:
    """Put one name back as it was (old content through a temporary file and a rename: if that
    fails, the name keeps the run's content); a description of what was done."""
    if saved.data is None:
        try:
            os.unlink(saved.name, dir_fd=dir_fd)
        except FileNotFoundError:
            return ""
        return "removed"
    _write(dir_fd, saved.name, saved.data, saved.mode, saved.uid, saved.gid, temps)
    return "restored"


def _holds(dir_fd: int, saved: _Saved) -> bool:
    """Whether the name still holds exactly what was saved (content, mode and owner)."""
    try:
        current = _read(dir_fd, saved.name, saved.name)
    except (OSError, FileFailed):
        return False
    return current is not None and (current.data, current.mode, current.uid, current.gid) == (
        saved.data, saved.mode, saved.uid, saved.gid)


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
            old = _read(fd, name, path)
            owner = os.geteuid()  # root's, when the helper runs as it should
            if old is not None and (old.data, old.mode, old.uid) == (data, mode, owner):
                return "unchanged"
            record.saved.append(old or _Saved(name))
            if not created:
                self.undo.append(record)
            _write(fd, name, data, mode, 0, 0, record.temps)
        except OSError as exc:
            raise FileFailed(f"cannot write {path}: {exc.strerror}") from exc
        finally:
            os.close(fd)
        return "done"

    def read(self, path: str) -> tuple[bytes, int, int] | None:
        """The content, mode and owner's uid of the target's ``path`` (None when there is no
        such file), read without following a link; a link or a non-file is a :class:`FileFailed`."""
        folder, name = os.path.split(path)
        try:
            fd, _ = open_folder(self.target, folder)
        except FileFailed:
            if not os.path.lexists(self.target.host(folder)):
                return None
            raise
        try:
            saved = _read(fd, name, path)
        except OSError as exc:
            raise FileFailed(f"cannot read {path}: {exc.strerror}") from exc
        finally:
            os.close(fd)
        return None if saved is None else (saved.data or b"", saved.mode, saved.uid)

    def remove(self, path: str) -> str:
        """Remove a plain file (kept for the rollback); "unchanged" when there is none."""
        folder, name = os.path.split(path)
        try:
            fd, _ = open_folder(self.target, folder)
        except FileFailed:
            if not os.path.lexists(self.target.host(folder)):
                return "unchanged"
            raise
        try:
            old = _read(fd, name, path)
            if old is None:
                return "unchanged"
            record = _Undo(folder, saved=[old])
            self.undo.append(record)
            os.unlink(name, dir_fd=fd)
            os.fsync(fd)
        except OSError as exc:
            raise FileFailed(f"cannot remove {path}: {exc.strerror}") from exc
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
        """Put back the names of one folder, remove leftover temporary files; remove the folder
        if this run created it."""
        done: list[str] = []
        try:
            fd, _ = open_folder(self.target, record.folder)
        except FileFailed as exc:
            return [f"could not restore {record.folder}: {exc}"]
        try:
            for saved in reversed(record.saved):
                path = os.path.join(record.folder, saved.name)
                try:
                    what = _restore(fd, saved, record.temps)
                except OSError as exc:
                    if _holds(fd, saved):
                        continue  # the run's own write had failed (a full disk): never changed
                    done.append(f"could not restore {path} ({exc.strerror}); "
                                "it keeps this run's content")
                    continue
                if what:
                    done.append(f"{what} {path}")
            for temp in record.temps:
                try:
                    os.unlink(temp, dir_fd=fd)
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    done.append(f"could not remove {record.folder}/{temp} ({exc.strerror})")
                    continue
                done.append(f"removed leftover {record.folder}/{temp}")
        finally:
            os.close(fd)
        if record.created_folder:
            parent, name = os.path.split(record.folder)
            try:
                parent_fd, _ = open_folder(self.target, parent)
            except FileFailed:
                return done
            try:
                os.rmdir(name, dir_fd=parent_fd)
                done.append(f"removed folder {record.folder}")
            except OSError:
                pass
            finally:
                os.close(parent_fd)
        return done
