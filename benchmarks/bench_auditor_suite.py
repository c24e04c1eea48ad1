"""The classic benchmark of DP-violation detectors (StatDP, CCS 2018; DP-Sniper, S&P 2021),
audited by dpquant's auditor with its own search, beside the published results.

Run: ``.venv/bin/python benchmarks/bench_auditor_suite.py [--epsilons 0.5 1] [--samples N]
[--seed S] [--alpha A] [--only NAME ...] [--tighten]``. One row per (mechanism, ε): the status
at that ε (correct, incorrect, unknown), the true ε where known, the verdict at α (1e-6 unless
``--alpha``), ε_lb, total draws, seconds, the kind of the witness event, then DP-Sniper's
published lower bounds (logistic regression, neural network; at claimed ε = 0.1, confidence 0.9,
200 M final samples) and where StatDP's curve at ε0 = 0.7 leaves rejection. To compare ε_lb with
DP-Sniper's in its own setting: ``--epsilons 0.1 --alpha 0.1 --samples 15000000 --tighten``. The
last lines check the issue's acceptance: every incorrect mechanism flagged within 2·10⁶ draws and
60 s, no correct one flagged; the exit status is 1 when an incorrect mechanism is missed or a
correct one flagged (``tests/audit/suites/test_classic_run.py`` runs a smoke subset of the rows at
a tenth of the draws; ``tests/benchmarks/test_bench_auditor_suite.py`` runs this on two rows).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence

from dpquant.audit.suites.classic import SUITE, entry
from dpquant.audit.suites.classic.published import DPSNIPER, STATDP
from dpquant.audit.suites.classic.run import DRAW_LIMIT, SUITE_SAMPLES, SuiteRun, run_entry

SECONDS_LIMIT = 60.0


def _fmt(x: float | None, width: int = 7) -> str:
    if x is None:
        return f"{'?':>{width}}"
    if math.isinf(x):
        return f"{'inf':>{width}}"
    return f"{x:>{width}.3f}"


def _published(name: str) -> str:
    sniper = DPSNIPER.get(name)
    dps = f"{sniper.lr:.4f} {sniper.nn:.4f}" if sniper else f"{'n/a':>6} {'n/a':>6}"
    curves = STATDP.get(name)
    statdp = "n/a"
    if curves:
        mid = curves[1]  # ε0 = 0.7
        statdp = (
            "rejects all" if mid.first_accepted is None else f"rejects <= {mid.rejects_through}"
        )
    return f"{dps}  {statdp}"


def _row(run: SuiteRun) -> str:
    verdict = "VIOLATION" if run.violation else "ok"
    expected = {True: "", False: "  <-- unexpected", None: ""}[run.as_expected]
    return (
        f"{run.name:28} {run.epsilon:>4g} {run.status:>9} {_fmt(run.true_epsilon)} "
        f"{verdict:>9} {_fmt(run.epsilon_lb)} {run.draws:>9} {run.seconds:>6.1f} "
        f"{run.event_kind:>16}  {_published(run.name)}{expected}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Audit the rows, print the table and the acceptance lines.

    Args:
        argv: The command line's arguments (None: ``sys.argv[1:]``).

    Returns:
        1 when an incorrect mechanism was missed or a correct one flagged, else 0.
    """
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.5, 1.0])
    parser.add_argument("--samples", type=int, default=SUITE_SAMPLES)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=1e-6, help="DP-Sniper's is 0.1")
    parser.add_argument("--only", nargs="*", default=None, help="entry names or aliases")
    parser.add_argument(
        "--tighten", action="store_true", help="full budget for every finalist (tightest bound)"
    )
    args = parser.parse_args(argv)
    entries = SUITE if not args.only else tuple(entry(n) for n in args.only)
    header = (
        f"{'mechanism':28} {'eps':>4} {'status':>9} {'true':>7} {'verdict':>9} {'eps_lb':>7} "
        f"{'draws':>9} {'s':>6} {'event':>16}  DP-Sniper LR/NN at 0.1  StatDP (eps0 0.7)"
    )
    print(header)
    print("-" * len(header))
    runs = []
    for eps in args.epsilons:
        for e in entries:
            run = run_entry(
                e, eps, samples=args.samples, seed=args.seed, alpha=args.alpha, tighten=args.tighten
            )
            runs.append(run)
            print(_row(run), flush=True)
    missed = [r for r in runs if r.status == "incorrect" and not r.violation]
    slow = [
        r
        for r in runs
        if r.status == "incorrect" and (r.draws > DRAW_LIMIT or r.seconds > SECONDS_LIMIT)
    ]
    false_alarms = [r for r in runs if r.status == "correct" and r.violation]
    print()
    print(f"incorrect mechanisms missed: {[(r.name, r.epsilon) for r in missed]}")
    print(f"incorrect over 2e6 draws or 60 s: {[(r.name, r.epsilon) for r in slow]}")
    print(f"correct mechanisms flagged: {[(r.name, r.epsilon) for r in false_alarms]}")
    sniper = [
        (r.name, round(r.epsilon_lb, 6), DPSNIPER[r.name].lr)
        for r in runs
        if r.epsilon == 0.1 and r.name in DPSNIPER
    ]
    if sniper:
        print(f"eps_lb, DP-Sniper's LR, NN (at 0.1): {[(*s, DPSNIPER[s[0]].nn) for s in sniper]}")
        below = [
            (r.name, r.epsilon_lb)
            for r in runs
            if r.epsilon == 0.1
            and r.name in DPSNIPER
            and r.epsilon_lb < max(DPSNIPER[r.name].lr, DPSNIPER[r.name].nn)
        ]
        print(f"eps_lb below DP-Sniper's (at 0.1): {below}")
    return 1 if missed or false_alarms else 0


if __name__ == "__main__":
    sys.exit(main())
