"""The CI profile of the pytest plugin (issue 35, item 3): what it flags and how long it takes.

The profile is a time budget per audit, ``pytest -m audit --audit-time-budget S``
(:data:`dpquant.audit.pipeline.time_budget.CI_TIME_BUDGET` seconds unless ``--seconds``), which runs each
audit as :func:`dpquant.audit.pipeline.time_budget.audit_within`. This script audits under it, one audit
at a time, seed 0:

* every entry of the known-bad catalogue and the two controls;
* every mechanism of the classic suite at ε = 0.5 (``--epsilon``), correct and incorrect;
* a textbook exponential-mechanism median written as a user would (plain Python and numpy, one
  draw per call, wrapped by ``from_callable``), whose audit must end within the target
  (``--target``, 30 s).

It prints one row per audit (flagged, expected, ε lower bound, draws, seconds, which report was
returned) and exits 1 when an incorrect mechanism is not flagged, a correct one is, or the
textbook median's audit overruns the target. Run it on a quiet machine: the draws a time budget
grants follow the machine's speed (``--only NAME`` runs one row).

Run: ``.venv/bin/python benchmarks/bench_ci_profile.py [--seconds S] [--target T]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from dpquant import PrivacyClaim, from_callable
from dpquant.audit.pipeline.time_budget import CI_TIME_BUDGET, audit_within
from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS
from dpquant.audit.suites.classic import SUITE
from dpquant.audit.suites.classic.run import status


def textbook_em_median(data: np.ndarray, rng: np.random.Generator) -> float:
    """The exponential mechanism for the median on [0, 1] at ε = 1 (Smith 2011), one draw per
    call: interval i between consecutive sorted points has utility −|i − n/2| and weight
    width · exp(ε · utility / 2); a uniform point of the chosen interval is released."""
    epsilon, lo, hi = 1.0, 0.0, 1.0
    x = np.sort(np.clip(np.asarray(data, dtype=float), lo, hi))
    n = len(x)
    edges = np.concatenate(([lo], x, [hi]))
    widths = np.diff(edges)
    utility = -np.abs(np.arange(n + 1) - n / 2)
    with np.errstate(divide="ignore"):
        log_weights = np.log(widths) + epsilon * utility / 2
    weights = np.exp(log_weights - log_weights.max())
    i = rng.choice(n + 1, p=weights / weights.sum())
    return float(edges[i] + rng.random() * widths[i])


def targets(epsilon: float) -> Iterator[tuple[str, Any, bool]]:
    """(name, mechanism, expected flagged) of every audit of the profile."""
    for e in CATALOGUE:
        yield e.name, e.mechanism, True
    for e in CONTROLS:
        yield e.name, e.mechanism, False
    for e in SUITE:
        state = status(e, epsilon)
        if state in ("correct", "incorrect"):
            yield f"{e.name}@{epsilon:g}", e.make(epsilon), state == "incorrect"
    claim = PrivacyClaim(1.0, adjacency="replace_one")
    yield "textbook EM median (per draw)", from_callable(textbook_em_median, claim, (0.0, 1.0)), False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=CI_TIME_BUDGET, help="the time budget")
    parser.add_argument("--target", type=float, default=30.0, help="the textbook median's limit")
    parser.add_argument("--epsilon", type=float, default=0.5, help="the classic suite's ε")
    parser.add_argument("--only", default=None, help="run the rows whose name contains this")
    args = parser.parse_args(argv)
    print(f"CI profile: --audit-time-budget {args.seconds:g}, seed 0, one audit at a time")
    print(f"{'mechanism':<44} {'flagged':>7} {'expect':>6} {'eps_lb':>7} {'draws':>10} {'s':>6}  report")
    wrong = []
    for name, mech, bad in targets(args.epsilon):
        if args.only and args.only not in name:
            continue
        start = time.perf_counter()
        report = audit_within(mech, args.seconds, seed=0)
        seconds = time.perf_counter() - start
        which = "pilot" if any("the pilot's report" in n for n in report.notes) else "main"
        print(
            f"{name:<44} {report.violation!s:>7} {bad!s:>6} {report.epsilon_lower_bound:7.3f} "
            f"{report.samples_used:>10,} {seconds:6.1f}  {which}",
            flush=True,
        )
        if report.violation != bad or (report.inconclusive is not None and not bad):
            wrong.append(f"{name}: flagged {report.violation}, expected {bad}")
        if name.startswith("textbook") and seconds > args.target:
            wrong.append(f"{name}: {seconds:.1f} s > {args.target:g} s")
    for line in wrong:
        print(f"NOT AS EXPECTED: {line}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
