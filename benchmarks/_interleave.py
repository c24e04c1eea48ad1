"""Interleaved timing for the benchmark scripts: the calls compared take turns, so a noisy
machine slows them alike; each is reported as the median and min–max over the repetitions."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping


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


def ratio(slow: list[float], fast: list[float]) -> float:
    """The ratio of the medians."""
    return statistics.median(slow) / statistics.median(fast)
