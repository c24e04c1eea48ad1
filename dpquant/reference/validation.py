"""Input validation shared by every constructor, sampler, law and auditor entry point.

Each helper returns the cleaned value or raises :class:`dpquant.errors.ParameterError` (a
``ValueError``) carrying the parameter's name and its allowed range; no other exception type
escapes (an ``int`` too large for a float is a ``ValueError``, not an ``OverflowError``). The data policy (``notes/foundation.md``, "Data policy"):

* **numbers only**: real ints, floats and ``Fraction``s (and numpy's integer and float scalars);
  never ``str``/``bytes``, ``bool``, ``complex``, ``datetime64``/``timedelta64``, ``Decimal``,
  ``None`` or other objects, and never a nested sequence unless the caller declares vector records;
* **every value fits a float64**: a finite value whose magnitude exceeds the largest double
  (``10**400``, ``Fraction(10**400)``, a ``longdouble`` 1e400) is refused, never turned into ``inf``;
* **no NaN**, and no infinity where a finite value is needed;
* **flags are ``bool``** (``True``/``False`` or ``numpy.bool_``): ``1``, ``"no"`` or ``None`` are refused;
* **sizes are ints** under a cap (:data:`MAX_DRAWS` draws per call), refused before any allocation.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Iterable
from concurrent.futures import Executor
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.errors import MissingAttributeError, ParameterError, recorded_name

MAX_DRAWS = 10**7
"""The most draws one ``sample(..., size, ...)`` call makes (80 MB of float64 at one output per
draw); ask for more in several calls. Refused with ``ValueError`` before anything is allocated."""

MAX_FLOAT = sys.float_info.max

_NUMERIC_KINDS = frozenset("iuf")


def _is_real_scalar(x: Any) -> bool:
    """A real number that is not a bool (Python or numpy)."""
    if type(x) is float or type(x) is int:  # the common case, without the abstract-class checks
        return True
    return isinstance(x, numbers.Real | np.floating | np.integer) and not isinstance(
        x, bool | np.bool_
    )


def _describe(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def _as_float(x: Any, name: str) -> float:
    """``float(x)`` for a real scalar, refusing values that do not fit a double."""
    try:
        value = float(x)
    except OverflowError:
        raise ParameterError(name, _fits(name), "a number too large") from None
    except (TypeError, ValueError):
        raise ParameterError(name, "must be a real number", _describe(x)) from None
    if math.isinf(value) and isinstance(x, np.floating) and np.isfinite(x):
        raise ParameterError(name, _fits(name), repr(x))
    return value


def check_real(x: Any, name: str) -> float:
    """A real scalar (not bool); returned as float (may be +-inf, never NaN)."""
    if not _is_real_scalar(x):
        raise ParameterError(name, "must be a real number", _describe(x))
    value = _as_float(x, name)
    if math.isnan(value):
        raise ParameterError(name, "must be a real number", "nan")
    return value


def check_finite(x: Any, name: str) -> float:
    """A finite real scalar, returned as float."""
    value = check_real(x, name)
    if not math.isfinite(value):
        raise ParameterError(name, "must be a finite real number", repr(value))
    return value


def check_positive(x: Any, name: str) -> float:
    """A finite real scalar > 0 (a positive value that underflows to 0.0 as a float is refused)."""
    value = check_finite(x, name)
    if value <= 0:
        raise ParameterError(name, "must be a finite number > 0", _describe(x))
    return value


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Privacy parameter epsilon: a finite number > 0."""
    return check_positive(epsilon, name)


def check_delta(delta: Any, name: str = "delta") -> float:
    """Privacy parameter delta in [0, 1)."""
    value = check_finite(delta, name)
    if not 0.0 <= value < 1.0:
        raise ParameterError(name, "must lie in [0, 1)", repr(value))
    return value


