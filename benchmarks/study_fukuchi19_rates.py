"""Slope study of fukuchi19's Corollaries 1–2 (Eqs. 4–5): the N-rate of Algorithm 2's error.

Corollary 1 (Lower-α schedule, Eq. 4): Err = O((ln³N/(ε²N))^{1/(2α)}); Corollary 2 (Unknown-α
schedule, Eq. 5): Err = O((ln⁶N/(ε²N))^{1/(2α)}). Along N = 2^n the guideline
(ln^k N/N)^{1/(2α)} has −log₂ Err = (n − k·log₂(n ln 2))/(2α) + const, so its secant slope per
doubling over n ∈ [n₀, n₁] is

    (1/(2α))·(1 − k·log₂(n₁/n₀)/(n₁ − n₀))       (k = 3 for Cor. 1, 6 for Cor. 2).

Data (Sec. 6.1): fixed data x_(i) = x_min + 0.3·BetaPPF((i − 1)/(N − 1); α, 1), worst case over
the six x_min of the experiments; a row passes when its whole slope interval lies within ±20% of
the secant slope (the tolerance of ``notes/fukuchi19.md``). Errors come from the float tree law
(:func:`dpquant.reference.ldp_minimum.exact_law.leaf_probabilities`; the pruned mass adds at most
2 per unit, so Err is bracketed) for Corollary 1 at both ends and for Corollary 2 at n₀, and from
the binomial sampler with an empirical-Bernstein interval for Corollary 2 at n₁ (L = 21 levels at
N = 2^20).

The full grid (α ∈ {1, 2, 4} for Cor. 1, {0.5, 1, 2, 4} for Cor. 2, ε ∈ {1, 4}, n = 14 → 20)
takes about 40 s on one core. ``proofs_checks/test_fukuchi19_rates.py`` runs the α = 1, n = 12 → 16
smoke version and one configuration of each corollary at n = 14 → 20 with these functions;
``tests/studies/test_fukuchi19_reproduce.py`` checks every configuration's rate at 1 000 runs.

Run: ``.venv/bin/python benchmarks/study_fukuchi19_rates.py [--corollary 1 2] [--alphas A ...]
[--epsilons E ...] [--n0 14] [--n1 20]``. Prints one row per configuration and exits 1 when a row
fails.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpquant.reference.ldp_minimum.exact_law import leaf_probabilities
from dpquant.reference.ldp_minimum.round_statistic import round_rule
from dpquant.reference.ldp_minimum.schedules import schedule
from dpquant.reference.ldp_minimum.search import sample_binomial
from dpquant.reference.ldp_minimum.section_6_1 import beta_fixed_data

WIDTH = 0.3
X_MINS = [k * 0.2 * (2 - WIDTH) - 1 for k in range(6)]  # Sec. 6.1
TOLERANCE = 0.2
SCHEDULE = {1: "lower_alpha", 2: "unknown_alpha"}
LOG_POWER = {1: 3, 2: 6}
"""k of the guideline (ln^k N/N)^{1/(2α)}, by corollary."""
ALPHAS = {1: (1.0, 2.0, 4.0), 2: (0.5, 1.0, 2.0, 4.0)}
"""The α of the full grid by corollary (Cor. 1 needs α >= α₀ = 1)."""
EPSILONS = (1.0, 4.0)

# Monte Carlo sizing: M runs per (x_min, configuration). Maurer–Pontil's empirical Bernstein bound
# for values in [0, 2]: |mean − Err| <= sqrt(2·V·ln(2/δ)/M) + 14·ln(2/δ)/(3(M − 1)) with probability
# >= 1 − 2δ. With δ = 1e-8 per estimate and at most 48 estimates, the intervals all hold with
# probability >= 1 − 1e-6, so a correct implementation (of a true rate) fails with prob < 1e-6.
# M only sets the width of the intervals (the power), not that error probability. Err at
# N = 2^20 is >= 0.013 in every configuration but (α, ε) = (0.5, 4), where it is 0.00098 (exact
# tree law) and the second term alone, 89/M, needs M ≈ 6·10^5 to keep the slope interval inside
# ±20% (seeded: [0.466, 0.540] at 6·10^5; at 3·10^5 it reaches 0.587 > 0.583). Elsewhere
# M = 6·10^4 leaves slope intervals at most 0.051 wide (seeded runs), at least 8% of the secant
# slope inside the tolerance on both sides.
MC_RUNS = 60_000
MC_RUNS_SMALL_ERROR = {(0.5, 4.0): 600_000}
MC_DELTA = 1e-8


@dataclass(frozen=True)
class SlopeRow:
    """One configuration of the study: its slope interval against the guideline's secant."""

    corollary: int
    alpha: float
    epsilon: float
    n0: int
    n1: int
    slope_lo: float
    slope_hi: float
    theory: float

    @property
    def passed(self) -> bool:
        """The whole interval lies in theory·[1 − TOLERANCE, 1 + TOLERANCE]."""
        lo, hi = (1 - TOLERANCE) * self.theory, (1 + TOLERANCE) * self.theory
        return lo <= self.slope_lo and self.slope_hi <= hi


def guideline_slope(alpha: float, k: int, n0: int, n1: int) -> float:
    """Secant slope of −log₂((ln^k N/N)^{1/(2α)}) per doubling of N between 2^n0 and 2^n1."""
    return (1 - k * math.log2(n1 / n0) / (n1 - n0)) / (2 * alpha)


