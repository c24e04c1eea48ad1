"""What the command line says: its exit codes, its one-line errors and its progress lines.

Exit codes (every command):

* ``0`` (:data:`EXIT_OK`): the command ran and found nothing wrong (an audit ran and found no
  violation; ``--all``: every outcome as expected; ``validate``: passed; a listing or a study
  was written);
* ``1`` (:data:`EXIT_FAILED`): a finding: a privacy violation, a sampler that does not match its
  exact law, an audit left INCOMPLETE because a draw exceeded ``--timeout`` (the mechanism hangs:
  the auditor's ``assert_private`` fails on it too), an unexpected ``--all`` outcome, a failed
  validation, a problem in the claims ledger;
* ``2`` (:data:`EXIT_USAGE`): nothing was concluded because of the input: a usage error, an
  option value out of range, an output path that cannot be written, a target that cannot be
  imported (it raised, called ``sys.exit`` or was interrupted while being imported) or that is
  neither a mechanism nor a function, a value the library refused (``ValueError``) or an I/O
  error;
* ``4`` (:data:`EXIT_INCONCLUSIVE`): an audit ran but could not look, so it concluded nothing:
  the mechanism produced no output (every draw raised, returned None or NaN), outputs that never
  repeat, no pair evaluated, or no exact loss computed (the verdict INCONCLUSIVE,
  :mod:`dpquant.audit.report.inconclusive`; a violation, when one is shown, is exit 1 instead);
* ``3`` (:data:`EXIT_ERROR`): nothing was concluded because the run failed unexpectedly (an
  exception other than ``ValueError``/``OSError`` from the audited code or from dpquant, or
  ``sys.exit`` called by the audited code during the run); set ``DPQUANT_TRACEBACK=1`` to print
  the traceback;
* ``130`` (:data:`EXIT_INTERRUPTED`): interrupted (Ctrl-C) during the run.

Every error is one line on stderr, ``dpquant: error: ...``, naming the option or the target.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Mapping
from typing import Any

from dpquant.errors import recorded_name

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ERROR, EXIT_INCONCLUSIVE = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130


def one_line(text: Any, limit: int = 1000) -> str:
    """``text`` on one line (whitespace runs as one space), at most ``limit`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def exception_text(exc: BaseException) -> str:
    """``Type: message`` of an exception, even when its ``__str__`` raises; the type as
    :func:`dpquant.errors.recorded_name` names it (``ValueError`` for dpquant's refusals)."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 -- a broken __str__ of user code
        text = "(its message cannot be shown)"
    return f"{recorded_name(exc)}: {text}"


MAX_SUGGESTIONS = 4
"""The most names a "did you mean" hint offers."""


def close_names(word: str, names: Mapping[str, str]) -> list[str]:
    """The names ``word`` was probably meant to be: those whose key starts with it (when it has
    three characters or more), then those :func:`difflib.get_close_matches` finds; case is
    ignored.

    Args:
        word: What the user typed.
        names: Each key to match against, and the name to offer for it (several keys may offer
            one name: ``diffprivlib`` and ``peer:diffprivlib`` both offer the latter).

    Returns:
        At most :data:`MAX_SUGGESTIONS` distinct names, best first; empty when nothing is close.
    """
    typed = word.strip().lower()
    if not typed:
        return []
    folded: dict[str, list[str]] = {}
    for key, name in names.items():
        folded.setdefault(key.lower(), []).append(name)
    keys = [k for k in folded if len(typed) >= 3 and k.startswith(typed) and k != typed]
    keys += difflib.get_close_matches(typed, list(folded), n=MAX_SUGGESTIONS, cutoff=0.6)
    found = [name for key in keys for name in folded[key]]
    return list(dict.fromkeys(found))[:MAX_SUGGESTIONS]


def did_you_mean(word: str, names: Mapping[str, str]) -> str:
    """``"did you mean 'a' or 'b'?"`` for the names close to ``word`` (:func:`close_names`),
    or ``""`` when none is."""
    close = [repr(n) for n in close_names(word, names)]
    if not close:
        return ""
    listed = close[0] if len(close) == 1 else f"{', '.join(close[:-1])} or {close[-1]}"
    return f"did you mean {listed}?"


def fail(message: Any) -> None:
    """The one error line on stderr: ``dpquant: error: <message>``."""
    try:
        text = message if isinstance(message, str) else str(message)
    except Exception:  # noqa: BLE001 -- a broken __str__ of user code
        text = f"{type(message).__name__} (its message cannot be shown)"
    print(f"dpquant: error: {one_line(text)}", file=sys.stderr, flush=True)


def on_terminal() -> bool:
    """Whether stderr is a terminal (a person watching), not a pipe, a file or a CI log."""
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError, OSError):  # replaced, closed or detached stderr
        return False


def stderr_progress(quiet: bool) -> Callable[[str], None] | None:
    """A progress callback writing ``dpquant: <line>`` on stderr; ``None`` (no progress) with
    ``quiet`` (``-q``) or when stderr is not a terminal (:func:`on_terminal`): a pipe, a file or
    a CI log gets the result only."""
    if quiet or not on_terminal():
        return None
    return lambda line: print(f"dpquant: {one_line(line)}", file=sys.stderr, flush=True)


__all__ = [
    "EXIT_ERROR",
    "EXIT_FAILED",
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "MAX_SUGGESTIONS",
    "close_names",
    "did_you_mean",
    "exception_text",
    "fail",
    "on_terminal",
    "one_line",
    "stderr_progress",
]
