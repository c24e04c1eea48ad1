"""Mechanism outputs as the auditor sees them: numbers, or named atoms.

A mechanism's draws are normalised into :class:`Outputs`: a float matrix of numeric outputs
(shape (n, k), one column per output coordinate) and, for every draw that is not a number, the
name of its atom. Atoms are outputs like any other: an exception raised while sampling becomes the
atom ``raised:<ExceptionType>``, a NaN becomes ``nan``, and any other object becomes its ``repr``.
A mechanism that crashes on one neighbour and not on the other therefore leaks, and the auditor can
bound by how much.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

NUMERIC = ""  # the atom name of a numeric draw


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
        names, counts = np.unique(self.atoms, return_counts=True)
        return {str(a): int(c) for a, c in zip(names, counts, strict=True) if a != NUMERIC}

    @staticmethod
    def concat(parts: list[Outputs]) -> Outputs:
        if not parts:
            raise ValueError("parts must be non-empty")
        widths = {p.width for p in parts if len(p)}
        if len(widths) > 1:
            raise ValueError(f"outputs of different widths cannot be pooled: {sorted(widths)}")
        width = widths.pop() if widths else parts[0].width
        values = np.concatenate([p.values.reshape(len(p), width) for p in parts])
        return Outputs(values, np.concatenate([p.atoms for p in parts]))

    @staticmethod
    def empty(width: int = 1) -> Outputs:
        """No draws."""
        return Outputs(np.empty((0, width)), np.empty(0, dtype=object))


def _as_row(x: Any) -> tuple[np.ndarray | None, str]:
    """One draw as (numeric row, "") or (None, atom name)."""
    if isinstance(x, Raised):
        return None, str(x)
    if isinstance(x, (bool, np.bool_)):
        return None, f"bool:{bool(x)}"
    if isinstance(x, (int, float, np.integer, np.floating)):
        if isinstance(x, (float, np.floating)) and math.isnan(x):
            return None, "nan"
        return np.array([float(x)]), NUMERIC
    if x is None or isinstance(x, (str, bytes)):
        return None, repr(x)
    try:
        arr = np.asarray(x, dtype=float).ravel()
    except (TypeError, ValueError):
        return None, f"{type(x).__name__}:{x!r}"[:200]
    if np.isnan(arr).any():
        return None, "nan"
    return arr, NUMERIC


def normalise(raw: Any, size: int) -> Outputs:
    """Normalise what ``sample`` returned (an array of ``size`` draws, or a list of objects)."""
    if isinstance(raw, Outputs):
        return raw
    if isinstance(raw, np.ndarray) and raw.dtype != object and raw.dtype != bool:
        if raw.shape[:1] != (size,) or raw.ndim > 2:
            raise ValueError(
                f"sample(data, size, rng) must return shape (size,) or (size, k) with size = "
                f"{size}, got shape {raw.shape}"
            )
        values = raw.astype(float).reshape(size, -1)
        nan = np.isnan(values).any(axis=1)
        atoms = np.where(nan, "nan", NUMERIC).astype(object)
        values = np.where(nan[:, None], np.nan, values)
        return Outputs(values, atoms)
    try:
        items = list(raw)
    except TypeError:
        raise ValueError(
            f"sample(data, size, rng) must return {size} draws, got {type(raw).__name__}"
        ) from None
    if len(items) != size:
        raise ValueError(f"sample(data, size, rng) must return {size} draws, got {len(items)}")
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
