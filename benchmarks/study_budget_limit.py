"""How tight any audit of the EM median can be within a total budget of draws (issue 39, item 3).

The done-when of issue 39, item 3 asks that the pure black-box audit of the exponential-mechanism
median (outputs in (0, 1), replace-one) with ``max_draws = 10⁶`` reach ε_lb ≥ 0.8·ε on 99 % of
seeds at ε = 1 and at ε = 0.5. This study computes, from exact laws, the most that *any* audit
built on the project's bound (one event, Clopper–Pearson at α/2 on each side,
:mod:`dpquant.audit.statistics.bounds`) can reach with a given number of evaluation draws.

**The limit.** The exponential mechanism (McSherry and Talwar, FOCS 2007) releases y with density
proportional to exp(−(ε/2)·|rank(y) − q·n|) on the output interval (utility sensitivity 1 under
replace-one). Replacing one record moves every rank(y) by at most one, so the unnormalised weights
W, W′ of D, D′ satisfy W(A) ≤ e^{ε/2}·W′(A) and W(Aᶜ) ≥ e^{−ε/2}·W′(Aᶜ) for every event A. With
m = Pr[M(D′) ∈ A] this gives

    Pr[M(D) ∈ A] ≤ f(m) = e^ε·m / (e^ε·m + 1 − m)                    (:func:`limit_mass`),

a bound tighter than ε-DP's e^ε·m: a rare event loses almost ε, a common one much less. So the
best any event of any pair can promise with n draws a side is max over m of the bound at the
expected counts of (f(m), m) (:func:`limit_expected`), and the chance that its counts reach 0.8·ε
is computed exactly from the two binomial laws (:func:`reach_probability`), at the best m and
split of the draws between D and D′ (:func:`best_reach`).

The script checks two claims and exits 1 when one fails: no event (likelihood-ratio set) of any
pair of the budgeted search's family (:func:`dpquant.audit.pipeline.context.budget_family`)
exceeds the limit (so the limit is right), and the family's best pair comes within
:data:`ATTAIN_GAP`·ε of the limit's expected bound (so the family is not what stops a budgeted
audit). It prints what that means for the budget: at ε = 0.5 even an oracle that spends all 10⁶
draws on evaluating the best event reaches 0.8·ε on only about 97 % of seeds with that bound.

It also prints the same chances for the bound a budgeted audit of a pure claim now uses: the
event counted among Poisson numbers of draws and bounded given its total count
(:mod:`dpquant.audit.statistics.poisson_counts`, :func:`poisson_reach_probability`): 0.884 with
the 500 000 evaluation draws of a budgeted audit at ε = 0.5 (against 0.250), 0.9999 with all 10⁶.

Run: ``.venv/bin/python benchmarks/study_budget_limit.py [--epsilons 1 0.5] [--total 1000000]``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
from scipy.stats import binom, poisson

from dpquant.audit.model.neighbours import exhaustive_pairs, probe_values, rank_shift_pairs
from dpquant.audit.pipeline.stage3_evaluation import POISSON_TAIL_SHARE
from dpquant.audit.statistics.bounds import expected_bound
from dpquant.audit.statistics.counts import cp_lower, cp_upper
from dpquant.audit.statistics.poisson_counts import poisson_rate
from dpquant.audit.statistics.power import cell_masses, pair_power
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile

ALPHA = 1e-6
"""The audit's default α (a budgeted audit gives all of it to its one finalist)."""
TIGHT = 0.8
"""The tightness asked for."""
ATTAIN_GAP = 0.005
"""How far below the limit (times ε) the family's best expected bound may lie."""
EXCESS_TOL = 1e-9
"""Float slack allowed when checking that an event's mass respects the limit."""
TAIL_SD = 9.0
"""Standard deviations either side of a count's mean that :func:`reach_probability` sums over."""


def limit_mass(m: np.ndarray, epsilon: float) -> np.ndarray:
    """The most Pr[M(D) ∈ A] of the EM median (replace-one) given m = Pr[M(D′) ∈ A].

    Args:
        m: Masses on D′, in [0, 1].
        epsilon: The mechanism's ε.

    Returns:
        f(m) = e^ε·m / (e^ε·m + 1 − m).
    """
    e = np.exp(epsilon)
    return e * m / (e * m + 1.0 - m)


def masses_grid(epsilon: float) -> np.ndarray:
    """The masses m on D′ searched for the best event (log-spaced, the best lies at a few %)."""
    return np.logspace(-3.0, np.log10(0.5), 600)


