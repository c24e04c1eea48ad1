"""The false-alarm study of ``bench_measures.py`` row by row, one line per seed (issue 37).

Run: ``.venv/bin/python benchmarks/seed_study_measures.py ROW[,ROW...] [--seeds K]
[--samples N]``. Each named row's *correct* configuration is audited black-box at the default α
(1e-6) with seeds 0..K−1; every seed's verdict is printed as it comes, then the count of false
alarms per row. A false alarm is a VIOLATION on a configuration that meets its claim exactly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_measures as bm  # noqa: E402  -- a sibling script, not a package


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", help="row names, comma-separated (e.g. gaussian/gdp,aq/zcdp)")
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--samples", type=int, default=None, help="samples per final candidate")
    args = parser.parse_args()
    every = bm.gaussian_rows() + bm.laplace_rows() + bm.discrete_gaussian_rows()
    names = args.rows.split(",")
    if any(n.startswith(("aq/", "joint_exp/")) for n in names):
        every += bm.baseline_rows()
    rows = [r for r in every if r[0] in names]
    missing = set(names) - {r[0] for r in rows}
    if missing:
        parser.error(f"no such rows: {sorted(missing)}")
    for name, good, _, claim in rows:
        alarms = 0
        for seed in range(args.seeds):
            report, seconds, draws = bm.run(good, claim, seed, "blackbox", args.samples)
            alarms += report.violation
            print(f"{name} seed {seed}: {report.verdict}, {draws} draws, {seconds:.1f} s", flush=True)
        print(f"false alarms over {args.seeds} seeds, {name}: {alarms}", flush=True)


if __name__ == "__main__":
    main()
