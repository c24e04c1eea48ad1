"""Exact integer lattice algebra for additive tree noise N = A·ξ (A an integer matrix, ξ iid
integer node noises): column echelon form, membership of a shift in the real span and in the
lattice A·ℤ^V, left null vectors, least-L1 representations, and the exact pmf of A·ξ for DLap
node noise when the integer kernel of A has dimension <= 1.

Used by :mod:`dpquant.reference.slice_quantiles.kary_tree` to decide whether a tree noise satisfies
Lemma 3.1 (1) for every contiguous shift (Eq. 1).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import mpmath
import numpy as np
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import MP_NINF, logsumexp, to_mpf, workdps
from dpquant.reference.slice_quantiles.inputs import check_int_array, positive_mpf
from dpquant.reference.validation import check_flag

MAX_MATRIX_SIDE = 1024
"""Most rows or columns of a matrix of the exact lattice algebra (:func:`integer_column_echelon`,
:func:`min_l1_cost`); entries of magnitude at most 2^31."""


def check_matrix(a: Any, name: str = "a") -> np.ndarray:
    """A 2-D integer matrix (entries |v| <= 2^31, at most MAX_MATRIX_SIDE rows and columns)."""
    arr = check_int_array(a, name, max_abs=2**31)
    if arr.ndim != 2 or 0 in arr.shape:
        raise ParameterError(name, "must be a non-empty 2-D integer matrix", f"shape {arr.shape}")
    if max(arr.shape) > MAX_MATRIX_SIDE:
        raise ParameterError(
            name,
            f"must have at most {MAX_MATRIX_SIDE} rows and columns",
            arr.shape,
        )
    return arr


# ----------------------------------------------------------------------------- exact lattice algebra
@dataclass(frozen=True)
class ColumnEchelon:
    """A·U = E with U unimodular (integer, det ±1), E's first ``rank`` columns in column echelon
    form (pivot rows strictly increasing) and its other columns zero. Columns rank.. of U span
    the integer kernel {c ∈ ℤ^V : A c = 0}."""

    echelon: tuple[tuple[int, ...], ...]
    transform: tuple[tuple[int, ...], ...]
    pivots: tuple[int, ...]  # pivot row of each of the first ``rank`` columns

    @property
    def rank(self) -> int:
        return len(self.pivots)

    @cached_property
    def sparse_rows(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """Non-zero (column, value) pairs of each row of E[:, :rank]."""
        r = self.rank
        return tuple(tuple((c, v) for c, v in enumerate(row[:r]) if v != 0) for row in self.echelon)

    @cached_property
    def sparse_transform_rows(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """Non-zero (column, value) pairs of each row of U."""
        return tuple(tuple((c, v) for c, v in enumerate(row) if v != 0) for row in self.transform)

    def kernel(self) -> list[list[int]]:
        """An integer basis of the kernel lattice (columns of U beyond the rank)."""
        u = self.transform
        return [[u[r][c] for r in range(len(u))] for c in range(self.rank, len(u[0]))]


def integer_column_echelon(a: Any) -> ColumnEchelon:
    """Exact integer column echelon form by extended-Euclid column operations (Python ints)."""
    arr = check_matrix(a)
    rows, cols = arr.shape
    e = [[int(x) for x in row] for row in arr.tolist()]
    u = [[int(r == c) for c in range(cols)] for r in range(cols)]

    def swap(c1: int, c2: int) -> None:
        for mat in (e, u):
            for row in mat:
                row[c1], row[c2] = row[c2], row[c1]

    def axpy(dst: int, src: int, q: int) -> None:  # column dst -= q·column src
        for mat in (e, u):
            for row in mat:
                row[dst] -= q * row[src]

    pivots: list[int] = []
    r = 0
    for row in range(rows):
        if r == cols:
            break
        for c in range(r + 1, cols):
            while e[row][c] != 0:
                if e[row][r] == 0:
                    swap(r, c)
                    continue
                axpy(c, r, e[row][c] // e[row][r])
                if e[row][c] != 0:
                    swap(r, c)
        if e[row][r] != 0:
            if e[row][r] < 0:
                for mat in (e, u):
                    for rr in mat:
                        rr[r] = -rr[r]
            pivots.append(row)
            r += 1
    return ColumnEchelon(tuple(map(tuple, e)), tuple(map(tuple, u)), tuple(pivots))


def _exact_div(num: int | Fraction, den: int) -> int | Fraction:
    """num/den as an int when it divides exactly (keeps the common unimodular case in ints)."""
    if isinstance(num, int) and num % den == 0:
        return num // den
    return Fraction(num) / den


def _solve_echelon(ech: ColumnEchelon, x: list[int]) -> list[int | Fraction] | None:
    """y (length rank) with E[:, :rank] y = x over ℚ, or None if x is not in the real span
    (forward substitution on the pivot rows, then a check of every row; sparse, exact)."""
    rows = ech.sparse_rows
    y: list[int | Fraction] = []
    for j, prow in enumerate(ech.pivots):
        acc: int | Fraction = x[prow]
        pivot = 0
        for col, val in rows[prow]:
            if col < j:
                acc -= val * y[col]
            elif col == j:
                pivot = val
        y.append(_exact_div(acc, pivot))
    for row, entries in enumerate(rows):
        if sum((val * y[col] for col, val in entries), 0) != x[row]:
            return None
    return y


def _apply_transform(ech: ColumnEchelon, y: list[int | Fraction]) -> list[int | Fraction]:
    """c = U[:, :rank]·y (sparse)."""
    c: list[int | Fraction] = [0] * len(ech.transform)
    for r, entries in enumerate(ech.sparse_transform_rows):
        c[r] = sum((val * y[col] for col, val in entries if col < len(y)), 0)
    return c


def span_membership(ech: ColumnEchelon, x: Any) -> tuple[bool, list[int] | None]:
    """(x ∈ span_ℝ(A), an integer c with A c = x or None if x ∉ A·ℤ^V), exact."""
    xs = _check_target(ech, x)
    y = _solve_echelon(ech, xs)
    if y is None:
        return False, None
    if any(isinstance(v, Fraction) and v.denominator != 1 for v in y):
        return True, None
    c = _apply_transform(ech, [int(v) for v in y])
    return True, [int(v) for v in c]


def _check_target(ech: Any, x: Any, name: str = "x") -> list[int]:
    if not isinstance(ech, ColumnEchelon):
        raise ParameterError("ech", "must be a ColumnEchelon", type(ech).__name__)
    v = check_int_array(x, name)
    if v.shape != (len(ech.echelon),):
        raise ParameterError(name, f"must be an integer vector of length {len(ech.echelon)}")
    return [int(t) for t in v.tolist()]


def unique_real_cost(ech: ColumnEchelon, x: Any) -> Fraction:
    """‖c‖₁ of the unique real solution of A c = x (A with a trivial kernel, x in its span)."""
    y = _solve_echelon(ech, _check_target(ech, x))
    if y is None:
        raise ParameterError("x", "is not in the column space")
    return sum((abs(Fraction(v)) for v in _apply_transform(ech, y)), Fraction(0))


def left_null_vectors(a: Any) -> list[list[int]]:
    """An integer basis of {v : vᵀA = 0} (the null space of the noise covariance A·Aᵀ)."""
    arr = check_matrix(a)
    ech = integer_column_echelon(arr.T.copy())
    return ech.kernel()


def min_l1_cost(a: Any, e: Any, *, integer: bool = False) -> float | None:
    """min ‖c‖₁ s.t. A c = e (LP with c = c⁺ − c⁻; ``integer`` = MILP over ℤ^V), None if
    infeasible. scipy/HiGHS; an integer solution is re-checked exactly."""
    integer = check_flag(integer, "integer")
    arr = check_matrix(a).astype(float)
    vec = check_int_array(e, "e", max_abs=2**31)
    if vec.shape != (arr.shape[0],):
        raise ParameterError("e", f"must be an integer vector of length {arr.shape[0]}")
    if integer and arr.shape[1] > 256:
        raise ValueError("a must have at most 256 columns for the integer program")
    vec = vec.astype(float)
    nvar = arr.shape[1]
    cost = np.ones(2 * nvar)
    aeq = np.hstack([arr, -arr])
    if integer:
        res = milp(
            cost,
            constraints=LinearConstraint(aeq, vec, vec),
            integrality=np.ones(2 * nvar),
            bounds=Bounds(0, np.inf),
        )
        if res.status != 0:
            return None
        c = np.rint(res.x[:nvar] - res.x[nvar:]).astype(np.int64)
        if not np.array_equal(arr.astype(np.int64) @ c, vec.astype(np.int64)):
            raise ValueError("the integer program's solution failed the exact check (a, e)")
        return float(np.abs(c).sum())
    res = linprog(cost, A_eq=aeq, b_eq=vec, bounds=(0, None), method="highs")
    return float(res.fun) if res.status == 0 else None


# ----------------------------------------------------------------------------- exact lattice pmf
def _geometric_block(log_p: mpmath.mpf, g0: int, slope: int, count: int | None) -> mpmath.mpf:
    """log Σ_{u=1}^{count} p^{g0 + slope·u} (count None = ∞, slope > 0)."""
    if count is None:
        return (g0 + slope) * log_p - mpmath.log(-mpmath.expm1(slope * log_p))
    if slope == 0:
        return g0 * log_p + mpmath.log(count)
    r = slope * log_p  # log ratio
    # Σ_{u=1}^{n} e^{g0 log p + r u} = e^{g0 log p + r} (1 − e^{r n}) / (1 − e^{r})
    if r < 0:
        return g0 * log_p + r + mpmath.log(-mpmath.expm1(r * count)) - mpmath.log(-mpmath.expm1(r))
    return (
        g0 * log_p
        + r * count
        + mpmath.log(-mpmath.expm1(-r * count))
        - mpmath.log(-mpmath.expm1(-r))
    )


def lattice_noise_logpmf(ech: ColumnEchelon, x: Any, node_scale: Any) -> mpmath.mpf:
    """Exact log P(A·ξ = x) for iid DLap(p = e^{−1/node_scale}) node variables ξ, when the integer
    kernel of A has dimension <= 1 (−inf if x ∉ A·ℤ^V). With ξ = c + t·z (t ∈ ℤ), the exponent
    g(t) = Σ_j |c_j + t z_j| is convex piecewise linear, so the sum over t splits into finitely
    many geometric series — summed in closed form, no truncation."""
    _check_target(ech, x)
    with workdps():
        positive_mpf(node_scale, "node_scale")
    _, c = span_membership(ech, x)
    if c is None:
        return MP_NINF
    kern = ech.kernel()
    if len(kern) > 1:
        raise ValueError(f"kernel dimension {len(kern)} > 1 is not supported")
    nvar = len(c)
    with workdps():
        b = to_mpf(node_scale)
        log_p = -1 / b
        log_norm = nvar * (mpmath.log(-mpmath.expm1(log_p)) - mpmath.log1p(mpmath.exp(log_p)))
        if not kern:
            return log_norm + log_p * sum(abs(v) for v in c)
        z = kern[0]

        def g(t: int) -> int:
            return sum(abs(cj + t * zj) for cj, zj in zip(c, z, strict=True))

        crit: set[int] = set()
        for cj, zj in zip(c, z, strict=True):
            if zj != 0:
                r = Fraction(-cj, zj)
                crit.update({math.floor(r), math.ceil(r)})
        pts = sorted(crit) if crit else [0]
        parts = [log_p * g(t) for t in pts]
        for t0, t1 in itertools.pairwise(pts):
            if t1 - t0 > 1:
                parts.append(_geometric_block(log_p, g(t0), g(t0 + 1) - g(t0), t1 - t0 - 1))
        z1 = sum(abs(v) for v in z)
        parts.append(_geometric_block(log_p, g(pts[-1]), z1, None))  # t > last point
        parts.append(_geometric_block(log_p, g(pts[0]), z1, None))  # t < first point
        return log_norm + logsumexp(parts)
