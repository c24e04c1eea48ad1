"""Exact divergences between two laws of one kind: the privacy loss :func:`privacy_loss` (and its
one-sided :func:`max_log_ratio`), the hockey-stick divergence :func:`hockey_stick` δ(ε) and the
Rényi divergence :func:`renyi_divergence` of any order α (α = 1 is KL).

Between two :class:`~dpquant.reference.distributions.DiscreteLaw` the sums run over the atoms; between two
:class:`~dpquant.reference.distributions.PiecewiseLogLinear` over their merged cells
(:mod:`dpquant.reference.distributions.cells`), where both log-densities are linear and every integral has
a closed form; between two :class:`~dpquant.reference.distributions.GridLaw` over their merged grid;
between two :class:`~dpquant.reference.distributions.ProductLaw` coordinate by coordinate (the
log-likelihood ratio is a sum of independent terms) or, for δ(ε), over the product of the
coordinates' cells. An atomic and a continuous law on the real line are mutually singular: loss
and Rényi divergences +inf, δ = 1 (``notes/foundation.md``, "Exact laws").
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, cast

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions.arithmetic import (
    Number,
    extra_digits,
    float_log_of_mass,
    magnitude,
)
from dpquant.reference.distributions.cells import walk_merged_cells
from dpquant.reference.distributions.discrete import DiscreteLaw
from dpquant.reference.distributions.grid import GridLaw, merged_grid_cells
from dpquant.reference.distributions.inputs import exact_real
from dpquant.reference.distributions.limits import MAX_PRODUCT_CELLS
from dpquant.reference.distributions.log_integral import log_integral_mp
from dpquant.reference.distributions.piecewise import PiecewiseLogLinear
from dpquant.reference.distributions.product import ProductLaw, check_same_shape
from dpquant.reference.distributions.protocol import ExactDistribution
from dpquant.reference.exact.mp import MP_INF, MP_NINF, logsumexp, to_mpf, workdps

_LAW_KINDS = "a DiscreteLaw, PiecewiseLogLinear, ProductLaw or GridLaw"

# -- checks ------------------------------------------------------------------------------------


def _law_kind(law: Any, name: str) -> type:
    for kind in (DiscreteLaw, PiecewiseLogLinear, ProductLaw, GridLaw):
        if isinstance(law, kind):
            return kind
    hint = ""
    if hasattr(law, "truncated") or hasattr(law, "clamped"):
        hint = " (take a finite image of an infinite law first: .clamped(lo, hi) or .truncated(r))"
    raise ParameterError(name, f"must be {_LAW_KINDS}", f"{type(law).__name__}{hint}")


def _check_pair(p: Any, q: Any) -> tuple[type, type]:
    """The kinds of two laws, refused unless the divergences between them are defined here: two
    laws of one kind, or an atomic and a continuous law on the real line (mutually singular)."""
    kp, kq = _law_kind(p, "p"), _law_kind(q, "q")
    if kp is not kq and {kp, kq} != {DiscreteLaw, PiecewiseLogLinear}:
        raise ValueError(
            f"p and q must be laws on the same space: a {kp.__name__} and a {kq.__name__} "
            "cannot be compared"
        )
    return kp, kq


def _check_epsilon_value(epsilon: Any) -> mpmath.mpf:
    """ε of the hockey-stick divergence: a finite real (negative allowed), kept exact."""
    return to_mpf(exact_real(epsilon, "epsilon"))


def _check_alpha(alpha: Any) -> mpmath.mpf:
    value = exact_real(alpha, "alpha", pos_inf=True, neg_inf=True)
    if not value > 0:
        raise ParameterError("alpha", "must be > 0 (inf allowed)", repr(value))
    return to_mpf(value)


# -- the privacy loss ----------------------------------------------------------------------------


def max_log_ratio(p: ExactDistribution, q: ExactDistribution) -> mpmath.mpf:
    """Exact ess sup log(p/q) over the support of p (one direction of the privacy loss).

    Args:
        p: An exact law (as for :func:`privacy_loss`).
        q: Another.

    Returns:
        The supremum; +inf when p puts mass where q has none (an atomic law against a density,
            for instance).

    Raises:
        ValueError: The laws cannot be compared (naming ``p`` or ``q``).
    """
    kp, kq = _check_pair(p, q)
    # below, _check_pair has made q a law of the same kind as p
    with workdps():
        if kp is not kq:
            return MP_INF  # an atomic law against a continuous one: mutually singular
        if isinstance(p, DiscreteLaw):
            best = MP_NINF
            for atom, lp in zip(p.support, p.logp, strict=True):
                best = max(best, lp - cast(DiscreteLaw, q).logpmf_mp(atom))
            return best
        if isinstance(p, PiecewiseLogLinear):
            return _piecewise_max_log_ratio(p, cast(PiecewiseLogLinear, q))
        if isinstance(p, GridLaw):
            return _grid_max_log_ratio(p, cast(GridLaw, q))
        pp, pq = cast(ProductLaw, p), cast(ProductLaw, q)
        check_same_shape(pp, pq)  # sup of a sum of independent terms = the sum of their sups
        return mpmath.fsum(
            max_log_ratio(a, b) for a, b in zip(pp.components, pq.components, strict=True)
        )


def _fold_cells(
    p: PiecewiseLogLinear,
    q: PiecewiseLogLinear,
    start: mpmath.mpf,
    combine: Callable[[mpmath.mpf, mpmath.mpf], mpmath.mpf],
    term: Callable[..., mpmath.mpf],
) -> mpmath.mpf:
    """``combine`` of ``term(t_lo, t_hi, ap, cp, aq, cq)`` over the merged cells where p has mass,
    each at its cell's precision; +inf when q has no mass on one of them."""
    acc = start
    for cell in walk_merged_cells(p, q):
        if cell.fp is None:
            continue
        if cell.fq is None:
            return MP_INF
        with mpmath.workdps(cell.dps):
            acc = combine(acc, term(*cell.values()))
    return +acc


