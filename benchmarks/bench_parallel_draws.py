"""Parallel draws (issue 39, item 1): what the audit's worker processes gain, and what the
machinery costs beyond the user's own function.

Three tables, each timed in this run, side by side (``benchmarks/_interleave.py``: the calls
take turns; medians and min–max):

1. **The textbook per-draw EM median** (``benchmarks/bench_ci_profile.py``: plain Python and
   numpy, one draw per call, wrapped by ``from_callable``) audited at the default budget
   (``samples`` = the auditor's default) with ``workers=1`` and ``workers=2``: seconds, the
   speed-up, and the two reports, asserted identical (everything but ``seconds``). The issue's
   target on a quiet 2-core machine: a speed-up of at least 1.8.
2. **The overhead per draw** of the auditor's draw path beyond the user's function: a trivial
   per-draw function (and the textbook median) drawn through
   :func:`dpquant.audit.pipeline.draws.draw` in this process and on two workers, against a plain
   loop calling it with one generator.
3. **Where shipping pays**: a fast vectorised sampler (the exponential-mechanism median) drawn
   in calls of N draws, in this process and on two workers, which is what
   :data:`dpquant.audit.pipeline.workers.TASK_DRAWS` is chosen from.

The load of the machine (``os.getloadavg``) is printed before and after: on a shared machine the
ratios move with it.

Run: ``.venv/bin/python benchmarks/bench_parallel_draws.py [--quick] [--repeats R]``
(``--quick``: the audits with a total budget of 200 000 draws instead of the default samples,
fewer draws in the other tables).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from _interleave import interleave, ratio, spread
from bench_ci_profile import textbook_em_median

from dpquant import PrivacyClaim, from_callable
from dpquant.audit import audit_mechanism
from dpquant.audit.pipeline.draws import DrawJob, draw
from dpquant.audit.pipeline.workers import DrawPool, usable_cores
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile

REPLACE = PrivacyClaim(1.0, adjacency="replace_one")
DATA = np.array([0.1, 0.35, 0.4, 0.62, 0.9])


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def stable(report: Any) -> dict[str, Any]:
    d = report.to_dict()
    d.pop("seconds")
    return d


def audits(quick: bool, repeats: int) -> None:
    """Table 1: the textbook EM median audited with one and two workers."""
    mech = from_callable(textbook_em_median, REPLACE, (0.0, 1.0))
    size = {"max_draws": 200_000} if quick else {}
    reports: dict[int, list[dict[str, Any]]] = {1: [], 2: []}

    def run(workers: int) -> Callable[[], None]:
        def go() -> None:
            reports[workers].append(stable(audit_mechanism(mech, seed=0, workers=workers, **size)))

        return go

    times = interleave({"2 workers": run(2), "1 worker": run(1)}, repeats, warm_up=False)
    first = reports[1][0]
    assert all(r == first for w in (1, 2) for r in reports[w]), "the reports differ"
    budget = "max_draws=200000" if quick else "the default samples"
    print(f"\n1. textbook per-draw EM median, audited at {budget} (seed 0), {repeats} run(s) each")
    print(f"   draws {first['samples_used']:,}, eps_lb {first['epsilon_lower_bound']:.4f}, "
          f"verdict {'VIOLATION' if first['violation'] else 'no violation'}; reports identical")
    for name, seconds in times.items():
        print(f"   {name:<10} {spread(seconds, 1.0, 's')}")
    print(f"   speed-up 1 -> 2 workers: {ratio(times['1 worker'], times['2 workers']):.2f}x")


def per_draw(n: int, repeats: int) -> None:
    """Table 2: the draw path's overhead per draw beyond the function itself."""
    print(f"\n2. per-draw functions, {n:,} draws: a plain loop against the auditor's draw path")
    print(f"   {'function':<22} {'plain loop':>10} {'1 worker':>10} {'2 workers':>10} "
          f"{'overhead/draw':>14} {'speed-up':>9}")

    def trivial(data: np.ndarray, rng: np.random.Generator) -> float:
        return 0.5

    for name, fn in (("trivial", trivial), ("textbook EM median", textbook_em_median)):
        mech = from_callable(fn, REPLACE, (0.0, 1.0))
        jobs = [DrawJob(DATA, n // 2, (1, 0)), DrawJob(DATA[::-1].copy(), n - n // 2, (1, 1))]
        with DrawPool(mech, 2, []) as pool:

            def plain(fn: Callable[..., Any] = fn) -> None:
                rng = np.random.default_rng(0)
                for _ in range(n):
                    fn(DATA, rng)

            times = interleave(
                {
                    "plain": plain,
                    "one": lambda mech=mech, jobs=jobs: draw(mech, jobs, 0),
                    "two": lambda mech=mech, jobs=jobs, pool=pool: draw(mech, jobs, 0, pool=pool),
                },
                repeats,
            )
        med = {k: statistics.median(v) for k, v in times.items()}
        overhead = (med["one"] - med["plain"]) / n * 1e6
        print(f"   {name:<22} {med['plain']:9.3f}s {med['one']:9.3f}s {med['two']:9.3f}s "
              f"{overhead:11.2f} us {ratio(times['one'], times['two']):8.2f}x")


def shipping(sizes: list[int], repeats: int) -> None:
    """Table 3: a fast vectorised sampler, in this process and on two workers, by call size
    (tasks of one chunk each: the grouping is what this table decides)."""
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    print("\n3. a vectorised sampler (EM median) by draws per call: this process vs 2 workers")
    print(f"   {'draws/call':>10} {'chunk':>7} {'1 worker':>18} {'2 workers':>18} {'speed-up':>9}")
    import dpquant.audit.pipeline.workers as workers

    saved = workers.TASK_DRAWS
    try:
        workers.TASK_DRAWS = 1
        with DrawPool(em, 2, []) as pool:
            for n in sizes:
                chunk = max(1, n // 4)
                jobs = [DrawJob(DATA, n // 2, (1, 0)), DrawJob(DATA, n - n // 2, (1, 1))]
                times = interleave(
                    {
                        "one": lambda jobs=jobs, chunk=chunk: draw(em, jobs, 0, chunk=chunk),
                        "two": lambda jobs=jobs, chunk=chunk: draw(
                            em, jobs, 0, chunk=chunk, pool=pool
                        ),
                    },
                    repeats,
                )
                print(f"   {n:>10,} {chunk:>7,} {spread(times['one']):>18} "
                      f"{spread(times['two']):>18} {ratio(times['one'], times['two']):8.2f}x")
    finally:
        workers.TASK_DRAWS = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller budgets (a minute or so)")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each audit (default 1)")
    parser.add_argument("--skip-audits", action="store_true", help="tables 2 and 3 only")
    args = parser.parse_args(argv)
    print(f"parallel draws: {load()}, usable cores {usable_cores()}")
    start = time.perf_counter()
    if not args.skip_audits:
        audits(args.quick, args.repeats)
    per_draw(20_000 if args.quick else 100_000, 3 if args.quick else 5)
    shipping([4_096, 16_384, 65_536, 262_144, 1_048_576], 5 if args.quick else 9)
    print(f"\n{load()}; {time.perf_counter() - start:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
