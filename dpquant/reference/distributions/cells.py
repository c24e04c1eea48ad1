"""The merged cells of two piecewise log-linear densities: the intervals between their pooled
breakpoints, on each of which both log-densities are linear; and the float cdf of many laws at
once (:func:`piecewise_cdfs`, what the auditor's float screen takes cell masses from).

Every divergence between two :class:`~dpquant.reference.distributions.PiecewiseLogLinear` laws is a sum
(or a sup) over these cells, computed exactly (:mod:`dpquant.reference.distributions.divergences`) or in
interval arithmetic (:mod:`dpquant.reference.distributions.certified`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeAlias

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions.arithmetic import Number, diff, extra_digits, is_inf, magnitude
from dpquant.reference.distributions.float_path import float_cdf
from dpquant.reference.distributions.limits import MAX_MERGED_CELLS
from dpquant.reference.distributions.piecewise import PiecewiseLogLinear
from dpquant.reference.exact.mp import DPS, MP_INF, MP_NINF
from dpquant.reference.validation import check_real_array

Form: TypeAlias = tuple[mpmath.mpf, Number, mpmath.mpf]
"""(a, e, c): a piece's slope, anchor and normalised log-density at the anchor
(:meth:`~dpquant.reference.distributions.PiecewiseLogLinear.normalised_form`)."""

_MAX_CELL_DPS = DPS + 800


def _merged_points(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> list[Number]:
    """The sorted union of the exact breakpoints of ``p`` and ``q``; refused (``ValueError``
    naming p and q) beyond :data:`~dpquant.reference.distributions.MAX_MERGED_CELLS` merged cells."""
    if len(p) + len(q) > MAX_MERGED_CELLS:
        raise ValueError(
            f"p and q have {len(p)} + {len(q)} pieces: more than MAX_MERGED_CELLS = "
            f"{MAX_MERGED_CELLS} merged cells for an exact divergence"
        )
    return sorted(set(p.exact_breaks) | set(q.exact_breaks))


def merged_cells(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> list[tuple[Number, Number]]:
    """The merged cells (left, right) of ``p`` and ``q``, in increasing order."""
    points = _merged_points(p, q)
    return [(points[k], points[k + 1]) for k in range(len(points) - 1)]


class _Walker:
    """The pieces of one law met by the merged cells, in increasing order (two-pointer walk)."""

    def __init__(self, law: PiecewiseLogLinear):
        self.law, self.xb, self.j = law, law.exact_breaks, 0

    def form(self, left: Number, right: Number) -> Form | None:
        """(a, e, c) of the piece covering the cell (anchor e, normalised log-density c there);
        None off the support or on a piece of zero density."""
        xb = self.xb
        if left < xb[0] or right > xb[-1]:
            return None
        while self.j < len(self.law) - 1 and xb[self.j + 1] <= left:
            self.j += 1
        return self.law.normalised_form(self.j)


class MergedCell:
    """One merged cell: t = y − r runs over [t_lo, t_hi] (r the cell's left end, its right end
    when the left is −inf). :meth:`values` gives (t_lo, t_hi, a_p, c_p, a_q, c_q) with
    log p(y) = a_p·t + c_p and log q(y) = a_q·t + c_q (c = −inf where the law vanishes), exact at
    the current precision; the caller evaluates them under ``mpmath.workdps(cell.dps)``: enough
    digits that slope × width and the values themselves cancel without loss (a cell of width
    1e308 on which a density rises from e^-1e308 to 1). ``fp``, ``fq``: the two laws' forms on
    the cell (None where a law vanishes)."""

    __slots__ = ("left", "right", "ref", "fp", "fq", "dps")

    def __init__(self, left: Number, right: Number, fp: Form | None, fq: Form | None):
        self.left, self.right = left, right
        self.ref = right if is_inf(left) else left
        self.fp, self.fq = fp, fq
        width = MP_INF if is_inf(left) or is_inf(right) else diff(right, left)
        bits = 0
        for form in (fp, fq):
            if form is None:
                continue
            a, e, c = form
            bits = max(bits, magnitude(c))
            if a != 0:
                bits = max(bits, magnitude(a) + magnitude(diff(self.ref, e)))
                if mpmath.isfinite(width):
                    bits = max(bits, magnitude(a) + magnitude(width))
        extra = extra_digits(bits)
        self.dps = DPS if extra <= 20 else min(DPS + extra + 10, _MAX_CELL_DPS)

    def _value(self, form: Form | None) -> tuple[mpmath.mpf, mpmath.mpf]:
        if form is None:
            return mpmath.mpf(0), MP_NINF
        a, e, c = form
        return a, (+c if a == 0 else a * diff(self.ref, e) + c)

    def values(self) -> tuple[Any, ...]:
        t_lo = MP_NINF if is_inf(self.left) else mpmath.mpf(0)
        if is_inf(self.right):
            t_hi = MP_INF
        else:
            t_hi = mpmath.mpf(0) if is_inf(self.left) else diff(self.right, self.ref)
        ap, cp = self._value(self.fp)
        aq, cq = self._value(self.fq)
        return t_lo, t_hi, ap, cp, aq, cq


def walk_merged_cells(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> Iterator[MergedCell]:
    """The merged cells of two piecewise laws, in increasing order, each with both laws' forms."""
    points = _merged_points(p, q)
    wp, wq = _Walker(p), _Walker(q)
    for left, right in zip(points[:-1], points[1:], strict=False):
        yield MergedCell(left, right, wp.form(left, right), wq.form(left, right))


def piecewise_cdfs(laws: Sequence[PiecewiseLogLinear], points: Sequence[Any]) -> list[np.ndarray]:
    """``laws[k].cdf(points[k])`` for every k, in one vectorised evaluation (the same values: the
    cdf is elementwise; many small calls cost mostly their overhead).

    Args:
        laws: Piecewise log-linear laws.
        points: For each law, real numbers of any shape (as for :meth:`PiecewiseLogLinear.cdf`).

    Returns:
        The probabilities at each law's points, each of its points' shape.

    Raises:
        ValueError: ``laws`` or ``points`` is not a list or tuple, they differ in length, a law
            is not a :class:`PiecewiseLogLinear` (naming ``laws[k]``), or a point is refused
            (naming ``points[k]``).
    """
    for name, value in (("laws", laws), ("points", points)):
        if not isinstance(value, list | tuple):
            raise ParameterError(name, "must be a list or tuple", type(value).__name__)
    if len(laws) != len(points):
        raise ValueError(
            f"laws and points must have one entry each: {len(laws)} laws, {len(points)} points"
        )
    ys = [check_real_array(p, f"points[{k}]", allow_inf=True) for k, p in enumerate(points)]
    parts: list[tuple[np.ndarray, ...]] = []
    for k, (law, y) in enumerate(zip(laws, ys, strict=True)):
        if not isinstance(law, PiecewiseLogLinear):
            raise ParameterError(f"laws[{k}]", "must be a PiecewiseLogLinear", type(law).__name__)
        parts.append(tuple(x.ravel() for x in law._cdf_parts(y)))  # noqa: SLF001
    if not ys:
        return []
    columns = [np.concatenate(col) for col in zip(*parts, strict=True)]
    flat = float_cdf(np.concatenate([y.ravel() for y in ys]), *columns)
    cuts = np.cumsum([y.size for y in ys])[:-1]
    return [v.reshape(y.shape) for v, y in zip(np.split(flat, cuts), ys, strict=True)]


__all__ = ["Form", "MergedCell", "merged_cells", "piecewise_cdfs", "walk_merged_cells"]