def _piecewise_max_log_ratio(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> mpmath.mpf:
    return _fold_cells(
        p,
        q,
        MP_NINF,
        max,
        lambda t_lo, t_hi, ap, cp, aq, cq: _linear_sup(ap - aq, cp - cq, t_lo, t_hi),
    )


def privacy_loss(p: ExactDistribution, q: ExactDistribution) -> mpmath.mpf:
    """Exact ε(p, q) = ess sup |log p − log q|: the smallest ε with both directions ε-bounded.

    Args:
        p: An exact law: a :class:`DiscreteLaw`, :class:`PiecewiseLogLinear`,
            :class:`ProductLaw` or :class:`GridLaw`.
        q: A law of the same kind, or a continuous law against an atomic one (loss +inf).

    Returns:
        ε, an mpmath number (+inf where the supports differ).

    Raises:
        ValueError: Anything else (naming ``p`` or ``q``).
    """
    _check_pair(p, q)
    return max(max_log_ratio(p, q), max_log_ratio(q, p))


def _linear_sup(slope: mpmath.mpf, const: mpmath.mpf, lo: mpmath.mpf, hi: mpmath.mpf) -> mpmath.mpf:
    """sup of slope·t + const over [lo, hi] (ends may be infinite)."""
    ends = []
    for t in (lo, hi):
        if mpmath.isinf(t):
            ends.append(const if slope == 0 else (MP_INF if slope * t > 0 else MP_NINF))
        else:
            ends.append(slope * t + const)
    return max(ends)


# -- the hockey-stick divergence -------------------------------------------------------------------


def hockey_stick(p: ExactDistribution, q: ExactDistribution, epsilon: Number) -> mpmath.mpf:
    """Exact δ(ε) = ∫ max(0, p − e^ε q): the smallest δ with P(S) <= e^ε Q(S) + δ for all S.

    Args:
        p: An exact law (as for :func:`privacy_loss`).
        q: Another.
        epsilon: A finite real (negative allowed), kept exact (Fractions, ints).

    Returns:
        δ; between an atomic and a continuous law δ = 1.

    Raises:
        ValueError: ``epsilon`` is NaN, infinite or not a number, or the laws cannot be
            compared.
    """
    kp, kq = _check_pair(p, q)
    eps = _check_epsilon_value(epsilon)
    with workdps():
        if kp is not kq:
            return mpmath.mpf(1)
        if isinstance(p, DiscreteLaw):
            total = mpmath.mpf(0)
            for atom, lp in zip(p.support, p.logp, strict=True):
                diff = mpmath.exp(lp) - mpmath.exp(eps + cast(DiscreteLaw, q).logpmf_mp(atom))
                if diff > 0:
                    total += diff
            return total
        if isinstance(p, PiecewiseLogLinear):
            return _piecewise_hockey_stick(p, cast(PiecewiseLogLinear, q), eps)
        if isinstance(p, ProductLaw):
            return _product_hockey_stick(p, cast(ProductLaw, q), eps)
        return _grid_hockey_stick(cast(GridLaw, p), cast(GridLaw, q), eps)


def _piecewise_hockey_stick(
    p: PiecewiseLogLinear, q: PiecewiseLogLinear, eps: mpmath.mpf
) -> mpmath.mpf:
    total = mpmath.mpf(0)
    for cell in walk_merged_cells(p, q):
        if cell.fp is None:
            continue
        with mpmath.workdps(cell.dps):
            t_lo, t_hi, ap, cp, aq, cq = cell.values()
            if cq == MP_NINF:
                total += mpmath.exp(log_integral_mp(ap, cp, t_lo, t_hi))
                continue
            # p − e^ε q > 0 <=> (ap − aq)·t + (cp − cq − ε) > 0: one part of the cell.
            part = _positive_part(ap - aq, cp - cq - eps, t_lo, t_hi)
            if part is None:
                continue
            lo, hi = part
            mp_ = mpmath.exp(log_integral_mp(ap, cp, lo, hi))
            mq = mpmath.exp(log_integral_mp(aq, cq + eps, lo, hi))
            total += max(mp_ - mq, mpmath.mpf(0))
    return +total


def _positive_part(
    slope: mpmath.mpf, const: mpmath.mpf, left: mpmath.mpf, right: mpmath.mpf
) -> tuple[mpmath.mpf, mpmath.mpf] | None:
    """The sub-interval of [left, right] where slope·t + const > 0, or None."""
    if slope == 0:
        return (left, right) if const > 0 else None
    root = -const / slope
    lo, hi = (max(left, root), right) if slope > 0 else (left, min(right, root))
    return (lo, hi) if lo < hi else None


def _cell_masses(
    p: DiscreteLaw | PiecewiseLogLinear, q: DiscreteLaw | PiecewiseLogLinear
) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """Exact (mass under p, mass under q) of the cells on which both laws are constant: the
    atoms, or the merged pieces of two piecewise-constant densities (q is of p's kind)."""
    if isinstance(p, DiscreteLaw):
        dq = cast(DiscreteLaw, q)
        atoms = list(dict.fromkeys([*p.support, *dq.support]))
        return [(p.pmf_mp(a), dq.pmf_mp(a)) for a in atoms]
    cells = []
    for cell in walk_merged_cells(p, cast(PiecewiseLogLinear, q)):
        t_lo, t_hi, ap, cp, aq, cq = cell.values()
        if (cp != MP_NINF and ap != 0) or (cq != MP_NINF and aq != 0):
            raise ValueError(
                "p and q: the hockey-stick divergence of a product law needs piecewise-constant "
                "coordinates (a sloped piece was found)"
            )
        width = t_hi - t_lo
        cells.append(
            (
                mpmath.exp(cp) * width if cp != MP_NINF else mpmath.mpf(0),
                mpmath.exp(cq) * width if cq != MP_NINF else mpmath.mpf(0),
            )
        )
    return cells


def _product_hockey_stick(p: ProductLaw, q: ProductLaw, eps: mpmath.mpf) -> mpmath.mpf:
    check_same_shape(p, q)
    cells = [_cell_masses(a, b) for a, b in zip(p.components, q.components, strict=True)]
    count = 1
    for c in cells:
        count *= len(c)
    if count > MAX_PRODUCT_CELLS:
        raise ValueError(
            f"p and q: the product law has {count} cells, more than MAX_PRODUCT_CELLS = "
            f"{MAX_PRODUCT_CELLS}"
        )
    # Float prefilter in log space: a combination whose float log ratio is below ε − 1e-6 has
    # p − e^ε q < 0 exactly (the float error of a sum of k logs is ~1e-15, far below the margin);
    # the others are summed exactly.
    lp = np.zeros(1)
    lq = np.zeros(1)
    for c in cells:
        a = np.array([float_log_of_mass(x) for x, _ in c])
        b = np.array([float_log_of_mass(y) for _, y in c])
        lp, lq = np.add.outer(lp, a).ravel(), np.add.outer(lq, b).ravel()
    with np.errstate(invalid="ignore"):
        keep = np.flatnonzero(np.isfinite(lp) & ~(lp - lq < float(eps) - 1e-6))
    shape = [len(c) for c in cells]
    factor = mpmath.exp(eps)
    total = mpmath.mpf(0)
    for flat in keep:
        index = np.unravel_index(flat, shape)
        mp_, mq = mpmath.mpf(1), mpmath.mpf(1)
        for coordinate, j in zip(cells, index, strict=True):
            mp_, mq = mp_ * coordinate[j][0], mq * coordinate[j][1]
        diff = mp_ - factor * mq
        if diff > 0:
            total += diff
    return total


# -- the Rényi divergence ------------------------------------------------------------------------


def renyi_divergence(p: ExactDistribution, q: ExactDistribution, alpha: Number) -> mpmath.mpf:
    """Exact Rényi divergence D_α(p‖q) = log(∫ p^α q^{1−α})/(α − 1).

    Args:
        p: An exact law (as for :func:`privacy_loss`).
        q: Another.
        alpha: The order α, a real > 0 or +inf: α = 1 is KL, α = inf is
            :func:`max_log_ratio`.

    Returns:
        The divergence, an mpmath number.

    Raises:
        ValueError: ``alpha`` is NaN, 0, negative or not a number, or the laws cannot be
            compared.
    """
    kp, kq = _check_pair(p, q)
    with workdps():
        a = _check_alpha(alpha)
        if a == MP_INF:
            return max_log_ratio(p, q)
        if kp is not kq:
            return MP_INF  # mutually singular: ∫ p^α q^(1−α) = 0 (α < 1) or = inf (α >= 1)
        if isinstance(p, GridLaw):
            return _grid_renyi(p, cast(GridLaw, q), a)
        if isinstance(p, ProductLaw):
            pq = cast(ProductLaw, q)
            check_same_shape(p, pq)  # Rényi divergences of independent coordinates add up
            return mpmath.fsum(
                renyi_divergence(x, y, a) for x, y in zip(p.components, pq.components, strict=True)
            )
        if isinstance(p, DiscreteLaw):
            dq = cast(DiscreteLaw, q)
            return _discrete_kl(p, dq) if a == 1 else _discrete_renyi(p, dq, a)
        pl, ql = cast(PiecewiseLogLinear, p), cast(PiecewiseLogLinear, q)
        return _piecewise_kl(pl, ql) if a == 1 else _piecewise_renyi(pl, ql, a)


def _discrete_renyi(p: DiscreteLaw, q: DiscreteLaw, alpha: mpmath.mpf) -> mpmath.mpf:
    terms = []
    for atom, lp in zip(p.support, p.logp, strict=True):
        lq = q.logpmf_mp(atom)
        if lq == MP_NINF:
            if alpha > 1:
                return MP_INF
            continue
        terms.append(alpha * lp + (1 - alpha) * lq)
    return logsumexp(terms) / (alpha - 1)


def _piecewise_renyi(p: PiecewiseLogLinear, q: PiecewiseLogLinear, alpha: mpmath.mpf) -> mpmath.mpf:
    terms = []
    for cell in walk_merged_cells(p, q):
        if cell.fp is None:
            continue
        if cell.fq is None:
            if alpha > 1:
                return MP_INF
            continue
        with mpmath.workdps(cell.dps + max(0, extra_digits(magnitude(alpha)))):
            t_lo, t_hi, ap, cp, aq, cq = cell.values()
            a = alpha * ap + (1 - alpha) * aq
            b = alpha * cp + (1 - alpha) * cq
            terms.append(log_integral_mp(a, b, t_lo, t_hi))
    return logsumexp(terms) / (alpha - 1)


def _discrete_kl(p: DiscreteLaw, q: DiscreteLaw) -> mpmath.mpf:
    total = mpmath.mpf(0)
    for atom, lp in zip(p.support, p.logp, strict=True):
        lq = q.logpmf_mp(atom)
        if lq == MP_NINF:
            return MP_INF
        total += mpmath.exp(lp) * (lp - lq)
    return total


def _piecewise_kl(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> mpmath.mpf:
    return _fold_cells(
        p,
        q,
        mpmath.mpf(0),
        operator.add,
        lambda t_lo, t_hi, ap, cp, aq, cq: _kl_cell(ap, cp, ap - aq, cp - cq, t_lo, t_hi),
    )


def _kl_cell(
    a: mpmath.mpf,
    c: mpmath.mpf,
    k: mpmath.mpf,
    m: mpmath.mpf,
    lo: mpmath.mpf,
    hi: mpmath.mpf,
) -> mpmath.mpf:
    """∫_lo^hi e^{a·t + c}·(k·t + m) dt (integrable: a > 0 at −inf, a < 0 at +inf), in closed
    form: [e^{a·t + c}·((k·t + m)/a − k/a²)] between the ends; by quadrature when |a|·width is
    below 1e-3 (the closed form's two terms would cancel)."""
    if a == 0 or (mpmath.isfinite(hi - lo) and abs(a) * (hi - lo) < mpmath.mpf("1e-3")):
        if a == 0:
            return mpmath.exp(c) * (k * (hi**2 - lo**2) / 2 + m * (hi - lo))
        width = hi - lo
        return width * mpmath.quad(
            lambda u: mpmath.exp(a * (lo + u * width) + c) * (k * (lo + u * width) + m), [0, 1]
        )

    def primitive(t: mpmath.mpf) -> mpmath.mpf:
        if mpmath.isinf(t):
            return mpmath.mpf(0)
        return mpmath.exp(a * t + c) * ((k * t + m) / a - k / a**2)

    return primitive(hi) - primitive(lo)


# -- grid laws -----------------------------------------------------------------------------------


def _grid_max_log_ratio(p: GridLaw, q: GridLaw) -> mpmath.mpf:
    _, lp, lq = merged_grid_cells(p, q)
    best = MP_NINF
    for a, b in zip(lp, lq, strict=True):
        if a == MP_NINF:
            continue
        if b == MP_NINF:
            return MP_INF
        best = max(best, a - b)
    return best


def _grid_hockey_stick(p: GridLaw, q: GridLaw, eps: mpmath.mpf) -> mpmath.mpf:
    logv, lp, lq = merged_grid_cells(p, q)
    total = mpmath.mpf(0)
    for v, a, b in zip(logv, lp, lq, strict=True):
        if a == MP_NINF:
            continue
        diff = mpmath.exp(a + v) - (0 if b == MP_NINF else mpmath.exp(b + eps + v))
        if diff > 0:
            total += diff
    return total


def _grid_renyi(p: GridLaw, q: GridLaw, alpha: mpmath.mpf) -> mpmath.mpf:
    logv, lp, lq = merged_grid_cells(p, q)
    if alpha == 1:
        total = mpmath.mpf(0)
        for v, a, b in zip(logv, lp, lq, strict=True):
            if a == MP_NINF:
                continue
            if b == MP_NINF:
                return MP_INF
            total += mpmath.exp(a + v) * (a - b)
        return total
    terms = []
    for v, a, b in zip(logv, lp, lq, strict=True):
        if a == MP_NINF:
            continue
        if b == MP_NINF:
            if alpha > 1:
                return MP_INF
            continue
        terms.append(alpha * a + (1 - alpha) * b + v)
    return logsumexp(terms) / (alpha - 1)


__all__ = ["hockey_stick", "max_log_ratio", "privacy_loss", "renyi_divergence"]
