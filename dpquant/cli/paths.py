"""Output paths of the command line, checked before any work.

An output file must not be a folder and an output folder must not be a file; the nearest existing
folder on the way must be writable (tested by creating and removing a file in it: the one test
that holds for every user, root included, and every file system). Missing parent folders of an
output path are created when the output is written. Every refusal is a :class:`UsageError`
naming the option.

Standard output is an output too: :func:`print_out` writes a listing's lines, and a reader that
has gone (``dpquant claims | head -1``) ends the listing quietly. Python raised
``BrokenPipeError`` (an ``OSError``: "error: Broken pipe", exit code 2) instead; now the rest of
the output goes to ``os.devnull`` (so that Python's own flush at exit says nothing either) and the
command ends with the code it would have had.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dpquant.options import UsageError, show


def path_text(text: Any, option: str) -> str:
    s = str(text)
    if not s:
        raise UsageError(f"{option} needs a path, got an empty string")
    if "\0" in s:
        raise UsageError(f"{option} must not contain a NUL character, got {show(s)}")
    return s


def _stat(path: Path, option: str, shown: str) -> os.stat_result | None:
    """``path.stat()``, None when the path does not exist; a usage error naming ``option``
    when it cannot exist (a file on the way) or cannot be looked up."""
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        blocker, _ = _nearest_existing(path, option, shown)
        raise UsageError(
            f"{option} {shown} lies under {str(blocker)!r}, which is a file, not a folder"
        ) from None
    except OSError as exc:
        raise UsageError(f"{option} {shown}: {exc.strerror or exc}") from None


def _nearest_existing(path: Path, option: str, shown: str) -> tuple[Path, os.stat_result]:
    """The nearest existing ancestor of ``path`` and its stat."""
    for parent in path.parents:
        try:
            return parent, parent.stat()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            raise UsageError(f"{option} {shown}: {exc.strerror or exc}") from None
    raise UsageError(f"{option} {shown}: no existing folder on the way")  # pragma: no cover


def _probe_folder(folder: Path, option: str, shown: str) -> None:
    """Create and remove a temporary file in ``folder``: the one test of writability that holds
    for every user (root included) and every file system (read-only mounts, /proc)."""
    try:
        fd, name = tempfile.mkstemp(prefix=".dpquant-write-test-", dir=folder)
    except OSError as exc:
        raise UsageError(
            f"{option} {shown}: cannot write in the folder {str(folder)!r} ({exc.strerror or exc})"
        ) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(name)


def _writable_parent(path: Path, option: str, shown: str) -> None:
    """The nearest existing ancestor of a path to create is a writable folder."""
    parent, st = _nearest_existing(path, option, shown)
    if not stat.S_ISDIR(st.st_mode):
        raise UsageError(
            f"{option} {shown} lies under {str(parent)!r}, which is a file, not a folder"
        )
    _probe_folder(parent, option, shown)


def check_output_file(text: Any, option: str, suffixes: Sequence[str] | None = None) -> Path:
    """The path of an output file, checked before any work: not a folder, not under a file,
    in a writable folder (missing folders on the way are created when the file is written),
    with one of ``suffixes`` when given. Raises :class:`UsageError` naming ``option``."""
    s = path_text(text, option)
    shown = show(s)
    if s.endswith(("/", os.sep)):
        raise UsageError(f"{option} {shown} names a folder; give a file path")
    path = Path(s)
    if suffixes is not None and path.suffix.lower().lstrip(".") not in suffixes:
        raise UsageError(
            f"{option} must end in a format suffix (.{', .'.join(suffixes)}), got {shown}"
        )
    st = _stat(path, option, shown)
    if st is None:
        _writable_parent(path, option, shown)
        return path
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{option} {shown} is a folder; give a file path")
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISCHR(st.st_mode)):
        raise UsageError(f"{option} {shown} is not a regular file")
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0)))
    except OSError as exc:
        raise UsageError(f"{option} {shown}: cannot write it ({exc.strerror or exc})") from None
    return path


def check_output_folder(text: Any, option: str, files: Sequence[str] = ()) -> Path:
    """The path of an output folder, checked before any work: not a file, not under a file,
    writable (or, when missing, its nearest existing ancestor is; it is created when written);
    ``files`` inside it, when they exist, must not be folders (a name ending in ``/`` must not
    be a file). Raises :class:`UsageError` naming ``option``."""
    s = path_text(text, option)
    shown = show(s)
    path = Path(s)
    st = _stat(path, option, shown)
    if st is None:
        _writable_parent(path, option, shown)
        return path
    if not stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{option} {shown} is a file, not a folder")
    _probe_folder(path, option, shown)
    for name in files:
        inner = _stat(path / name.rstrip("/"), option, shown)
        if inner is not None and stat.S_ISDIR(inner.st_mode) != name.endswith("/"):
            what = "a file" if name.endswith("/") else "a folder"
            raise UsageError(f"{option} {shown}: {name.rstrip('/')!r} inside it is {what}")
    return path


def distinct_paths(paths: dict[str, Path | None]) -> None:
    seen: dict[str, str] = {}
    for option, path in paths.items():
        if path is None:
            continue
        key = os.path.normcase(os.path.abspath(path))
        if key in seen:
            raise UsageError(f"{seen[key]} and {option} name the same file {str(path)!r}")
        seen[key] = option


def write_text(path: Path, text: str, option: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{option}: cannot write {str(path)!r} ({exc.strerror or exc})") from None


def _silence_stdout() -> None:
    """Point the file descriptor of stdout at ``os.devnull`` (a stdout without one, as under
    pytest's capture, is left alone)."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is both
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def print_out(text: str) -> bool:
    """Print ``text`` on stdout, flushed; False (and stdout silenced) when the reader has gone
    (module docstring)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        _silence_stdout()
        return False
    return True


__all__ = [
    "check_output_file",
    "check_output_folder",
    "distinct_paths",
    "path_text",
    "print_out",
    "write_text",
]
