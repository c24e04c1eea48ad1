"""Benchmark: what the one contract costs (issue 18).

Prints (1) ``check_data`` on 10^6 values given as a float64 array, a Python list of floats, a
list of ints and an int64 array; (2) the base class's per-call overhead: ``sample`` (checks size,
rng and data, then the output) against the subclass's ``_draw`` on the same checked data, for a
tiny data set (where the checks dominate) and for 10^6 points (where they should vanish).
The calls compared are interleaved; each figure is the median (min–max) over the repetitions.

Run: .venv/bin/python benchmarks/bench_validation.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable

import numpy as np
from _interleave import interleave

from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.validation import check_data


def interleaved(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[float]]:
    return interleave(fns, repeat, warm_up=False)


def show(title: str, times: dict[str, list[float]], unit: float, label: str) -> None:
    print(title)
    base = None
    for name, ts in times.items():
        med = statistics.median(ts)
        base = base or med
        print(
            f"  {name:<34} {med / unit:10.3f} {label} (min {min(ts) / unit:.3f}, "
            f"max {max(ts) / unit:.3f})   x{med / base:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--n", type=int, default=1_000_000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    arr = rng.random(args.n)
    as_list = arr.tolist()
    ints = rng.integers(0, 1000, args.n)
    int_list = ints.tolist()
    show(
        f"check_data on {args.n} values",
        interleaved(
            {
                "float64 array": lambda: check_data(arr),
                "int64 array": lambda: check_data(ints),
                "list of floats": lambda: check_data(as_list),
                "list of ints": lambda: check_data(int_list),
            },
            args.repeat,
        ),
        1e-3,
        "ms",
    )
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    for data, size in (([0.2, 0.4, 0.9], 1), (arr, 1), (arr, 100_000)):
        checked = check_data(data)
        g1, g2 = np.random.default_rng(1), np.random.default_rng(1)
        show(
            f"ExponentialQuantile, n = {len(checked)}, size = {size}: sample() vs _draw()",
            interleaved(
                {
                    "_draw (no checks)": lambda c=checked, s=size, g=g1: em._draw(c, s, g),
                    "sample (checks, then _draw)": lambda d=data, s=size, g=g2: em.sample(d, s, g),
                },
                args.repeat,
            ),
            1e-6,
            "us",
        )


if __name__ == "__main__":
    main()
