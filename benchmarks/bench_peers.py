"""Benchmark: one private median in each library and in ours, side by side (issue 8 item 4).

    python benchmarks/bench_peers.py [--sizes 1000,10000,100000,1000000] [--repeats 5]

Each row releases one median (ε = 1) of n unsorted U(0, 1) values (a numpy array), ``--repeats``
times, the library's call and ours taking turns (``benchmarks/_interleave.py``), printed as the
median (min–max), and pairs the library with our implementation of the same mechanism:

| work | ours | peer |
|---|---|---|
| Smith's EM over the data intervals, bounds (0, 1) | ``ExponentialQuantile.sample`` (clamp, sort, exact log-weights, inverse CDF) | ``diffprivlib.tools.quantile`` |
| permute-and-flip over 1000 candidates | ``CandidateQuantile.sample`` | OpenDP ``make_private_quantile`` (max_divergence), built once |
| Laplace report-noisy-max over 1000 candidates | ``LaplaceNoisyMaxQuantile.sample`` | eeprivacy ``PrivateQuantile.execute`` |
| noisy binary search (python-dp) | — (no reference; our EM row for scale) | python-dp ``Median.quick_result`` |

The ratio is the peer's median time / ours (> 1: ours is faster). Libraries that are not installed are
reported as such (``pip install -e '.[peers]'``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from _interleave import interleave, ratio, spread

from dpquant.audit.suites.adapters import PeerUnavailable
from dpquant.reference.primitives.candidate_quantile import (
    CandidateQuantile,
    LaplaceNoisyMaxQuantile,
)
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile

CANDIDATES = tuple(float(v) for v in np.linspace(0.0, 1.0, 1000))


def peers(x: np.ndarray) -> dict[str, Callable[[], object] | str]:
    """name -> one release with the library (or the reason it is unavailable)."""
    out: dict[str, Callable[[], object] | str] = {}
    try:
        from diffprivlib.accountant import BudgetAccountant
        from diffprivlib.tools import quantile

        out["diffprivlib"] = lambda: quantile(
            x, 0.5, epsilon=1.0, bounds=(0.0, 1.0), accountant=BudgetAccountant()
        )
    except ImportError as exc:
        out["diffprivlib"] = f"not installed ({exc})"
    try:
        from dpquant.audit.suites.adapters.libraries import opendp_measurement

        measurement = opendp_measurement(CANDIDATES, 0.5, 2.0, "max_divergence")
        out["opendp"] = lambda: measurement(x)
    except (ImportError, PeerUnavailable) as exc:
        out["opendp"] = f"not installed ({exc})"
    try:
        from eeprivacy.operations import PrivateQuantile

        op = PrivateQuantile(options=list(CANDIDATES))
        out["eeprivacy"] = lambda: op.execute(values=x, epsilon=1.0, quantile=0.5)
    except ImportError as exc:
        out["eeprivacy"] = f"not installed ({exc})"
    try:
        from pydp.algorithms.laplacian import Median

        values = x.tolist()
        out["python-dp"] = lambda: Median(
            epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype="float"
        ).quick_result(values)
    except ImportError as exc:
        out["python-dp"] = f"not installed ({exc})"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0), adjacency="replace_one")
    pf = CandidateQuantile(CANDIDATES, 0.5, 1.0, "permute_and_flip", "add_remove")
    lnm = LaplaceNoisyMaxQuantile(CANDIDATES, 0.5, 1.0)
    print("| work | n | ours | peer | peer time | ratio peer/ours |")
    print("|---|---|---|---|---|---|")
    for n in (int(s) for s in args.sizes.split(",") if s):
        x = rng.random(n)
        ours = {
            "diffprivlib": ("ExponentialQuantile", lambda x=x: em.sample(x, 1, rng)),
            "opendp": ("CandidateQuantile (PF)", lambda x=x: pf.sample(x, 1, rng)),
            "eeprivacy": ("LaplaceNoisyMaxQuantile", lambda x=x: lnm.sample(x, 1, rng)),
            "python-dp": (
                "ExponentialQuantile (other mechanism)",
                lambda x=x: em.sample(x, 1, rng),
            ),
        }
        for name, release in peers(x).items():
            label, mine = ours[name]
            if isinstance(release, str):
                t = interleave({"ours": mine}, args.repeats)
                print(f"| {name} | {n} | {spread(t['ours'])} ({label}) | {release} | — | — |")
                continue
            repeats = 1 if (name == "eeprivacy" and n >= 1_000_000) else args.repeats
            t = interleave({"ours": mine, "peer": release}, repeats)
            print(
                f"| {name} | {n} | {spread(t['ours'])} ({label}) | {name} | "
                f"{spread(t['peer'])} | {ratio(t['peer'], t['ours']):.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
