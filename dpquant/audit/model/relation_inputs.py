"""The checks of what a caller gives the auditor's relations: data sets, names and lists.

Every data set a relation takes or gives is real numbers under the data policy
(:func:`real_array`: counted before anything is converted) inside the audit's domain
(:func:`as_input`, :func:`check_inside`); a name is a short string (:func:`check_name`); a list of
pairs or seeds is read from a caller's iterable up to a cap (:func:`listed`); a caller's object
is shown in an error by a short repr (:func:`describe`). Used by :mod:`dpquant.audit.model.relations`,
:mod:`dpquant.audit.model.record_spaces` and :mod:`dpquant.audit.model.wrap`.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Mapping
from itertools import islice
from typing import Any

import numpy as np

from dpquant.audit.model.limits import MAX_NAME
from dpquant.audit.model.neighbours import MAX_PAIRS, len_or_none
from dpquant.reference.validation import check_domain, check_real_array

MAX_RECORDS = 100_000
"""Most numbers in one data set of a relation object."""


def describe(x: Any, width: int = 80) -> str:
    """A short repr of a caller's object (or of an exception its code raised) for an error
    message, never read to decide anything.

    Args:
        x: Any object.
        width: The most characters shown.

    Returns:
        :mod:`reprlib`'s repr (long or deep containers cut, never listed in full), or the
            type's name when ``repr`` fails.
    """
    short = reprlib.Repr()
    short.maxstring = short.maxother = width
    try:
        text = short.repr(x)
    except Exception:  # noqa: BLE001 -- an object whose repr fails is still described
        return f"a {type(x).__name__}"
    return text if len(text) <= width else text[: width - 3] + "..."


def count_numbers(x: Any, limit: int) -> int:
    """Count the numbers in ``x`` at a cost bounded by ``limit``, whatever ``x`` claims to hold
    (a ``range(10**12)`` is counted by its length, never listed).

    Args:
        x: A number, an array, or nested lists, tuples and ranges.
        limit: Counting stops once the count passes it. Deep nesting counts as numbers too:
            more than ``4 * limit`` items in all pass ``limit``.

    Returns:
        The count, or some number above ``limit``.
    """
    count, visits, stack = 0, 0, [x]
    while stack and count <= limit:
        item = stack.pop()
        visits += 1
        if isinstance(item, np.ndarray):
            count += item.size
        elif isinstance(item, range):
            count += len(item) if abs(item.stop - item.start) <= 4 * limit else limit + 1
        elif isinstance(item, list | tuple):
            stack.extend(item if len(item) <= 4 * limit else ())
            count += 0 if len(item) <= 4 * limit else limit + 1
        else:
            count += 1
        if visits > 4 * limit:
            return limit + 1
    return count


def real_array(
    x: Any, name: str, *, limit: int = MAX_RECORDS, allow_inf: bool = False
) -> np.ndarray:
    """``x`` as a new float array of its own shape (a number gives a 0-d array), under the
    library's data policy (:func:`dpquant.reference.validation.check_real_array`): real numbers
    that fit a float64 -- never booleans, strings, complex numbers, ``None``, dates or other
    objects -- and no NaN.

    Args:
        x: The caller's numbers.
        name: The argument named in errors.
        limit: The most numbers accepted; more are refused before anything is converted.
        allow_inf: Infinities are accepted.

    Returns:
        A new float array.

    Raises:
        ValueError: ``x`` breaks the policy or holds more than ``limit`` numbers (naming
            ``name``).
    """
    if count_numbers(x, limit) > limit:
        raise ValueError(f"{name} must hold at most {limit} real numbers")
    return check_real_array(x, name, allow_inf=allow_inf)


def check_name(name: Any, what: str = "name") -> str:
    """Check a name for messages or reports.

    Args:
        name: The name: a non-empty string of at most :data:`dpquant.audit.model.limits.MAX_NAME`
            characters.
        what: The argument named in the error.

    Returns:
        The name.

    Raises:
        ValueError: It is not such a string.
    """
    if not isinstance(name, str) or not name or len(name) > MAX_NAME:
        raise ValueError(
            f"{what} must be a non-empty string of at most {MAX_NAME} characters, got "
            f"{describe(name)}"
        )
    return name


def as_input(
    x: Any, name: str, domain: tuple[float, float], shape: tuple[int, ...] | None = None
) -> np.ndarray:
    """Check a data set of a relation object.

    Args:
        x: Finite reals under the data policy (:func:`real_array`; a number is a data set of
            one), at most :data:`MAX_RECORDS` of them.
        name: The argument named in errors.
        domain: The closed interval every number must lie in.
        shape: The shape required, or None for any.

    Returns:
        A new float array.

    Raises:
        ValueError: ``x`` breaks one of these (naming ``name``).
    """
    name = check_name(name)
    domain = check_domain(domain, "domain")
    arr = real_array(x, name)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    return check_inside(arr, name, domain)


def check_inside(arr: np.ndarray, name: str, domain: tuple[float, float]) -> np.ndarray:
    """Check that every number of an array lies in the closed ``domain``.

    Args:
        arr: The numbers.
        name: The argument named in the error.
        domain: The interval (lo, hi).

    Returns:
        ``arr``.

    Raises:
        ValueError: A number lies outside.
    """
    lo, hi = domain
    if arr.size and (arr.min() < lo or arr.max() > hi):
        raise ValueError(
            f"{name} must lie inside the domain [{lo}, {hi}], got values in "
            f"[{arr.min()}, {arr.max()}]"
        )
    return arr


def listed(items: Any, name: str, cap: int = MAX_PAIRS, what: str = "pairs") -> list[Any]:
    """The items of a caller's iterable.

    Args:
        items: An iterable, not a string or a mapping.
        name: The argument named in errors.
        cap: The most items accepted (a longer sized collection is refused before any is
            read).
        what: What the items are, in errors.

    Returns:
        The items, in order.

    Raises:
        ValueError: ``items`` is not such an iterable, or holds more than ``cap``.
    """
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
        raise ValueError(f"{name} must be an iterable of {what}, got {type(items).__name__}")
    size = len_or_none(items)
    if size is not None and size > cap:
        raise ValueError(f"{name} must hold at most {cap} {what}, got {size}")
    try:
        out = list(islice(items, cap + 1))
    except Exception as exc:  # noqa: BLE001 -- the caller's iterable failed: say where
        raise ValueError(f"{name} raised {describe(exc, 200)} while iterated") from None
    if len(out) > cap:
        raise ValueError(f"{name} must hold at most {cap} {what}")
    return out


__all__ = [
    "MAX_RECORDS",
    "as_input",
    "check_inside",
    "check_name",
    "count_numbers",
    "describe",
    "listed",
    "real_array",
]
