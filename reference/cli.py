"""The ``dpquant`` command line.

* ``dpquant audit MODULE:ATTR`` (or ``path/to/file.py:ATTR``, or ``peer:NAME`` for a library
  adapter of :mod:`audit.adapters`) audits one mechanism, or one function
  ``fn(data, rng) -> output`` with the claim given by ``--epsilon/--delta/--adjacency``;
* ``dpquant audit --all`` audits the reference registry, the controls and the known-bad catalogue
  and writes ``reports/audit.md`` (the body of ``make audit``);
* ``dpquant claims`` prints the claims ledger; ``dpquant mechanisms`` lists what ``--all`` audits;
* ``dpquant validate REFERENCE CANDIDATE`` tests that a candidate implementation draws from the
  reference mechanism's law on a battery of data sets, and audits it;
* ``dpquant reproduce aamand25 [--figure NAME]`` and ``dpquant reproduce imola25 [--m LIST]
  [--panels LIST] [--duplication K] ...`` re-run a paper's experiments (CSV and PNG).

Exit codes (every command):

* ``0``: the command ran and found nothing wrong (an audit ran and found no violation; ``--all``:
  every outcome as expected; ``validate``: passed; a listing or a study was written);
* ``1``: a finding: a privacy violation, a sampler that does not match its exact law, an audit
  left INCOMPLETE because a draw exceeded ``--timeout`` (the mechanism hangs: the auditor's
  ``assert_private`` fails on it too), an unexpected ``--all`` outcome, a failed validation, a
  problem in the claims ledger;
* ``2``: nothing was concluded because of the input: a usage error, an option value out of range,
  an output path that cannot be written, a target that cannot be imported (it raised, called
  ``sys.exit`` or was interrupted while being imported) or that is neither a mechanism nor a
  function, a value the library refused (``ValueError``) or an I/O error;
* ``3``: nothing was concluded because the run failed unexpectedly (an exception other than
  ``ValueError``/``OSError`` from the audited code or from dpquant, or ``sys.exit`` called by the
  audited code during the run); set ``DPQUANT_TRACEBACK=1`` to print the traceback;
* ``130``: interrupted (Ctrl-C) during the run.

Every error is one line on stderr, ``dpquant: error: ...``, naming the option or the target.
Option values and output paths are checked before any work: numbers must be finite and in range
(``--samples`` at most the auditor's cap, ``--seed`` at most the auditor's or, for ``reproduce``,
2^32 − 1, ``--workers`` at most :data:`MAX_WORKERS`, ``--runs`` at most :data:`MAX_RUNS`); an output file must not be a folder, an
output folder must not be a file, and the nearest existing folder on the way must be writable.
Missing parent folders of an output path are created when the output is written.

The CLI may import :mod:`audit`; the library modules of :mod:`reference` never do.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib
import importlib.util
import json
import math
import os
import re
import stat
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

from reference.claims import format_ledger, ledger_problems, load_ledger
from reference.core import ADJACENCIES, MechanismBase, PrivacyClaim, check_claim, has_exact
from reference.experiments.aamand25 import FIGURES as AAMAND25_FIGURES
from reference.registry import REGISTRY
from reference.validation import (
    MAX_DRAWS,
    check_delta,
    check_epsilon,
    check_positive,
    check_probability,
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ERROR = 0, 1, 2, 3
EXIT_INTERRUPTED = 130
MODES = ("auto", "exact", "blackbox")
DEFAULT_ALPHA = 1e-6
DEFAULT_OUT = "reports"
PAPERS = ("aamand25", "imola25", "fukuchi19", "tzamos20")

MAX_SEED = 2**32 - 1
"""``reproduce --seed`` lies in [0, 2^32 − 1] (the experiments seed numpy's legacy
``RandomState``); ``audit`` and ``validate`` take the auditor's range (``audit.runner.MAX_SEED``)."""
MAX_RUNS = 10**6
"""``--runs`` (and ``--other-runs``, ``--jointexp-runs``) per configuration, at most."""
MAX_WORKERS = max(64, 2 * (os.cpu_count() or 1))
"""``--workers`` at most: a process pool forks every worker at once."""
MAX_TIMEOUT = 86_400.0
"""``--timeout`` (seconds per draw) at most: one day (or the auditor's own limit)."""
MAX_BATTERY_SIZE = 10**5
"""``validate --sizes``: the largest data set of the battery."""
MAX_STUDY_N = 10**6
"""``reproduce tzamos20 --n-values``: the largest sample size."""
C_RANGE = (Fraction(1, 10**6), Fraction(10**6))
"""``reproduce tzamos20 --c``: the constant C (or C0) lies in this closed interval."""
MAX_LOG2N = 30
"""``reproduce fukuchi19``: N = 2^n with n <= 30 (the study's own limit)."""
PLOT_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")
"""File suffixes ``--plot`` accepts (formats matplotlib writes without extra software)."""

_AUDITOR_KEYWORDS = ("domain", "samples", "alpha", "seed", "mode", "timeout")
_SINGLE_ONLY = (
    "epsilon", "delta", "adjacency", "domain", "alpha", "json", "markdown", "plot", "timeout",
    "float_lattice",
)  # fmt: skip


# --------------------------------------------------------------------------------------------
# errors, option values and output paths
# --------------------------------------------------------------------------------------------


class UsageError(ValueError):
    """A usage error of the command line (exit code 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse with its errors raised (one line, exit 2) instead of usage text and exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _one_line(text: Any, limit: int = 1000) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _show(text: Any) -> str:
    """A user's value, quoted and shortened, for an error message."""
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _exception_text(exc: BaseException) -> str:
    """``Type: message`` of an exception, even when its ``__str__`` raises."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 -- a broken __str__ of user code
        text = "(its message cannot be shown)"
    return f"{type(exc).__name__}: {text}"


def _fail(message: Any) -> None:
    try:
        text = message if isinstance(message, str) else str(message)
    except Exception:  # noqa: BLE001 -- a broken __str__ of user code
        text = f"{type(message).__name__} (its message cannot be shown)"
    print(f"dpquant: error: {_one_line(text)}", file=sys.stderr, flush=True)


_INT = re.compile(r"[+-]?[0-9]{1,40}")
_DECIMAL = re.compile(
    r"[+-]?(?:[0-9]{1,40}(?:\.[0-9]{0,40})?|\.[0-9]{1,40})(?:[eE][+-]?[0-9]{1,3})?"
)
_RATIO = re.compile(r"[+-]?[0-9]{1,40}/[0-9]{1,40}")


def parse_int(text: Any, option: str, minimum: int, maximum: int) -> int:
    """An option's integer value in [``minimum``, ``maximum``] (decimal digits only)."""
    s = str(text).strip()
    value = int(s) if _INT.fullmatch(s) else None
    if value is None or not minimum <= value <= maximum:
        raise UsageError(
            f"{option} must be an integer >= {minimum} and <= {maximum}, got {_show(text)}"
        )
    return value


