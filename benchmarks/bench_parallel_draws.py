"""Parallel draws (issue 39, item 1): what the audit's worker processes gain, and what the
machinery costs beyond the user's own function.

Three tables, each timed in this run, side by side (``benchmarks/_interleave.py``: the calls
take turns; medians and min–max):

1. **The textbook per-draw EM median** (``benchmarks/bench_ci_profile.py``: plain Python and
   numpy, one draw per call, wrapped by ``from_callable``) audited at the default budget
   (``samples`` = the auditor's default) with ``workers=1`` and ``workers=2``: seconds, the
   speed-up, and the two reports, asserted identical (everything but ``seconds``). The issue's
   target on a quiet 2-core machine: a speed-up of at least 1.8. Beside the wall times, the CPU
   seconds of this process and of the workers, and a projection for two free cores from them
   and from the sizes of the tasks shipped (on a shared machine the wall time follows the cores
   the other processes leave).
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
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from _interleave import interleave, ratio, spread
from bench_ci_profile import textbook_em_median

from dpquant import PrivacyClaim, from_callable
from dpquant.audit import audit_mechanism
from dpquant.audit.pipeline import workers as workers_module
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


def children_cpu() -> float:
    """CPU seconds of this process's children that have ended (the audits' workers, joined when
    each audit closes its pool)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def audits(quick: bool, repeats: int) -> None:
    """Table 1: the textbook EM median audited with one and two workers; wall seconds, and the
    CPU seconds of this process and of the workers (on a shared machine the wall time follows
    the cores left free; the CPU time shows what the workers cost)."""
    mech = from_callable(textbook_em_median, REPLACE, (0.0, 1.0))
    size = {"max_draws": 200_000} if quick else {}
    reports: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
    cpu: dict[int, list[tuple[float, float]]] = {1: [], 2: []}

    shipped: list[list[int]] = []  # the tasks' draws, per call shipped to the workers

    def recorded(sizes: Sequence[int], least: int) -> list[range]:
        groups = real_tasks(sizes, least)
        if len(groups) > 1:
            shipped.append([sum(sizes[i] for i in g) for g in groups])
        return groups

    def run(workers: int) -> Callable[[], None]:
        def go() -> None:
            own, kids = time.process_time(), children_cpu()
            report = audit_mechanism(mech, seed=0, workers=workers, **size)
            cpu[workers].append((time.process_time() - own, children_cpu() - kids))
            reports[workers].append(stable(report))

        return go

    real_tasks = workers_module.tasks
    workers_module.tasks = recorded
    try:
        times = interleave({"2 workers": run(2), "1 worker": run(1)}, repeats, warm_up=False)
    finally:
        workers_module.tasks = real_tasks
    first = reports[1][0]
    assert all(r == first for w in (1, 2) for r in reports[w]), "the reports differ"
    budget = "max_draws=200000" if quick else "the default samples"
    print(f"\n1. textbook per-draw EM median, audited at {budget} (seed 0), {repeats} run(s) each")
    print(f"   draws {first['samples_used']:,}, eps_lb {first['epsilon_lower_bound']:.4f}, "
          f"verdict {'VIOLATION' if first['violation'] else 'no violation'}; reports identical")
    print(f"   {'':<10} {'wall':>22} {'CPU here':>9} {'CPU workers':>12}")
    for name, w in (("2 workers", 2), ("1 worker", 1)):
        own = statistics.median(c[0] for c in cpu[w])
        kids = statistics.median(c[1] for c in cpu[w])
        print(f"   {name:<10} {spread(times[name], 1.0, 's'):>22} {own:8.1f}s {kids:11.1f}s")
    print(f"   speed-up 1 -> 2 workers (wall): {ratio(times['1 worker'], times['2 workers']):.2f}x")
    one = statistics.median(c[0] for c in cpu[1])
    own2 = statistics.median(c[0] for c in cpu[2])
    kids2 = statistics.median(c[1] for c in cpu[2])
    calls = shipped[: len(shipped) // repeats]  # one audit's calls (the same in every run)
    drawn = sum(sum(c) for c in calls)
    longest = sum(makespan(c, 2) for c in calls)
    projected = own2 + kids2 * longest / drawn if drawn else own2
    print(f"   CPU of 2 workers and this process over CPU of 1: {(own2 + kids2) / one:.2f}")
    print(f"   {len(calls)} calls shipped, {drawn:,} of {first['samples_used']:,} draws; on two "
          f"free cores the wall time would be about {projected:.1f} s: this process's CPU plus "
          f"the workers' CPU a draw times the draws of the busier worker of each call")
    print(f"   ({longest:,} draws, tasks taken in order by the first worker free): "
          f"{one / projected:.2f}x (a projection, not a measurement)")


def makespan(tasks: list[int], workers: int) -> int:
    """The draws of the busier worker when ``workers`` take ``tasks`` (their draws) in order,
    each task going to the first worker free (as a process pool's queue hands them out)."""
    free = [0] * workers
    for n in tasks:
        k = free.index(min(free))
        free[k] += n
    return max(free)


def workers_cpu(pool: DrawPool) -> float:
    """CPU seconds of a running pool's workers so far (``/proc/<pid>/stat``; Linux: 0 where it
    cannot be read). Reads the pool's private process table: a benchmark's probe."""
    executor = getattr(pool, "_pool", None)
    total = 0.0
    for pid in list((getattr(executor, "_processes", None) or {}).keys()):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def per_draw(n: int, repeats: int) -> None:
    """Table 2: the draw path's cost per draw beyond the function itself, in CPU time (this
    process's, plus the workers'), the three ways taking turns, and the wall speed-up."""
    print(f"\n2. per-draw functions, {n:,} draws a call: a plain loop against the auditor's "
          "draw path")
    print("   (CPU microseconds per draw, medians of the calls taking turns: this process, plus "
          "the workers' for 2 workers;")
    print("   the overheads are the draw path's beyond the plain loop)")
    print(f"   {'function':<20} {'plain':>8} {'1 worker':>9} {'2 workers':>10} "
          f"{'overhead 1':>11} {'overhead 2':>11} {'wall speed-up':>14}")

    def trivial(data: np.ndarray, rng: np.random.Generator) -> float:
        return 0.5

    for name, fn in (("trivial", trivial), ("textbook EM median", textbook_em_median)):
        mech = from_callable(fn, REPLACE, (0.0, 1.0))
        jobs = [DrawJob(DATA, n // 2, (1, 0)), DrawJob(DATA[::-1].copy(), n - n // 2, (1, 1))]
        cpu: dict[str, list[float]] = {"plain": [], "one": [], "two": []}
        wall: dict[str, list[float]] = {"one": [], "two": []}
        with DrawPool(mech, 2, []) as pool:
            calls = {
                "plain": partial(_plain, fn, n),
                "one": partial(draw, mech, jobs, 0),
                "two": partial(draw, mech, jobs, 0, pool=pool),
            }
            calls["two"]()  # the pool starts
            for _ in range(repeats):
                for key, call in calls.items():
                    own, kids, start = time.process_time(), workers_cpu(pool), time.perf_counter()
                    call()
                    wall.setdefault(key, []).append(time.perf_counter() - start)
                    cpu[key].append(time.process_time() - own + workers_cpu(pool) - kids)
        us = {k: statistics.median(v) / n * 1e6 for k, v in cpu.items()}
        print(f"   {name:<20} {us['plain']:8.2f} {us['one']:9.2f} {us['two']:10.2f} "
              f"{us['one'] - us['plain']:11.2f} {us['two'] - us['plain']:11.2f} "
              f"{ratio(wall['one'], wall['two']):13.2f}x")


def _plain(fn: Callable[..., Any], n: int) -> None:
    """``n`` calls of ``fn`` with one generator: what a user's own loop costs."""
    rng = np.random.default_rng(0)
    for _ in range(n):
        fn(DATA, rng)


def shipping(sizes: list[int], repeats: int) -> None:
    """Table 3: a fast vectorised sampler drawn in calls of N draws (four chunks, each its own
    task: the grouping into tasks is what this table decides), in this process and on two
    workers: CPU milliseconds a call (the workers' included), what shipping adds, and the wall
    speed-up."""
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    print("\n3. a vectorised sampler (EM median) by draws per call, 4 tasks a call: this process "
          "vs 2 workers")
    print(f"   {'draws/call':>10} {'CPU 1 worker':>13} {'CPU 2 workers':>14} "
          f"{'added/task':>11} {'wall 1 worker':>14} {'wall speed-up':>14}")
    saved = workers_module.TASK_DRAWS
    try:
        workers_module.TASK_DRAWS = 1
        with DrawPool(em, 2, []) as pool:
            for n in sizes:
                chunk = max(1, n // 4)
                jobs = [DrawJob(DATA, n // 2, (1, 0)), DrawJob(DATA, n - n // 2, (1, 1))]
                calls = {
                    "one": partial(draw, em, jobs, 0, chunk=chunk),
                    "two": partial(draw, em, jobs, 0, chunk=chunk, pool=pool),
                }
                for call in calls.values():
                    call()
                cpu: dict[str, list[float]] = {"one": [], "two": []}
                wall: dict[str, list[float]] = {"one": [], "two": []}
                for _ in range(repeats):
                    for key, call in calls.items():
                        own, kids = time.process_time(), workers_cpu(pool)
                        start = time.perf_counter()
                        call()
                        wall[key].append(time.perf_counter() - start)
                        cpu[key].append(time.process_time() - own + workers_cpu(pool) - kids)
                ms = {k: statistics.median(v) * 1e3 for k, v in cpu.items()}
                print(f"   {n:>10,} {ms['one']:11.1f}ms {ms['two']:12.1f}ms "
                      f"{(ms['two'] - ms['one']) / 4:9.2f}ms {spread(wall['one']):>14} "
                      f"{ratio(wall['one'], wall['two']):13.2f}x")
    finally:
        workers_module.TASK_DRAWS = saved


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
