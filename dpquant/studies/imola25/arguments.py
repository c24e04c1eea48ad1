"""``dpquant reproduce imola25``: the study's own options on the command line."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from dpquant.options import MAX_RUNS, parse_int, parse_int_list, parse_names
from dpquant.studies.command import StudyCommand, add_text_options
from dpquant.studies.imola25.config import PANELS
from dpquant.studies.imola25.data import GRID, MAX_DUPLICATION


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of imola25 only."""
    add_text_options(
        parser,
        {
            "--m": (
                "LIST",
                "numbers of quantiles, e.g. 10,100,200 (default 10,20,...,200; --quick: 10,20)",
            ),
            "--panels": (
                "LIST",
                "a (age, substitute), b (hours, substitute), c (age, add/remove), d (hours, "
                "add/remove); default a,b,c,d (--quick: a,c)",
            ),
            "--duplication": (
                "K",
                "force the duplication factor (default: the smallest feasible per adjacency); "
                "infeasible SliceQuantiles runs are then skipped and noted",
            ),
            "--jointexp-runs": (
                "R",
                "JointExp runs per m (default 10; --quick: 1; 0: no JointExp)",
            ),
            "--jointexp-m": (
                "LIST",
                "m values for JointExp, intersected with --m (default 10,50,100,200; --quick: 10)",
            ),
        },
    )


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


COMMAND = StudyCommand(
    help="imola25: Sec. 6 / Figure 1 on Adult age and hours",
    description=(
        "Re-run imola25's Sec. 6 / Figure 1 on Adult age and hours (ε = 1, δ = 1e-16, both "
        "adjacencies) at the smallest data duplication where SliceQuantiles is feasible; writes "
        "imola25.csv (max and mean rank error with bootstrap CIs per panel, m, mechanism), "
        "imola25_runs.csv, imola25_feasibility.csv and imola25.png."
    ),
    min_runs=1,
    runs_help="runs per configuration (default 200; --quick: 3)",
    workers_help="processes (default: the number of CPUs)",
    add_arguments=add_arguments,
    parsed={
        "panels": ("--panels", parse_names, tuple(PANELS)),
        "ms": ("--m", parse_int_list, 1, GRID - 1),
        "jointexp_runs": ("--jointexp-runs", parse_int, 0, MAX_RUNS),
        "jointexp_ms": ("--jointexp-m", parse_int_list, 1, GRID - 1),
        "duplication": ("--duplication", parse_int, 1, MAX_DUPLICATION),
    },
    outcome_lines=outcome_lines,
)
"""The sub-parser ``dpquant reproduce imola25``."""
study_options = COMMAND.study_options
"""The keywords of :func:`make_study` set by the options, parsed and range-checked."""

__all__ = ["COMMAND", "add_arguments", "outcome_lines", "study_options"]