def error_interval_exact(name: str, n_exp: int, eps: float, alpha: float) -> tuple[float, float]:
    """[lower, upper] on max over x_min of Err, by the pruned float tree law."""
    n = 2**n_exp
    s = schedule(name, n, eps)
    rule = round_rule(n, s.levels, s.gamma, epsilon=eps)
    lo, hi = 0.0, 0.0
    for x_min in X_MINS:
        data = beta_fixed_data(n, alpha, 1.0, x_min, WIDTH)
        law = leaf_probabilities(data, rule)
        kept = law.mean_absolute_error(float(data[0]))
        lo, hi = max(lo, kept * (1 - 1e-9)), max(hi, kept * (1 + 1e-9) + 2 * law.pruned)
    return lo, hi


def error_interval_mc(
    name: str, n_exp: int, eps: float, alpha: float, rng: np.random.Generator
) -> tuple[float, float]:
    """[lower, upper] on max over x_min of Err, by the binomial sampler (empirical Bernstein)."""
    n = 2**n_exp
    s = schedule(name, n, eps)
    rule = round_rule(n, s.levels, s.gamma, epsilon=eps)
    log_term = math.log(2 / MC_DELTA)
    runs = MC_RUNS_SMALL_ERROR.get((alpha, eps), MC_RUNS)
    lo, hi = 0.0, 0.0
    for x_min in X_MINS:
        data = beta_fixed_data(n, alpha, 1.0, x_min, WIDTH)
        err = np.abs(sample_binomial(data, rule, runs, rng) - data[0])
        mean, var = float(err.mean()), float(err.var(ddof=1))
        half = math.sqrt(2 * var * log_term / runs) + 14 * log_term / (3 * (runs - 1))
        lo, hi = max(lo, mean - half), max(hi, mean + half)
    return lo, hi


def slope_interval(
    small: tuple[float, float], large: tuple[float, float], n0: int, n1: int
) -> tuple[float, float]:
    """The slope interval [log₂(lo₀/hi₁), log₂(hi₀/lo₁)]/(n1 − n0) of two error intervals."""
    if not (small[0] > 0 and large[0] > 0):
        raise ValueError(f"error intervals must have positive lower ends: {small}, {large}")
    return (
        math.log2(small[0] / large[1]) / (n1 - n0),
        math.log2(small[1] / large[0]) / (n1 - n0),
    )


def mc_seed(alpha: float, eps: float) -> int:
    """The seed of a Corollary 2 row's binomial draws (a function of α and ε alone)."""
    return 20_190_000 + int(alpha * 10) + int(eps)


def slope_row(corollary: int, alpha: float, eps: float, n0: int = 14, n1: int = 20) -> SlopeRow:
    """One configuration: Corollary 1 by the tree law at both ends; Corollary 2 by the tree law
    at n0 and the binomial sampler at n1 (seeded by :func:`mc_seed`)."""
    if corollary not in SCHEDULE:
        raise ValueError(f"corollary: must be 1 or 2, got {corollary!r}")
    if not 2 <= n0 < n1:
        raise ValueError(f"n0, n1: need 2 <= n0 < n1, got {n0}, {n1}")
    name = SCHEDULE[corollary]
    small = error_interval_exact(name, n0, eps, alpha)
    if corollary == 1:
        large = error_interval_exact(name, n1, eps, alpha)
    else:
        large = error_interval_mc(name, n1, eps, alpha, np.random.default_rng(mc_seed(alpha, eps)))
    lo, hi = slope_interval(small, large, n0, n1)
    theory = guideline_slope(alpha, LOG_POWER[corollary], n0, n1)
    return SlopeRow(corollary, alpha, eps, n0, n1, lo, hi, theory)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the grid and print one row per configuration.

    Args:
        argv: The command-line arguments (default ``sys.argv[1:]``).

    Returns:
        0 when every row passes, 1 otherwise.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corollary", type=int, nargs="+", choices=(1, 2), default=[1, 2])
    parser.add_argument("--alphas", type=float, nargs="+", help="default: the full grid's")
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(EPSILONS))
    parser.add_argument("--n0", type=int, default=14, help="log2 of the smaller N (default 14)")
    parser.add_argument("--n1", type=int, default=20, help="log2 of the larger N (default 20)")
    args = parser.parse_args(argv)
    if not 2 <= args.n0 < args.n1 <= 24:
        parser.error("need 2 <= --n0 < --n1 <= 24")
    for name, values in (("--alphas", args.alphas or []), ("--epsilons", args.epsilons)):
        if not all(math.isfinite(v) and v > 0 for v in values):
            parser.error(f"{name}: each must be a finite number > 0, got {values}")
    failed = 0
    print(f"slope per doubling of N, n = {args.n0} -> {args.n1}, tolerance ±{TOLERANCE:.0%}")
    print(f"{'corollary':>9} {'alpha':>6} {'eps':>5} {'slope interval':>20} {'secant':>8}")
    for corollary in args.corollary:
        for alpha in args.alphas or ALPHAS[corollary]:
            for eps in args.epsilons:
                row = slope_row(corollary, alpha, eps, args.n0, args.n1)
                failed += not row.passed
                interval = f"[{row.slope_lo:.4f}, {row.slope_hi:.4f}]"
                print(
                    f"{corollary:>9} {alpha:>6g} {eps:>5g} {interval:>20} {row.theory:>8.4f}"
                    + ("" if row.passed else "  FAILED")
                )
    print("every row passed" if not failed else f"{failed} rows FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
