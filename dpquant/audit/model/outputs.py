"""Mechanism outputs as the auditor sees them: numbers, or named atoms; and the sampling contract.

A mechanism's draws are normalised into :class:`Outputs`: a float matrix of numeric outputs
(shape (n, k), one column per output coordinate) and, for every draw that is not a number, the
name of its atom. Atoms are outputs like any other: an exception raised while sampling becomes the
atom ``raised:<ExceptionType>``, a draw that exceeded the audit's time limit the atom
:data:`TIMEOUT`, a NaN the atom ``nan``. A mechanism that crashes (or hangs) on one neighbour and
not on the other therefore leaks, and the auditor can bound by how much.

**The sampling contract.** ``sample(data, size, rng)`` returns ``size`` draws: an array of shape
``(size,)`` or ``(size, k)``, or a sequence of ``size`` outputs. Each output is

* a real number (``int``, ``float``, numpy integer or float, ``Fraction``, ``Decimal``; not
  ``bool``): a numeric row of width 1;
* a complex number: the numeric row (real part, imaginary part), so nothing of it is lost (a leak
  through either part is a leak of a coordinate);
* a flat sequence of reals (or complex numbers, each as two coordinates): a numeric row;
* a symbol: a boolean (``bool:True``/``bool:False``), ``None``, a string or bytes (by their
  ``repr``);
* a flat sequence mixing symbols (strings, bytes, None, booleans) with numbers, or only symbols
  (the sparse vector technique's ⊥/⊤ answers, with or without noisy values): the atom of its
  *pattern*, the symbols in order with each number written ``#`` (``('⊥', '⊥', '⊤')``,
  ``('⊥', #)``), read position by position as well (:attr:`Outputs.tokens`);

and, as atoms, a NaN anywhere in a draw (``nan``), a value too large for a float64 (``10**400``, a
``longdouble`` 1e400: ``overflow``), an empty sequence (``length:0``), numeric rows of differing
lengths from one call (``length:<k>``). Anything else breaks the contract and is refused with
:class:`MalformedOutput` (a ``ValueError`` that the auditor reraises naming the mechanism): a
result that does not hold ``size`` draws (a scalar, ``None``, a generator, a dict, an array of
another length), an array of three or more dimensions or of no columns, and draws that are not
outputs at all (a dict, a set, a generator, a matrix or ragged rows per draw, any other object,
whose ``repr`` would name it by its address and never repeat). The auditor refuses such a
mechanism rather than audit a lossy reading of it: an atom that is the same on both sides of every
pair, or one that never repeats, would report "no violation found" for a leak.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from typing import Any

import numpy as np

from dpquant.audit.model.draw_values import NUMERIC, TIMEOUT, Outputs, Raised
from dpquant.audit.model.sampling_contract import MalformedOutput, kind_of
from dpquant.reference.validation import check_size


def _real(x: Any) -> tuple[float | None, str]:
    """A real scalar as (float, "") or (None, atom name): NaN, overflow."""
    try:
        value = float(x)
    except OverflowError:
        return None, "overflow"
    except ValueError:  # Decimal("sNaN"): a signalling NaN
        return None, "nan"
    if math.isnan(value):
        return None, "nan"
    if math.isinf(value) and not _infinite(x):
        return None, "overflow"
    return value, NUMERIC


def _infinite(x: Any) -> bool:
    """Is the real ``x`` itself infinite (not merely too large for a float64)?"""
    if isinstance(x, Decimal):
        return x.is_infinite()
    if isinstance(x, numbers.Rational):
        return False
    return bool(np.isinf(x))


_FAST_REALS = (float, int, np.floating, np.integer)
_REAL_TYPES = (numbers.Real, Decimal)


def _is_real(x: Any) -> bool:
    """A real number, not a boolean (the concrete types first: the ABC check is slower)."""
    if isinstance(x, (bool, np.bool_)):
        return False
    return isinstance(x, _FAST_REALS) or isinstance(x, _REAL_TYPES)


def _is_complex(x: Any) -> bool:
    return isinstance(x, complex | np.complexfloating)


def _complex_row(z: Any) -> tuple[np.ndarray | None, str]:
    """A complex draw as the numeric row (real part, imaginary part); ``nan`` if either is NaN."""
    parts = np.array([np.real(z), np.imag(z)], dtype=float)
    if np.isnan(parts).any():
        return None, "nan"
    return parts, NUMERIC


def _as_row(x: Any) -> tuple[np.ndarray | None, str]:
    """One draw as (numeric row, "") or (None, atom name); a draw that is not an output raises
    :class:`MalformedOutput`."""
    if isinstance(x, Raised):
        return None, str(x)
    if isinstance(x, (bool, np.bool_)):
        return None, f"bool:{bool(x)}"
    if _is_real(x):
        value, atom = _real(x)
        return (None, atom) if value is None else (np.array([value]), NUMERIC)
    if _is_complex(x):
        return _complex_row(x)
    if x is None:
        return None, "None"
    if isinstance(x, (str, bytes, np.str_, np.bytes_)):
        return None, _symbol(x)[:200]
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return _as_row(x[()])
    if isinstance(x, (list, tuple, np.ndarray)):
        return _sequence_row(x)
    raise MalformedOutput(f"returned a draw that is {kind_of(x)}")


def _is_symbol(x: Any) -> bool:
    """A symbol of a structured output: a string, bytes, None or a boolean."""
    return x is None or isinstance(x, str | bytes | np.str_ | np.bytes_ | bool | np.bool_)


def _pattern(items: list[Any]) -> str:
    """The atom of a flat sequence mixing symbols and numbers: its symbols in order (strings by
    their ``repr``), each number written ``#`` (e.g. ``('⊥', '⊥', '⊤')`` or ``('⊥', #, '⊥')``);
    cut to 200 characters like every atom name."""
    return f"({', '.join('#' if _is_real(i) else _symbol(i) for i in items)})"[:200]


def _symbol(x: Any) -> str:
    """A symbol's name: a string or bytes by its ``repr``, None and booleans by their text."""
    if isinstance(x, str | np.str_):
        return repr(str(x))
    if isinstance(x, bytes | np.bytes_):
        return repr(bytes(x))
    return str(bool(x)) if isinstance(x, np.bool_) else str(x)