def parse_float(text: Any, option: str) -> float:
    """An option's real value as a float: refuses text that is not a number and finite values
    that do not fit a float64 (``1e400``) or round to 0 (``1e-400``); ``nan`` and ``inf`` are
    returned for the caller's range check to refuse."""
    s = str(text).strip()
    try:
        value = float(s) if len(s) <= 100 else None
    except ValueError:
        value = None
    if value is None:
        raise UsageError(f"{option} must be a number, got {_show(text)}")
    if math.isinf(value) and s.lstrip("+-").lower() not in ("inf", "infinity"):
        raise UsageError(f"{option} must fit a float64 (|x| <= 1.797e308), got {_show(text)}")
    if value == 0.0 and re.search(r"[1-9]", s.lower().split("e")[0]):
        raise UsageError(f"{option} is too small for a float64 (it rounds to 0), got {_show(text)}")
    return value


def _checked(check: Callable[..., float], text: Any, option: str, **kw: Any) -> float:
    """``check(parse_float(text), option)``, its ``ValueError`` turned into a usage error."""
    value = parse_float(text, option)
    try:
        return check(value, option, **kw)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def parse_fraction(text: Any, option: str, lo: Fraction, hi: Fraction) -> Fraction:
    """An option's rational value (``5/4`` or ``1.25``) in [``lo``, ``hi``], exactly."""
    s = str(text).strip()
    value = None
    if _DECIMAL.fullmatch(s) or _RATIO.fullmatch(s):
        with contextlib.suppress(ValueError, ZeroDivisionError):
            value = Fraction(s)
    if value is None or not lo <= value <= hi:
        raise UsageError(
            f"{option} must be a rational such as 5/4 in [{float(lo):g}, {float(hi):g}], "
            f"got {_show(text)}"
        )
    return value


def parse_int_list(text: Any, option: str, minimum: int, maximum: int) -> tuple[int, ...]:
    """``"10,20,30"`` as a tuple of integers in [``minimum``, ``maximum``]."""
    items = [v for v in str(text).split(",") if v.strip()]
    if not items or len(items) > 1000:
        raise UsageError(f"{option} must be integers 'a,b,c', got {_show(text)}")
    try:
        return tuple(parse_int(v, option, minimum, maximum) for v in items)
    except UsageError:
        raise UsageError(
            f"{option} must be integers 'a,b,c', each >= {minimum} and <= {maximum}, "
            f"got {_show(text)}"
        ) from None


def parse_names(text: Any, option: str, allowed: Sequence[str]) -> tuple[str, ...]:
    """``"a,c"`` as a tuple of distinct names, each in ``allowed``."""
    values = tuple(dict.fromkeys(v.strip() for v in str(text).split(",") if v.strip()))
    if not values or any(v not in allowed for v in values):
        raise UsageError(
            f"{option} must be names among {', '.join(allowed)} separated by commas, "
            f"got {_show(text)}"
        )
    return values


def parse_domain(text: str) -> tuple[float, float]:
    """``"lo,hi"`` (``inf`` and ``-inf`` allowed) as a pair of floats."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2 or not all(parts):
        raise UsageError(f"--domain must be 'lo,hi', got {_show(text)}")
    try:
        lo, hi = parse_float(parts[0], "--domain"), parse_float(parts[1], "--domain")
    except UsageError:
        raise UsageError(f"--domain must be two numbers 'lo,hi', got {_show(text)}") from None
    if math.isnan(lo) or math.isnan(hi) or not lo < hi:
        raise UsageError(f"--domain must have lo < hi (numbers, not nan), got {_show(text)}")
    if math.isfinite(lo) and math.isfinite(hi) and not math.isfinite(hi - lo):
        raise UsageError(
            f"--domain must have a width hi - lo that fits a float64 (<= 1.797e308) when both "
            f"ends are finite, got {_show(text)}"
        )
    return lo, hi


def _as_option(message: str, keywords: Sequence[str]) -> str:
    """A library's message that starts with one of its keywords (``domain must ...``) as the
    command line's option (``--domain must ...``)."""
    for word in keywords:
        if re.match(rf"{word}\b(?!-)", message):
            return "--" + word.replace("_", "-") + message[len(word) :]
    return message


def _seed(text: Any) -> int:
    return parse_int(text, "--seed", 0, MAX_SEED)


def _optional(text: Any, parse: Callable[..., Any], *args: Any) -> Any:
    return None if text is None else parse(text, *args)


def _path_text(text: Any, option: str) -> str:
    s = str(text)
    if not s:
        raise UsageError(f"{option} needs a path, got an empty string")
    if "\0" in s:
        raise UsageError(f"{option} must not contain a NUL character, got {_show(s)}")
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
    s = _path_text(text, option)
    shown = _show(s)
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
    s = _path_text(text, option)
    shown = _show(s)
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


def _distinct(paths: dict[str, Path | None]) -> None:
    seen: dict[str, str] = {}
    for option, path in paths.items():
        if path is None:
            continue
        key = os.path.normcase(os.path.abspath(path))
        if key in seen:
            raise UsageError(f"{seen[key]} and {option} name the same file {str(path)!r}")
        seen[key] = option


