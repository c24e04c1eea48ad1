"""``dpquant reproduce imola25``: the study's own options on the command line."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path
from typing import Any

from dpquant.options import MAX_RUNS, optional, parse_int, parse_int_list, parse_names
from dpquant.studies.imola25.config import PANELS
from dpquant.studies.imola25.data import GRID, MAX_DUPLICATION

HELP = "imola25: Sec. 6 / Figure 1 on Adult age and hours"
DESCRIPTION = (
    "Re-run imola25's Sec. 6 / Figure 1 on Adult age and hours (ε = 1, δ = 1e-16, both "
    "adjacencies) at the smallest data duplication where SliceQuantiles is feasible; writes "
    "imola25.csv (max and mean rank error with bootstrap CIs per panel, m, mechanism), "
    "imola25_runs.csv, imola25_feasibility.csv and imola25.png."
)
MIN_RUNS = 1
RUNS_HELP = "runs per configuration (default 200; --quick: 3)"
WORKERS_HELP = "processes (default: the number of CPUs)"
OPTIONS = {
    "panels": "--panels",
    "ms": "--m",
    "jointexp_runs": "--jointexp-runs",
    "jointexp_ms": "--jointexp-m",
    "duplication": "--duplication",
}
"""The study's keywords (:func:`make_study`) and the options that set them."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of imola25 only."""
    parser.add_argument(
        "--m",
        default=None,
        metavar="LIST",
        help="numbers of quantiles, e.g. 10,100,200 (default 10,20,...,200; --quick: 10,20)",
    )
    parser.add_argument(
        "--panels",
        default=None,
        metavar="LIST",
        help="a (age, substitute), b (hours, substitute), c (age, add/remove), d (hours, "
        "add/remove); default a,b,c,d (--quick: a,c)",
    )
    parser.add_argument(
        "--duplication",
        default=None,
        metavar="K",
        help="force the duplication factor (default: the smallest feasible per adjacency); "
        "infeasible SliceQuantiles runs are then skipped and noted",
    )
    parser.add_argument(
        "--jointexp-runs",
        default=None,
        metavar="R",
        help="JointExp runs per m (default 10; --quick: 1; 0: no JointExp)",
    )
    parser.add_argument(
        "--jointexp-m",
        default=None,
        metavar="LIST",
        help="m values for JointExp, intersected with --m (default 10,50,100,200; --quick: 10)",
    )


def study_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`make_study` set by the options, parsed and range-checked."""
    top = GRID - 1
    return {
        "panels": optional(args.panels, parse_names, "--panels", tuple(PANELS)),
        "ms": optional(args.m, parse_int_list, "--m", 1, top),
        "jointexp_runs": optional(args.jointexp_runs, parse_int, "--jointexp-runs", 0, MAX_RUNS),
        "jointexp_ms": optional(args.jointexp_m, parse_int_list, "--jointexp-m", 1, top),
        "duplication": optional(args.duplication, parse_int, "--duplication", 1, MAX_DUPLICATION),
    }


def outcome_lines(paths: list[Path]) -> list[str]:
    """One line per adjacency: the duplication factor (and n) the study used."""
    path = next((Path(p) for p in paths if Path(p).name == "imola25_feasibility.csv"), None)
    if path is None:
        return []
    lines = []
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["role"].endswith("(used)"):
                ok = "feasible" if row["feasible"] == "True" else "NOT feasible for every draw"
                lines.append(
                    f"{row['adjacency']}: duplication {row['duplication']} (n = {row['n']}), "
                    f"SliceQuantiles {ok} at m <= {row['m']} (w = {row['w']}, h = {row['h']})"
                )
    return lines


__all__ = [
    "DESCRIPTION",
    "HELP",
    "MIN_RUNS",
    "OPTIONS",
    "RUNS_HELP",
    "WORKERS_HELP",
    "add_arguments",
    "outcome_lines",
    "study_options",
]