def limit_expected(epsilon: float, n: int) -> tuple[float, float]:
    """The best expected bound of any event of the limit with ``n`` draws a side.

    Args:
        epsilon: The mechanism's ε.
        n: Evaluation draws per side.

    Returns:
        (the expected bound, its event's mass m on D′).
    """
    m = masses_grid(epsilon)
    b = expected_bound(limit_mass(m, epsilon), m, n, 0.0, ALPHA)
    k = int(np.argmax(b))
    return float(b[k]), float(m[k])


def reach_probability(p0: float, p1: float, n0: int, n1: int, target: float) -> float:
    """Pr[ln(p0_L/p1_U) ≥ target] for counts K0 ~ Bin(n0, p0), K1 ~ Bin(n1, p1), both bounds at
    α/2 (exact: summed over K1 within :data:`TAIL_SD` standard deviations, the rest below 1e-18).

    Args:
        p0: The event's mass on D.
        p1: The event's mass on D′.
        n0: Draws on D.
        n1: Draws on D′.
        target: The bound to reach.

    Returns:
        The probability.
    """
    def span(n: int, p: float) -> np.ndarray:
        sd = np.sqrt(n * p * (1 - p))
        lo, hi = max(0, int(n * p - TAIL_SD * sd)), min(n, int(n * p + TAIL_SD * sd) + 1)
        return np.arange(lo, hi + 1, dtype=float)

    k1, k0 = span(n1, p1), span(n0, p0)
    need = np.exp(target) * cp_upper(k1, np.full_like(k1, n1), ALPHA / 2)
    lower = cp_lower(k0, np.full_like(k0, n0), ALPHA / 2)  # increasing in k0
    first = np.searchsorted(lower, need, side="left")  # the least k0 (index) reaching it
    k0_min = np.where(first < k0.size, k0[np.minimum(first, k0.size - 1)], n0 + 1)
    return float(np.sum(binom.pmf(k1, n1, p1) * binom.sf(k0_min - 1, n0, p0)))


def poisson_reach_probability(p0: float, p1: float, n: int, target: float) -> float:
    """Pr[ε_lb ≥ target] for the bound of Poisson numbers of draws, as a budgeted audit of a
    pure claim counts them (:mod:`dpquant.audit.statistics.poisson_counts`): at most ``n`` a side,
    λ = ``poisson_rate(n, α·share)``, K0 ~ Poisson(λ·p0) and K1 ~ Poisson(λ·p1), the conditional
    Clopper–Pearson bound at α·(1 − 2·share) (exact: for each K1 within :data:`TAIL_SD` standard
    deviations, the least K0 reaching it by bisection, the bound growing with K0).

    Args:
        p0: The event's mass on D.
        p1: The event's mass on D′.
        n: The draws made a side.
        target: The bound to reach.

    Returns:
        The probability.
    """
    lam = poisson_rate(n, ALPHA * POISSON_TAIL_SHARE)
    level = ALPHA * (1 - 2 * POISSON_TAIL_SHARE)
    mu0, mu1 = lam * p0, lam * p1
    k1 = np.arange(max(0, int(mu1 - TAIL_SD * mu1**0.5)), int(mu1 + TAIL_SD * mu1**0.5) + 2)
    theta = np.exp(target) / (1 + np.exp(target))
    lo = np.zeros(k1.size)  # K0 = 0 never reaches a bound (its lower bound of θ is 0)
    hi = np.full(k1.size, float(int(mu0 + TAIL_SD * mu0**0.5) + 2))
    reach = cp_lower(hi, hi + k1, level) >= theta
    while np.any(hi - lo > 1):
        mid = np.floor((lo + hi) / 2)
        ok = cp_lower(mid, mid + k1, level) >= theta
        hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid)
    tail = np.where(reach, poisson.sf(hi - 1, mu0), 0.0)
    return float(np.sum(poisson.pmf(k1, mu1) * tail))