_PLAIN_ITEMS = frozenset({str, float, int})
_PATTERNS: dict[tuple[str | None, ...], str] = {}
MAX_PATTERNS = 4096
"""Patterns of plain structured draws remembered (:func:`_plain_pattern`); more: forgotten."""


def _plain_pattern(items: list[Any]) -> str | None:
    """The pattern of a flat draw of Python ``str``, ``float`` and ``int`` items holding at least
    one string, or None for any other draw. The fast path of :func:`_sequence_row` for the
    common structured draw (a sparse vector's ``('⊥', '⊥', 0.53)``): such a draw's pattern
    depends only on its strings and on where its numbers are, so it is remembered by that,
    and each further draw costs a look-up instead of a check of every item (the same pattern
    as the general path gives: ``tests/audit/model/test_audit_outputs_sampling.py``)."""
    kinds = set(map(type, items))
    if str not in kinds or not kinds <= _PLAIN_ITEMS:
        return None
    key = tuple(i if type(i) is str else None for i in items)
    pattern = _PATTERNS.get(key)
    if pattern is None:
        pattern = _pattern(items)
        if len(_PATTERNS) >= MAX_PATTERNS:
            _PATTERNS.clear()
        _PATTERNS[key] = pattern
    return pattern


def _sequence_row(x: Any) -> tuple[np.ndarray | None, str]:
    """A flat sequence of reals (complex numbers as two coordinates each) as a numeric row, of
    symbols and numbers as its pattern; anything else raises :class:`MalformedOutput`."""
    if isinstance(x, list | tuple) and (plain := _plain_pattern(list(x))) is not None:
        return None, plain
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise MalformedOutput(f"returned a draw that is {kind_of(x)} (a draw must be flat)")
        if x.dtype.kind in "OUSb":  # objects, strings, bytes or booleans: as the list they hold
            return _sequence_row(x.tolist())
        if x.dtype.kind not in "iufc":
            raise MalformedOutput(f"returned a draw that is an array of dtype {x.dtype}")
        arr = x
    else:
        items = list(x)
        if any(isinstance(i, (list, tuple, np.ndarray)) for i in items):
            raise MalformedOutput(
                f"returned a draw that is {kind_of(x)} holding sequences (a matrix or ragged "
                "rows: a draw must be flat)"
            )
        if any(_is_symbol(i) for i in items) and all(_is_symbol(i) or _is_real(i) for i in items):
            return None, _pattern(items)
        for item in items:
            if not (_is_real(item) or _is_complex(item)):
                raise MalformedOutput(
                    f"returned a draw that is {kind_of(x)} holding {kind_of(item)}"
                )
        if any(_is_complex(i) for i in items):
            arr = np.asarray(items, dtype=complex)
        elif all(isinstance(i, float | int | np.floating | np.integer) for i in items):
            try:
                arr = np.asarray(items, dtype=float)
            except OverflowError:  # an int beyond a float64
                return None, "overflow"
        else:  # Fractions, Decimals: each read exactly as a float, or its atom
            read = [_real(i) for i in items]
            for atom in ("nan", "overflow"):
                if any(a == atom for _, a in read):
                    return None, atom
            arr = np.array([v for v, _ in read], dtype=float)
    if arr.size == 0:
        return None, "length:0"
    if arr.dtype.kind == "c":
        arr = np.column_stack([arr.real, arr.imag]).ravel()
    with np.errstate(over="ignore"):
        row = arr.astype(float)
    if np.isnan(row).any():
        return None, "nan"
    if arr.dtype.kind == "f" and np.any(np.isinf(row) & np.isfinite(arr)):
        return None, "overflow"
    return row, NUMERIC


