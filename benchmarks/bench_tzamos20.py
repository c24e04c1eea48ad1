"""Benchmark: tzamos20's private median, the exact envelope Ψ_X and one release (issue 7 item 6).

    python benchmarks/bench_tzamos20.py [--sizes 100,1000,10000] [--direct-max 100] [--repeats 3]

For each n: i.i.d. U[−1, 1] data (admissible with L = 1/2, r = 1) and the constants of the
regression fixtures of notes/tzamos20.md (L = 1/2, r = 1, R = 5, C = 1: K = ⌊n/4⌋ window
constraints, the largest K for C >= 1, so the most anchors), ε = 1:

* the fast exact construction of Ψ_X (:func:`fast_envelope`: int64 lattice, O(n·K·log n)):
  targets <= 1 s at n = 1000 and <= 30 s at n = 10⁴;
* one release from scratch (``PrivateMedian.sample(X, 1)``: data read exactly, Ψ_X, the exact
  piece masses, Algorithm 7, the output grid), memo cleared;
* the direct construction (:func:`envelope`, one exact TH per cell, O(n²·K) Fractions), its
  calls interleaved with the fast one's and the release's, where affordable (n <= ``--direct-max``), checked equal to the fast one piece by piece, and for scale at
  n = 25, 50 so that its growth is visible; the fast one is always checked against the direct
  one at n = 100 and, with the study's C = 5/4, L = 2/5, at n = 50.

Also the study's constants (L = 2/5, r = 1, C = 5/4: K = ⌊0.16 n⌋) at the same sizes,
heavy-tailed data (half the points a Pareto(1) tail) at the largest size, and the fixed variant's
Case (A) at C = 8 (X ∈ H_fix: one release costs the O(n log n) membership test and Algorithm 2,
the safe form of Thm E.11's fast path) against the extension on the same data.
No peer implements this mechanism (the paper has no code); the ratios compare the direct
construction with the fast one, and the extension with the fixed variant. Times are medians
(min–max) over ``--repeats`` calls taken in turn, first calls included (no warm-up: a release
from scratch is the cost measured).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np
from _interleave import interleave, load_average, ratio, spread

from dpquant.reference.private_median.extended_density import envelope
from dpquant.reference.private_median.fast_envelope import fast_envelope
from dpquant.reference.private_median.mechanism import PrivateMedian, clear_envelope_cache
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.typical_set import exact_data

FIXTURES = dict(L=Fraction(1, 2), r=Fraction(1), R=Fraction(5), C=Fraction(1))
STUDY = dict(L=Fraction(2, 5), r=Fraction(1), R=Fraction(5), C=Fraction(5, 4))


def timed(fn: Callable[[], object], repeats: int) -> tuple[list[float], object]:
    """Seconds of ``repeats`` calls (no warm-up: the first call is part of the cost) and the
    last result."""
    out: list[object] = []
    times = interleave({"call": lambda: out.append(fn())}, repeats, warm_up=False)["call"]
    return times, out[-1]


def row(*cells: object) -> None:
    print("| " + " | ".join(str(c) for c in cells) + " |", flush=True)


def uniform_data(n: int, seed: int) -> list[Fraction]:
    return exact_data(np.random.default_rng(seed).uniform(-1.0, 1.0, n))


def heavy_tailed_data(n: int, seed: int) -> list[Fraction]:
    rng = np.random.default_rng(seed)
    core = rng.uniform(-1.0, 1.0, n)
    tail = np.sign(rng.uniform(-1, 1, n)) / (1.0 - rng.random(n))
    return exact_data(np.where(rng.random(n) < 0.5, core, tail))


def bench(label: str, consts: dict, x: list[Fraction], repeats: int, direct_max: int) -> None:
    n = len(x)
    params = MedianParameters(n, **consts)
    pieces = fast_envelope(x, params)
    mech = PrivateMedian(epsilon=1, **consts)
    rng = np.random.default_rng(0)

    def one_release() -> np.ndarray:
        clear_envelope_cache()
        return mech.sample(x, 1, rng)

    calls: dict[str, Callable[[], object]] = {
        "fast": lambda: fast_envelope(x, params),
        "release": one_release,
    }
    if n <= direct_max:
        calls["direct"] = lambda: envelope(x, params)
    t = interleave(calls, repeats, warm_up=False)
    direct = "—"
    if n <= direct_max:
        verdict = "equal" if envelope(x, params) == pieces else "DIFFERENT"
        ratio_text = f"{ratio(t['direct'], t['fast']):.0f}× the fast one"
        direct = f"{spread(t['direct'], 1, 's')} ({verdict}; {ratio_text}, interleaved)"
    target = {1000: "<= 1 s", 10_000: "<= 30 s"}.get(n, "—")
    row(
        label,
        n,
        params.windows,
        spread(t["fast"], 1, "s"),
        target,
        spread(t["release"], 1, "s"),
        len(pieces),
        direct,
    )


def bench_fixed_case_a(n: int, repeats: int) -> None:
    """One release of mode="fixed" (C = 8) against mode="extension" on the same data."""
    x = uniform_data(n, n + 2)
    fixed = PrivateMedian(epsilon=1, mode="fixed", **{**FIXTURES, "C": Fraction(8)})
    ext = PrivateMedian(epsilon=1, **{**FIXTURES, "C": Fraction(8)})
    rng = np.random.default_rng(1)

    def fresh() -> np.ndarray:
        clear_envelope_cache()
        return ext.sample(x, 1, rng)

    t = interleave(
        {"fixed": lambda: fixed.sample(x, 1, rng), "extension": fresh},
        1 if n >= 10_000 else repeats,
        warm_up=False,
    )
    row(
        n,
        fixed.restricted(x),
        spread(t["fixed"], 1, "s"),
        f"{spread(t['extension'], 1, 's')} ({ratio(t['extension'], t['fixed']):.0f}×)",
    )


# ------------------------------------------------------- exact laws, old against new (issue 39)

MODES = ("extension", "paper", "fixed")
GRID9 = [Fraction(v) for v in (-1000, -1, -0.5, 0, 0.25, 0.5, 1, 2, 1000)]


def exact_law_data_sets() -> list[list[Fraction]]:
    """Every multiset of n = 1..4 values of :data:`GRID9` (714), then 600 seeded data sets of
    n = 5..34 on a k/16 grid of [−1, 2] with ties and, in one of four, far points (±1000)."""
    out = [list(c) for n in range(1, 5) for c in itertools.combinations_with_replacement(GRID9, n)]
    rng = np.random.default_rng(39)
    for _ in range(600):
        n = int(rng.integers(5, 35))
        x = [Fraction(int(k), 16) for k in rng.integers(-16, 33, n)]
        if rng.random() < 0.25:
            for i in range(int(rng.integers(1, 3))):
                x[i] = Fraction(int(rng.choice([-1000, 1000])))
        out.append(x)
    return out


def exact_worker() -> None:
    """One process: the exact laws of every data set in every mode; prints JSON (CPU and wall
    seconds per mode, the number of laws and their digest)."""
    data = exact_law_data_sets()
    result = {}
    for mode in MODES:
        mech = PrivateMedian(epsilon=1, mode=mode, **FIXTURES)
        clear_envelope_cache()
        cpu, wall = time.process_time(), time.perf_counter()
        laws = [mech.exact(x) for x in data]
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        digest = hashlib.sha256()
        for law in laws:
            exact = [law.exact_parameters(i) for i in range(len(law))]
            floats = (law.breaks.tolist(), law.slopes.tolist(), law.intercepts.tolist())
            digest.update(repr((floats, exact)).encode())
        result[mode] = {"cpu": cpu, "wall": wall, "laws": len(laws), "digest": digest.hexdigest()}
    print(json.dumps(result))


def _run_in(checkout: Path, args: list[str]) -> str:
    """This script with ``args`` in a fresh process importing ``checkout``'s dpquant."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run(
        [sys.executable, __file__, *args], env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip().splitlines()[-1]


