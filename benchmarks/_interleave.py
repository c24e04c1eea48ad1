"""Interleaved timing for the benchmark scripts: the calls compared take turns, so a noisy
machine slows them alike; each is reported as the median and min–max over the repetitions.

A printed ratio comes only from two lists of timings taken in the same run (issue 39, item 5):
:func:`ratio` refuses anything else. A figure measured elsewhere (another machine, day or set of
parameters) is printed as text with :func:`reference`, never divided."""

from __future__ import annotations

import math
import os
import statistics
import time
from collections.abc import Callable, Mapping, Sequence


def interleave(
    calls: Mapping[str, Callable[[], object]], repeats: int, warm_up: bool = True
) -> dict[str, list[float]]:
    """Seconds of each call, ``repeats`` times, the calls taking turns (one warm-up each unless
    ``warm_up`` is false)."""
    if warm_up:
        for fn in calls.values():
            fn()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, fn in calls.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def spread(seconds: list[float], unit: float = 1e-3, suffix: str = "ms") -> str:
    """ "median (min–max) unit" of a list of seconds."""
    med = statistics.median(seconds) / unit
    return f"{med:.3g} {suffix} ({min(seconds) / unit:.3g}-{max(seconds) / unit:.3g})"


def _measured(seconds: object, name: str) -> list[float]:
    if isinstance(seconds, str | bytes) or not isinstance(seconds, Sequence):
        raise TypeError(
            f"{name} must be a list of timings measured in this run, not {seconds!r}: a figure "
            "from elsewhere is printed with reference(), never divided"
        )
    values = [float(s) for s in seconds]
    if not values or not all(math.isfinite(s) and s > 0 for s in values):
        raise ValueError(f"{name} must hold positive finite seconds, got {seconds!r}")
    return values


def ratio(slow: Sequence[float], fast: Sequence[float]) -> float:
    """The ratio of the medians of two lists of timings taken in the same run (as
    :func:`interleave` returns them: one per turn, so of equal length).

    Raises:
        TypeError: if either is not a list of timings (a constant, a published figure).
        ValueError: if either is empty or holds a non-positive or non-finite time, or their
            lengths differ (not the same turns).
    """
    s, f = _measured(slow, "slow"), _measured(fast, "fast")
    if len(s) != len(f):
        raise ValueError(
            f"slow and fast hold {len(s)} and {len(f)} timings: not taken in the same turns"
        )
    return statistics.median(s) / statistics.median(f)


def reference(figure: str, source: str) -> str:
    """A figure measured elsewhere, as printed text: ``"6.3 ms (reference: issue 21, ...)"``."""
    return f"{figure} (reference: {source})"


def load_average() -> str:
    """The machine's load average over 1, 5 and 15 minutes, for a benchmark's printout."""
    return "{:.2f} / {:.2f} / {:.2f} (1 / 5 / 15 min)".format(*os.getloadavg())