def _write_text(path: Path, text: str, option: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{option}: cannot write {str(path)!r} ({exc.strerror or exc})") from None


# --------------------------------------------------------------------------------------------
# dpquant claims / dpquant mechanisms
# --------------------------------------------------------------------------------------------


def _claims(args: argparse.Namespace) -> int:
    path = None if args.ledger is None else _path_text(args.ledger, "--ledger")
    try:
        claims = load_ledger(path)
        text = format_ledger(claims)
        problems = ledger_problems(claims)
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        shown = "the ledger" if path is None else f"--ledger {_show(path)}"
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise UsageError(f"{shown}: not a readable claims ledger ({detail})") from None
    print(text)
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    return EXIT_FAILED if problems else EXIT_OK


def _targets() -> list[tuple[str, str, str]]:
    """(name, kind, description) of everything ``dpquant audit --all`` audits, in its order."""
    from audit.catalogue import CATALOGUE, CONTROLS

    out = [(e.name, "reference", e.description) for e in REGISTRY]
    out += [(e.name, "control", e.description) for e in CONTROLS]
    out += [(e.name, "known-bad", e.description) for e in CATALOGUE]
    return out


def _mechanisms(args: argparse.Namespace) -> int:
    for name, kind, description in _targets():
        print(f"{name:<48} {kind:<10} {description}")
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# targets: MODULE:ATTR, path/to/file.py:ATTR, peer:NAME
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaimOverride(MechanismBase):
    """``mechanism`` audited against the claim ``override``: everything else is the original's.

    A wrapper on the mechanism base (:class:`reference.core.MechanismBase`): :attr:`claim` (and
    its parts) come from ``override``; ``sample`` delegates to the original unchanged (the
    original checks its own input, and the auditor must see its outputs as they are, never
    re-checked or converted), as do :attr:`domain`, :attr:`output_range`, ``check_input`` and
    ``draw_limit``; optional attributes (``exact``, ``input_values``, ``name``) are looked up
    on the original, so the wrapper has them exactly when it does.
    """

    mechanism: Any
    override: PrivacyClaim

    @property
    def claim(self) -> PrivacyClaim:
        return self.override

    @property
    def claimed_epsilon(self) -> float:
        return self.override.epsilon

    @property
    def claimed_delta(self) -> float:
        return self.override.delta

    @property
    def adjacency(self) -> str:  # type: ignore[override]
        return self.override.adjacency

    @property
    def domain(self) -> tuple[float, float]:
        return self.mechanism.domain

    @property
    def output_range(self) -> tuple[float, float] | None:
        return getattr(self.mechanism, "output_range", None)

    def check_input(self, data: Any) -> Any:
        check = getattr(self.mechanism, "check_input", None)
        return check(data) if callable(check) else super().check_input(data)

    def draw_limit(self, data: Any) -> int:
        limit = getattr(self.mechanism, "draw_limit", None)
        return limit(data) if callable(limit) else super().draw_limit(data)

    def sample(self, data: Any, size: int, rng: Any) -> Any:
        return self.mechanism.sample(data, size, rng)

    def __getattr__(self, attr: str) -> Any:
        # only called for attributes not found normally; never for private names or the fields
        # (unpickling looks some up before the fields exist)
        if attr.startswith("_") or attr in ("mechanism", "override"):
            raise AttributeError(attr)
        return getattr(self.mechanism, attr)


def _attribute(obj: Any, attr: str, label: str) -> Any:
    """``getattr(obj, attr, None)``; an attribute that raises is a usage error naming it."""
    try:
        return getattr(obj, attr, None)
    except Exception as exc:  # noqa: BLE001 -- the target's own code
        raise UsageError(f"{label}.{attr} raised {_exception_text(exc)}") from None


def is_mechanism(obj: Any) -> bool:
    """True for an object with a ``sample`` method and a ``claim`` (a configured mechanism)."""
    if isinstance(obj, type):
        return False
    try:
        return callable(getattr(obj, "sample", None)) and getattr(obj, "claim", None) is not None
    except Exception:  # noqa: BLE001 -- a property of the target raised: not a usable mechanism
        return False


def _looks_like_file(module: str) -> bool:
    return module.endswith(".py") or "/" in module or (os.sep != "/" and os.sep in module)


def _guarded_import(what: str, run: Callable[[], Any]) -> Any:
    """``run()`` (an import of user code): whatever it raises, ``sys.exit`` and Ctrl-C included,
    becomes a usage error naming ``what`` (a target that cannot be imported is never audited)."""
    try:
        return run()
    except SystemExit as exc:
        raise UsageError(
            f"{what} failed: it called sys.exit({exc.code!r}) while being imported"
        ) from None
    except KeyboardInterrupt:
        raise UsageError(
            f"{what} failed: interrupted (KeyboardInterrupt) while being imported"
        ) from None
    except Exception as exc:  # noqa: BLE001 -- the target's own code
        raise UsageError(f"{what} failed: {_exception_text(exc)}") from None


def _load_file(path: Path) -> Any:
    try:
        is_file = path.is_file()
    except (OSError, ValueError):
        is_file = False
    if not is_file:
        raise UsageError(f"no such file: {path}")
    slug = re.sub(r"\W", "_", path.stem)
    name = f"dpquant_target_{slug}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # as `python file.py` would: its sibling modules import
    sys.modules[name] = module  # dataclasses and pickle look the module up by name
    try:
        _guarded_import(f"loading {path}", lambda: spec.loader.exec_module(module))
    except UsageError:
        sys.modules.pop(name, None)
        raise
    return module


def load_target(spec: str) -> Any:
    """The object named by ``MODULE:ATTR`` or ``path/to/file.py:ATTR`` (ATTR may be dotted)."""
    module_name, sep, attr = str(spec).rpartition(":")
    if not sep or not module_name or not attr or "\0" in str(spec):
        raise UsageError(f"target must be MODULE:ATTR or path/to/file.py:ATTR, got {_show(spec)}")
    if _looks_like_file(module_name):
        obj = _load_file(Path(module_name))
    else:
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())  # `dpquant audit mymodule:fn` from the project folder
        obj = _guarded_import(
            f"cannot import module {module_name!r}", lambda: importlib.import_module(module_name)
        )
    where = module_name
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"{where!r} has no attribute {part!r}") from None
        except Exception as exc:  # noqa: BLE001 -- the target's own code
            raise UsageError(f"{where!r}.{part} raised {_exception_text(exc)}") from None
        where = f"{where}.{part}" if where != module_name else f"{module_name}:{part}"
    return obj


def build_mechanism(obj: Any, args: argparse.Namespace, label: str) -> tuple[Any, str]:
    """The mechanism to audit and its name: ``obj`` itself (its claim overridden by the options
    given), or a plain function wrapped with :func:`audit.from_callable`. ``args.epsilon``,
    ``args.delta``, ``args.adjacency`` and ``args.domain`` are checked values or None."""
    from audit import from_callable

    if isinstance(obj, type):
        raise UsageError(
            f"{label} is a class; point to a configured mechanism instance or to a function "
            "fn(data, rng) -> output"
        )
    sample = _attribute(obj, "sample", label)
    claim = _attribute(obj, "claim", label) if callable(sample) else None
    if claim is not None:
        try:
            claim = check_claim(claim, f"{label}.claim")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        name = _attribute(obj, "name", label)
        name = name if isinstance(name, str) and name else label
        if claim.adjacency == "local" and args.adjacency not in (None, "local"):
            raise UsageError(
                f"--adjacency {args.adjacency} does not apply to {label}: a local randomizer "
                "takes one user's value, so its claim is for local adjacency"
            )
        if args.epsilon is None and args.delta is None and args.adjacency is None:
            return obj, name
        claim = PrivacyClaim(
            claim.epsilon if args.epsilon is None else args.epsilon,
            claim.delta if args.delta is None else args.delta,
            claim.adjacency if args.adjacency is None else args.adjacency,
        )
        return ClaimOverride(obj, claim), name
    if callable(obj):
        if args.epsilon is None:
            raise UsageError(
                f"{label} is a plain function, which carries no privacy claim: pass --epsilon "
                "(and --delta, --adjacency as needed)"
            )
        claim = PrivacyClaim(
            args.epsilon,
            0.0 if args.delta is None else args.delta,
            "replace_one" if args.adjacency is None else args.adjacency,
        )
        domain = args.domain if args.domain is not None else (-math.inf, math.inf)
        return from_callable(obj, claim, domain, name=label), label
    raise UsageError(
        f"{label} is neither a mechanism (with sample() and claim) nor a function "
        f"fn(data, rng) -> output: got {type(obj).__name__}"
    )