def best_poisson_reach(epsilon: float, total: int) -> float:
    """The best chance, over the event's mass, that one event of the limit reaches
    :data:`TIGHT`·ε with ``total`` draws counted in Poisson numbers (half a side).

    Args:
        epsilon: The mechanism's ε.
        total: Evaluation draws in all.

    Returns:
        The probability.
    """
    _, m0 = limit_expected(epsilon, total // 2)
    return max(
        poisson_reach_probability(float(limit_mass(m, epsilon)), m, total // 2, TIGHT * epsilon)
        for m in m0 * np.linspace(0.7, 1.6, 19)
    )


def best_reach(epsilon: float, total: int) -> tuple[float, float, int]:
    """The best chance that one event of the limit reaches :data:`TIGHT`·ε with ``total`` draws
    split between D and D′, over the event's mass and the split.

    Args:
        epsilon: The mechanism's ε.
        total: Evaluation draws in all.

    Returns:
        (the probability, the event's mass m on D′, the draws on D).
    """
    best = (0.0, 0.0, 0)
    _, m0 = limit_expected(epsilon, total // 2)
    for m in m0 * np.linspace(0.7, 1.4, 15):
        for share in np.linspace(0.36, 0.56, 11):
            n0 = int(total * share)
            p = reach_probability(float(limit_mass(m, epsilon)), m, n0, total - n0, TIGHT * epsilon)
            if p > best[0]:
                best = (p, float(m), n0)
    return best


def family_check(epsilon: float, n: int) -> tuple[float, float]:
    """The budgeted search's family (single records over the probe values and the rank shifts,
    as :func:`dpquant.audit.pipeline.context.budget_family` builds it) on the EM median.

    Args:
        epsilon: The mechanism's ε.
        n: Evaluation draws per side for the expected bound.

    Returns:
        (the largest excess of a likelihood-ratio event's mass over the limit, the family's best
        expected bound).
    """
    mech = ExponentialQuantile(0.5, epsilon, (0.0, 1.0))
    values = probe_values(mech.domain)
    pairs = list(exhaustive_pairs(values, 1, "replace_one")) + rank_shift_pairs(values, "replace_one")
    excess, best = -np.inf, -np.inf
    for pair in dict.fromkeys(pairs):
        p, q = mech.exact(pair.data[0]), mech.exact(pair.data[1])
        masses = cell_masses(p, q)
        assert masses is not None
        for a, b in (masses, masses[::-1]):
            with np.errstate(divide="ignore", invalid="ignore"):
                order = np.argsort(-(np.log(a) - np.log(b)), kind="stable")
            ca, cb = np.cumsum(a[order]), np.cumsum(b[order])
            excess = max(excess, float(np.max(ca - limit_mass(np.minimum(cb, 1.0), epsilon))))
        best = max(best, pair_power(p, q, n, 0.0, ALPHA).expected)
    return excess, best


def study(epsilon: float, total: int, current: int, seeds: int) -> bool:
    """One ε: prints the limit and the chances, and whether the two claims held."""
    excess, family = family_check(epsilon, current // 2)
    limit, m = limit_expected(epsilon, current // 2)
    p_cur, _, _ = best_reach(epsilon, current)
    p_all, m_all, n0 = best_reach(epsilon, total)
    need = int(np.ceil(0.99 * seeds))
    meet = 1.0 if p_all >= 1.0 else float(binom.sf(need - 1, seeds, p_all))
    q_cur, q_all = best_poisson_reach(epsilon, current), best_poisson_reach(epsilon, total)
    q_meet = 1.0 if q_all >= 1.0 else float(binom.sf(need - 1, seeds, q_all))
    ok = excess <= EXCESS_TOL and family >= limit - ATTAIN_GAP * epsilon
    print(
        f"eps={epsilon:g}: limit's expected bound at {current // 2} draws a side "
        f"{limit / epsilon:.4f}·eps (event mass {m:.4f}); family's best {family / epsilon:.4f}·eps; "
        f"largest excess over the limit {excess:.1e}; "
        f"P(>= {TIGHT}·eps) with {current} evaluation draws {p_cur:.4f}, with all {total} "
        f"{p_all:.4f} (m {m_all:.4f}, {n0} on D); P(>= {need}/{seeds} seeds) for that oracle "
        f"{meet:.3f}; with Poisson counts (a budgeted audit's): {q_cur:.4f} with {current}, "
        f"{q_all:.4f} with all {total} (P(>= {need}/{seeds}) {q_meet:.3f}); "
        f"{'ok' if ok else 'FAIL'}",
        flush=True,
    )
    return ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 0.5])
    parser.add_argument("--total", type=int, default=1_000_000, help="the whole budget")
    parser.add_argument(
        "--current", type=int, default=500_000, help="the evaluation draws a budgeted audit has"
    )
    parser.add_argument("--seeds", type=int, default=130)
    args = parser.parse_args(argv)
    if min(args.epsilons) <= 0 or args.current < 2 or args.total < 2 or args.seeds < 1:
        parser.error("epsilons must be positive, --total and --current at least 2, --seeds 1")
    return 0 if all([study(e, args.total, args.current, args.seeds) for e in args.epsilons]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
