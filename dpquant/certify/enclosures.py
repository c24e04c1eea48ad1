"""Rigorous enclosures of the privacy loss and of the hockey-stick δ(ε) between two exact laws
of :mod:`dpquant.reference.distributions`, in ``mpmath.iv`` interval arithmetic.

What is exact input and what is enclosed, law by law:

* :class:`~dpquant.reference.distributions.DiscreteLaw` built from ``int`` and ``Fraction``
  probabilities keeps them (``exact_probabilities``): the log-ratio of an atom is the logarithm
  of an exact rational, enclosed; nothing is trusted.
* Any other :class:`~dpquant.reference.distributions.DiscreteLaw`, and every
  :class:`~dpquant.reference.distributions.GridLaw`, stores only its log-probabilities
  (log-densities) as ``mpf`` computed at :data:`dpquant.reference.exact.mp.DPS` = 60 digits from
  the mechanism's parameters. Their error against the exact law is not known to the law, so the
  enclosure *trusts* :data:`LOG_ERROR_BUDGET`: every stored value lies within 10^-30 of the exact
  one (30 digits of slack over the working precision; ``tests/certify/test_exhaustive.py``
  recomputes the registry's laws at 120 digits and finds them within 10^-50). Each stored value
  ``v`` becomes the interval ``[v − τ, v + τ]``; the result says it used the budget.
* :class:`~dpquant.reference.distributions.PiecewiseLogLinear`: the loss is
  :func:`~dpquant.reference.distributions.certified_privacy_loss`, recomputed from the law's exact
  parameters (floats and Fractions are exact rationals); an ``mpf`` intercept is a rounded value,
  so the enclosure is widened by 4τ (it moves each normalised log-density by at most 2τ) and
  uses the budget; an ``mpf`` slope or breakpoint is refused.
* :class:`~dpquant.reference.distributions.ProductLaw`: the loss of independent coordinates is
  the sum of theirs (enclosures add).
* An atomic law against a density: mutually singular, loss +inf and δ = 1 exactly.

δ(ε) = max over both orders of Σ max(0, P(cell) − e^ε Q(cell)) is enclosed for discrete laws,
grid laws and the singular case; for piecewise and product laws :func:`delta_enclosure` returns
None (no certified δ here: a verdict that needs it stays undecided).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv

from dpquant.errors import ParameterError
from dpquant.reference.distributions import (
    DiscreteLaw,
    GridLaw,
    PiecewiseLogLinear,
    ProductLaw,
    certified_privacy_loss,
)
from dpquant.reference.exact.interval import IV_DPS, iv_precision, to_iv

LOG_ERROR_BUDGET = mpmath.mpf(10) ** -30
"""τ: the trusted bound on |stored − exact| of a log-probability (log-density) stored as a
60-digit ``mpf`` (module docstring)."""

EXACT = "exact parameters"
"""The basis of an enclosure computed from exact inputs only."""
BUDGET = "exact parameters and the 60-digit budget"
"""The basis of an enclosure that trusts :data:`LOG_ERROR_BUDGET` for some stored value."""

LAW_TYPES = (DiscreteLaw, PiecewiseLogLinear, GridLaw, ProductLaw)
"""The exact laws enclosed here."""

_INF = mpmath.mpf("inf")


@dataclass(frozen=True)
class Enclosure:
    """A closed interval [lo, hi] that provably holds a quantity (given its basis).

    Attributes:
        lo: The lower end (an ``mpf``; +inf for an infinite loss).
        hi: The upper end, at least ``lo``.
        basis: :data:`EXACT` or :data:`BUDGET`: what the enclosure trusts.
    """

    lo: mpmath.mpf
    hi: mpmath.mpf
    basis: str

    def __post_init__(self) -> None:
        for name in ("lo", "hi"):
            value = getattr(self, name)
            if not isinstance(value, mpmath.mpf) or mpmath.isnan(value):
                raise ParameterError(name, "must be an mpf and not NaN", repr(value))
        if self.lo > self.hi:
            raise ParameterError("hi", f"must be at least lo = {self.lo}", self.hi)
        if self.basis not in (EXACT, BUDGET):
            raise ParameterError("basis", f"must be {EXACT!r} or {BUDGET!r}", self.basis)


def _basis(*bases: str) -> str:
    return BUDGET if BUDGET in bases else EXACT


def _enclosure(value: Any, basis: str) -> Enclosure:
    """An :class:`Enclosure` from an ``iv`` interval (NaN refused)."""
    lo, hi = mpmath.mpf(value.a), mpmath.mpf(value.b)
    if mpmath.isnan(lo) or mpmath.isnan(hi):
        raise ValueError("the enclosure is NaN: a law's parameters are not finite numbers")
    return Enclosure(lo, hi, basis)


def _hull(values: list[Any]) -> Any:
    """The interval [max of the lower ends, max of the upper ends]: it holds the max of values
    each held by its interval."""
    return iv.mpf([max(v.a for v in values), max(v.b for v in values)])


def check_law(law: Any, name: str = "law") -> Any:
    """Refuse what cannot be enclosed: not one of :data:`LAW_TYPES`, or a NaN in its values.

    Args:
        law: The object an ``exact(data)`` returned.
        name: What the message names.

    Returns:
        ``law``.

    Raises:
        ValueError: It is not an exact law of :data:`LAW_TYPES`, or holds a NaN (named).
    """
    if not isinstance(law, LAW_TYPES):
        kinds = ", ".join(t.__name__ for t in LAW_TYPES)
        raise ParameterError(name, f"must be an exact law ({kinds})", type(law).__name__)
    if isinstance(law, DiscreteLaw):
        if any(mpmath.isnan(v) for v in law.logp):
            raise ParameterError(name, "must not hold a NaN log-probability")
    elif isinstance(law, GridLaw):
        if any(mpmath.isnan(v) for v in law.logp.ravel().tolist()):
            raise ParameterError(name, "must not hold a NaN log-density")
    elif isinstance(law, PiecewiseLogLinear):
        values = [*law.breaks.tolist(), *law.slopes.tolist(), *law.intercepts.tolist()]
        if any(math.isnan(v) for v in values):
            raise ParameterError(name, "must not hold a NaN breakpoint, slope or intercept")
    else:
        for i, c in enumerate(law.components):
            check_law(c, f"{name}.components[{i}]")
    return law


# -- discrete laws ---------------------------------------------------------------------------


def _discrete_logs(law: DiscreteLaw) -> tuple[dict[Any, Any], str]:
    """Per atom: its exact probability (a Fraction) or the interval of its log-probability."""
    if law.exact_probabilities is not None:
        return dict(zip(law.support, law.exact_probabilities, strict=True)), EXACT
    return {a: _budget(lp) for a, lp in zip(law.support, law.logp, strict=True)}, BUDGET


def _log_of(x: Any) -> Any:
    return iv.log(to_iv(x)) if isinstance(x, Fraction) else x


def _prob_of(x: Any) -> Any:
    return to_iv(x) if isinstance(x, Fraction) else iv.exp(x)


def _discrete_max_log_ratio(p: DiscreteLaw, q: DiscreteLaw) -> tuple[Any, str]:
    lp, bp = _discrete_logs(p)
    lq, bq = _discrete_logs(q)
    values = []
    for atom, x in lp.items():
        if atom not in lq:
            return iv.mpf(_INF), bp  # an atom of p that q never outputs
        y = lq[atom]
        if isinstance(x, Fraction) and isinstance(y, Fraction):
            values.append(iv.log(to_iv(x / y)))
        else:
            values.append(_log_of(x) - _log_of(y))
    return _hull(values), _basis(bp, bq)


def _discrete_delta(p: DiscreteLaw, q: DiscreteLaw, factor: Any) -> tuple[Any, str]:
    lp, bp = _discrete_logs(p)
    lq, bq = _discrete_logs(q)
    total = iv.mpf(0)
    for atom, x in lp.items():
        term = _prob_of(x) - (factor * _prob_of(lq[atom]) if atom in lq else iv.mpf(0))
        total += iv.mpf([max(0, term.a), max(0, term.b)])
    return total, _basis(bp, bq)


# -- grid laws -------------------------------------------------------------------------------


def _grid_cells(p: GridLaw, q: GridLaw) -> tuple[list[Fraction], list[Any], list[Any]]:
    """Exact volumes and the stored log-densities of p and q on their merged grid."""
    if len(p) != len(q):
        raise ValueError(f"p and q: grid laws of different dimensions: {len(p)} and {len(q)}")
    merged = [sorted(set(a) | set(b)) for a, b in zip(p.exact_breaks, q.exact_breaks, strict=True)]
    widths = [
        [Fraction(y) - Fraction(x) for x, y in zip(m[:-1], m[1:], strict=True)] for m in merged
    ]
    volumes: list[Fraction] = [Fraction(1)]
    for w in widths:
        volumes = [v * x for v in volumes for x in w]
    return volumes, p.on_grid(merged).ravel().tolist(), q.on_grid(merged).ravel().tolist()


def _budget(v: mpmath.mpf) -> Any:
    return iv.mpf([v - LOG_ERROR_BUDGET, v + LOG_ERROR_BUDGET])


def _grid_max_log_ratio(p: GridLaw, q: GridLaw) -> Any:
    _, lp, lq = _grid_cells(p, q)
    values = []
    for a, b in zip(lp, lq, strict=True):
        if a == -_INF:
            continue
        if b == -_INF:
            return iv.mpf(_INF)
        values.append(_budget(a) - _budget(b))
    return _hull(values)


def _grid_delta(p: GridLaw, q: GridLaw, factor: Any) -> Any:
    volumes, lp, lq = _grid_cells(p, q)
    total = iv.mpf(0)
    for v, a, b in zip(volumes, lp, lq, strict=True):
        if a == -_INF:
            continue
        dens = iv.exp(_budget(a)) - (iv.mpf(0) if b == -_INF else factor * iv.exp(_budget(b)))
        term = to_iv(v) * dens
        total += iv.mpf([max(0, term.a), max(0, term.b)])
    return total


# -- piecewise laws ----------------------------------------------------------------------------


def _piecewise_basis(law: PiecewiseLogLinear, name: str) -> str:
    """EXACT when every parameter is an exact rational; BUDGET when some intercept is an mpf
    (a rounded value); an mpf slope or breakpoint is refused."""
    basis = EXACT
    for i in range(len(law)):
        left, right, a, b = law.exact_parameters(i)
        if any(isinstance(x, mpmath.mpf) and mpmath.isfinite(x) for x in (left, right, a)):
            raise ParameterError(
                name,
                "must have exact (int, float or Fraction) slopes and breakpoints for a certified "
                f"enclosure; piece {i} has an mpf one",
            )
        if isinstance(b, mpmath.mpf) and mpmath.isfinite(b):
            basis = BUDGET
    return basis


def _piecewise_loss(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> tuple[Any, str]:
    basis = _basis(_piecewise_basis(p, "p"), _piecewise_basis(q, "q"))
    value = certified_privacy_loss(p, q)
    if basis == BUDGET and value.b != _INF:
        widen = 4 * LOG_ERROR_BUDGET
        value = iv.mpf([value.a - widen, value.b + widen])
    return value, basis


# -- the public enclosures -----------------------------------------------------------------------


def _singular(p: Any, q: Any) -> bool:
    kinds = {type(p), type(q)}
    return kinds == {DiscreteLaw, PiecewiseLogLinear}


def _check_pair(p: Any, q: Any) -> None:
    check_law(p, "p")
    check_law(q, "q")
    if type(p) is not type(q) and not _singular(p, q):
        raise ValueError(
            f"p and q must be laws on one space: a {type(p).__name__} and a {type(q).__name__} "
            "cannot be compared"
        )
    if isinstance(p, ProductLaw):
        kinds = [type(c) for c in p.components], [type(c) for c in q.components]
        if kinds[0] != kinds[1]:
            raise ValueError(
                "p and q: product laws must have the same number and kinds of coordinates"
            )


def _loss(p: Any, q: Any) -> tuple[Any, str]:
    if _singular(p, q):
        return iv.mpf(_INF), EXACT
    if isinstance(p, DiscreteLaw):
        a, ba = _discrete_max_log_ratio(p, q)
        b, bb = _discrete_max_log_ratio(q, p)
        return _hull([a, b]), _basis(ba, bb)
    if isinstance(p, GridLaw):
        return _hull([_grid_max_log_ratio(p, q), _grid_max_log_ratio(q, p)]), BUDGET
    if isinstance(p, PiecewiseLogLinear):
        return _piecewise_loss(p, q)
    total, bases = iv.mpf(0), list[str]()
    for c, d in zip(p.components, q.components, strict=True):
        value, basis = _loss(c, d)
        total, bases = total + value, [*bases, basis]
    return total, _basis(*bases)


def loss_enclosure(p: Any, q: Any) -> Enclosure:
    """An enclosure of the privacy loss sup |log p − log q| (both orders).

    Args:
        p: An exact law (:data:`LAW_TYPES`).
        q: Another of the same kind (or an atomic law against a density: +inf exactly).

    Returns:
        The enclosure and its basis (module docstring).

    Raises:
        ValueError: A law refused by :func:`check_law`, two laws that cannot be compared, or a
            piecewise law with an ``mpf`` slope or breakpoint (named).
    """
    _check_pair(p, q)
    with iv_precision(IV_DPS):
        value, basis = _loss(p, q)
        return _enclosure(value, basis)


def delta_enclosure(p: Any, q: Any, epsilon: float) -> Enclosure | None:
    """An enclosure of δ(ε) = max over both orders of ∫ max(0, p − e^ε q).

    Args:
        p: An exact law (:data:`LAW_TYPES`).
        q: Another of the same kind.
        epsilon: ε, a finite float (taken as the exact rational it is).

    Returns:
        The enclosure; None for piecewise and product laws (no certified δ here).

    Raises:
        ValueError: As for :func:`loss_enclosure`, or ``epsilon`` not a finite real (named).
    """
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, int | float)
        or not math.isfinite(epsilon)
    ):
        raise ParameterError("epsilon", "must be a finite real number", repr(epsilon))
    _check_pair(p, q)
    if _singular(p, q):
        return Enclosure(mpmath.mpf(1), mpmath.mpf(1), EXACT)
    if not isinstance(p, DiscreteLaw | GridLaw):
        return None
    with iv_precision(IV_DPS):
        factor = iv.exp(to_iv(float(epsilon)))
        if isinstance(p, DiscreteLaw):
            a, ba = _discrete_delta(p, q, factor)
            b, bb = _discrete_delta(q, p, factor)
            return _enclosure(_hull([a, b]), _basis(ba, bb))
        return _enclosure(_hull([_grid_delta(p, q, factor), _grid_delta(q, p, factor)]), BUDGET)


__all__ = [
    "BUDGET",
    "EXACT",
    "LAW_TYPES",
    "LOG_ERROR_BUDGET",
    "Enclosure",
    "check_law",
    "delta_enclosure",
    "loss_enclosure",
]