def resolve_reference(spec: str) -> tuple[Any, str]:
    """A registry entry by name (``dpquant mechanisms``) or a mechanism named by MODULE:ATTR."""
    for entry in REGISTRY:
        if entry.name == spec:
            return entry.build(), entry.name
    obj = load_target(spec)
    claim = _attribute(obj, "claim", spec) if is_mechanism(obj) else None
    if not isinstance(claim, PrivacyClaim):
        raise UsageError(
            f"reference must be a registry name (see `dpquant mechanisms`) or a mechanism with "
            f"sample() and claim, got {_show(spec)}"
        )
    try:
        check_claim(claim, f"{spec}.claim")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    name = _attribute(obj, "name", spec)
    return obj, name if isinstance(name, str) and name else spec


def resolve_candidate(spec: str) -> tuple[Any, str]:
    """``peer:NAME`` (an adapter of :mod:`audit.adapters` with its defaults), or MODULE:ATTR /
    path/to/file.py:ATTR naming a mechanism or a function fn(data, rng) -> output."""
    if spec.startswith("peer:"):
        from audit.adapters import PEERS

        name = spec[len("peer:") :]
        if name not in PEERS:
            raise UsageError(f"unknown peer {name!r}; known: {', '.join(sorted(PEERS))}")
        try:
            mech = PEERS[name]()
        except ImportError as exc:
            raise UsageError(str(exc)) from exc
        except Exception as exc:  # noqa: BLE001 -- a third-party library failed to set up
            raise UsageError(f"peer {name!r} is unavailable: {_exception_text(exc)}") from None
        return mech, mech.name
    obj = load_target(spec)
    if isinstance(obj, type):
        raise UsageError(f"{spec} is a class; point to a mechanism instance or a function")
    return obj, spec


# --------------------------------------------------------------------------------------------
# dpquant audit MODULE:ATTR
# --------------------------------------------------------------------------------------------


def passes(report: Any) -> bool:
    """An audit passes when it found no violation, the sampler matches its exact law and no
    draw exceeded the time limit (an incomplete audit concludes nothing: never exit 0)."""
    return (
        not report.violation
        and report.sampler_conforms is not False
        and getattr(report, "timed_out", None) is None
    )


def _stderr_progress(quiet: bool) -> Callable[[str], None] | None:
    if quiet:
        return None
    return lambda line: print(f"dpquant: {_one_line(line)}", file=sys.stderr, flush=True)


def _witness_text(witness: dict[str, Any] | None) -> str:
    from audit.report import witness_line

    try:
        text = witness_line(witness)
    except (KeyError, TypeError, ValueError):
        text = json.dumps(witness, default=str)
    source = (witness or {}).get("source")
    return f"{text} [{source}]" if source else text


def write_report_files(report: Any, json_path: str | None, markdown_path: str | None) -> None:
    """Write a report's ``to_dict()`` as JSON and its ``to_markdown()``, where paths are given
    (missing folders are created); a file that cannot be written is a :class:`UsageError`."""
    if json_path:
        path = Path(json_path)
        _write_text(path, json.dumps(report.to_dict(), indent=1, default=str) + "\n", "--json")
        print(f"JSON written to {path}")
    if markdown_path:
        path = Path(markdown_path)
        _write_text(path, report.to_markdown(), "--markdown")
        print(f"Markdown written to {path}")


def _samples_cap() -> int:
    """The auditor's cap on ``samples`` (draws per data set)."""
    from audit import runner

    return int(getattr(runner, "MAX_SAMPLES", MAX_DRAWS))


def _audit_seed(text: Any) -> int:
    """An auditor's seed: an integer in [0, the auditor's largest seed]."""
    from audit import runner

    return parse_int(text, "--seed", 0, int(getattr(runner, "MAX_SEED", MAX_SEED)))


def _audit_alpha(text: Any) -> float:
    """The auditor's α: in [the auditor's smallest α, 1) (default :data:`DEFAULT_ALPHA`)."""
    from audit import runner

    if text is None:
        return DEFAULT_ALPHA
    alpha = _checked(check_probability, text, "--alpha", open_left=True, open_right=True)
    smallest = float(getattr(runner, "MIN_ALPHA", 0.0))
    if alpha < smallest:
        raise UsageError(f"--alpha must lie in [{smallest:g}, 1), got {_show(text)}")
    return alpha


def _timeout(text: Any) -> float:
    """A per-draw time limit in seconds: in (0, the auditor's largest]."""
    from audit import runner

    timeout = _checked(check_positive, text, "--timeout")
    largest = float(getattr(runner, "MAX_TIMEOUT", MAX_TIMEOUT))
    if timeout > largest:
        raise UsageError(f"--timeout must be at most {largest:g} seconds, got {_show(text)}")
    return timeout


def _audit_values(args: argparse.Namespace) -> None:
    """Every numeric option of ``audit`` parsed and range-checked in place (before any work)."""
    args.seed = _audit_seed(args.seed)
    args.samples = _optional(args.samples, parse_int, "--samples", 10, _samples_cap())
    if args.all:
        return
    if args.epsilon is not None:
        args.epsilon = _checked(check_epsilon, args.epsilon, "--epsilon")
    if args.delta is not None:
        args.delta = _checked(check_delta, args.delta, "--delta")
    args.alpha = _audit_alpha(args.alpha)
    args.domain = _optional(args.domain, parse_domain)
    args.timeout = _optional(args.timeout, _timeout)


def _audit_one(args: argparse.Namespace) -> int:
    from audit import audit_mechanism

    _audit_values(args)
    json_path = _optional(args.json, check_output_file, "--json")
    md_path = _optional(args.markdown, check_output_file, "--markdown")
    plot_path = _optional(args.plot, check_output_file, "--plot", PLOT_FORMATS)
    _distinct({"--json": json_path, "--markdown": md_path, "--plot": plot_path})
    if args.target.startswith("peer:"):
        obj, _ = resolve_candidate(args.target)
    else:
        obj = load_target(args.target)
    mech, name = build_mechanism(obj, args, args.target)
    if args.mode == "exact" and not has_exact(mech):
        raise UsageError(
            f"--mode exact needs a mechanism with an exact(data) law; {args.target} has none"
        )
    options: dict[str, Any] = {}
    if args.timeout is not None:
        options["timeout"] = args.timeout
    if args.float_lattice:
        options["float_lattice"] = True
    try:
        report = audit_mechanism(
            mech,
            domain=args.domain,
            samples=args.samples,
            alpha=args.alpha,
            seed=args.seed,
            mode=args.mode,
            name=name,
            progress=_stderr_progress(args.quiet),
            **options,
        )
    except ValueError as exc:
        raise UsageError(_as_option(str(exc), _AUDITOR_KEYWORDS)) from None
    print(report.summary())
    print(f"witness: {_witness_text(report.witness)}")
    if report.sampler_conforms is False:
        print("the sampler does not match its exact law (see the conformance section)")
    write_report_files(report, json_path, md_path)
    if plot_path is not None:
        try:
            written = report.plot(plot_path)
        except OSError as exc:
            raise UsageError(
                f"--plot: cannot write {str(plot_path)!r} ({exc.strerror or exc})"
            ) from None
        if written is None:
            print("dpquant: warning: matplotlib is not installed; no plot", file=sys.stderr)
        else:
            print(f"plot written to {written}")
    return EXIT_OK if passes(report) else EXIT_FAILED