def bench_exact_laws(against: Path, rounds: int) -> None:
    """:func:`exact_worker` in this checkout and in ``against``, taking turns."""
    here = Path(__file__).resolve().parents[1]
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    for _ in range(rounds):
        for name, checkout in (("old", against), ("new", here)):
            runs[name].append(json.loads(_run_in(checkout, ["--exact-worker"])))
    print(f"exact laws: old = {against}, new = {here}; load {load_average()}\n")
    print("| mode | data sets | old: CPU s | new: CPU s | speed-up | laws identical |")
    print("|---|---|---|---|---|---|")
    for mode in MODES:
        old = [r[mode]["cpu"] for r in runs["old"]]
        new = [r[mode]["cpu"] for r in runs["new"]]
        digests = {r[mode]["digest"] for r in runs["old"] + runs["new"]}
        row(
            mode,
            runs["new"][0][mode]["laws"],
            spread(old, 1, "s"),
            spread(new, 1, "s"),
            f"{ratio(old, new):.1f}×",
            "yes" if len(digests) == 1 else f"NO ({len(digests)} digests)",
        )


def audit_worker(name: str) -> None:
    """One process: ``audit_all(only=[name], workers=1)`` at seed 0; prints its seconds."""
    from dpquant.cli.batch_audit import audit_all

    with tempfile.TemporaryDirectory() as out:
        wall, cpu = time.perf_counter(), time.process_time()
        audit_all(out, seed=0, only=[name], workers=1)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps({"wall": wall, "cpu": cpu}))


