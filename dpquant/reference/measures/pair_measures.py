"""Exact privacy measures of one neighbouring pair of exact laws, located over their whole range.

For two exact laws p = M(D), q = M(D') (:mod:`dpquant.reference.distributions`), each function
computes a measure in both directions (the relations are symmetric) and says where its supremum
lies:

* :func:`renyi_of_pair` — max(D_α(p‖q), D_α(q‖p)) at one order;
* :func:`zcdp_of_pair` — ρ = sup over α > 1 of (D_α − ξ)/α (Bun and Steinke 2016,
  Definition 1.1), the supremum *located* by branch and bound over α, not sampled;
* :func:`profile_excess` — sup over ε >= 0 of δ_{p,q}(ε) − δ_claim(ε) for a claimed profile, by
  branch and bound over ε (or exactly at a table's points);
* :func:`gdp_of_pair` — the least μ for which the pair is μ-GDP (Dong, Roth and Su 2022): between
  discrete laws exactly, from the vertices of the trade-off curve; otherwise by bisection on μ
  over :func:`profile_excess` against the GDP profile (μ-GDP if and only if δ(ε) <= δ_μ(ε) for
  all ε >= 0, their Corollary 2.13).

Branch and bound (``notes/measures.md``, "Exact mode"). Both searches use only monotonicity, so
their upper bounds are rigorous at the working precision:

* α ↦ D_α is nondecreasing (van Erven and Harremoës 2014, Theorem 3), so on a cell [a, b] of
  orders, (D_α − ξ)/α <= (D_b − ξ)/a; beyond an order A, (D_α − ξ)/α <= (D_∞ − ξ)/A;
* ε ↦ δ_{p,q}(ε) and every claimed profile are nonincreasing, so on a cell [a, b] of ε,
  δ_{p,q}(ε) − δ_c(ε) <= δ_{p,q}(a) − δ_c(b); beyond ε = D_∞ the pair's δ is 0.

A search ends when every cell's upper bound is within the tolerance of the best value found (the
supremum is located to that tolerance) or, when deciding a claim, when every cell is below the
claim or a value above it is found. The result carries both the best value found (attained: a
witness) and the least upper bound proven, so a report states the supremum as an interval.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath

from dpquant.errors import ParameterError
from dpquant.reference.distributions import (
    DiscreteLaw,
    hockey_stick,
    max_log_ratio,
    renyi_divergence,
)
from dpquant.reference.exact.mp import MP_INF, MP_NINF, to_mpf, workdps
from dpquant.reference.measures.conversions import gdp_delta, probit
from dpquant.reference.validation import check_int

MAX_EVALUATIONS = 400
"""Default for the most evaluations of the measure (one divergence each direction) in one
branch-and-bound search; a search that ends here returns its proven interval, wider than the
tolerance. A measure flat to many digits over a range (the discrete Gaussian's D_α/α equals ρ to
about 35 digits at σ = 2) cannot be bracketed closer than the cells' width allows: such a search
ends here, and its result says so (``exhausted``) with the interval it proved."""
RELATIVE_TOLERANCE = mpmath.mpf("1e-9")
"""A supremum is located when the least upper bound is within this relative distance (plus
:data:`ABSOLUTE_TOLERANCE`) of the best value attained."""
ABSOLUTE_TOLERANCE = mpmath.mpf("1e-40")
INITIAL_CELLS = 64
"""Cells of the first grid of each search."""


@dataclass(frozen=True)
class Located:
    """A supremum located by branch and bound.

    Attributes:
        value: The best value attained (at ``argument``): a lower bound of the supremum.
        upper: The least upper bound proven: the supremum lies in [value, upper].
        argument: Where ``value`` is attained (an order α or an ε).
        evaluations: The measure's evaluations spent.
        exhausted: True when the search stopped at :data:`MAX_EVALUATIONS` before locating the
            supremum to the tolerance (or deciding the threshold).
    """

    value: mpmath.mpf
    upper: mpmath.mpf
    argument: mpmath.mpf
    evaluations: int
    exhausted: bool

    def exceeds(self, threshold: Any) -> bool:
        """Whether the attained value is above ``threshold`` (a witnessed violation)."""
        return bool(self.value > threshold)

    def within(self, threshold: Any) -> bool:
        """Whether the proven upper bound is at most ``threshold`` (a proof of the claim)."""
        return bool(self.upper <= threshold)


def _located_enough(best: mpmath.mpf, upper: mpmath.mpf) -> bool:
    return bool(upper - best <= RELATIVE_TOLERANCE * abs(best) + ABSOLUTE_TOLERANCE)


def _branch_and_bound(
    value_at: Callable[[mpmath.mpf], mpmath.mpf],
    cell_upper: Callable[[mpmath.mpf, mpmath.mpf, mpmath.mpf, mpmath.mpf], mpmath.mpf],
    grid: list[mpmath.mpf],
    tail_upper: mpmath.mpf,
    threshold: mpmath.mpf | None,
    split: Callable[[mpmath.mpf, mpmath.mpf], mpmath.mpf],
    budget: int,
) -> Located:
    """Maximise ``value_at`` over [grid[0], grid[-1]] given ``cell_upper(a, b, f(a), f(b))``, a
    rigorous bound of the values on [a, b], and ``tail_upper``, one beyond grid[-1]."""
    cache: dict[Any, mpmath.mpf] = {}

    def f(x: mpmath.mpf) -> mpmath.mpf:
        if x not in cache:
            cache[x] = value_at(x)
        return cache[x]

    best, arg = max((f(x), x) for x in grid)
    heap: list[tuple[mpmath.mpf, int, mpmath.mpf, mpmath.mpf]] = []
    for i, (a, b) in enumerate(zip(grid, grid[1:], strict=False)):
        heapq.heappush(heap, (-cell_upper(a, b, f(a), f(b)), i, a, b))
    counter = len(grid)
    exhausted = False
    stuck = MP_NINF  # the largest bound of the cells too narrow to split: they stay counted
    while heap:
        upper = max(-heap[0][0], tail_upper, stuck)
        if threshold is not None and (best > threshold or upper <= threshold):
            break
        if _located_enough(best, upper) or max(-heap[0][0], stuck) <= best:
            break
        if len(cache) >= budget:
            exhausted = True
            break
        bound, _, a, b = heapq.heappop(heap)
        m = split(a, b)
        if not a < m < b:  # the cell cannot be split at the working precision
            stuck = max(stuck, -bound)
            continue
        fm = f(m)
        if fm > best:
            best, arg = fm, m
        for lo, hi in ((a, m), (m, b)):
            counter += 1
            heapq.heappush(heap, (-cell_upper(lo, hi, f(lo), f(hi)), counter, lo, hi))
    upper = max([tail_upper, best, stuck, *(-h[0] for h in heap[:1])])
    return Located(best, upper, arg, len(cache), exhausted)


def _check_laws(p: Any, q: Any) -> None:
    for law, name in ((p, "p"), (q, "q")):
        if law is None:
            raise ParameterError(name, "must be an exact law", "None")


def renyi_of_pair(p: Any, q: Any, order: Any) -> mpmath.mpf:
    """max(D_α(p‖q), D_α(q‖p)): the Rényi divergence a symmetric relation's RDP bounds.

    Args:
        p: An exact law.
        q: An exact law of the same kind.
        order: α, a real > 0 or +inf.

    Returns:
        The larger of the two divergences.

    Raises:
        ValueError: The laws cannot be compared or the order is out of range (named).
    """
    _check_laws(p, q)
    with workdps():
        return max(renyi_divergence(p, q, order), renyi_divergence(q, p, order))


def zcdp_of_pair(
    p: Any, q: Any, xi: Any = 0.0, threshold: Any = None, max_evaluations: int = MAX_EVALUATIONS
) -> Located:
    """ρ(p, q) = sup over α > 1 of (max(D_α(p‖q), D_α(q‖p)) − ξ)/α, located by branch and bound.

    The orders searched are [1, A] with A large enough that the tail bound
    (D_∞ − ξ)/A is below the best value (or below ``threshold``); D_1 is the KL divergence, the
    limit of D_α as α ↓ 1 (a supremum approached there is attained in the limit only).

    Args:
        p: An exact law.
        q: An exact law of the same kind.
        xi: ξ, a finite number >= 0.
        threshold: A claimed ρ to decide (the search stops once the value attained exceeds it or
            every cell is below it), or None to locate the supremum.
        max_evaluations: The search's budget of evaluations (an int >= 2).

    Returns:
        The :class:`Located` supremum (``value`` and ``upper`` +inf when a divergence is
        infinite: the supports differ).

    Raises:
        ValueError: The laws cannot be compared or a parameter is out of range (named).
    """
    _check_laws(p, q)
    with workdps():
        x = _nonnegative(xi, "xi")
        thr = None if threshold is None else _nonnegative(threshold, "threshold")
        d_inf = max(max_log_ratio(p, q), max_log_ratio(q, p))
        d_two = renyi_of_pair(p, q, 2)
        if d_two == MP_INF:
            return Located(MP_INF, MP_INF, mpmath.mpf(2), 1, False)

        def g(a: mpmath.mpf) -> mpmath.mpf:
            return (renyi_of_pair(p, q, a) - x) / a

        floor = max(g(mpmath.mpf(2)), thr if thr is not None else mpmath.mpf(0))
        if d_inf == MP_INF:  # finite D_2 with infinite D_∞ (unbounded ratio): search to 2^60
            top, tail = mpmath.mpf(2) ** 60, MP_INF
        else:
            top = max(mpmath.mpf(4), 2 * (d_inf - x) / floor if floor > 0 else mpmath.mpf(2) ** 60)
            top = min(top, mpmath.mpf(2) ** 60)
            tail = (d_inf - x) / top
        # cells geometric in α − 1 from 2^-40 to top − 1, and [1, 1 + 2^-40]
        grid = [mpmath.mpf(1)] + [
            1
            + mpmath.exp(
                mpmath.log(mpmath.mpf(2) ** -40)
                + k * (mpmath.log(top - 1) - mpmath.log(mpmath.mpf(2) ** -40)) / INITIAL_CELLS
            )
            for k in range(INITIAL_CELLS + 1)
        ]

        def cell_upper(a: mpmath.mpf, b: mpmath.mpf, ga: mpmath.mpf, gb: mpmath.mpf) -> mpmath.mpf:
            if gb == MP_INF:
                return MP_INF
            # monotone: (D_α − ξ)/α <= (D_b − ξ)/a when D_b − ξ >= 0, else <= (D_b − ξ)/b
            monotone = gb * b / a if gb >= 0 else gb
            return min(monotone, _chord_bound(a, b, ga, gb, x))

        def split(a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
            return 1 + mpmath.sqrt((a - 1) * (b - 1)) if a > 1 else (a + b) / 2

        return _branch_and_bound(g, cell_upper, grid, tail, thr, split, _budget(max_evaluations))


def _chord_bound(
    a: mpmath.mpf, b: mpmath.mpf, ga: mpmath.mpf, gb: mpmath.mpf, xi: mpmath.mpf
) -> mpmath.mpf:
    """An upper bound of g(α) = (D_α − ξ)/α on [a, b] from the convexity of
    K(α) = (α − 1)·D_α (a cumulant generating function of the log-likelihood ratio; the maximum of
    the two directions' K is convex too): K lies below its chord on [a, b], so
    g(α) <= (A + Bα)/(α² − α) with A = K(a) − a·s + ξ, B = s − ξ (s the chord's slope), whose
    maximum over [a, b] is at an end (where it equals g) or where Bα² + 2Aα − A = 0. The bound
    is inflated by 1e-45 relative for the rounding of the working precision."""
    ka = (a - 1) * (ga * a + xi)
    kb = (b - 1) * (gb * b + xi)
    s = (kb - ka) / (b - a)
    big_a, big_b = ka - a * s + xi, s - xi
    best = max(ga, gb)
    roots = []
    if big_b != 0:
        disc = big_a * big_a + big_a * big_b
        if disc >= 0:
            r = mpmath.sqrt(disc)
            roots = [(-big_a + r) / big_b, (-big_a - r) / big_b]
    elif big_a != 0:
        roots = [mpmath.mpf(1) / 2]
    for t in roots:
        if a < t < b and t > 1:
            best = max(best, (big_a + big_b * t) / (t * t - t))
    return best + mpmath.mpf("1e-45") * (1 + abs(best))


def _budget(n: Any) -> int:
    return check_int(n, "max_evaluations", minimum=2, maximum=10**7)


def _nonnegative(x: Any, name: str) -> mpmath.mpf:
    value = to_mpf(x, name)
    if mpmath.isnan(value) or mpmath.isinf(value) or value < 0:
        raise ParameterError(name, "must be a finite number >= 0", repr(x))
    return value


def _delta_of_pair(p: Any, q: Any, epsilon: mpmath.mpf) -> mpmath.mpf:
    return max(hockey_stick(p, q, epsilon), hockey_stick(q, p, epsilon))


def profile_excess(
    p: Any,
    q: Any,
    delta_claim: Callable[[mpmath.mpf], mpmath.mpf],
    *,
    points: tuple[float, ...] | None = None,
    threshold: Any = None,
    max_evaluations: int = MAX_EVALUATIONS,
) -> Located:
    """sup over ε >= 0 of δ_{p,q}(ε) − δ_claim(ε), the pair's δ taken in both directions.

    With ``points`` (a table claim) the supremum is over those ε only and exact. Otherwise
    ``delta_claim`` must be nonincreasing (every privacy profile is) and the supremum is located
    by branch and bound over [0, D_∞] (beyond D_∞ the pair's δ is 0 and the excess at most 0);
    where D_∞ is infinite the pair's δ stays at least δ_{p,q}(∞) > 0 and the search runs to
    ε = 2^10.

    Args:
        p: An exact law.
        q: An exact law of the same kind.
        delta_claim: The claimed δ(ε), nonincreasing in ε.
        points: The ε of a table claim, or None.
        threshold: An excess to decide (normally 0), or None to locate the supremum.
        max_evaluations: The search's budget of evaluations (an int >= 2).

    Returns:
        The :class:`Located` supremum of the excess (positive: the claim is violated).

    Raises:
        ValueError: The laws cannot be compared (named).
    """
    _check_laws(p, q)
    with workdps():
        thr = None if threshold is None else mpmath.mpf(threshold)
        if points is not None:
            if not points:
                raise ParameterError("points", "must hold at least one ε", "()")
            best, arg = max(
                (_delta_of_pair(p, q, mpmath.mpf(e)) - delta_claim(mpmath.mpf(e)), mpmath.mpf(e))
                for e in points
            )
            return Located(best, best, arg, len(points), False)
        d_inf = max(max_log_ratio(p, q), max_log_ratio(q, p))
        top = mpmath.mpf(2) ** 10 if d_inf == MP_INF else max(d_inf, mpmath.mpf("1e-9"))
        grid = [top * k / INITIAL_CELLS for k in range(INITIAL_CELLS + 1)]
        cache: dict[Any, mpmath.mpf] = {}

        def pair_delta(e: mpmath.mpf) -> mpmath.mpf:
            if e not in cache:
                cache[e] = _delta_of_pair(p, q, e)
            return cache[e]

        def cell_upper(a: mpmath.mpf, b: mpmath.mpf, fa: mpmath.mpf, fb: mpmath.mpf) -> mpmath.mpf:
            return pair_delta(a) - delta_claim(b)  # both nonincreasing in ε

        # beyond D_∞ the pair's δ is 0, so the excess there is −δ_c(ε) <= 0; with D_∞ infinite,
        # the pair's δ beyond 2^10 is at most δ_{p,q}(2^10)
        tail = pair_delta(top) if d_inf == MP_INF else mpmath.mpf(0)
        return _branch_and_bound(
            lambda e: pair_delta(e) - delta_claim(e),
            cell_upper,
            grid,
            tail,
            thr,
            lambda a, b: (a + b) / 2,
            _budget(max_evaluations),
        )


def _discrete_gdp(p: DiscreteLaw, q: DiscreteLaw) -> tuple[mpmath.mpf, mpmath.mpf]:
    """max over the inner vertices of T(p, q) of Φ^{-1}(Q(S)) − Φ^{-1}(P(S)), the vertex's
    least μ, with S the Neyman–Pearson sets (the atoms by decreasing q/p, ties together). Each
    quantile is taken from the smaller of a set's mass and its complement's (both summed
    directly), so no mass rounds to 1."""
    atoms = list(dict.fromkeys([*p.support, *q.support]))

    def ratio(a: Any) -> mpmath.mpf:
        lpa, lqa = p.logpmf_mp(a), q.logpmf_mp(a)
        return MP_INF if lpa == -MP_INF else lqa - lpa

    groups: dict[Any, list[Any]] = {}
    for a in atoms:
        groups.setdefault(ratio(a), []).append(a)
    order = sorted(groups, reverse=True)
    mass_p = [mpmath.fsum(mpmath.exp(p.logpmf_mp(a)) for a in groups[k]) for k in order]
    mass_q = [mpmath.fsum(mpmath.exp(q.logpmf_mp(a)) for a in groups[k]) for k in order]

    def quantile(inside: list[mpmath.mpf], outside: list[mpmath.mpf]) -> mpmath.mpf:
        m_in, m_out = mpmath.fsum(inside), mpmath.fsum(outside)
        return probit(m_in) if m_in <= m_out else -probit(m_out)

    best, where = mpmath.mpf(0), mpmath.mpf(0)
    for k in range(1, len(order)):  # S = the first k groups: neither empty nor everything
        mu = quantile(mass_q[:k], mass_q[k:]) - quantile(mass_p[:k], mass_p[k:])
        if mu > best:
            best, where = mu, mpmath.fsum(mass_p[:k])
    return best, where


def _gdp_witnessed(p: Any, q: Any, mu: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    """A μ' > μ the pair is shown not to meet, from a point ε where δ_pair(ε) exceeds the
    μ-GDP profile: bisection on μ' (the profile rises with μ') keeps δ_GDP(μ', ε) < δ_pair(ε),
    so the pair is not μ'-GDP and its least μ exceeds μ' (a value *attained* above μ, which the
    audit's strict comparison with the claim needs; μ itself would tie it)."""
    target = _delta_of_pair(p, q, eps)
    lo, hi = mu, mu + 1
    while gdp_delta(hi, eps) < target:
        lo, hi = hi, hi * 2
        if hi > 2**20:  # δ_pair(ε) = 1 (disjoint laws): no finite μ; lo is still attained
            return lo
    for _ in range(200):
        mid = (lo + hi) / 2
        if gdp_delta(mid, eps) < target:
            lo = mid
        else:
            hi = mid
        if lo > mu and _located_enough(lo, hi):
            break
    return lo


def gdp_of_pair(p: Any, q: Any, threshold: Any = None) -> Located:
    """The least μ for which the pair (both directions) is μ-GDP (Dong, Roth and Su 2022).

    Between two :class:`~dpquant.reference.distributions.DiscreteLaw`, exactly: the trade-off
    function is piecewise linear and G_μ convex, so T >= G_μ holds if and only if it holds at
    T's vertices, where it reads μ >= Φ^{-1}(Q(S)) − Φ^{-1}(P(S)) for the Neyman–Pearson sets S.
    Otherwise by bisection on μ, each step deciding :func:`profile_excess` against the GDP
    profile (their Corollary 2.13), until the interval is within the relative tolerance.

    Args:
        p: An exact law.
        q: An exact law of the same kind.
        threshold: A claimed μ: for laws other than discrete, only whether μ_pair exceeds it is
            decided (faster), the interval returned brackets μ_pair to that extent.

    Returns:
        The :class:`Located` μ (``argument``: the type I error of the worst vertex for discrete
        laws, else the ε of the worst profile point at the returned lower μ).

    Raises:
        ValueError: The laws cannot be compared (named).
    """
    _check_laws(p, q)
    with workdps():
        if isinstance(p, DiscreteLaw) and isinstance(q, DiscreteLaw):
            a, wa = _discrete_gdp(p, q)
            b, wb = _discrete_gdp(q, p)
            mu, where = (a, wa) if a >= b else (b, wb)
            return Located(mu, mu, where, 2, False)

        def violated(mu: mpmath.mpf) -> tuple[bool, Located]:
            found = profile_excess(p, q, lambda e: gdp_delta(mu, e), threshold=0)
            return found.value > 0, found

        thr = None if threshold is None else _nonnegative(threshold, "threshold")
        if thr is not None:
            bad, found = violated(thr)
            if bad:
                witnessed = _gdp_witnessed(p, q, thr, found.argument)
                return Located(witnessed, MP_INF, found.argument, found.evaluations, False)
            if found.upper <= 0:
                return Located(mpmath.mpf(0), thr, found.argument, found.evaluations, False)
            return Located(mpmath.mpf(0), MP_INF, found.argument, found.evaluations, True)
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        spent = 0
        while True:
            bad, found = violated(hi)
            spent += found.evaluations
            if not bad and found.upper <= 0:
                break
            lo, hi = hi, hi * 2
            if hi > 2**20:
                return Located(lo, MP_INF, found.argument, spent, True)
        arg = mpmath.mpf(0)
        for _ in range(60):
            if _located_enough(lo, hi):
                break
            mid = (lo + hi) / 2
            bad, found = violated(mid)
            spent += found.evaluations
            if bad:
                lo, arg = mid, found.argument
            elif found.upper <= 0 or not found.exhausted:
                hi = mid  # proven, or the excess located within ABSOLUTE_TOLERANCE of 0
            else:
                return Located(lo, hi, arg, spent, True)
        return Located(lo, hi, arg, spent, False)


__all__ = [
    "ABSOLUTE_TOLERANCE",
    "INITIAL_CELLS",
    "MAX_EVALUATIONS",
    "RELATIVE_TOLERANCE",
    "Located",
    "gdp_of_pair",
    "profile_excess",
    "renyi_of_pair",
    "zcdp_of_pair",
]