# --------------------------------------------------------------------------------------------
# dpquant audit --all
# --------------------------------------------------------------------------------------------


def _all_progress(
    total: int, quiet: bool
) -> tuple[Callable[[str], None] | None, Callable[[], None]]:
    """A progress callback for ``audit_all`` and a function closing it: a tqdm bar over the
    mechanisms when tqdm is installed and stderr is a terminal, else one line per mechanism."""
    if quiet:
        return None, lambda: None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dev dependency
        tqdm = None
    if tqdm is None or not sys.stderr.isatty():
        return _stderr_progress(False), lambda: None
    bar = tqdm(total=total, unit="mech", file=sys.stderr, dynamic_ncols=True)
    seen: list[str] = []

    def progress(line: str) -> None:
        if seen:
            bar.update(1)
        seen.append(line)
        bar.set_description(line.split("] ", 1)[-1][:40])

    def close() -> None:
        if seen:
            bar.update(1)
        bar.close()

    return progress, close


def _fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    return "inf" if math.isinf(x) else f"{x:.4f}"


def _audit_all(args: argparse.Namespace) -> int:
    from audit.report import audit_all

    _audit_values(args)
    out = check_output_folder(
        DEFAULT_OUT if args.out is None else args.out, "--out", ("audit.md", "audit.json", "audit/")
    )
    targets = _targets()
    progress, close = _all_progress(len(targets), args.quiet)
    try:
        reports = audit_all(out, seed=args.seed, samples=args.samples, progress=progress)
    finally:
        close()
    by_name = {r.mechanism: r for r in reports}
    unexpected = []
    print(f"{'mechanism':<48} {'kind':<10} {'verdict':<20} {'eps_lb':>8} {'exact eps':>9} seconds")
    for name, kind, _ in targets:
        r = by_name.get(name)
        if r is None:
            unexpected.append(f"{name} ({kind}): not audited")
            continue
        ok = r.violation if kind == "known-bad" else passes(r)
        print(
            f"{name:<48} {kind:<10} {r.verdict():<20} {_fmt(r.epsilon_lower_bound):>8} "
            f"{_fmt(r.epsilon_exact):>9} {r.seconds:7.1f}{'' if ok else '  UNEXPECTED'}"
        )
        if not ok:
            wanted = "a violation" if kind == "known-bad" else "no violation"
            unexpected.append(f"{name} ({kind}): expected {wanted}, got {r.verdict()}")
    print(
        f"report written to {out / 'audit.md'} and {out / 'audit.json'}, plots in {out / 'audit'}"
    )
    for line in unexpected:
        print(f"unexpected: {line}")
    return EXIT_FAILED if unexpected else EXIT_OK


def _audit(args: argparse.Namespace) -> int:
    if args.all:
        if args.target is not None:
            raise UsageError("pass either a target MODULE:ATTR or --all, not both")
        given = [f"--{o.replace('_', '-')}" for o in _SINGLE_ONLY if getattr(args, o) is not None]
        if args.mode != "auto":
            given.append("--mode")
        if given:
            raise UsageError(f"not used with --all (they apply to one target): {', '.join(given)}")
        return _audit_all(args)
    if args.target is None:
        raise UsageError("pass a target MODULE:ATTR (or path/to/file.py:ATTR), or --all")
    if args.out is not None:
        raise UsageError("--out only applies to --all (use --json, --markdown, --plot)")
    return _audit_one(args)


# --------------------------------------------------------------------------------------------
# dpquant validate REFERENCE CANDIDATE
# --------------------------------------------------------------------------------------------


def _validate(args: argparse.Namespace) -> int:
    from audit.validate import battery, validate

    samples = parse_int(args.samples, "--samples", 100, MAX_DRAWS)
    alpha = _audit_alpha(args.alpha)
    beta = _checked(check_probability, args.beta, "--beta", open_left=True, open_right=True)
    seed = _audit_seed(args.seed)
    sizes = _optional(args.sizes, parse_int_list, "--sizes", 1, MAX_BATTERY_SIZE)
    audit_samples = _optional(args.audit_samples, parse_int, "--audit-samples", 10, _samples_cap())
    json_path = _optional(args.json, check_output_file, "--json")
    md_path = _optional(args.markdown, check_output_file, "--markdown")
    _distinct({"--json": json_path, "--markdown": md_path})
    reference, ref_name = resolve_reference(args.reference)
    candidate, cand_name = resolve_candidate(args.candidate)
    datasets = None
    if sizes is not None:
        datasets = battery(reference.domain, reference.claim.adjacency, sizes)
    report = validate(
        reference,
        candidate,
        datasets=datasets,
        samples=samples,
        alpha=alpha,
        beta=beta,
        seed=seed,
        audit=not args.no_audit,
        audit_samples=audit_samples,
        reference_name=ref_name,
        candidate_name=cand_name,
    )
    print(report.summary())
    write_report_files(report, json_path, md_path)
    return EXIT_OK if report.passed else EXIT_FAILED


# --------------------------------------------------------------------------------------------
# dpquant reproduce aamand25 | imola25 | fukuchi19 | tzamos20
# --------------------------------------------------------------------------------------------


def _reproduce_progress(quiet: bool) -> Callable[[str, int, int], None] | None:
    """One stderr line per figure each time another tenth of its runs is done."""
    if quiet:
        return None
    shown: dict[str, int] = {}

    def progress(figure: str, done: int, total: int) -> None:
        tenth = 10 * done // max(total, 1)
        if tenth > shown.get(figure, -1):
            shown[figure] = tenth
            print(f"dpquant: {figure}: {done}/{total} runs", file=sys.stderr, flush=True)

    return progress


_IMOLA25_ONLY = ("m", "panels", "duplication", "jointexp_runs", "jointexp_m")
_FUKUCHI19_ONLY = (
    "settings", "other_runs", "min_log2n", "max_log2n", "data_models", "schedules", "laplace",
    "laplace_iid", "no_eps_sweep", "exact_max_levels",
)  # fmt: skip
_TZAMOS20_ONLY = ("regimes", "distributions", "n_values", "c", "c_rule")
_MIN_RUNS = {"aamand25": 1, "imola25": 1, "fukuchi19": 2, "tzamos20": 2}


