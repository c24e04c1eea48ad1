"""Option values of the command line: text to checked numbers, fractions, lists and names.

Every parser takes the option's text and its name (``--samples``) and returns the value, or
raises :class:`UsageError` (a ``ValueError``: exit code 2) with one line naming the option and
showing the value given. Shared by :mod:`dpquant.cli` and the studies' ``add_arguments``.

Numbers are written as on a calculator (issue 34): ASCII digits, an optional sign, point and
exponent, or ``inf``/``nan`` for the range checks to refuse; Python's other spellings
(``1_000``, Arabic-Indic digits ``٣``) are refused, not read. A list (``10,20,30``) names each
value once and has no empty item: ``10,10`` and ``10,,20`` are refused (a repeated value would run
or search it twice, a stray comma may hide a missing value), never silently cleaned.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from dpquant.errors import ParameterError
from dpquant.reference.validation import (
    check_delta,
    check_epsilon,
    check_positive,
    check_probability,
)

MAX_RUNS = 10**6
"""``dpquant reproduce --runs`` (and a study's other run counts) per configuration, at most."""


class UsageError(ValueError):
    """A usage error of the command line (exit code 2)."""


def show(text: Any) -> str:
    """A user's value, quoted and shortened, for an error message."""
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


_INT = re.compile(r"[+-]?[0-9]{1,40}")
_FLOAT = re.compile(
    r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)",
    re.IGNORECASE,
)
MAX_NUMBER_TEXT = 1000
"""Most characters of a number's text (``1`` and 400 zeros is read, then refused as too large)."""
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
            f"{option} must be an integer >= {minimum} and <= {maximum}, got {show(text)}"
        )
    return value


def parse_float(text: Any, option: str) -> float:
    """An option's real value as a float: refuses text that is not a number and finite values
    that do not fit a float64 (``1e400``) or round to 0 (``1e-400``); ``nan`` and ``inf`` are
    returned for the caller's range check to refuse."""
    s = str(text).strip()
    if len(s) > MAX_NUMBER_TEXT or not _FLOAT.fullmatch(s):
        raise UsageError(f"{option} must be a number, got {show(text)}")
    value = float(s)
    if math.isinf(value) and s.lstrip("+-").lower() not in ("inf", "infinity"):
        raise UsageError(f"{option} must fit a float64 (|x| <= 1.797e308), got {show(text)}")
    if value == 0.0 and re.search(r"[1-9]", s.lower().split("e")[0]):
        raise UsageError(f"{option} is too small for a float64 (it rounds to 0), got {show(text)}")
    return value


def checked(check: Callable[..., float], text: Any, option: str, **kw: Any) -> float:
    """``check(parse_float(text), option)``, its ``ValueError`` turned into a usage error."""
    value = parse_float(text, option)
    try:
        return check(value, option, **kw)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def parse_epsilon(text: Any, option: str = "--epsilon") -> float:
    """A privacy parameter ε: a finite number > 0."""
    return checked(check_epsilon, text, option)


def parse_delta(text: Any, option: str = "--delta") -> float:
    """A privacy parameter δ in [0, 1)."""
    return checked(check_delta, text, option)


def parse_open_probability(text: Any, option: str) -> float:
    """A probability in (0, 1)."""
    return checked(check_probability, text, option, open_left=True, open_right=True)


def parse_positive(text: Any, option: str) -> float:
    """A finite number > 0."""
    return checked(check_positive, text, option)


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
            f"got {show(text)}"
        )
    return value


def _items(text: Any, option: str, what: str, most: int) -> list[str]:
    """The comma-separated items of a list option: 1 to ``most`` of them, none empty."""
    items = [v.strip() for v in str(text).split(",")]
    if not any(items) or len(items) > most:
        raise UsageError(f"{option} must be 1 to {most} {what} 'a,b,c', got {show(text)}")
    if not all(items):
        raise UsageError(
            f"{option} must not have an empty item (two commas in a row, or one at an end), "
            f"got {show(text)}"
        )
    return items


