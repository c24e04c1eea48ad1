"""Mechanism outputs as the auditor sees them: numbers, or named atoms.

A mechanism's draws are normalised into :class:`Outputs`: a float matrix of numeric outputs
(shape (n, k), one column per output coordinate) and, for every draw that is not a number, the
name of its atom. Atoms are outputs like any other: an exception raised while sampling becomes the
atom ``raised:<ExceptionType>``, a draw that exceeded the audit's time limit the atom
:data:`TIMEOUT`, a NaN the atom ``nan``. A mechanism that crashes (or hangs) on one neighbour and
not on the other therefore leaks, and the auditor can bound by how much.

Nothing is converted silently: a draw is numeric only when it is a real number (``int``,
``float``, numpy integer or float; not ``bool``) or a flat sequence of them that fits a float64.
Everything else is an atom, named by what it is rather than by its value where the value is
continuous (so that atoms repeat and can be counted):

* complex numbers: ``complex:imag=0``, ``complex:imag>0``, ``complex:imag<0`` or ``complex:nan``
  (a mechanism that leaks through the imaginary part leaks through these names);
* booleans ``bool:True``/``bool:False``; ``None``, strings and bytes by their ``repr``;
* flat sequences mixing symbols (strings, None, booleans) with numbers or only symbols (the
  sparse vector technique's ⊥/⊤ answers, with or without noisy values): their *pattern*, the
  symbols in order with each number written ``#`` (``('⊥', '⊥', '⊤')``, ``('⊥', #)``), so each
  pattern is an event (the joint event of every position);
* other sequences that are not flat rows of reals: ``array<shape>`` (a matrix per draw),
  ``ragged``, ``sequence:<element type>``;
* values too large for a float64 (``10**400``, a ``longdouble`` 1e400): ``overflow``;
* draws of a call whose result does not hold one row per draw: ``wrong-number-of-draws``;
  numeric rows of differing lengths: ``length:<k>``;
* other objects: ``<type>:<repr>`` (cut to 200 characters).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from reference.validation import check_size

NUMERIC = ""  # the atom name of a numeric draw
TIMEOUT = "timeout"  # the atom of a draw that exceeded the audit's per-draw time limit
WRONG_COUNT = "wrong-number-of-draws"


@dataclass(frozen=True)
class Raised:
    """An exception raised while drawing one output, kept as an output atom."""

    type_name: str

    @classmethod
    def of(cls, exc: BaseException) -> Raised:
        return cls(type(exc).__name__)

    def __str__(self) -> str:
        return f"raised:{self.type_name}"


@dataclass(frozen=True)
class Outputs:
    """``n`` draws: ``values`` (n, k) floats (NaN where the draw is an atom) and ``atoms`` (n,)
    atom names, with ``""`` (:data:`NUMERIC`) for numeric draws."""

    values: np.ndarray
    atoms: np.ndarray

    def __len__(self) -> int:
        return len(self.atoms)

    @property
    def width(self) -> int:
        return self.values.shape[1]

    @property
    def numeric(self) -> np.ndarray:
        """Boolean mask of the numeric draws."""
        return self.atoms == NUMERIC

    def atom_counts(self) -> dict[str, int]:
        counts = Counter(self.atoms.tolist())
        counts.pop(NUMERIC, None)
        return {str(a): int(c) for a, c in sorted(counts.items())}

    def as_atoms(self) -> Outputs:
        """The same draws with every numeric row made the atom ``length:<k>`` (used when draws
        of different widths must be pooled)."""
        atoms = np.where(self.numeric, f"length:{self.width}", self.atoms).astype(object)
        return Outputs(np.full((len(self), 1), np.nan), atoms)

    def halves(self) -> tuple[Outputs, Outputs]:
        """The first ⌊n/2⌋ draws and the rest (independent draws: two independent samples)."""
        h = len(self) // 2
        return Outputs(self.values[:h], self.atoms[:h]), Outputs(self.values[h:], self.atoms[h:])

    @staticmethod
    def concat(parts: list[Outputs]) -> Outputs:
        """Draws of several calls pooled; if the numeric rows of the calls have different
        widths, each numeric row becomes the atom ``length:<k>`` (a width that changes is an
        output like any other, never an error)."""
        if not parts:
            raise ValueError("parts must be non-empty")
        widths = {p.width for p in parts if p.numeric.any()}
        if len(widths) > 1:
            parts = [p.as_atoms() for p in parts]
            widths = {1}
        width = widths.pop() if widths else 1
        values = np.concatenate(
            [p.values if p.width == width else np.full((len(p), width), np.nan) for p in parts]
        )
        return Outputs(values, np.concatenate([p.atoms for p in parts]))

    @staticmethod
    def empty(width: int = 1) -> Outputs:
        """No draws."""
        return Outputs(np.empty((0, width)), np.empty(0, dtype=object))


def _complex_atom(z: complex) -> str:
    if math.isnan(z.real) or math.isnan(z.imag):
        return "complex:nan"
    if z.imag == 0:
        return "complex:imag=0"
    return "complex:imag>0" if z.imag > 0 else "complex:imag<0"


def _real(x: Any) -> tuple[float | None, str]:
    """A real scalar as (float, "") or (None, atom name): NaN, overflow."""
    try:
        value = float(x)
    except OverflowError:
        return None, "overflow"
    if math.isnan(value):
        return None, "nan"
    if math.isinf(value) and isinstance(x, np.floating) and np.isfinite(x):
        return None, "overflow"
    return value, NUMERIC


_REAL_TYPES = (int, float, np.integer, np.floating)


def _is_real(x: Any) -> bool:
    return isinstance(x, _REAL_TYPES) and not isinstance(x, (bool, np.bool_))


def _as_row(x: Any) -> tuple[np.ndarray | None, str]:
    """One draw as (numeric row, "") or (None, atom name)."""
    if isinstance(x, Raised):
        return None, str(x)
    if isinstance(x, (bool, np.bool_)):
        return None, f"bool:{bool(x)}"
    if _is_real(x):
        value, atom = _real(x)
        return (None, atom) if value is None else (np.array([value]), NUMERIC)
    if isinstance(x, complex | np.complexfloating):
        return None, _complex_atom(complex(x))
    if x is None:
        return None, "None"
    if isinstance(x, (str, bytes)):
        return None, repr(str(x) if isinstance(x, str) else bytes(x))[:200]
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return _as_row(x[()])
    if isinstance(x, (list, tuple, np.ndarray)):
        return _sequence_row(x)
    return None, f"{type(x).__name__}:{x!r}"[:200]


def _is_symbol(x: Any) -> bool:
    """A symbol of a structured output: a string, None or a boolean."""
    return x is None or isinstance(x, str | np.str_ | bool | np.bool_)


def _pattern(items: list[Any]) -> str:
    """The atom of a flat sequence mixing symbols and numbers: its symbols in order (strings by
    their ``repr``), each number written ``#`` (e.g. ``('⊥', '⊥', '⊤')`` or ``('⊥', #, '⊥')``);
    cut to 200 characters like every atom name."""
    parts = [
        "#" if _is_real(i) else repr(str(i)) if isinstance(i, str | np.str_) else str(i)
        for i in items
    ]
    return f"({', '.join(parts)})"[:200]


def _sequence_row(x: Any) -> tuple[np.ndarray | None, str]:
    """A flat sequence of reals as a numeric row; anything else an atom named by its kind."""
    if isinstance(x, np.ndarray):
        arr = x
    else:
        items = list(x)
        if any(isinstance(i, (list, tuple, np.ndarray)) for i in items):
            try:
                nested = np.array(items, dtype=float)
            except (TypeError, ValueError, OverflowError):
                return None, "ragged"
            return None, f"array{nested.shape}"
        if any(_is_symbol(i) for i in items) and all(_is_symbol(i) or _is_real(i) for i in items):
            return None, _pattern(items)
        for item in items:
            if isinstance(item, complex | np.complexfloating):
                return None, "sequence:complex"
            if not _is_real(item):
                return None, f"sequence:{type(item).__name__}"
        try:
            arr = np.asarray(items, dtype=float)
        except OverflowError:
            return None, "overflow"
    if arr.ndim != 1:
        return None, f"array{arr.shape}"
    if arr.size == 0:
        return None, "length:0"
    kind = arr.dtype.kind
    if kind == "O":
        return _sequence_row(arr.tolist())
    if kind == "c":
        return None, "sequence:complex"
    if kind == "b":
        return None, "sequence:bool"
    if kind not in "iuf":
        return None, f"sequence:{arr.dtype}"
    with np.errstate(over="ignore"):
        row = arr.astype(float)
    if np.isnan(row).any():
        return None, "nan"
    if kind == "f" and np.any(np.isinf(row) & np.isfinite(arr)):
        return None, "overflow"
    return row, NUMERIC


def _wrong_count(size: int) -> Outputs:
    atoms = np.empty(size, dtype=object)
    atoms[:] = WRONG_COUNT
    return Outputs(np.full((size, 1), np.nan), atoms)


def normalise(raw: Any, size: int) -> Outputs:
    """Normalise what ``sample`` returned (an array of ``size`` draws, or a sequence of objects);
    ``size`` is an int in [0, ``MAX_DRAWS``].

    A result that does not hold ``size`` draws (a scalar, a generator, an array of another
    length) makes every one of the ``size`` draws the atom ``wrong-number-of-draws``."""
    size = check_size(size, "size")
    if isinstance(raw, Outputs):
        if len(raw) != size:
            return _wrong_count(size)
        return raw
    if isinstance(raw, np.ndarray) and raw.dtype.kind in "iuf":
        if raw.ndim == 0 or raw.shape[0] != size:
            return _wrong_count(size)
        if raw.ndim > 2 or (raw.ndim == 2 and raw.shape[1] == 0):
            items = list(raw)  # one matrix per draw: atoms array<shape>
        else:
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
    elif isinstance(raw, (list, tuple, np.ndarray)):
        if (isinstance(raw, np.ndarray) and raw.ndim == 0) or len(raw) != size:
            return _wrong_count(size)
        items = list(raw)
    else:
        return _wrong_count(size)
    rows = [_as_row(x) for x in items]
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
    return Outputs(values, atoms)
