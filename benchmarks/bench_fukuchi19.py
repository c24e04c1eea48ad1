"""Benchmark: fukuchi19's LDP minimum at N = 2^20 (issue 6 targets).

    python benchmarks/bench_fukuchi19.py [--repeats 200]

* one run of Algorithm 2 on fixed data, N = 2^20 (Beta(1, 1), Δ = 0.3, x_min = −1), Lower-α
  schedule (L = 10), ε = 1:
  - the binomial fast path (exact in law), data prepared once (validated and sorted): target <= 1 ms;
    the one-off preparation is printed too;
  - the per-user path (every user's report drawn): target <= 1 s;
* the exact output law (the pruned float tree, pruning 1e-15) at N = 2^20, L = 10: target <= 10 s;
* the float-safe grid Laplace report (exact discrete Laplace), per report;
* for scale: the Unknown-α exact law at N = 2^15 (L = 12; the pruned tree grows quickly with L,
  so at N = 2^20, L = 21 the experiments simulate), and the Laplace baseline (one run).

No peer implements this mechanism (the paper has no code); the ratio compares the per-user path
with the binomial fast path (the same law), their calls interleaved; every row is the median
(min–max) over its repetitions.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from _interleave import interleave, ratio, spread

from dpquant.reference.ldp_minimum.exact_law import leaf_probabilities
from dpquant.reference.ldp_minimum.laplace_baseline import (
    sample_grid_reports,
    sample_laplace_extreme,
)
from dpquant.reference.ldp_minimum.round_statistic import round_rule
from dpquant.reference.ldp_minimum.schedules import schedule
from dpquant.reference.ldp_minimum.search import prepare, sample_binomial, sample_per_user

N = 2**20


def seconds_per_call(fn: Callable[[], object], repeats: int, per: int = 1) -> list[float]:
    """Seconds of ``repeats`` calls (after a warm-up), divided by ``per``."""
    return [t / per for t in interleave({"call": fn}, repeats)["call"]]


def _row(name: str, seconds: list[float], target: str) -> None:
    print(f"| {name} | {spread(seconds, 1e-3, 'ms')} | {target} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    x = -1.0 + 0.3 * np.arange(N) / (N - 1)
    rng = np.random.default_rng(0)
    lower = schedule("lower_alpha", N, 1.0)
    rule = round_rule(N, lower.levels, lower.gamma, epsilon=1.0)
    print("| case | time | target |\n|---|---|---|")
    _row(
        "prepare the data once (validate + sort), N = 2^20",
        seconds_per_call(lambda: prepare(x), 5),
        "—",
    )
    data = prepare(x)
    paths = interleave(
        {
            "binomial": lambda: sample_binomial(data, rule, 1, rng),
            "per-user": lambda: sample_per_user(data, rule, 1, rng),
        },
        5,
    )
    _row(f"one run, binomial fast path, L = {rule.levels}", paths["binomial"], "<= 1 ms")
    _row(f"one run, per-user path, L = {rule.levels}", paths["per-user"], "<= 1 s")
    print(
        f"| per-user / binomial (interleaved) | {ratio(paths['per-user'], paths['binomial']):.0f}x | — |"
    )
    _row(
        f"one run, binomial fast path, L = {rule.levels}, {args.repeats} repetitions",
        seconds_per_call(lambda: sample_binomial(data, rule, 1, rng), args.repeats),
        "<= 1 ms",
    )
    _row(
        "1000 runs, binomial fast path (vectorised), per run",
        seconds_per_call(lambda: sample_binomial(data, rule, 1000, rng), 10, 1000),
        "—",
    )
    _row(
        f"exact law (pruned float tree), L = {rule.levels}",
        seconds_per_call(lambda: leaf_probabilities(data, rule), 3),
        "<= 10 s",
    )
    n15 = 2**15
    data15 = prepare(-1.0 + 0.3 * np.arange(n15) / (n15 - 1))
    unknown = schedule("unknown_alpha", n15, 1.0)
    rule_u = round_rule(n15, unknown.levels, unknown.gamma, epsilon=1.0)
    _row(
        f"exact law (pruned float tree), Unknown α, N = 2^15, L = {rule_u.levels}",
        seconds_per_call(lambda: leaf_probabilities(data15, rule_u), 1),
        "—",
    )
    _row(
        "grid Laplace report (exact CKS20 sampler, vectorised), per report",
        seconds_per_call(lambda: sample_grid_reports(0.0, 1.0, 100_000, rng), 3, 100_000),
        "—",
    )
    _row(
        "one run, Laplace baseline (N float draws)",
        seconds_per_call(lambda: sample_laplace_extreme(data, 1.0, 1, rng), 5),
        "—",
    )


if __name__ == "__main__":
    main()
