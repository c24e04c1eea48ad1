"""The auditor never flags a correct primitive, over 50 seeds each (issue 3 acceptance, full size).

What it checks: the default audit (the auditor's own search, the default budget) of randomized
response at ε = 1 and of the one-quantile exponential mechanism (the median on [0, 1], ε = 1,
replace-one) at α = 1e-9 reports no violation on any seed. Each audit is wrong with probability
at most 3e-9, so over 2 × 50 audits a correct auditor fails this study with probability < 3e-7.

``tests/audit/test_audit_acceptance.py`` keeps a seeded version over 10 seeds in ``make test``;
this is the 50-seed version (about a minute on one core).

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/study_auditor_false_alarms.py [--seeds 50]
[--mechanism NAME]``. Prints one row per mechanism (audits, flagged seeds, the largest ε_lb,
seconds) and exits 1 when some seed is flagged.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

FP_ALPHA = 1e-9


def mechanisms() -> dict[str, Callable[[], Any]]:
    """The correct primitives of the study, by name (built on demand).

    Returns:
        Name to a function building the mechanism.
    """
    from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
    from dpquant.reference.primitives.randomized_response import RandomizedResponse

    return {
        "randomized_response": lambda: RandomizedResponse(1.0),
        "exponential_quantile": lambda: ExponentialQuantile(0.5, 1.0, (0.0, 1.0)),
    }


def flagged_seeds(mech: Any, seeds: range, alpha: float) -> tuple[list[int], float]:
    """Audit ``mech`` once per seed (default budget, the auditor's own search).

    Args:
        mech: The mechanism.
        seeds: The seeds.
        alpha: The audits' confidence parameter.

    Returns:
        The seeds whose audit reported a violation, and the largest ε_lb over the seeds.
    """
    from dpquant.audit import audit_mechanism

    flagged, largest = [], 0.0
    for seed in seeds:
        report = audit_mechanism(mech, seed=seed, alpha=alpha)
        largest = max(largest, report.epsilon_lower_bound)
        if report.violation:
            flagged.append(seed)
    return flagged, largest


def main(argv: Sequence[str] | None = None) -> int:
    """Run the study and print its table.

    Args:
        argv: The command line (None: ``sys.argv[1:]``).

    Returns:
        0 when no seed of any mechanism is flagged, else 1.
    """
    names = sorted(mechanisms())
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=50, help="seeds 0..N-1 per mechanism")
    parser.add_argument("--mechanism", choices=["all", *names], default="all")
    parser.add_argument("--alpha", type=float, default=FP_ALPHA)
    args = parser.parse_args(argv)
    chosen = names if args.mechanism == "all" else [args.mechanism]
    print(f"{'mechanism':<22} {'audits':>6} {'flagged':>8} {'max ε_lb':>9} {'seconds':>8}")
    failed = False
    for name in chosen:
        start = time.perf_counter()
        flagged, largest = flagged_seeds(mechanisms()[name](), range(args.seeds), args.alpha)
        seconds = time.perf_counter() - start
        print(f"{name:<22} {args.seeds:>6} {len(flagged):>8} {largest:>9.4f} {seconds:>8.1f}")
        if flagged:
            print(f"  flagged seeds: {flagged}")
            failed = True
    print("FAIL: a correct primitive was flagged" if failed else "ok: no false violation")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
