"""``dpquant reproduce fukuchi19``: the study's own options on the command line."""

from __future__ import annotations

import argparse
from typing import Any

from dpquant.options import MAX_RUNS, parse_int, parse_names
from dpquant.reference.ldp_minimum import SCHEDULES
from dpquant.studies.command import StudyCommand, add_text_options
from dpquant.studies.fukuchi19.config import DATA_MODELS, MAX_LOG2N


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of fukuchi19 only."""
    parser.add_argument(
        "--settings",
        choices=("main", "all"),
        default=None,
        help="Beta settings: main (α = β = 1, Δ = 0.3) or all 30 (default all; --quick: main)",
    )
    add_text_options(
        parser,
        {
            "--other-runs": (
                "R",
                "runs per cell for the settings other than the main one (default: --runs)",
            ),
            "--min-log2n": ("n", "smallest N = 2^n (default 10)"),
            "--max-log2n": ("n", "largest N = 2^n (default 20; --quick: 12)"),
            "--data-models": ("LIST", "fixed, iid or fixed,iid (default both)"),
            "--schedules": ("LIST", "lower_alpha, unknown_alpha or both (default both)"),
            "--exact-max-levels": (
                "L",
                "exact tree law on fixed data when L <= this (default 10; 0: never)",
            ),
        },
    )
    parser.add_argument(
        "--laplace",
        choices=("main", "all", "none"),
        default=None,
        help="settings of the Laplace baseline (N·runs draws per cell; default main)",
    )
    parser.add_argument(
        "--laplace-iid", action="store_true", help="also run the baseline on i.i.d. data"
    )
    parser.add_argument(
        "--no-eps-sweep", action="store_true", help="skip the Err-vs-ε panel (Fig. 1 right)"
    )


def argparse_values(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`make_study` set by the choices and switches (checked by argparse)."""
    return {
        "settings": args.settings,
        "laplace": args.laplace,
        "laplace_iid": args.laplace_iid,
        "eps_sweep": not args.no_eps_sweep,
    }


COMMAND = StudyCommand(
    help="fukuchi19: Sec. 6.1 / Figures 1–2 (synthetic Beta data)",
    description=(
        "Re-run fukuchi19's Sec. 6.1 / Figures 1–2 (synthetic Beta data, Algorithm 2 with the "
        "Lower-α and Unknown-α schedules, the Laplace baseline); writes fukuchi19.csv (worst "
        "case over x_min of the MAE per setting, data model, schedule, N and ε), "
        "fukuchi19_xmin.csv, fukuchi19_fits.csv (guideline fits) and PNG figures."
    ),
    min_runs=2,
    runs_help="runs per cell (default 1000; --quick: 300)",
    workers_help="processes (default 1)",
    add_arguments=add_arguments,
    parsed={
        "other_runs": ("--other-runs", parse_int, 2, MAX_RUNS),
        "min_log2n": ("--min-log2n", parse_int, 1, MAX_LOG2N),
        "max_log2n": ("--max-log2n", parse_int, 1, MAX_LOG2N),
        "data_models": ("--data-models", parse_names, DATA_MODELS),
        "schedules": ("--schedules", parse_names, SCHEDULES),
        "exact_max_levels": ("--exact-max-levels", parse_int, 0, MAX_LOG2N),
    },
    argparse_options={
        "settings": "--settings",
        "laplace": "--laplace",
        "laplace_iid": "--laplace-iid",
        "eps_sweep": "--no-eps-sweep",
    },
    argparse_values=argparse_values,
)
"""The sub-parser ``dpquant reproduce fukuchi19``."""
study_options = COMMAND.study_options
"""The keywords of :func:`make_study` set by the options, parsed and range-checked."""

__all__ = ["COMMAND", "add_arguments", "argparse_values", "study_options"]
