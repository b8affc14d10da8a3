"""Files the command line writes (``kmeviz reproduce --out``): never through a symbolic
link, never over an existing file unless asked, and a bad folder is one clear line."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path


class OutputError(ValueError):
    """A file or folder the command cannot write; its message is the one line to print."""


def output_folder(out, flag: str = "--out") -> Path:
    """``out`` as an existing, writable folder (created if missing)."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{flag} {out}: exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{flag} {out}: cannot create the folder "
                          f"({exc.strerror or exc})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputError(f"{flag} {out}: the folder is not writable")
    return path


def check_real_folder(folder: Path, shown, flag: str = "--out", *,
                      overwrite: bool = False) -> None:
    """Refuse a folder reached through a symbolic link (itself or one of its parents),
    unless ``overwrite`` (``--overwrite``: the user accepts where it leads): a link
    planted on the way would send the file elsewhere. The message names where it leads."""
    absolute = Path(os.path.abspath(folder))
    real = Path(os.path.realpath(absolute))
    if real != absolute and not overwrite:
        raise OutputError(f"{flag} {shown}: the folder {absolute} goes through a symbolic "
                          f"link (to {real}); give the real folder, or pass --overwrite "
                          "to write there")


def check_writable(target: Path, *, overwrite: bool) -> None:
    """Refuse a symbolic link always, and an existing file unless ``overwrite``."""
    if target.is_symlink():
        raise OutputError(f"{target} is a symbolic link: kmeviz does not write through "
                          "links (remove it, or choose another --out)")
    if target.is_dir():
        raise OutputError(f"{target} is a folder: kmeviz replaces files only (remove it, "
                          "or choose another --out)")
    if target.exists() and not overwrite:
        raise OutputError(f"{target} exists: pass --overwrite to replace it")


def write_file(target: Path, write: Callable[[str], None], *, overwrite: bool) -> Path:
    """``write(path)`` into a new temporary file beside ``target``, then rename it to
    ``target``: the rename replaces the directory entry itself, so even a link created
    meanwhile is replaced, never followed."""
    check_writable(target, overwrite=overwrite)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}.",
                               suffix=target.suffix)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target
