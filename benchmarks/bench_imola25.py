"""Benchmark: seconds per release of imola25's mechanisms (issue 5 targets).

    python benchmarks/bench_imola25.py [--repeats 20] [--skip-jointexp-large] [--authors PATH]

Prints our time beside the target, and the authors' code timed in the same turns on the same
inputs when ``--authors`` names a checkout of their repository (github.com/NynsenFaber/DP_CC_quantiles,
commit d459b0f: plain Python modules on numpy, imported from that directory; notes/imola25.md,
"Speed (issue 21)"). A ratio to the authors' code is printed only from that run; without it, the
authors' times measured for issue 21 (another day, machine and half-width) are printed as a
reference column and never divided (``benchmarks/_interleave.py``):

* SliceQuantiles, one release on the Adult-sized input (UCI Adult age ×12 made distinct:
  n = 586,104 sorted distinct values, m = 200, ε = 1): target <= 2.1 ms (issue 21), on data
  prepared once (``SliceQuantiles.prepare``: validated and sorted; the authors' code takes sorted
  data and checks nothing), the slice EM by inverse CDF (default) and by Gumbel-max (before issue
  21) interleaved, and for scale on the raw array (validated on every release). The release does
  not depend on whether the ranks pass the feasibility check (they do not at this n with a correct
  CC, erratum 28 of notes/imola25.md), so the mechanism is built directly from the planner's
  parameters. The authors' ``SliceQuantile`` gets the same data, ranks, ε, adjacency (``swap``)
  and half-width (their rule with g = 1/n gives our h = 215 / 323); it is built once, as their
  notebook does, and its k-ary tree's noise cache is emptied before each release, so that each
  release draws fresh CC noise as ours does (erratum 25). Their release runs their feasibility
  check each time; that check alone is timed in the same turns;
* ApproximateQuantiles (KSS), pure and zCDP, same input: target <= 8.8 ms (issue 21), on data
  sorted once (``sorted_data``) and on the raw array (checked on every release), the EM by
  rejection from blocks (default) and with every interval's weight (before), all interleaved;
  the authors' fork's ``approximate_quantiles_algo`` as their notebook calls it (``swap=True``,
  ``random_gauss=False``, ``sort=False``; it sorts the array again inside), at the same ε or the
  same ρ (ours from (ε, δ = 1e-16));
* JointExp at n = 10^4, m = 20 (no target), and at the Adult size (issue 21: <= 10 s and
  <= 500 MB), the latter in a child process that only builds the data and releases (warm-up and
  two timed releases): seconds (and CPU seconds) per release, the child's peak resident memory,
  and the peak of the memory allocated during one more release (tracemalloc);
* the exact CC max-error tail bound E_CC for m = 1000 (ε1 = 0.5, δ = 1e-16): target <= 1 s.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from _interleave import interleave, load_average, ratio, reference, spread

from dpquant.reference.datasets import load_adult
from dpquant.reference.slice_quantiles import (
    SliceQuantiles,
    approximate_quantiles,
    budget_split,
    half_width,
    joint_exp,
    sorted_data,
    target_ranks,
    with_options,
)
from dpquant.reference.slice_quantiles.zcdp import rho_from_epsilon

PUBLISHED_SLICE = reference(
    "6.3 ms", "issue 21, another machine and day, replace-one at their h = 489 (g = 1e-6/n)"
)
PUBLISHED_AQ = reference("88 ms", "issue 21, another machine and day")
"""The authors' times measured for issue 21: text, printed when their code is not run here."""
DELTA = 1e-16  # the notebook's δ: their feasibility check, and AQ zCDP's ρ from (ε, δ)


@dataclass(frozen=True)
class Authors:
    """The authors' entry points, imported from a checkout of their repository."""

    slice_quantile: Any  # our_mechanism.SliceQuantile
    approximate_quantiles: Any  # DP_AQ.approximate_quantiles_algo (their fork of KSS's code)


def load_authors(path: str | None) -> Authors | None:
    """The authors' code from the checkout at ``path`` (None: not run, references printed)."""
    if path is None:
        return None
    root = Path(path).resolve()
    if not (root / "our_mechanism" / "slice_quantile.py").is_file():
        raise SystemExit(
            f"--authors {path}: no our_mechanism/slice_quantile.py there; give a checkout of "
            "github.com/NynsenFaber/DP_CC_quantiles (commit d459b0f)"
        )
    sys.path.insert(0, str(root))
    from DP_AQ import approximate_quantiles_algo
    from our_mechanism import SliceQuantile

    np.random.seed(0)  # their code draws from numpy's global generator
    return Authors(SliceQuantile, approximate_quantiles_algo)