def _distinct(values: Sequence[Any], option: str, text: Any) -> None:
    """Each value of a list option once (``-0`` and ``0`` are the same number)."""
    seen: set[Any] = set()
    for v in values:
        if v in seen:
            raise UsageError(f"{option} must not repeat a value ({v!r} twice), got {show(text)}")
        seen.add(v)


def parse_int_list(text: Any, option: str, minimum: int, maximum: int) -> tuple[int, ...]:
    """``"10,20,30"`` as a tuple of distinct integers in [``minimum``, ``maximum``]."""
    items = _items(text, option, "integers", 1000)
    try:
        values = tuple(parse_int(v, option, minimum, maximum) for v in items)
    except UsageError:
        raise UsageError(
            f"{option} must be integers 'a,b,c', each >= {minimum} and <= {maximum}, "
            f"got {show(text)}"
        ) from None
    _distinct(values, option, text)
    return values


def parse_float_list(text: Any, option: str, most: int = 10_000) -> tuple[float, ...]:
    """``"0,0.5,1"`` as a tuple of at most ``most`` distinct finite reals."""
    values = tuple(parse_float(v, option) for v in _items(text, option, "numbers", most))
    if not all(math.isfinite(v) for v in values):
        raise UsageError(f"{option} must be finite numbers 'a,b,c', got {show(text)}")
    _distinct(values, option, text)
    return values


def parse_names(text: Any, option: str, allowed: Sequence[str]) -> tuple[str, ...]:
    """``"a,c"`` as a tuple of distinct names, each in ``allowed``."""
    values = tuple(_items(text, option, "names", 1000))
    if any(v not in allowed for v in values):
        raise UsageError(
            f"{option} must be names among {', '.join(allowed)} separated by commas, "
            f"got {show(text)}"
        )
    _distinct(values, option, text)
    return values


def parse_domain(text: str, option: str = "--domain") -> tuple[float, float]:
    """``"lo,hi"`` (``inf`` and ``-inf`` allowed) as a pair of floats."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2 or not all(parts):
        raise UsageError(f"{option} must be 'lo,hi', got {show(text)}")
    try:
        lo, hi = parse_float(parts[0], option), parse_float(parts[1], option)
    except UsageError:
        raise UsageError(f"{option} must be two numbers 'lo,hi', got {show(text)}") from None
    if math.isnan(lo) or math.isnan(hi) or not lo < hi:
        raise UsageError(f"{option} must have lo < hi (numbers, not nan), got {show(text)}")
    if math.isfinite(lo) and math.isfinite(hi) and not math.isfinite(hi - lo):
        raise UsageError(
            f"{option} must have a width hi - lo that fits a float64 (<= 1.797e308) when both "
            f"ends are finite, got {show(text)}"
        )
    return lo, hi


def optional(text: Any, parse: Callable[..., Any], *args: Any) -> Any:
    """``None`` for an option not given, else ``parse(text, *args)``."""
    return None if text is None else parse(text, *args)


def option_message(exc: ValueError, options: Mapping[str, str]) -> str:
    """A library's refusal as the command line says it: a :class:`dpquant.errors.ParameterError`
    names its parameters as the options the user typed (``min_log2n`` → ``--min-log2n``), read
    from its attributes, never from its text; another ``ValueError`` keeps its message.

    Args:
        exc: The library's error.
        options: Each keyword of the library that an option sets → that option.

    Returns:
        The message, each parameter's keyword replaced by its option where ``options`` has it.
    """
    if isinstance(exc, ParameterError):
        return str(exc.renamed(options))
    return str(exc)


__all__ = [
    "MAX_RUNS",
    "UsageError",
    "option_message",
    "checked",
    "optional",
    "parse_delta",
    "parse_domain",
    "parse_epsilon",
    "parse_float",
    "parse_float_list",
    "parse_fraction",
    "parse_int",
    "parse_int_list",
    "parse_names",
    "parse_open_probability",
    "parse_positive",
    "show",
]