def _drawn(raw: Any, size: int) -> None:
    """Refuse a result that does not hold ``size`` draws (:class:`MalformedOutput`)."""
    if isinstance(raw, np.ndarray):
        if raw.ndim == 0:
            raise MalformedOutput(f"returned {kind_of(raw)} (a scalar), not {size} draws")
        if raw.shape[0] != size:
            raise MalformedOutput(f"returned {kind_of(raw)}: {raw.shape[0]} draws for {size}")
        if raw.ndim > 2:
            raise MalformedOutput(
                f"returned {kind_of(raw)}: one row per draw, of shape ({size},) or ({size}, k)"
            )
        if raw.ndim == 2 and raw.shape[1] == 0 and size:
            raise MalformedOutput(f"returned {kind_of(raw)}: draws with no value")
    elif isinstance(raw, (list, tuple)):
        if len(raw) != size:
            raise MalformedOutput(f"returned {kind_of(raw)}: {len(raw)} draws for {size}")
    elif not isinstance(raw, Outputs):
        raise MalformedOutput(f"returned {kind_of(raw)}, not {size} draws")
    elif len(raw) != size:
        raise MalformedOutput(f"returned {len(raw)} draws for {size}")


def normalise(raw: Any, size: int) -> Outputs:
    """Normalise what ``sample`` returned.

    Args:
        raw: What ``sample`` returned: an array of ``size`` draws, or a sequence of objects.
        size: The draws asked for, an int in [0, ``MAX_DRAWS``].

    Returns:
        The draws, numbers and atoms apart.

    Raises:
        MalformedOutput: ``raw`` breaks the sampling contract (module docstring): it does not
            hold ``size`` draws, or a draw is not an output.
    """
    size = check_size(size, "size")
    _drawn(raw, size)
    if isinstance(raw, Outputs):
        return raw
    if isinstance(raw, np.ndarray) and raw.dtype.kind == "c":  # each as (real, imaginary)
        raw = np.stack([raw.real, raw.imag], axis=-1).reshape(size, -1)
    if isinstance(raw, np.ndarray) and raw.dtype.kind in "iuf":
        with np.errstate(over="ignore"):
            values = raw.astype(float).reshape(size, -1)
        bad = np.isnan(values).any(axis=1)
        atoms = np.where(bad, "nan", NUMERIC).astype(object)
        if raw.dtype.kind == "f" and raw.dtype.itemsize > 8:
            over = (np.isinf(values) & np.isfinite(raw.reshape(size, -1))).any(axis=1)
            atoms[over] = "overflow"
            bad = bad | over
        values = np.where(bad[:, None], np.nan, values)
        return Outputs(values, atoms)
    if isinstance(raw, np.ndarray) and raw.ndim == 2:
        if raw.dtype.kind == "b":
            raw = raw.astype(object)
        if raw.dtype.kind in "OU":
            block = _symbol_block(raw)
            if block is not None:
                return block
    items = list(raw)
    seen: dict[int, tuple[np.ndarray | None, str]] = {}  # one object drawn many times: once
    rows = [seen[id(x)] if id(x) in seen else seen.setdefault(id(x), _as_row(x)) for x in items]
    structure = _structure(items, [a for _, a in rows])
    widths = {len(r) for r, _ in rows if r is not None}
    if len(widths) > 1:
        # outputs of varying length: each length is its own atom family
        rows = [(None, f"length:{len(r)}") if r is not None else (r, a) for r, a in rows]
        widths = set()
    width = widths.pop() if widths else 1
    values = np.full((size, width), np.nan)
    atoms = np.empty(size, dtype=object)
    for i, (r, a) in enumerate(rows):
        atoms[i] = a
        if r is not None:
            values[i] = r
    return Outputs(values, atoms, *structure)


