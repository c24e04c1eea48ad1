"""Auditor benchmark: draws and seconds to detection on the known-bad catalogue, tightness on
correct mechanisms (issue 3 targets: every detection within 10^6 draws and 60 s; tightness >= 0.8).

Run: ``.venv/bin/python benchmarks/bench_audit.py [--seed S]``. Prints one row per mechanism:
total draws of the default audit (search included), the draws of its final selection+evaluation
stage, seconds, ε lower bound, exact ε where known, and the verdict. For reference, DP-Sniper's
published runs use 10.7 M training and 200 M final samples per mechanism (the defaults of
Bichsel et al., S&P'21, in eth-sri/dp-sniper).
"""

from __future__ import annotations

import argparse
import time

from audit import audit_mechanism
from audit.catalogue import CATALOGUE, CONTROLS, catalogue_entry
from reference.primitives.exponential_mechanism import ExponentialQuantile
from reference.primitives.randomized_response import RandomizedResponse


def final_stage_draws(report) -> int:
    stages = report.samples_by_stage
    return stages.get("selection", 0) + stages.get("evaluation", 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
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
        r = audit_mechanism(mech, seed=args.seed, name=name, mode=mode)
        secs = time.perf_counter() - start
        exact = "n/a" if r.epsilon_exact is None else f"{r.epsilon_exact:.4f}"
        verdict = "VIOLATION" if r.violation else "ok"
        print(
            f"{name:36} {verdict:10} {r.samples_used:>10} {final_stage_draws(r):>10} {secs:>6.1f} "
            f"{r.epsilon_lower_bound:>7.3f} {exact:>8} {r.tightness:>6.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