def _given(args: argparse.Namespace, names: Sequence[str]) -> list[str]:
    return [f"--{o.replace('_', '-')}" for o in names if getattr(args, o) not in (None, False)]


def _check_paper_options(args: argparse.Namespace) -> None:
    """Options of one paper refused for the others."""
    paper = args.paper
    if paper != "tzamos20" and (given := _given(args, _TZAMOS20_ONLY)):
        raise UsageError(f"only for tzamos20, not {paper}: {', '.join(given)}")
    if paper not in ("fukuchi19", "tzamos20") and (given := _given(args, _FUKUCHI19_ONLY)):
        raise UsageError(f"only for fukuchi19, not {paper}: {', '.join(given)}")
    if paper == "aamand25" and (given := _given(args, _IMOLA25_ONLY)):
        raise UsageError(f"only for imola25, not aamand25: {', '.join(given)}")
    if paper == "imola25" and args.figure is not None:
        raise UsageError("--figure only applies to aamand25 (imola25: use --panels)")
    if paper in ("fukuchi19", "tzamos20"):
        given = _given(args, _IMOLA25_ONLY) + (["--figure"] if args.figure is not None else [])
        if paper == "tzamos20":
            given += _given(args, _FUKUCHI19_ONLY)
        if given:
            raise UsageError(f"not for {paper}: {', '.join(given)}")


def _study_options(args: argparse.Namespace, study: Any) -> dict[str, Any]:
    """The paper's own options, parsed and range-checked (the keywords of its ``make_study``)."""
    if args.paper == "imola25":
        grid = study.GRID - 1
        return {
            "panels": _optional(args.panels, parse_names, "--panels", tuple(study.PANELS)),
            "ms": _optional(args.m, parse_int_list, "--m", 1, grid),
            "jointexp_runs": _optional(
                args.jointexp_runs, parse_int, "--jointexp-runs", 0, MAX_RUNS
            ),
            "jointexp_ms": _optional(args.jointexp_m, parse_int_list, "--jointexp-m", 1, grid),
            "duplication": _optional(
                args.duplication, parse_int, "--duplication", 1, study.MAX_DUPLICATION
            ),
        }
    if args.paper == "fukuchi19":
        return {
            "settings": args.settings,
            "other_runs": _optional(args.other_runs, parse_int, "--other-runs", 2, MAX_RUNS),
            "min_log2n": _optional(args.min_log2n, parse_int, "--min-log2n", 1, MAX_LOG2N),
            "max_log2n": _optional(args.max_log2n, parse_int, "--max-log2n", 1, MAX_LOG2N),
            "data_models": _optional(
                args.data_models, parse_names, "--data-models", study.DATA_MODELS
            ),
            "schedules": _optional(args.schedules, parse_names, "--schedules", study.SCHEDULES),
            "laplace": args.laplace,
            "laplace_iid": args.laplace_iid,
            "eps_sweep": not args.no_eps_sweep,
            "exact_max_levels": _optional(
                args.exact_max_levels, parse_int, "--exact-max-levels", 0, MAX_LOG2N
            ),
        }
    if args.paper == "tzamos20":
        regimes = tuple(g.name for g in (*study.REGIMES, *study.QUICK_REGIMES))
        return {
            "regimes": _optional(args.regimes, parse_names, "--regimes", regimes),
            "distributions": _optional(
                args.distributions, parse_names, "--distributions", study.DISTRIBUTIONS
            ),
            "ns": _optional(args.n_values, parse_int_list, "--n-values", 2, MAX_STUDY_N),
            "c": _optional(args.c, parse_fraction, "--c", *C_RANGE),
            "c_rule": "constant" if args.c_rule is None else args.c_rule,
        }
    return {}


_STUDY_KEYWORDS = (
    "runs", "other_runs", "jointexp_runs", "jointexp_m", "min_log2n", "max_log2n",
    "exact_max_levels", "data_models", "schedules", "settings", "laplace", "duplication",
    "panels", "regimes", "distributions", "c_rule", "seed", "workers",
)  # fmt: skip


def _study_message(message: str) -> str:
    """A study's message with its keywords (``min_log2n``) written as options (``--min-log2n``)."""
    for word in sorted(_STUDY_KEYWORDS, key=len, reverse=True):
        option = "--" + word.replace("_", "-")
        message = re.sub(rf"(?<![\w-]){word}(?![\w-])", option, message)
    return message


def _reproduce(args: argparse.Namespace) -> int:
    """Every option checked (ranges, the output folder, the paper's ``make_study``) before the
    study runs."""
    paper = args.paper
    _check_paper_options(args)
    study = importlib.import_module(f"reference.experiments.{paper}")
    runs = _optional(args.runs, parse_int, "--runs", _MIN_RUNS[paper], MAX_RUNS)
    seed = _seed(args.seed)
    workers = _optional(args.workers, parse_int, "--workers", 1, MAX_WORKERS)
    options = {**_study_options(args, study), "runs": runs, "seed": seed, "quick": args.quick}
    out = check_output_folder(study.DEFAULT_OUT if args.out is None else args.out, "--out")
    if hasattr(study, "make_study"):
        try:
            study.make_study(**options)
        except ValueError as exc:
            raise UsageError(f"reproduce {paper}: {_study_message(str(exc))}") from None
    progress = _reproduce_progress(args.quiet)
    if paper == "aamand25":
        names = None if args.figure is None else [args.figure]
        paths = study.run_figures(names, **options, workers=workers, out=out, progress=progress)
    else:
        if paper in ("fukuchi19", "tzamos20") and workers is None:
            workers = 1
        paths = study.run_study(**options, workers=workers, out=out, progress=progress)
    if paper == "imola25":
        feasibility = next((p for p in paths if Path(p).name == "imola25_feasibility.csv"), None)
        if feasibility is not None:
            _print_duplications(Path(feasibility))
    for path in paths:
        print(f"written: {path}")
    return EXIT_OK


def _print_duplications(path: Path) -> None:
    """One line per adjacency: the duplication factor (and n) the study used."""
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["role"].endswith("(used)"):
                ok = "feasible" if row["feasible"] == "True" else "NOT feasible for every draw"
                print(
                    f"{row['adjacency']}: duplication {row['duplication']} (n = {row['n']}), "
                    f"SliceQuantiles {ok} at m <= {row['m']} (w = {row['w']}, h = {row['h']})"
                )