MAX_POSITIONS = 64
"""Positions of a structured draw that get position events (longer ones keep their pattern)."""


def _structure(items: list[Any], atoms: list[str]) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The tokens and numbers of the structured draws among ``items`` (those whose atom is a
    pattern), position by position (:class:`Outputs`); (None, None) when there are none. Draws
    of one pattern share their tokens, so each pattern is read once and only the numbers of each
    draw are read draw by draw."""
    groups: dict[str, list[int]] = {}
    for i, a in enumerate(atoms):
        if a.startswith("(") and isinstance(items[i], list | tuple | np.ndarray):
            if len(items[i]) <= MAX_POSITIONS:
                groups.setdefault(a, []).append(i)
    if not groups:
        return None, None
    length = max(len(items[rows[0]]) for rows in groups.values())
    tokens = np.full((len(items), length), "", dtype=object)
    numbers = np.full((len(items), length), np.nan)
    for rows in groups.values():
        first = items[rows[0]]
        tokens[rows, : len(first)] = ["#" if _is_real(x) else _symbol(x) for x in first]
        where = [j for j, x in enumerate(first) if _is_real(x)]
        if where:
            numbers[np.ix_(rows, where)] = [_numbers(items[r], where) for r in rows]
    return tokens, numbers


def _numbers(item: Any, where: list[int]) -> list[float]:
    """The numbers of a structured draw at positions ``where`` (NaN for one too large for a
    float64)."""
    out = []
    for j in where:
        value, _ = _real(item[j])
        out.append(np.nan if value is None else value)
    return out


MAX_BLOCK_SYMBOLS = 64
"""Most distinct symbols in a block of structured draws read at once (more: read one by one)."""


def _element_codes(raw: np.ndarray) -> tuple[np.ndarray, list[Any]] | None:
    """For a (size, L) array of strings or objects: each element's code (0 for a number, i for
    the i-th distinct symbol) and the distinct symbols; None when an element is neither a number
    nor a symbol, or there are more than :data:`MAX_BLOCK_SYMBOLS` symbols."""
    number = np.zeros(raw.shape, dtype=bool)
    if raw.dtype.kind == "O":
        types = np.frompyfunc(type, 1, 1)(raw)
        for t in set(types.ravel().tolist()):
            if issubclass(t, _REAL_TYPES) and not issubclass(t, (bool, np.bool_)):
                boxed = np.empty((), dtype=object)
                boxed[()] = t  # compared as an object (a numpy type would be broadcast)
                number |= types == boxed
            elif not (
                t is type(None) or issubclass(t, (str, bytes, np.str_, np.bytes_, bool, np.bool_))
            ):
                return None
    codes = np.zeros(raw.shape, dtype=np.uint8)
    symbols: list[Any] = []
    left = ~number
    while left.any():
        if len(symbols) == MAX_BLOCK_SYMBOLS:
            return None
        symbol = raw.flat[int(np.argmax(left))]
        hit = left & (raw == symbol)
        symbols.append(symbol)
        codes[hit] = len(symbols)
        left &= ~hit
    return codes, symbols


def _row_keys(codes: np.ndarray, base: int) -> np.ndarray:
    """One key per row of small codes (< ``base``), equal exactly when the rows are equal."""
    length = codes.shape[1]
    if length * math.log2(base) < 62:
        return codes.astype(np.int64) @ (np.int64(base) ** np.arange(length, dtype=np.int64))
    return np.ascontiguousarray(codes).view(np.dtype((np.void, length))).ravel()


def _symbol_block(raw: np.ndarray) -> Outputs | None:
    """A (size, L) array of strings or objects whose rows are flat sequences of symbols and
    numbers (a vectorised function's structured draws), read without a Python loop over draws:
    the same :class:`Outputs` as reading the rows one by one as tuples (rows with no symbol are
    numeric rows, the others atoms of their pattern). None when some element is neither a
    number nor a symbol, there are many symbols, or the rows are longer than
    :data:`MAX_POSITIONS` (the rows are then read one by one)."""
    size, length = raw.shape
    coded = _element_codes(raw) if 0 < length <= MAX_POSITIONS else None
    if coded is None:
        return None
    codes, symbols = coded
    names = np.array(["#"] + [_symbol(x) for x in symbols], dtype=object)
    number = codes == 0
    numbers = np.full((size, length), np.nan)
    if number.any():
        numbers[number] = _read_numbers(raw[number])
    plain = number.all(axis=1)
    bad = plain & np.isnan(numbers).any(axis=1)
    values = np.where((plain & ~bad)[:, None], numbers, np.nan)
    if not (plain & ~bad).any():  # no numeric row: one NaN column, as draw by draw
        values = np.full((size, 1), np.nan)
    atoms = np.full(size, NUMERIC, dtype=object)
    for r in np.flatnonzero(bad):  # a NaN or an overflow in a numeric row: its atom, as one by one
        atoms[r] = _as_row(tuple(raw[r]))[1]
    structured = ~plain
    if not structured.any():
        return Outputs(values, atoms)
    keys = _row_keys(codes[structured], len(names))
    _, first, which = np.unique(keys, return_index=True, return_inverse=True)
    rows = codes[structured][first]
    texts = np.array([f"({', '.join(names[row])})"[:200] for row in rows], dtype=object)
    atoms[structured] = texts[which.ravel()]
    tokens = names[codes]
    tokens[plain] = ""
    numbers[plain] = np.nan
    return Outputs(values, atoms, tokens, numbers)


def _read_numbers(items: np.ndarray) -> np.ndarray:
    """The numbers of structured draws as floats, NaN for a NaN or for one too large for a
    float64 (:func:`_real`, element by element only where the fast conversion cannot say)."""
    try:
        with np.errstate(over="ignore"):
            out = items.astype(float)
    except OverflowError:
        out = None
    if out is None or (items.dtype == object and np.isinf(out).any()):
        return np.array([np.nan if (v := _real(x)[0]) is None else v for x in items])
    return out


__all__ = ["MAX_POSITIONS", "NUMERIC", "TIMEOUT", "Outputs", "Raised", "normalise"]
