"""Exact mode: the privacy loss of a mechanism with a known output law, pair by pair.

For each neighbouring pair the exact laws are compared on their merged breakpoints (mpmath):
ε(D, D') = sup |log f_D − log f_D'|, and the hockey-stick δ at the claimed ε. This is proof by
computation on the searched family only, not a proof for all data sets.

A law that yields NaN (in its parameters, its float path or any divergence computed from it), or
an ``exact()`` that returns something other than an exact law, is an error (``ValueError`` naming
the mechanism), never a verdict: NaN compares false with everything, so it would read as "no
loss" or, through the fallbacks of the divergences, as an infinite one.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpquant.audit.model.neighbours import check_pairs
from dpquant.audit.model.relations import check_relation, check_relation_pairs
from dpquant.reference.core import check_claim, has_exact
from dpquant.reference.distributions import (
    DiscreteLaw,
    GridLaw,
    PiecewiseLogLinear,
    ProductLaw,
    hockey_stick,
    privacy_loss,
    renyi_divergence,
)
from dpquant.reference.exact.mp import workdps
from dpquant.reference.validation import check_data, check_flag, read_attribute

LAW_TYPES = (DiscreteLaw, PiecewiseLogLinear, GridLaw, ProductLaw)
"""The exact laws whose divergences :mod:`dpquant.reference.distributions` computes exactly."""


def _nan_in(values: Any) -> bool:
    arr = np.asarray(values, dtype=float)
    return bool(np.isnan(arr).any())


def law_problem(law: Any) -> str | None:
    """Why ``law`` cannot be judged (not an exact law, NaN somewhere), or None."""
    if not isinstance(law, LAW_TYPES):
        names = ", ".join(t.__name__ for t in LAW_TYPES)
        return f"it is a {type(law).__name__}, not an exact law ({names})"
    try:
        if isinstance(law, DiscreteLaw):
            if _nan_in([float(lp) for lp in law.logp]) or _nan_in(law.probabilities):
                return "a log-probability is NaN"
            if law.numeric and any(isinstance(a, float) and math.isnan(a) for a in law.support):
                return "an atom is NaN"
        elif isinstance(law, PiecewiseLogLinear):
            if _nan_in(law.breaks) or _nan_in(law.slopes) or _nan_in(law.intercepts):
                return "a breakpoint, slope or intercept is NaN"
            if math.isnan(law.log_normalizer) or _cdf_nan_at_breaks(law):
                return "its log-normalizer or its CDF is NaN"
        elif isinstance(law, GridLaw):
            if _nan_in(law._logpdf) or _nan_in(law._logmass):  # noqa: SLF001
                return "a cell's log-density is NaN"
        else:
            for i, c in enumerate(law.components):
                problem = law_problem(c)
                if problem is not None:
                    return f"component {i}: {problem}"
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        return f"it cannot be read ({type(exc).__name__}: {exc})"
    return None


def _cdf_nan_at_breaks(law: PiecewiseLogLinear) -> bool:
    """Whether ``law.cdf(law.breaks)`` holds a NaN (the breaks are not NaN).

    At a point the float cdf is ``before + exp(log_mass)·f`` with f in [0, 1] (a NaN fraction
    is read as 0), then clipped (:func:`dpquant.reference.distributions.float_path.float_cdf`):
    ``before`` is an entry of the cumulative masses and ``log_mass`` that of the point's piece. So
    when every piece mass is finite and no cumulative mass is NaN (as in any law built by the
    constructor), no point gets NaN and the cdf need not be evaluated (the cost of judging
    thousands of small laws); otherwise it is."""
    view = law._view  # noqa: SLF001 -- the float path the cdf reads
    with np.errstate(over="ignore", invalid="ignore"):
        finite = bool(np.isfinite(np.exp(view.log_mass)).all())
    if finite and not bool(np.isnan(view.cum).any()):
        return False
    return _nan_in(law.cdf(law.breaks))


def check_exact_law(law: Any, what: str) -> Any:
    """``law`` if it is an exact law without NaN, else ``ValueError`` naming ``what``."""
    problem = law_problem(law)
    if problem is not None:
        raise ValueError(f"{what} cannot be judged: {problem}")
    return law


def _is_nan(x: Any) -> bool:
    try:
        return bool(mpmath.isnan(x))
    except (TypeError, ValueError):
        return True


def _check_not_nan(value: Any, what: str, name: str, d0: np.ndarray, d1: np.ndarray) -> None:
    """Raise if ``value`` (the ``what`` of the exact laws of ``name`` on ``d0``, ``d1``) is NaN."""
    if _is_nan(value):
        raise ValueError(
            f"the exact laws of {name} yield NaN: {what} on {d0.tolist()} and {d1.tolist()} is NaN"
        )


def mechanism_name(mechanism: Any) -> str:
    """A short name for messages: ``mechanism.name`` if it is a string, else its ``repr``."""
    name = getattr(mechanism, "name", None)
    if isinstance(name, str) and name:
        return name[:120]
    try:
        text = repr(mechanism)
    except Exception:  # noqa: BLE001 -- a repr that fails still needs a name
        text = type(mechanism).__name__
    return text if len(text) <= 120 else text[:117] + "..."


@dataclass
class ExactSweep:
    """Result of :func:`exact_sweep`."""

    claimed_epsilon: float
    claimed_delta: float
    pairs: int
    max_loss: mpmath.mpf
    witness: tuple[Any, Any] | None
    max_delta_at_claim: mpmath.mpf
    delta_witness: tuple[Any, Any] | None

    @property
    def violation(self) -> bool:
        """True when some pair breaks the claim: δ(ε_claimed) > δ_claimed (for pure claims this is
        the same as ε_exact > ε_claimed, up to the 1e-30 slack of the working precision)."""
        return bool(self.max_delta_at_claim > self.claimed_delta + mpmath.mpf("1e-30"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "claimed_epsilon": self.claimed_epsilon,
            "claimed_delta": self.claimed_delta,
            "pairs": self.pairs,
            "epsilon_exact_max": float(self.max_loss),
            "epsilon_exact_max_digits": mpmath.nstr(self.max_loss, 30),
            "witness": _jsonable(self.witness),
            "delta_at_claimed_epsilon_max": float(self.max_delta_at_claim),
            "delta_witness": _jsonable(self.delta_witness),
            "violation": self.violation,
        }


def _jsonable(pair: tuple[Any, Any] | None) -> Any:
    if pair is None:
        return None
    return [np.asarray(d, dtype=float).tolist() for d in pair]


def exact_sweep(
    mechanism: Any,
    pairs: Iterable[tuple[Any, Any]],
    laws: Callable[[np.ndarray], Any] | None = None,
) -> ExactSweep:
    """Exact privacy loss and δ(ε_claimed) over ``pairs`` (laws cached per data set).

    ``pairs`` are neighbouring pairs under the claim's adjacency, inside the mechanism's domain
    (checked as for :func:`dpquant.audit.audit_mechanism`); ``laws`` (optional) gives the exact law of a
    data set instead of ``mechanism.exact`` (the auditor passes its cache). A law that yields NaN
    is a ``ValueError`` naming the mechanism."""
    if not has_exact(mechanism):
        raise ValueError("mechanism must provide exact(data) for the exact mode")
    name = mechanism_name(mechanism)
    claim = check_claim(read_attribute(mechanism, "claim", "mechanism"), "mechanism.claim")
    domain = read_attribute(mechanism, "domain", "mechanism")
    relation = read_attribute(mechanism, "relation", "mechanism", None)
    if relation is not None:  # a relation object's pairs (vector records, query answers)
        relation = check_relation(relation, claim.adjacency, "mechanism.relation")
        checked = check_relation_pairs(relation, pairs, domain)
    else:
        checked = check_pairs(
            pairs,
            claim.adjacency,
            domain,
            read_attribute(mechanism, "input_values", "mechanism", None),
        )
    cache: dict[Any, Any] = {}

    def law(d: np.ndarray) -> Any:
        key = (d.shape, tuple(d.ravel().tolist()))
        if key not in cache:
            if laws is not None:
                got = laws(d)
            else:
                try:
                    got = mechanism.exact(d.copy())
                except ValueError as exc:
                    raise ValueError(f"pairs: {name}.exact refuses {d.tolist()}: {exc}") from None
            cache[key] = check_exact_law(got, f"the exact law of {name} on {d.tolist()}")
        return cache[key]

    best, witness = mpmath.mpf("-inf"), None
    best_delta, delta_witness = mpmath.mpf(0), None
    with workdps():
        for d0, d1 in checked:
            p, q = law(d0), law(d1)
            loss = privacy_loss(p, q)
            _check_not_nan(loss, "privacy loss", name, d0, d1)
            if loss > best:
                best, witness = loss, (d0, d1)
            if loss > claim.epsilon:
                delta = max(hockey_stick(p, q, claim.epsilon), hockey_stick(q, p, claim.epsilon))
                _check_not_nan(delta, "δ(ε)", name, d0, d1)
                if delta > best_delta:
                    best_delta, delta_witness = delta, (d0, d1)
    return ExactSweep(
        claim.epsilon, claim.delta, len(checked), best, witness, best_delta, delta_witness
    )


DELTA_CURVE_POINTS = 25
RENYI_ORDERS: tuple[float, ...] = (2.0, 5.0, 10.0)


@dataclass(frozen=True)
class ExactPair:
    """The exact analysis of one neighbouring pair: ε(D, D') (sup of |log ratio|, infinite when the
    supports differ), the hockey-stick curve δ(ε') = max of both directions, Rényi divergences
    (max of both directions) and δ at the claimed ε."""

    data: tuple[np.ndarray, np.ndarray]
    epsilon: mpmath.mpf
    delta_at_claim: mpmath.mpf
    delta_curve: tuple[tuple[float, float], ...]
    renyi: tuple[tuple[float, float], ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "data": [d.tolist() for d in self.data],
            "epsilon_exact": float(self.epsilon),
            "epsilon_exact_digits": mpmath.nstr(self.epsilon, 30),
            "delta_at_claimed_epsilon": float(self.delta_at_claim),
            "delta_curve": [list(p) for p in self.delta_curve],
            "renyi": [list(p) for p in self.renyi],
        }


def delta_at(p: Any, q: Any, epsilon: float) -> mpmath.mpf:
    """max(δ_{p,q}(ε), δ_{q,p}(ε)): the δ a claim at ε needs on this pair (both orders)."""
    with workdps():
        return max(hockey_stick(p, q, epsilon), hockey_stick(q, p, epsilon))


def _pair_data(d: Any, name: str) -> np.ndarray:
    """A data set of the pair: scalar records (1-D), or vector records ((n, k) arrays)."""
    shape = np.shape(d) if isinstance(d, np.ndarray | list | tuple) else ()
    dim = shape[1] if len(shape) == 2 and shape[1] > 0 else None
    return check_data(d, name, allow_empty=True, record_dim=dim)


def analyse_pair(
    p: Any, q: Any, data: tuple[np.ndarray, np.ndarray], claim: Any, curve: bool = True
) -> ExactPair:
    """Exact ε, δ(ε_claimed), and optionally the δ(ε') curve on [0, max(2ε_claimed, ε)] and the
    Rényi divergences of orders :data:`RENYI_ORDERS` and ∞. ``p`` and ``q`` are exact laws
    (:data:`LAW_TYPES`), ``data`` the pair of data sets they belong to, ``claim`` a
    :class:`~dpquant.reference.PrivacyClaim`, ``curve`` a flag; a NaN anywhere is a ``ValueError``."""
    check_exact_law(p, "p")
    check_exact_law(q, "q")
    claim = check_claim(claim, "claim")
    curve = check_flag(curve, "curve")
    if isinstance(data, str | bytes) or not isinstance(data, tuple | list) or len(data) != 2:
        raise ValueError("data must be a pair (data, data_prime) of data sets")
    data = (_pair_data(data[0], "data[0]"), _pair_data(data[1], "data[1]"))
    with workdps():
        eps = privacy_loss(p, q)
        delta_claim = delta_at(p, q, claim.epsilon)
        points: list[tuple[float, float]] = []
        renyi: list[tuple[float, float]] = []
        if curve:
            # the curve spans [0, max(2ε, ε_exact)], capped at the largest double (ε ≈ 1e308)
            twice = min(claim.epsilon, sys.float_info.max / 2) * 2.0
            top = twice if mpmath.isinf(eps) else max(twice, min(float(eps), sys.float_info.max))
            for e in np.linspace(0.0, top, DELTA_CURVE_POINTS):
                points.append((float(e), float(delta_at(p, q, float(e)))))
            for order in RENYI_ORDERS:
                d = max(renyi_divergence(p, q, order), renyi_divergence(q, p, order))
                renyi.append((order, float(d)))
            renyi.append((float("inf"), float(eps)))
    values = [eps, delta_claim, *(d for _, d in points), *(d for _, d in renyi)]
    if any(_is_nan(v) for v in values):
        raise ValueError("p and q yield NaN: a divergence between them is NaN")
    return ExactPair(data, eps, delta_claim, tuple(points), tuple(renyi))
