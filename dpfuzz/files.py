"""Files written whole or not at all, to paths checked before any work."""

from __future__ import annotations

import glob
import os
import stat
import tempfile
from pathlib import Path

from dpfuzz.errors import InvalidArgument
from dpfuzz.process_tree import running


def write_atomically(path: str | Path, text: str) -> None:
    """Write `text` to `path` through a temporary file beside it and one rename, so a reader (a
    browser, CI's artifact upload) or a kill never meets a half-written file. A symbolic link
    is followed (the file it names is replaced, the link kept); a path that holds anything but
    a regular file (a device, a folder, a pipe) is refused, never replaced."""
    path = _target(Path(path), "a report")
    _remove_stale_parts(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        temporary.write_text(text)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _remove_stale_parts(path: Path) -> None:
    """Remove the temporary files of earlier writes to `path` whose process is gone (killed
    mid-write)."""
    for part in path.parent.glob(f".{glob.escape(path.name)}.*.part"):
        pid = part.name[len(path.name) + 2 : -len(".part")]
        if pid.isdigit() and not running(int(pid)):
            part.unlink(missing_ok=True)


def check_writable_file(path: str | Path, what: str) -> Path:
    """`path`, once a file can be written there: its folder made, and a trial file written and
    removed in it. Otherwise `InvalidArgument` naming `what`, the path and why (a read-only
    file system, a folder that is a file, no permission, a path that is not a regular file)."""
    path = Path(path)
    target = _target(path, what)
    _check_folder(target.parent, what, path)
    return path


def check_writable_folder(folder: str | Path, what: str) -> Path:
    """`folder`, once files can be written in it (made if missing); otherwise `InvalidArgument`
    naming `what`, the folder and why."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InvalidArgument(f"{what} {folder} is not a folder; give a folder path.")
    _check_folder(folder, what, folder)
    return folder


def _target(path: Path, what: str) -> Path:
    """The file `path` names (through a symbolic link), refused unless it is absent or a regular
    file."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if target.exists() and not stat.S_ISREG(target.stat().st_mode):
        kind = "a folder" if target.is_dir() else "not a regular file (a device, pipe or socket)"
        raise InvalidArgument(f"{what} {path} is {kind}; give the path of a file to write.")
    return target


def _check_folder(folder: Path, what: str, path: Path) -> None:
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise InvalidArgument(
            f"{what} {path} cannot be written: {existing} is a file, not a folder; give a path in"
            " a folder."
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".dpfuzz-check-"):
            pass
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise InvalidArgument(
            f"{what} {path} cannot be written: {reason} ({error.filename or folder}); give a path"
            " in a folder you can write to."
        ) from None