def adult_sized() -> np.ndarray:
    """Adult age, each point 12 times, sorted, plus i/n: 586,104 distinct sorted values."""
    x = np.sort(np.repeat(load_adult("age"), 12))
    return x + np.arange(1, len(x) + 1) / len(x)


def seconds_per_call(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up: imports, caches
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats


def _row_spread(name: str, seconds: list[float], target: str, published: str = "—") -> None:
    print(f"| {name} | {spread(seconds)} | {target} | {published} |", flush=True)


def _row(name: str, seconds: float, target: str) -> None:
    print(f"| {name} | {seconds * 1e3:.1f} ms | {target} | — |", flush=True)


def _authors_slice_release(theirs: Any, x: np.ndarray, ranks: list[int]) -> object:
    """One release of the authors' SliceQuantile with fresh CC noise (their tree caches each
    node's noise across releases: emptied first), on sorted data, as their notebook calls it."""
    for level in theirs.tree.noise:
        level.clear()
    return theirs.approximate_mechanism(x, delta=DELTA, rank_list=ranks, sort=False)


def _jointexp_large_child() -> None:
    """Child process: JointExp at the Adult size, m = 200, ε = 1 (the quantiles of ``main``);
    prints seconds per release and the peak of one release's allocations as JSON."""
    x = adult_sized()
    rng = np.random.default_rng(0)
    q = np.sort(rng.choice(np.arange(1, 251) / 251, 200, replace=False))
    joint_exp(x, q, (0.0, 100.0), 1.0, rng)  # warm-up: imports, compiled kernels
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(2):
        joint_exp(x, q, (0.0, 100.0), 1.0, rng)
    seconds = (time.perf_counter() - start) / 2
    cpu_seconds = (time.process_time() - cpu) / 2
    tracemalloc.start()
    joint_exp(x, q, (0.0, 100.0), 1.0, rng)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "allocated_peak": peak}))


def _jointexp_large_row() -> None:
    done = subprocess.run(
        [sys.executable, __file__, "--jointexp-large-child"],
        check=True,
        capture_output=True,
        text=True,
    )
    got = json.loads(done.stdout.strip().splitlines()[-1])
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    alloc_mb = got["allocated_peak"] / 2**20
    print(
        f"| JointExp, n = 586104, m = 200 (peak RSS {rss_mb:.0f} MB, allocated {alloc_mb:.0f} "
        f"MB; CPU {got['cpu_seconds']:.2f} s) | {got['seconds']:.2f} s | <= 10 s, <= 500 MB | — |",
        flush=True,
    )


def _bench_slice(x: np.ndarray, q: np.ndarray, authors: Authors | None, repeats: int) -> None:
    """The SliceQuantiles rows, both adjacencies; the authors' release in the same turns."""
    n, m, rng = len(x), len(q), np.random.default_rng(1)
    ranks = [int(r) for r in target_ranks(q, n)]
    for adj in ("add_remove", "replace_one"):
        split = budget_split(1.0, adj)
        h = half_width(m, split.epsilon2, 100.0 * n)
        mech = SliceQuantiles(tuple(ranks), h, split.epsilon1, split.epsilon2, (0.0, 100.0), adj)
        fast = with_options(mech, em_method="inverse_cdf")
        old = with_options(mech, em_method="gumbel")
        prepared = fast.prepare(x)
        calls: dict[str, Callable[[], object]] = {
            "inverse_cdf": lambda m=fast, p=prepared: m.release(p, rng),
            "gumbel": lambda m=old, p=prepared: m.release(p, rng),
            "raw": lambda m=fast: m.release(x, rng),
        }
        if authors is not None:
            theirs = authors.slice_quantile(
                bound=(0.0, 100.0), n=n, m=m, eps=1.0, split=0.5, swap=adj == "replace_one", g=1 / n
            )
            if theirs.h != h:
                raise SystemExit(f"the authors' half-width {theirs.h} is not ours ({h})")
            calls["authors"] = lambda a=theirs: _authors_slice_release(a, x, ranks)
            calls["check"] = lambda a=theirs: a.is_delta_approximate_DP(DELTA, rank_list=ranks)
        t = interleave(calls, repeats)
        label = f"SliceQuantiles, {adj} (h = {h})"
        published = PUBLISHED_SLICE if authors is None else "—"
        _row_spread(f"{label}, prepared, inverse CDF", t["inverse_cdf"], "<= 2.1 ms", published)
        _row_spread(f"{label}, prepared, Gumbel-max (before)", t["gumbel"], "—")
        _row_spread(f"{label}, raw array (checked each time)", t["raw"], "—")
        text = f"Gumbel/inverse CDF {ratio(t['gumbel'], t['inverse_cdf']):.1f}×"
        if authors is not None:
            _row_spread(f"{label}, the authors' code, same inputs", t["authors"], "—")
            _row_spread("  of which their feasibility check", t["check"], "—")
            text += (
                f"; authors' code/ours {ratio(t['authors'], t['inverse_cdf']):.1f}× (prepared), "
                f"{ratio(t['authors'], t['raw']):.1f}× (raw array)"
            )
        print(f"| ratios, same run: {text} | | | |", flush=True)


