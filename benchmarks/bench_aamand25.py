"""Benchmark: seconds per DpBayeSS run, and the whole Fig. 1a reproduction (issue 4 targets).

    python benchmarks/bench_aamand25.py [--skip-large] [--skip-figure] [--runs 200]

Prints, for each case, our time beside the target and the authors' code's time as measured for
the issue (their repository is not a Python package, so it is not run here):

* one DpBayeSS run, n = 2500, B = 4^9 (target <= 20 ms; authors' code 1.73 s);
* one DpBayeSS run, n = 10^6, B = 2^32 (target <= 30 s; authors' code cannot allocate B = 2^32,
  and takes 326 s a run at B = 4^12);
* the Fig. 1a reproduction, 200 runs x 10 ε x 3 mechanisms (target <= 3 min on 2 cores; about
  an hour with the authors' code).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from reference.distributed_quantiles.private_bayess import AUTHORS_OPTIONS, dp_bayess


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--skip-figure", action="store_true")
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()

    print(f"{'case':<48} {'ours':>12} {'target':>10} {'authors':>10}")
    users = _lomax(2500, 4**9)
    for label, options in (("paper options", {}), ("authors' options", AUTHORS_OPTIONS)):
        t = _per_run(users, 4**9, 50, **options)
        print(
            f"{'DpBayeSS n=2500 B=4^9 ' + label:<48} {t * 1e3:>9.1f} ms {'20 ms':>10} {'1.73 s':>10}"
        )

    if not args.skip_large:
        big = _lomax(10**6, 2**32)
        start = time.perf_counter()
        dp_bayess(big, 2**32, 0.569, np.random.default_rng(1))
        t = time.perf_counter() - start
        print(f"{'DpBayeSS n=10^6 B=2^32':<48} {t:>10.1f} s {'30 s':>10} {'n/a':>10}")

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
