"""The ``dpquant`` program: its parser (one sub-parser per command, each from its own module) and
:func:`main`, which turns every outcome into an exit code (:mod:`.messages`) and never raises.

Option values and output paths are checked before any work; a usage error is one line on stderr
(``dpquant: error: ...``) and exit code 2. Warnings raised during a command that completed are
shown once each, one line, after it.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import traceback
import warnings
from collections.abc import Sequence
from typing import NoReturn

from dpquant.cli import audit, certify, claims, mechanisms, reproduce, validate
from dpquant.cli.messages import (
    EXIT_ERROR,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    exception_text,
    fail,
    one_line,
)
from dpquant.metadata import package_version
from dpquant.options import UsageError, show


class Parser(argparse.ArgumentParser):
    """argparse with its errors raised (one line, exit 2) instead of usage text and exit; the
    sub-parsers are of the same class."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``dpquant``: the commands ``claims``, ``audit``, ``validate``,
    ``mechanisms`` and ``reproduce``; each sets ``func`` to the function that runs it."""
    parser = Parser(
        prog="dpquant",
        description="Reference DP quantile mechanisms, their claims ledger and a privacy auditor.",
    )
    parser.add_argument("--version", action="version", version=f"dpquant {package_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in (claims, certify, audit, validate, mechanisms, reproduce):
        command.add_parser(commands)
    return parser


@functools.cache
def shared_parser() -> argparse.ArgumentParser:
    """The parser :func:`main` reads every command line with: :func:`build_parser`'s, built once
    per process (building it is most of the time of a call that is refused), then only read;
    each call gets a namespace of its own, and ``func`` looks its command's work up when run.

    Returns:
        The same parser on every call.
    """
    return build_parser()


def join_domain(argv: Sequence[str]) -> list[str]:
    """``--domain -1,1`` as ``--domain=-1,1`` (and ``--input-values -1,0,1`` alike): argparse
    would read ``-1,1`` as an option."""
    out: list[str] = []
    it = iter(argv)
    for a in it:
        if a in ("--domain", "--input-values"):
            nxt = next(it, None)
            out.append(a if nxt is None else f"{a}={nxt}")
        else:
            out.append(a)
    return out


def _run(argv: Sequence[str] | None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if isinstance(argv, str | bytes) or not all(isinstance(a, str) for a in argv):
        raise UsageError(f"the arguments must be a list of strings, got {show(argv)}")
    try:
        args = shared_parser().parse_args(join_domain(list(argv)))
    except SystemExit as exc:  # --help (argparse errors raise UsageError)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    return args.func(args)


def _main(argv: Sequence[str] | None) -> int:
    try:
        return _run(argv)
    except ValueError as exc:  # usage errors, and every value the library refused
        fail(exc)
        return EXIT_USAGE
    except OSError as exc:
        where = f": {exc.filename!r}" if getattr(exc, "filename", None) else ""
        fail(f"{exc.strerror or exc}{where}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        fail("interrupted; nothing was concluded")
        return EXIT_INTERRUPTED
    except SystemExit as exc:  # only the audited code gets here: dpquant itself never exits
        fail(
            f"the audited code called sys.exit({exc.code!r}) during the run; nothing was concluded"
        )
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 -- the last resort: one line, a distinct code
        if os.environ.get("DPQUANT_TRACEBACK"):
            traceback.print_exc()
        fail(
            f"unexpected {exception_text(exc)} (a fault of the audited code or of "
            "dpquant; nothing was concluded; DPQUANT_TRACEBACK=1 prints the traceback)"
        )
        return EXIT_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dpquant`` with ``argv`` (default ``sys.argv[1:]``) and return the exit code
    (:mod:`dpquant.cli.messages`): 0 nothing found, 1 a finding, 2 a usage error (one line on
    stderr), 3 an unexpected failure of the run, 130 interrupted. Never raises (``SystemExit``
    included).

    Warnings raised during the command are shown once each, one line, after a command that
    completed (exit 0 or 1); a refused or failed command shows its one error line only."""
    with warnings.catch_warnings(record=True) as caught:
        code = _main(argv)
    if code in (EXIT_OK, EXIT_FAILED):
        lines = (f"{w.category.__name__}: {one_line(w.message, 300)}" for w in caught)
        for line in dict.fromkeys(lines):
            print(f"dpquant: warning: {line}", file=sys.stderr)
    return code


__all__ = ["Parser", "build_parser", "join_domain", "main", "shared_parser"]