def _bench_aq(x: np.ndarray, q: np.ndarray, authors: Authors | None, repeats: int) -> None:
    """The AQ rows, pure and zCDP (replace-one); the authors' fork in the same turns."""
    prepared, rng = sorted_data(x, (0.0, 100.0)), np.random.default_rng(2)
    for mode in ("pure", "zcdp"):
        delta = DELTA if mode == "zcdp" else None
        calls: dict[str, Callable[[], object]] = {
            f"{method}, {kind}": lambda mode=mode, method=method, data=data, delta=delta: (
                approximate_quantiles(
                    data, q, (0.0, 100.0), 1.0, rng, mode=mode, delta=delta, em_method=method
                )
            )
            for method in ("blocks", "linear")
            for kind, data in (("prepared", prepared), ("raw", x))
        }
        if authors is not None:
            budget = rho_from_epsilon(1.0, DELTA) if mode == "zcdp" else 1.0
            calls["authors"] = lambda budget=budget, cdp=mode == "zcdp": (
                authors.approximate_quantiles(
                    array=x,
                    quantiles=q,
                    bounds=(0.0, 100.0),
                    epsilon=budget,
                    swap=True,
                    cdp=cdp,
                    random_gauss=False,
                    sort=False,
                )
            )
        t = interleave(calls, repeats)
        published = PUBLISHED_AQ if authors is None else "—"
        for name, label, target, ref in (
            ("blocks, prepared", "EM by blocks, prepared data", "<= 8.8 ms", published),
            ("blocks, raw", "EM by blocks, raw array (checked each time)", "—", "—"),
            ("linear, prepared", "EM linear (before), prepared data", "—", "—"),
            ("linear, raw", "EM linear (before), raw array", "—", "—"),
        ):
            _row_spread(f"AQ {mode}, replace_one, {label}", t[name], target, ref)
        text = f"linear/blocks {ratio(t['linear, prepared'], t['blocks, prepared']):.1f}×"
        if authors is not None:
            _row_spread(
                f"AQ {mode}, replace_one, the authors' code, same inputs", t["authors"], "—"
            )
            text += (
                f"; authors' code/ours {ratio(t['authors'], t['blocks, prepared']):.1f}× "
                f"(prepared), {ratio(t['authors'], t['blocks, raw']):.1f}× (raw array)"
            )
        print(f"| ratios, same run: {text} | | | |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--skip-jointexp-large", action="store_true")
    parser.add_argument(
        "--authors",
        metavar="PATH",
        help="a checkout of github.com/NynsenFaber/DP_CC_quantiles (d459b0f): their SliceQuantile "
        "and AQ are timed in the same turns as ours, on the same inputs",
    )
    parser.add_argument("--jointexp-large-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.jointexp_large_child:
        _jointexp_large_child()
        return

    authors = load_authors(args.authors)
    x = adult_sized()
    n, m, eps = len(x), 200, 1.0
    rng = np.random.default_rng(0)
    q = np.sort(rng.choice(np.arange(1, 251) / 251, m, replace=False))
    print(
        f"n = {n}, m = {m}, ε = {eps}; the authors' code "
        + (f"from {args.authors}, in the same turns" if authors else "not run (--authors PATH)")
        + "\n"
    )
    print(f"load average at the start: {load_average()}")
    print("| case | median (min-max) | target | measured elsewhere (never divided) |")
    print("|---|---|---|---|")
    _bench_slice(x, q, authors, args.repeats)
    _bench_aq(x, q, authors, args.repeats)
    small = np.sort(np.random.default_rng(1).uniform(0, 100, 10_000))
    q20 = np.sort(rng.choice(np.arange(1, 251) / 251, 20, replace=False))
    t = seconds_per_call(lambda: joint_exp(small, q20, (0.0, 100.0), eps, rng), args.repeats)
    _row("JointExp, n = 10^4, m = 20", t, "—")
    if not args.skip_jointexp_large:
        _jointexp_large_row()
    from dpquant.reference.slice_quantiles.cc_tails import cc_error_bound

    start = time.perf_counter()
    w = cc_error_bound(0.5, 1e-16, 1000)
    t = time.perf_counter() - start
    _row(f"exact CC tail E_CC, m = 1000 (w = {w}, first call)", t, "<= 1 s")
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
