"""Exact coverage of the partition bounds (dpquant.audit.statistics.partition_bounds), full size.

For a partition of three cells with masses P = (0.7, 0.2, 0.1) on D and Q = (0.1, 0.2, 0.7) on
D', and n draws per side, every pair of count vectors is enumerated with its multinomial
probability; the probability that the bound (from the Clopper–Pearson box of ``cell_box``)
exceeds the cells' true divergence is summed exactly. The true divergences are computed in mpmath
at 50 digits. Checks, for each row:

* Rényi rows: the bound exceeds D_a(P ‖ Q) with probability at most α, and it is positive with
  probability above 0.1 (it is not vacuous at that size);
* zCDP rows: the ρ bound exceeds the cells' ρ (the largest (D_a − ξ)/a over the grid of orders)
  with probability at most α.

tests/audit/statistics/test_partition_bounds.py runs the same enumeration at the smallest n
where each row's bound is not vacuous (n = 12 but for order 2 at α = 0.1, which needs n = 20) and
the zCDP rows at n = 12; this script runs every row at ``--n`` (default 20, the size the tests
used before issue 39), about 30 s.

Run: ``.venv/bin/python benchmarks/study_partition_coverage.py [--n N]``. Prints one line per
row and exits 1 when a row fails its check.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Sequence

import mpmath
from scipy import stats

from dpquant.audit.statistics.partition_bounds import (
    ZCDP_ORDERS,
    cell_box,
    renyi_partition_bound,
    zcdp_partition_bound,
)

DPS = 50
P_TRUE = (0.7, 0.2, 0.1)
Q_TRUE = (0.1, 0.2, 0.7)
RENYI_ROWS = tuple(itertools.product((0.1, 0.5), (2.0, 8.0, math.inf)))
"""(α, order) of the Rényi rows."""
ZCDP_ROWS = ((0.3, 0.0), (0.3, 0.2))
"""(α, ξ) of the zCDP rows."""
MIN_POSITIVE = 0.1
"""The least probability that a Rényi row's bound is positive (not vacuous)."""

Outcome = tuple[int, ...]


def renyi_mp(p: Sequence[float], q: Sequence[float], order: float) -> mpmath.mpf:
    """D_a(P ‖ Q) of two mass vectors at 50 digits (terms with P_i = 0 dropped).

    Args:
        p: The masses of P.
        q: The masses of Q (as many).
        order: The order a > 1, or inf.

    Returns:
        The divergence.
    """
    with mpmath.workdps(DPS):
        if order == math.inf:
            return max(
                mpmath.log(mpmath.mpf(a) / mpmath.mpf(b))
                for a, b in zip(p, q, strict=True)
                if a > 0
            )
        a = mpmath.mpf(order)
        h = mpmath.fsum(
            mpmath.mpf(x) ** a * mpmath.mpf(y) ** (1 - a)
            for x, y in zip(p, q, strict=True)
            if x > 0
        )
        return mpmath.log(h) / (a - 1)


def zcdp_truth(xi: float) -> float:
    """The cells' ρ: the largest (D_a(P ‖ Q) − ξ)/a over ZCDP_ORDERS, at least 0.

    Args:
        xi: The claimed ξ >= 0.

    Returns:
        ρ, as a float.
    """
    with mpmath.workdps(DPS):
        return float(
            max(
                mpmath.mpf(0),
                *((renyi_mp(P_TRUE, Q_TRUE, float(a)) - xi) / float(a) for a in ZCDP_ORDERS),
            )
        )


def _weighted_boxes(
    n: int, alpha: float
) -> list[tuple[Outcome, float, float, object, object]]:
    """Every count vector c of n draws in three cells, with Pr[c] on D and on D' and its cell
    bounds (L on D, U on D'; the box is a product, L depends on the counts on D only)."""
    outcomes = [c for c in itertools.product(range(n + 1), repeat=3) if sum(c) == n]
    rows = []
    for c in outcomes:
        lower, upper = cell_box(c, n, c, n, alpha)
        p0 = float(stats.multinomial.pmf(c, n, P_TRUE))
        p1 = float(stats.multinomial.pmf(c, n, Q_TRUE))
        rows.append((c, p0, p1, lower, upper))
    return rows


def renyi_coverage(n: int, alpha: float, order: float) -> tuple[float, float]:
    """Pr[bound > D_a(P ‖ Q)] and Pr[bound > 0], summed exactly over all count vectors.

    Args:
        n: Draws per side.
        alpha: The level of the box.
        order: The Rényi order.

    Returns:
        (failure, positive) probabilities.
    """
    truth = float(renyi_mp(P_TRUE, Q_TRUE, order))
    rows = _weighted_boxes(n, alpha)
    failure = positive = 0.0
    for _, p0, _, lower, _ in rows:
        for _, _, p1, _, upper in rows:
            bound = renyi_partition_bound(lower, upper, order)
            failure += p0 * p1 * (bound > truth)
            positive += p0 * p1 * (bound > 0)
    return failure, positive


def zcdp_coverage(n: int, alpha: float, xi: float) -> float:
    """Pr[ρ bound > the cells' ρ], summed exactly over all count vectors.

    Args:
        n: Draws per side.
        alpha: The level of the box.
        xi: The claimed ξ.

    Returns:
        The failure probability.
    """
    truth = zcdp_truth(xi)
    rows = _weighted_boxes(n, alpha)
    return sum(
        p0 * p1
        for _, p0, _, lower, _ in rows
        for _, _, p1, _, upper in rows
        if zcdp_partition_bound(lower, upper, xi)[0] > truth
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run every row at ``--n`` draws per side and print the table.

    Args:
        argv: The command-line arguments (default ``sys.argv[1:]``).

    Returns:
        0 when every row passes its check, 1 otherwise.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="draws per side (default 20)")
    n = parser.parse_args(argv).n
    failed = 0
    print(f"n = {n} draws per side")
    print(f"{'bound':<8} {'alpha':>6} {'order/xi':>9} {'Pr[bound > truth]':>18} {'Pr[> 0]':>8}")
    for alpha, order in RENYI_ROWS:
        failure, positive = renyi_coverage(n, alpha, order)
        ok = failure <= alpha and positive > MIN_POSITIVE
        failed += not ok
        print(f"{'renyi':<8} {alpha:>6g} {order:>9g} {failure:>18.3g} {positive:>8.3f}"
              + ("" if ok else "  FAILED"))
    for alpha, xi in ZCDP_ROWS:
        failure = zcdp_coverage(n, alpha, xi)
        failed += not failure <= alpha
        print(f"{'zcdp':<8} {alpha:>6g} {xi:>9g} {failure:>18.3g} {'':>8}"
              + ("" if failure <= alpha else "  FAILED"))
    print("every row passed" if not failed else f"{failed} rows FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