# --------------------------------------------------------------------------------------------
# parser
# --------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dpquant",
        description="Reference DP quantile mechanisms, their claims ledger and a privacy auditor.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("claims", help="print the claims ledger with counts per status")
    p.add_argument(
        "--ledger", default=None, help="path to claims.toml (default: notes/claims.toml)"
    )
    p.set_defaults(func=_claims)

    p = sub.add_parser(
        "audit",
        help="audit a mechanism or function (MODULE:ATTR), or everything (--all)",
        description=(
            "Audit one mechanism (an object with sample() and claim) or one function "
            "fn(data, rng) -> output named by MODULE:ATTR or path/to/file.py:ATTR; or, with "
            "--all, the reference registry, the controls and the known-bad catalogue. Exit "
            "code 0: no violation found (--all: every outcome as expected); 1: a violation "
            "(or a sampler that does not match its exact law, or a draw that exceeded --timeout; "
            "--all: an unexpected outcome); "
            "2: usage error (a bad option value or output path, a target that cannot be "
            "imported); 3: the run failed unexpectedly; 130: interrupted."
        ),
    )
    p.add_argument(
        "target", nargs="?", help="MODULE:ATTR, path/to/file.py:ATTR or peer:NAME (a library)"
    )
    p.add_argument("--all", action="store_true", help="audit the registry and the catalogue")
    claim = p.add_argument_group(
        "claim", "required for a plain function; for a mechanism, each one overrides its claim"
    )
    claim.add_argument("--epsilon", default=None, help="claimed ε (a finite number > 0)")
    claim.add_argument("--delta", default=None, help="claimed δ in [0, 1) (default 0)")
    claim.add_argument(
        "--adjacency",
        choices=ADJACENCIES,
        default=None,
        help="neighbouring relation (default for a function: replace_one)",
    )
    p.add_argument(
        "--domain",
        default=None,
        metavar="LO,HI",
        help="input values to search, e.g. 0,1 or -inf,inf (default: the mechanism's domain)",
    )
    p.add_argument("--samples", default=None, help="draws per data set (default: the auditor's)")
    p.add_argument("--seed", default=0, help="random seed (default 0)")
    p.add_argument("--alpha", default=None, help="1 − confidence of the bound (default 1e-6)")
    p.add_argument("--mode", choices=MODES, default="auto", help="default: auto")
    p.add_argument(
        "--timeout",
        default=None,
        metavar="SECONDS",
        help="per-draw time limit: a draw that takes longer ends the audit with a clear report",
    )
    p.add_argument(
        "--float-lattice",
        action="store_true",
        default=None,
        help="also test float-lattice events: finds leaks of the float realisation (Mironov 2012)",
    )
    p.add_argument("--json", default=None, metavar="PATH", help="write the report as JSON")
    p.add_argument("--markdown", default=None, metavar="PATH", help="write the report as Markdown")
    p.add_argument("--plot", default=None, metavar="PATH", help="write a PNG plot")
    p.add_argument(
        "--out", default=None, help="--all: output folder (default: reports)", metavar="DIR"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_audit)

    p = sub.add_parser(
        "validate",
        help="test a candidate implementation against a reference mechanism, and audit it",
        description=(
            "Test that CANDIDATE draws from the same law as REFERENCE on a battery of data sets "
            "(against the reference's exact law where it has one, by a two-sample test "
            "otherwise; family-wise false alarm <= --alpha), report the smallest deviation each "
            "test detects with probability 1 − --beta, and audit the candidate under the "
            "reference's claim. REFERENCE: a name from `dpquant mechanisms` or MODULE:ATTR of a "
            "mechanism. CANDIDATE: MODULE:ATTR or path/to/file.py:ATTR of a mechanism or of a "
            "function fn(data, rng) -> output, or peer:NAME (diffprivlib, opendp, python-dp, "
            "eeprivacy with their defaults). Exit code 0: passed; 1: a difference or a violation; "
            "2: usage error; 3: the run failed unexpectedly."
        ),
    )
    p.add_argument("reference", help="registry name or MODULE:ATTR")
    p.add_argument("candidate", help="MODULE:ATTR, path/to/file.py:ATTR or peer:NAME")
    p.add_argument("--samples", default=20_000, help="draws per data set (20000)")
    p.add_argument("--alpha", default=None, help="family-wise false alarm (default 1e-6)")
    p.add_argument("--beta", default=0.05, help="1 − power of the reported deviation")
    p.add_argument("--seed", default=0, help="random seed (default 0)")
    p.add_argument(
        "--sizes", default=None, metavar="LIST",
        help="data-set sizes of the battery (default 1,2,5,9,33,200)",
    )  # fmt: skip
    p.add_argument("--no-audit", action="store_true", help="skip the audit of the candidate")
    p.add_argument("--audit-samples", default=None, help="the audit's draws per data set")
    p.add_argument("--json", default=None, metavar="PATH", help="write the report as JSON")
    p.add_argument("--markdown", default=None, metavar="PATH", help="write the report as Markdown")
    p.set_defaults(func=_validate)

    p = sub.add_parser(
        "mechanisms", help="list what `dpquant audit --all` audits (registry and catalogue)"
    )
    p.set_defaults(func=_mechanisms)

    p = sub.add_parser(
        "reproduce",
        help="re-run a paper's experiments and write CSV and PNG files",
        description=(
            "Re-run the experiments of a paper (aamand25: Sec. 5 and App. I, figures 1a, 1b, 2, "
            "3, 4, 5) and write, per figure, <figure>.csv (success rate per configuration, "
            "mechanism, ε and α_test), <figure>_errors.csv (one row per run) and PNG plots. "
            "imola25: Sec. 6 / Figure 1 on Adult age and hours (ε = 1, δ = 1e-16, both "
            "adjacencies) at the smallest data duplication where SliceQuantiles is feasible; "
            "writes imola25.csv (max and mean rank error with bootstrap CIs per panel, m, "
            "mechanism), imola25_runs.csv, imola25_feasibility.csv and imola25.png. fukuchi19: "
            "Sec. 6.1 / Figures 1–2 (synthetic Beta data, Algorithm 2 with the Lower-α and "
            "Unknown-α schedules, the Laplace baseline); writes fukuchi19.csv (worst case over "
            "x_min of the MAE per setting, data model, schedule, N and ε), fukuchi19_xmin.csv, "
            "fukuchi19_fits.csv (guideline fits) and PNG figures. tzamos20: the accuracy study of "
            "the ε-DP private median (exact miss probability per data set, averaged over data "
            "sets, vs n, against the terms of Theorem 3.1); writes tzamos20.csv, "
            "tzamos20_runs.csv, tzamos20_crossings.csv and PNG figures."
        ),
    )
    p.add_argument(
        "paper",
        choices=PAPERS,
        help="the paper whose experiments to run",
    )
    p.add_argument(
        "--figure",
        choices=AAMAND25_FIGURES,
        default=None,
        help="aamand25: one figure (default: all)",
    )
    p.add_argument(
        "--runs",
        default=None,
        help="runs per configuration (default 200; --quick: 4 for aamand25, 3 for imola25; "
        "fukuchi19: 1000, --quick 300; tzamos20: data sets per cell, 40, --quick 12)",
    )
    p.add_argument("--seed", default=0, help="random seed of the runs (default 0)")
    p.add_argument(
        "--workers",
        default=None,
        help="processes (default: the number of CPUs; fukuchi19: 1)",
    )
    p.add_argument(
        "--out", default=None, metavar="DIR", help="output folder (default: reports/<paper>)"
    )
    p.add_argument("--quick", action="store_true", help="a tiny version for smoke tests")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    imola = p.add_argument_group("imola25 only")
    imola.add_argument(
        "--m",
        default=None,
        metavar="LIST",
        help="numbers of quantiles, e.g. 10,100,200 (default 10,20,...,200; --quick: 10,20)",
    )
    imola.add_argument(
        "--panels",
        default=None,
        metavar="LIST",
        help="a (age, substitute), b (hours, substitute), c (age, add/remove), d (hours, "
        "add/remove); default a,b,c,d (--quick: a,c)",
    )
    imola.add_argument(
        "--duplication",
        default=None,
        metavar="K",
        help="force the duplication factor (default: the smallest feasible per adjacency); "
        "infeasible SliceQuantiles runs are then skipped and noted",
    )
    imola.add_argument(
        "--jointexp-runs",
        default=None,
        metavar="R",
        help="JointExp runs per m (default 10; --quick: 1; 0: no JointExp)",
    )
    imola.add_argument(
        "--jointexp-m",
        default=None,
        metavar="LIST",
        help="m values for JointExp, intersected with --m (default 10,50,100,200; --quick: 10)",
    )
    fukuchi = p.add_argument_group("fukuchi19 only")
    fukuchi.add_argument(
        "--settings",
        choices=("main", "all"),
        default=None,
        help="Beta settings: main (α = β = 1, Δ = 0.3) or all 30 (default all; --quick: main)",
    )
    fukuchi.add_argument(
        "--other-runs",
        default=None,
        metavar="R",
        help="runs per cell for the settings other than the main one (default: --runs)",
    )
    fukuchi.add_argument(
        "--min-log2n", default=None, metavar="n", help="smallest N = 2^n (default 10)"
    )
    fukuchi.add_argument(
        "--max-log2n",
        default=None,
        metavar="n",
        help="largest N = 2^n (default 20; --quick: 12)",
    )
    fukuchi.add_argument(
        "--data-models",
        default=None,
        metavar="LIST",
        help="fixed, iid or fixed,iid (default both)",
    )
    fukuchi.add_argument(
        "--schedules",
        default=None,
        metavar="LIST",
        help="lower_alpha, unknown_alpha or both (default both)",
    )
    fukuchi.add_argument(
        "--laplace",
        choices=("main", "all", "none"),
        default=None,
        help="settings of the Laplace baseline (N·runs draws per cell; default main)",
    )
    fukuchi.add_argument(
        "--laplace-iid", action="store_true", help="also run the baseline on i.i.d. data"
    )
    fukuchi.add_argument(
        "--no-eps-sweep", action="store_true", help="skip the Err-vs-ε panel (Fig. 1 right)"
    )
    fukuchi.add_argument(
        "--exact-max-levels",
        default=None,
        metavar="L",
        help="exact tree law on fixed data when L <= this (default 10; 0: never)",
    )
    tzamos = p.add_argument_group("tzamos20 only")
    tzamos.add_argument(
        "--regimes",
        default=None,
        metavar="LIST",
        help="statistical, local, global (which of T1, T2, T3 dominates; default all three; "
        "--quick: quick)",
    )
    tzamos.add_argument(
        "--distributions",
        default=None,
        metavar="LIST",
        help="uniform, pareto or both (default both)",
    )
    tzamos.add_argument(
        "--n-values",
        default=None,
        metavar="LIST",
        help="sample sizes (default 20,40,80,160,320,480,640,1280,2560,5120; --quick: 8,16,32)",
    )
    tzamos.add_argument(
        "--c",
        default=None,
        metavar="C",
        help="the constant C (default 5/4), or C0 with --c-rule log (C = C0 ln n)",
    )
    tzamos.add_argument(
        "--c-rule",
        choices=("constant", "log"),
        default=None,
        help="C constant (default) or C0 ln n (Cor. E.10)",
    )
    p.set_defaults(func=_reproduce)
    return parser