def bench_audit(name: str, against: Path) -> None:
    """The whole audit of ``name`` once with each checkout's code (old first)."""
    here = Path(__file__).resolve().parents[1]
    old = json.loads(_run_in(against, ["--audit-worker", name]))
    new = json.loads(_run_in(here, ["--audit-worker", name]))
    print(f"\naudit {name} (workers=1, seed 0); load {load_average()}:")
    for label, r in (("old", old), ("new", new)):
        print(f"  {label}: {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU")
    print(f"  CPU ratio old/new: {ratio([old['cpu']], [new['cpu']]):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--direct-max", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--exact-laws", action="store_true", help="old against new (issue 39)")
    parser.add_argument("--against", default="/work/main", help="the old checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--audit", default="", help="also time this registry entry's audit")
    parser.add_argument("--exact-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--audit-worker", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.exact_worker:
        exact_worker()
    elif args.audit_worker:
        audit_worker(args.audit_worker)
    elif args.exact_laws:
        bench_exact_laws(Path(args.against).resolve(), args.rounds)
        if args.audit:
            bench_audit(args.audit, Path(args.against).resolve())
    else:
        bench_all(args)


def bench_all(args: argparse.Namespace) -> None:
    """The construction's scaling tables (the module docstring's first part)."""
    sizes = [int(s) for s in args.sizes.split(",") if s]
    print("| data, constants | n | K | fast Ψ_X | target | one release | pieces | direct Ψ_X |")
    print("|---|---|---|---|---|---|---|---|")
    for n in (25, 50):
        bench("U[−1, 1], fixtures (C = 1)", FIXTURES, uniform_data(n, n), args.repeats, n)
    for n in sizes:
        repeats = 1 if n >= 10_000 else args.repeats
        bench("U[−1, 1], fixtures (C = 1)", FIXTURES, uniform_data(n, n), repeats, args.direct_max)
    for n in (50, *sizes):
        repeats = 1 if n >= 10_000 else args.repeats
        bench("U[−1, 1], study (C = 5/4)", STUDY, uniform_data(n, n + 1), repeats, 50)
    n = max(sizes)
    bench("heavy-tailed, fixtures (C = 1)", FIXTURES, heavy_tailed_data(n, 7), 1, args.direct_max)
    print('\nmode="fixed", C = 8 (X ∈ H_fix: Algorithm 1\'s Case (A), no envelope needed):\n')
    print('| n | X ∈ H_fix | one release | mode="extension", same data |\n|---|---|---|---|')
    for n in sizes:
        bench_fixed_case_a(n, args.repeats)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak resident memory: {peak:.0f} MB")


if __name__ == "__main__":
    main()
