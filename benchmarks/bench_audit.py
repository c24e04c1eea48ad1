"""Auditor benchmark: draws and seconds to detection on the known-bad catalogue, tightness on
correct mechanisms (issue 3 targets: every detection within 10^6 draws and 60 s; tightness >= 0.8).

Run: ``.venv/bin/python benchmarks/bench_audit.py [--seed S]``. Prints one row per mechanism:
total draws of the default audit (search included), the draws of its final selection+evaluation
stage, seconds, ε lower bound, exact ε where known, and the verdict.

``--budget N`` audits the same mechanisms with a total budget of N draws (``max_draws``; issue
21, item 5) instead, and ``--seeds K`` then also repeats the black-box audit of the EM median
(ε = 1) and of the multi-quantile leak over seeds 0..K−1 and prints how many reach tightness 0.8
(the EM) or find the leak. For reference, DP-Sniper's
published runs use 10.7 M training and 200 M final samples per mechanism (the defaults of
Bichsel et al., S&P'21, in eth-sri/dp-sniper).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpquant.audit import AuditOptions, audit_mechanism
from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS, catalogue_entry
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.randomized_response import RandomizedResponse


def final_stage_draws(report) -> int:
    stages = report.samples_by_stage
    return stages.get("selection", 0) + stages.get("evaluation", 0)


def seed_study(budget: int, seeds: int) -> None:
    """The budgeted black-box audits of the EM median and the multi-quantile leak over seeds."""
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    leak = catalogue_entry("multi_quantile_full_budget").mechanism
    for name, mech in (("EM median eps=1", em), ("multi_quantile_full_budget", leak)):
        start = time.perf_counter()
        reports = [
            audit_mechanism(mech, mode="blackbox", max_draws=budget, seed=s) for s in range(seeds)
        ]
        secs = (time.perf_counter() - start) / seeds
        lbs = np.array([r.epsilon_lower_bound for r in reports])
        most = max(r.samples_used for r in reports)
        hit = int(np.sum(lbs >= 0.8)) if mech is em else sum(r.violation for r in reports)
        what = "tightness >= 0.8" if mech is em else "violation found"
        print(
            f"{name}: {what} on {hit}/{seeds} seeds; eps_lb min {lbs.min():.4f} median "
            f"{np.median(lbs):.4f} max {lbs.max():.4f}; most draws {most}; {secs:.2f} s an audit",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=int, default=None, help="max_draws for every audit")
    parser.add_argument("--seeds", type=int, default=0, help="with --budget: the seed study")
    args = parser.parse_args()
    budget = {} if args.budget is None else {"max_draws": args.budget}
    header = f"{'mechanism':36} {'verdict':10} {'draws':>10} {'final':>10} {'s':>6} {'eps_lb':>7} {'exact':>8} {'tight':>6}"
    print(header)
    print("-" * len(header))
    targets = [(e.name, e.mechanism) for e in CATALOGUE]
    targets += [(e.name, e.mechanism) for e in CONTROLS]
    targets += [
        ("randomized_response[eps=1] blackbox", RandomizedResponse(1.0), "blackbox"),
        (
            "exponential_quantile[eps=1] blackbox",
            ExponentialQuantile(0.5, 1.0, (0.0, 1.0)),
            "blackbox",
        ),
        (
            "multi_quantile_full_budget blackbox",
            catalogue_entry("multi_quantile_full_budget").mechanism,
            "blackbox",
        ),
    ]
    for target in targets:
        name, mech = target[0], target[1]
        mode = target[2] if len(target) > 2 else "auto"
        start = time.perf_counter()
        r = audit_mechanism(mech, seed=args.seed, mode=mode, **budget, options=AuditOptions(name=name))
        secs = time.perf_counter() - start
        exact = "n/a" if r.epsilon_exact is None else f"{r.epsilon_exact:.4f}"
        verdict = "VIOLATION" if r.violation else "ok"
        print(
            f"{name:36} {verdict:10} {r.samples_used:>10} {final_stage_draws(r):>10} {secs:>6.1f} "
            f"{r.epsilon_lower_bound:>7.3f} {exact:>8} {r.tightness:>6.3f}",
            flush=True,
        )
    if args.budget is not None and args.seeds:
        seed_study(args.budget, args.seeds)


if __name__ == "__main__":
    main()