def _join_domain(argv: Sequence[str]) -> list[str]:
    """``--domain -1,1`` as ``--domain=-1,1``: argparse would read ``-1,1`` as an option."""
    out: list[str] = []
    it = iter(argv)
    for a in it:
        if a == "--domain":
            nxt = next(it, None)
            out.append(a if nxt is None else f"--domain={nxt}")
        else:
            out.append(a)
    return out


def _run(argv: Sequence[str] | None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if isinstance(argv, str | bytes) or not all(isinstance(a, str) for a in argv):
        raise UsageError(f"the arguments must be a list of strings, got {_show(argv)}")
    try:
        args = build_parser().parse_args(_join_domain(list(argv)))
    except SystemExit as exc:  # --help (argparse errors raise UsageError)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    return args.func(args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dpquant`` with ``argv`` (default ``sys.argv[1:]``) and return the exit code (module
    docstring): 0 nothing found, 1 a finding, 2 a usage error (one line on stderr), 3 an
    unexpected failure of the run, 130 interrupted. Never raises (``SystemExit`` included).

    Warnings raised during the command are shown once each, one line, after a command that
    completed (exit 0 or 1); a refused or failed command shows its one error line only."""
    with warnings.catch_warnings(record=True) as caught:
        code = _main(argv)
    if code in (EXIT_OK, EXIT_FAILED):
        lines = (f"{w.category.__name__}: {_one_line(w.message, 300)}" for w in caught)
        for line in dict.fromkeys(lines):
            print(f"dpquant: warning: {line}", file=sys.stderr)
    return code


def _main(argv: Sequence[str] | None) -> int:
    try:
        return _run(argv)
    except ValueError as exc:  # usage errors, and every value the library refused
        _fail(exc)
        return EXIT_USAGE
    except OSError as exc:
        where = f": {exc.filename!r}" if getattr(exc, "filename", None) else ""
        _fail(f"{exc.strerror or exc}{where}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _fail("interrupted; nothing was concluded")
        return EXIT_INTERRUPTED
    except SystemExit as exc:  # only the audited code gets here: dpquant itself never exits
        _fail(
            f"the audited code called sys.exit({exc.code!r}) during the run; nothing was concluded"
        )
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 -- the last resort: one line, a distinct code
        if os.environ.get("DPQUANT_TRACEBACK"):
            traceback.print_exc()
        _fail(
            f"unexpected {_exception_text(exc)} (a fault of the audited code or of "
            "dpquant; nothing was concluded; DPQUANT_TRACEBACK=1 prints the traceback)"
        )
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
