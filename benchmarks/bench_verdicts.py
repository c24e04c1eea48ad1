"""What the checks of issue 34 cost, and what they save (an audit never passes by mistake).

Run: ``.venv/bin/python benchmarks/bench_verdicts.py``. Prints, each the median of ``--repeats``
runs:

* ``from_callable``: the signature check and the trial of a correct function (its one trial
  call), and of a function that raises on every call (refused after all its trial calls);
* a default black-box audit of a correct vectorised function (the tally of every draw and the
  width check ride on every stage), and of a mechanism object whose every draw raises (it stops
  after the first screen: draws and seconds, against the budget it would have drawn before);
* ``normalise`` of per-draw outputs (a list of floats, and of objects: strings), per draw.

Compare two checkouts side by side in one run (``--against PATH`` runs the same script with the
other checkout's code, in a subprocess, after this one).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def median_seconds(fn: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def noisy_mean(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    return data.mean() + rng.laplace(scale=1.0 / len(data), size=size)


def per_draw(data: np.ndarray, rng: np.random.Generator) -> float:
    return float(data.mean() + rng.laplace(scale=1.0 / len(data)))


def raises(data: np.ndarray, rng: np.random.Generator) -> float:
    raise RuntimeError("broken")


class RaisesAlways:
    """A mechanism object whose every draw raises."""

    name = "raises always"
    domain = (0.0, 1.0)

    def __init__(self, claim: Any):
        self.claim = claim

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> Any:
        raise ZeroDivisionError("broken")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--against", default=None, help="another checkout, run after this one")
    args = parser.parse_args()

    from dpquant.audit import audit_mechanism, from_callable
    from dpquant.audit.model.outputs import normalise
    from dpquant.reference.core import PrivacyClaim

    claim = PrivacyClaim(1.0, adjacency="replace_one")
    print(f"code: {Path(__import__('dpquant').__file__).parent.parent}")
    t = median_seconds(
        lambda: from_callable(noisy_mean, claim, (0.0, 1.0), vectorized=True), args.repeats
    )
    print(f"from_callable, correct vectorised function: {1e3 * t:.2f} ms")
    try:
        from_callable(raises, claim, (0.0, 1.0))
        print("from_callable, raises on every call: accepted")
    except ValueError:
        t = median_seconds(lambda: _refused(from_callable, raises, claim), args.repeats)
        print(f"from_callable, raises on every call: refused in {1e3 * t:.2f} ms")
    mech = from_callable(noisy_mean, claim, (0.0, 1.0), vectorized=True)
    reports: list[Any] = []
    t = median_seconds(
        lambda: reports.append(audit_mechanism(mech, samples=args.samples, seed=0)), args.repeats
    )
    print(
        f"audit, correct vectorised function, samples={args.samples}: {t:.2f} s, "
        f"{reports[-1].samples_used} draws, {reports[-1].verdict}"
    )
    broken = RaisesAlways(claim)
    reports.clear()
    t = median_seconds(
        lambda: reports.append(audit_mechanism(broken, samples=args.samples, seed=0)), args.repeats
    )
    print(
        f"audit, every draw raises, samples={args.samples}: {t:.2f} s, "
        f"{reports[-1].samples_used} draws, {reports[-1].verdict[:60]}"
    )
    floats = [float(x) for x in np.random.default_rng(0).random(100_000)]
    t = median_seconds(lambda: normalise(floats, len(floats)), args.repeats)
    print(f"normalise, a list of 100 000 floats: {1e9 * t / len(floats):.0f} ns a draw")
    words = [f"w{int(x * 50)}" for x in floats]
    t = median_seconds(lambda: normalise(words, len(words)), args.repeats)
    print(f"normalise, a list of 100 000 strings: {1e9 * t / len(words):.0f} ns a draw")
    if args.against:
        other = Path(args.against).resolve()
        cmd = [sys.executable, __file__, "--repeats", str(args.repeats)]
        cmd += ["--samples", str(args.samples)]
        subprocess.run(cmd, cwd=other, env={"PYTHONPATH": str(other)}, check=False)


def _refused(from_callable: Callable[..., Any], fn: Any, claim: Any) -> None:
    try:
        from_callable(fn, claim, (0.0, 1.0))
    except ValueError:
        return


if __name__ == "__main__":
    main()