def check_probability(
    p: Any, name: str, *, open_left: bool = False, open_right: bool = False
) -> float:
    """A probability in [0, 1], optionally excluding either end."""
    value = check_finite(p, name)
    lo_ok = value > 0 if open_left else value >= 0
    hi_ok = value < 1 if open_right else value <= 1
    if not (lo_ok and hi_ok):
        interval = ("(" if open_left else "[") + "0, 1" + (")" if open_right else "]")
        raise ParameterError(name, f"must lie in {interval}", repr(value))
    return value


def check_int(x: Any, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer (not bool, not float), optionally in [``minimum``, ``maximum``]."""
    _check_limit(minimum, "minimum")
    _check_limit(maximum, "maximum")
    # a plain int (never a bool: its type is bool) skips the abstract-class checks, which cost
    # most of a call (the protocols of dpquant.reference check ints per draw)
    if type(x) is not int and (
        isinstance(x, bool | np.bool_) or not isinstance(x, numbers.Integral | np.integer)
    ):
        raise ParameterError(name, "must be an integer", _describe(x))
    value = int(x)
    if minimum is not None and value < minimum:
        raise ParameterError(name, f"must be an integer >= {minimum}", _describe(x))
    if maximum is not None and value > maximum:
        lo = "" if minimum is None else f"{minimum} <= "
        raise ParameterError(name, f"must be an integer {lo}{name} <= {maximum}", _describe(x))
    return value


def _check_limit(limit: Any, name: str) -> None:
    """A bound given to a check (``minimum``, ``maximum``, ``cap``): an int or None."""
    if limit is not None and type(limit) is not int and (
        isinstance(limit, bool | np.bool_) or not isinstance(limit, numbers.Integral | np.integer)
    ):
        raise ParameterError(name, "must be an integer or None", _describe(limit))


def check_size(
    size: Any, name: str = "size", *, minimum: int = 0, cap: int = MAX_DRAWS
) -> int:
    """A number of draws: an integer in [``minimum``, ``cap``] (default cap :data:`MAX_DRAWS`),
    checked before anything is allocated."""
    for limit, label in ((minimum, "minimum"), (cap, "cap")):
        if limit is None:
            raise ParameterError(label, "must be an integer", "None")
        _check_limit(limit, label)
    if isinstance(size, bool | np.bool_) or not isinstance(size, numbers.Integral | np.integer):
        raise ParameterError(name, f"must be an integer in [{minimum}, {cap}]", _describe(size))
    value = int(size)
    if not minimum <= value <= cap:
        raise ParameterError(
            name,
            f"must be an integer in [{minimum}, {cap}]",
            _describe(size) + (" (draw in several calls)" if value > cap else ""),
        )
    return value


def check_flag(x: Any, name: str) -> bool:
    """A flag: ``True`` or ``False`` (a ``bool`` or ``numpy.bool_``), nothing else."""
    if not isinstance(x, bool | np.bool_):
        raise ParameterError(name, "must be True or False", _describe(x))
    return bool(x)


def check_choice(x: Any, name: str, choices: Iterable[str]) -> str:
    """One of the strings ``choices`` (compared exactly: no case folding, no other types)."""
    if isinstance(choices, str | bytes) or not hasattr(choices, "__iter__"):
        raise ParameterError("choices", "must be a sequence of strings", _describe(choices))
    options = tuple(choices)
    if not all(isinstance(c, str) for c in options):
        raise ParameterError("choices", "must be a sequence of strings", _describe(choices))
    if not isinstance(x, str) or x not in options:
        raise ParameterError(name, f"must be one of {options}", _describe(x))
    return x


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` (seed it yourself: ``numpy.random.default_rng(seed)``)."""
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(name, "must be a numpy.random.Generator", type(rng).__name__)
    return rng


def check_executor(executor: Any, name: str = "executor") -> Any:
    """None, or a ``concurrent.futures.Executor`` (a thread or process pool, a dask.distributed
    client's ``get_executor()``)."""
    if executor is not None and not isinstance(executor, Executor):
        raise ParameterError(
            name,
            "must be a concurrent.futures.Executor (a thread or process pool, a dask "
            "client's get_executor()) or None",
            type(executor).__name__,
        )
    return executor


def check_domain(domain: Any, name: str = "domain", *, finite: bool = False) -> tuple[float, float]:
    """A pair (lo, hi) of reals with lo < hi; infinite ends allowed unless ``finite``, in which
    case the width hi − lo must also be a finite float (no overflow)."""
    pair = "must be a pair (lo, hi) with lo < hi"
    if isinstance(domain, str | bytes | dict) or not hasattr(domain, "__len__"):
        raise ParameterError(name, pair, _describe(domain))
    try:
        lo, hi = domain
    except (TypeError, ValueError):
        raise ParameterError(name, pair, _describe(domain)) from None
    check = check_finite if check_flag(finite, "finite") else check_real
    lo, hi = check(lo, f"{name}[0]"), check(hi, f"{name}[1]")
    if not lo < hi:
        raise ParameterError(name, pair, f"({lo!r}, {hi!r})")
    if finite and not math.isfinite(hi - lo):
        raise ParameterError(
            name,
            f"must have a width hi - lo that fits a float64 (<= {MAX_FLOAT:.4g})",
            f"({lo!r}, {hi!r})",
        )
    return lo, hi


# --------------------------------------------------------------------------------------------
# data sets
# --------------------------------------------------------------------------------------------

_DATA = "a 1-D sequence of finite real numbers"


def _refuse_kind(arr: np.ndarray, name: str, what: str) -> None:
    kind = arr.dtype.kind
    if kind == "b":
        raise ParameterError(name, f"must be {what}", "booleans")
    if kind == "c":
        raise ParameterError(name, f"must be {what}", "complex numbers")
    if kind in "mM":
        raise ParameterError(name, f"must be {what}", f"dates or times ({arr.dtype})")
    if kind in "USa":
        raise ParameterError(name, f"must be {what}", "strings")
    if kind not in _NUMERIC_KINDS and kind != "O":
        raise ParameterError(name, f"must be {what}", f"dtype {arr.dtype}")


def _check_element_types(values: Iterable[Any], name: str, what: str) -> None:
    """Every element a real scalar; one ``isinstance`` per distinct type, not per element."""
    for t in set(map(type, values)):
        if issubclass(t, bool | np.bool_):
            raise ParameterError(name, f"must be {what}", "booleans")
        if issubclass(t, str | bytes):
            raise ParameterError(name, f"must be {what}", "strings")
        if issubclass(t, list | tuple | np.ndarray):
            raise ParameterError(name, f"must be {what}", "nested sequences")
        if not issubclass(t, numbers.Real | np.floating | np.integer):
            raise ParameterError(name, f"must be {what}", f"values of type {t.__name__}")


def _does_not_fit(name: str) -> ParameterError:
    """The error for an array ``name`` holding a finite value beyond float64's range."""
    return ParameterError(name, f"must hold values that fit a float64 (|x| <= {MAX_FLOAT:.4g})")


def _fits(name: str) -> str:
    """What a scalar ``name`` beyond float64's range is told."""
    return f"must fit a float64 (|{name}| <= {MAX_FLOAT:.4g})"


def _as_array(data: Any, name: str, what: str, depth: int | None) -> np.ndarray:
    """``data`` as a numpy array without numpy's coercions (booleans to numbers, strings parsed):
    the element types of a sequence are checked before numpy converts it. ``depth`` is the
    number of dimensions a sequence must have (1: numbers; 2: records of numbers), or None for
    any shape (nested lists of numbers, or one number)."""
    if isinstance(data, str | bytes):
        raise ParameterError(name, f"must be {what}", "a string")
    if isinstance(data, np.ndarray):
        return data
    if not isinstance(data, list | tuple | range):
        try:
            return np.asarray(data)
        except Exception:  # noqa: BLE001 -- any failure to read the data is a refusal
            raise ParameterError(name, f"must be {what}", _describe(data)) from None
    if depth is None:
        try:
            raw = np.array(data, dtype=object)
        except ValueError:
            raise ParameterError(name, f"must be {what}", "ragged nested sequences") from None
        _check_element_types(raw.ravel().tolist(), name, what)  # ragged rows stay lists: refused
        return raw
    rows: Any = data
    for _ in range(depth - 1):  # vector records: the rows must be sequences of numbers
        if any(
            isinstance(r, str | bytes) or not isinstance(r, list | tuple | np.ndarray) for r in rows
        ):
            raise ParameterError(name, f"must be {what}", "a record that is not a sequence")
        rows = [v for r in rows for v in (r.tolist() if isinstance(r, np.ndarray) else r)]
    _check_element_types(rows, name, what)
    if not data:
        return np.empty((0,) * depth)
    try:  # every element is a real number: numpy converts without coercions (fast path)
        with np.errstate(over="ignore"):
            return np.array(data, dtype=np.float64)
    except OverflowError:
        raise _does_not_fit(name) from None
    except ValueError:
        raise ParameterError(name, f"must be {what}", "ragged nested sequences") from None


def _to_float_array(data: Any, name: str, what: str, depth: int | None = 1) -> np.ndarray:
    """A fresh float64 array of ``data``'s values, refusing every non-number and every finite
    value that does not fit a float64 (a ``longdouble``, ``Fraction``, ``mpf`` or huge int)."""
    raw = _as_array(data, name, what, depth)
    _refuse_kind(raw, name, what)
    if raw.dtype.kind == "O":
        _check_element_types(raw.ravel().tolist(), name, what)
    try:
        with np.errstate(over="ignore"):
            arr = np.array(raw, dtype=np.float64, copy=True)
    except OverflowError:
        raise _does_not_fit(name) from None
    except (TypeError, ValueError):
        raise ParameterError(name, f"must be {what}", _describe(data)) from None
    inf = np.isinf(arr)
    if inf.any() and (raw.dtype.kind == "O" or raw.dtype.itemsize > 8 or raw is not data):
        source = raw if raw is data or raw.dtype.kind == "O" else np.array(data, dtype=object)
        if not all(_is_infinite(v) for v in source[inf].ravel().tolist()):
            raise _does_not_fit(name)
    return arr


def check_data(
    data: Any,
    name: str = "data",
    *,
    domain: tuple[float, float] | None = None,
    allow_empty: bool = False,
    record_dim: int | None = None,
) -> np.ndarray:
    """A data set under the data policy (module docstring): a new float64 array.

    Scalar records (``record_dim=None``): a 1-D array of finite numbers. Vector records
    (``record_dim=k``, declared by a mechanism whose records are vectors): a 2-D array of shape
    (n, k). Non-empty unless ``allow_empty``; inside ``domain`` (closed) if given. The caller's
    object is never modified.
    """
    allow_empty = check_flag(allow_empty, "allow_empty")
    if record_dim is not None:
        record_dim = check_int(record_dim, "record_dim", minimum=1)
    if domain is not None:
        domain = check_domain(domain, "domain")
    what = _DATA if record_dim is None else f"a sequence of records of {record_dim} real numbers"
    arr = _to_float_array(data, name, what, 1 if record_dim is None else 2)
    if record_dim is None:
        if arr.ndim != 1:
            raise ParameterError(name, f"must be {what}", f"shape {arr.shape}")
    elif arr.ndim != 2 or arr.shape[1] != record_dim:
        if not (arr.ndim == 1 and arr.size == 0):
            raise ParameterError(name, f"must be {what}", f"shape {arr.shape}")
        arr = arr.reshape(0, record_dim)
    if arr.size == 0 and not allow_empty:
        raise ParameterError(name, "must be non-empty")
    if not np.all(np.isfinite(arr)):
        raise ParameterError(name, "must contain finite numbers only (no NaN or inf)")
    if domain is not None and arr.size:
        lo, hi = domain
        if arr.min() < lo or arr.max() > hi:
            raise ParameterError(
                name,
                f"must lie inside the domain [{lo}, {hi}]",
                f"values in [{arr.min()}, {arr.max()}]",
            )
    return arr


def check_fraction(
    x: Any, name: str, *, positive: bool = False, nonnegative: bool = False
) -> Fraction:
    """An exact rational (int or Fraction; finite floats are converted exactly)."""
    if isinstance(x, bool | np.bool_):
        raise ParameterError(name, "must be a rational number", repr(x))
    if isinstance(x, Fraction | numbers.Integral | np.integer):
        value = Fraction(int(x)) if isinstance(x, np.integer) else Fraction(x)
    elif isinstance(x, float | np.floating) and math.isfinite(float(x)):
        value = Fraction(float(x))
    else:
        raise ParameterError(
            name, "must be a rational number (int, Fraction or finite float)", _describe(x)
        )
    if abs(value) > MAX_FLOAT:
        raise ParameterError(name, _fits(name))
    if positive and value <= 0:
        raise ParameterError(name, "must be > 0", str(value))
    if nonnegative and value < 0:
        raise ParameterError(name, "must be >= 0", str(value))
    return value


def check_record(data: Any, name: str = "data") -> float:
    """One user's value (local DP): a real number, or a sequence holding exactly one, under the
    data policy of :func:`check_data`; returned as a float."""
    if isinstance(data, list | tuple | np.ndarray):
        arr = check_data(data, name)
        if arr.size != 1:
            raise ParameterError(name, "must be one user's value (a single number)", str(arr.size))
        return float(arr[0])
    return check_finite(data, name)


def check_real_array(x: Any, name: str, *, allow_inf: bool = False) -> np.ndarray:
    """A real scalar or an array-like of real numbers of any shape (numpy array, list, tuple,
    nested lists), as a new float64 array, under the data policy of :func:`check_data`: numbers
    only, values that fit a float64, no NaN; infinities refused unless ``allow_inf``. Evaluation
    points of a law (``cdf(y)``), counts and probabilities of the statistics."""
    allow_inf = check_flag(allow_inf, "allow_inf")
    what = "real numbers" if allow_inf else "finite real numbers"
    if _is_real_scalar(x):
        value = _as_float(x, name)
        if math.isinf(value) and not _is_infinite(x):
            raise ParameterError(name, _fits(name), repr(x))
        arr = np.array(value)
    elif isinstance(x, np.ndarray | list | tuple | range):
        arr = _to_float_array(x, name, what, None)
    else:
        raise ParameterError(name, f"must be {what} (a number or an array)", _describe(x))
    if np.isnan(arr).any():
        raise ParameterError(name, f"must be {what}", "nan")
    if not allow_inf and np.isinf(arr).any():
        raise ParameterError(name, f"must be {what}", "an infinity")
    return arr


def _is_infinite(v: Any) -> bool:
    """An infinite value of any real type (float, numpy, mpmath): ``v`` equals ±2·max-float."""
    try:
        return abs(v) > MAX_FLOAT and abs(v) == abs(v) * 2
    except Exception:  # noqa: BLE001 -- an exotic number: not known to be infinite
        return False


_MISSING: Any = object()


def read_attribute(obj: Any, attribute: str, owner: str, default: Any = _MISSING) -> Any:
    """``obj.<attribute>`` of a user's object (a mechanism, say), named ``owner`` in messages:
    ``default`` when it has none (if given), else a ``ValueError``; an attribute that raises when
    read (a property that fails) is a ``ValueError`` naming it, whatever it raised."""
    try:
        return getattr(obj, attribute)
    except AttributeError:
        if default is not _MISSING:
            return default
        raise MissingAttributeError(f"{owner}.{attribute}") from None
    except Exception as exc:  # noqa: BLE001 -- any failure to read it is a refusal
        raise ParameterError(
            f"{owner}.{attribute}", f"cannot be read ({recorded_name(exc)}: {exc})"
        ) from None
