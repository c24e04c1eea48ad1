"""Benchmark: seconds per DpBayeSS run, and the whole Fig. 1a reproduction (issues 4 and 21);
the batched searches at Fig. 4's n = 10^7 (issue 21).

    python benchmarks/bench_aamand25.py [--skip-large] [--skip-figure] [--skip-population]
        [--runs 200]

Prints, for each case, our time beside the target and, as a reference, the authors' code's time
as measured for issues 4 and 21 (another machine and day; their repository is not a Python
package, so it is not run here): printed, never divided (``benchmarks/_interleave.py``):

* one BayesLearn of 1 950 steps over B = 4^9: compiled against the plain-Python tree;
* one DpBayeSS run, n = 2500, B = 4^9 (target <= 8 ms; authors' code 1.73 s), and per run in a
  batch of 200 (target <= 3 ms);
* one DpBayeSS run, n = 10^6, B = 2^32 (target <= 5 s; authors' code cannot allocate B = 2^32,
  and takes 326 s a run at B = 4^12);
* the Fig. 1a reproduction, 200 runs x 10 ε x 3 mechanisms (target <= 3 min on 2 cores; about
  an hour with the authors' code).
* one DpNaiveNBS, shuffle-search and HM run at n = 10^7, B = 4^8 (Fig. 4; target <= 50 ms), by
  counts (``sampler="counts"`` on a population sorted once) against one RR bit per user, the
  two interleaved; median and min–max over the repetitions.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
from _interleave import interleave, ratio, spread

from dpquant.reference.distributed_quantiles.bayes_learning import (
    Intervals,
    bayes_learn,
    bayes_learn_tree,
)
from dpquant.reference.distributed_quantiles.hierarchical import hierarchical_median
from dpquant.reference.distributed_quantiles.naive_nbs import dp_naive_nbs
from dpquant.reference.distributed_quantiles.population import Population
from dpquant.reference.distributed_quantiles.private_bayess import (
    AUTHORS_OPTIONS,
    dp_bayess,
    dp_bayess_runs,
)
from dpquant.reference.distributed_quantiles.shuffle_search import shuffle_nbs


def _lomax(n: int, B: int, seed: int = 42) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(np.round(2000 * rng.pareto(1.5, n)), 0, B - 1).astype(np.int64) + 1


def _per_run(users: np.ndarray, B: int, runs: int, **options) -> float:
    rng = np.random.default_rng(0)
    dp_bayess(users, B, 0.569, rng, **options)  # warm-up (imports, caches)
    start = time.perf_counter()
    for _ in range(runs):
        dp_bayess(users, B, 0.569, rng, **options)
    return (time.perf_counter() - start) / runs


def _batched(users: np.ndarray, B: int, runs: int, **options) -> float:
    """Seconds per run of ``runs`` DpBayeSS runs advanced together (:func:`dp_bayess_runs`)."""
    dp_bayess_runs(users, B, 0.569, [np.random.default_rng(0)], **options)  # warm-up
    rngs = [np.random.default_rng(s) for s in range(runs)]
    start = time.perf_counter()
    dp_bayess_runs(users, B, 0.569, rngs, **options)
    return (time.perf_counter() - start) / runs


def _bayes_learn(repeats: int = 7) -> None:
    """One BayesLearn over B = 4^9 (1 950 steps, DpBayeSS's first stage at n = 2 500): the
    compiled steps against the plain-Python tree (the path before issue 21), interleaved."""
    users = _lomax(1950, 4**9)
    full = Intervals.full(4**9)
    rng = np.random.default_rng(0)
    calls = {
        "compiled": lambda: bayes_learn(users, full, 0.05, rng, epsilon=0.569),
        "plain-Python tree": lambda: bayes_learn_tree(users, full, 0.05, rng, epsilon=0.569),
    }
    t = interleave(calls, repeats)
    for name in calls:
        print(f"{'BayesLearn 1950 steps B=4^9 ' + name:<48} {spread(t[name]):>24}")
    print(f"{'  tree / compiled':<48} {ratio(t['plain-Python tree'], t['compiled']):>8.0f}x")


def _population(repeats: int = 7) -> None:
    """Fig. 4's batched searches at n = 10^7, B = 4^8: counts against per-user draws."""
    B = 4**8
    users = _lomax(10**7, B)
    start = time.perf_counter()
    population = Population.of(users, B)
    print(f"{'Population.of, n = 10^7 (once per task)':<48} {time.perf_counter() - start:>10.2f} s")
    rng = np.random.default_rng(0)
    calls = {
        "per_user": lambda: dp_naive_nbs(users, B, 1.0, rng, faithful=True),
        "counts": lambda: dp_naive_nbs(population, B, 1.0, rng, faithful=True, sampler="counts"),
        "shuffle per_user": lambda: shuffle_nbs(users, B, 1.0, 1e-8, rng),
        "shuffle counts": lambda: shuffle_nbs(population, B, 1.0, 1e-8, rng, sampler="counts"),
        "HM per_user": lambda: hierarchical_median(users, B, 1.0, rng),
        "HM counts": lambda: hierarchical_median(population, B, 1.0, rng, sampler="counts"),
    }
    t = interleave(calls, repeats)
    for name in calls:
        target = "  (target <= 50 ms)" if "counts" in name else ""
        print(f"{'n=10^7 B=4^8 ' + name:<48} {spread(t[name]):>24}{target}")
    print(f"{'  HM per_user / counts':<48} {ratio(t['HM per_user'], t['HM counts']):>8.0f}x")
    print(
        f"{'  per_user / counts (DpNaiveNBS, shuffle)':<48} "
        f"{ratio(t['per_user'], t['counts']):>8.0f}x {ratio(t['shuffle per_user'], t['shuffle counts']):>8.0f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--skip-figure", action="store_true")
    parser.add_argument("--skip-population", action="store_true")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    if not args.skip_population:
        _population()

    _bayes_learn()
    print(
        "reference: the authors' code as measured for issues 4 and 21 (another machine and day; "
        "not run here, never divided)"
    )
    print(f"{'case':<48} {'ours':>12} {'target':>10} {'reference':>10}")
    users = _lomax(2500, 4**9)
    for label, options in (("paper options", {}), ("authors' options", AUTHORS_OPTIONS)):
        t = _per_run(users, 4**9, 50, **options)
        print(
            f"{'DpBayeSS n=2500 B=4^9 ' + label:<48} {t * 1e3:>9.2f} ms {'8 ms':>10} {'1.73 s':>10}"
        )
        t = _batched(users, 4**9, 200, **options)
        print(
            f"{'  a batch of 200 runs, per run':<48} {t * 1e3:>9.2f} ms {'3 ms':>10} {'1.73 s':>10}"
        )

    if not args.skip_large:
        big = _lomax(10**6, 2**32)
        start = time.perf_counter()
        dp_bayess(big, 2**32, 0.569, np.random.default_rng(1))
        t = time.perf_counter() - start
        print(f"{'DpBayeSS n=10^6 B=2^32':<48} {t:>10.2f} s {'5 s':>10} {'n/a':>10}")

    if not args.skip_figure:
        from dpquant.studies.aamand25 import run_figure

        workers = os.cpu_count() or 1
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            run_figure("fig1a", runs=args.runs, seed=0, workers=workers, out=out)
            t = time.perf_counter() - start
        label = f"Fig. 1a, {args.runs} runs, {workers} workers"
        print(f"{label:<48} {t:>10.1f} s {'180 s':>10} {'~1 h':>10}")


if __name__ == "__main__":
    main()
