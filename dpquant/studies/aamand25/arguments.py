"""``dpquant reproduce aamand25``: the study's own options on the command line."""

from __future__ import annotations

import argparse
from typing import Any

from dpquant.studies.aamand25.config import FIGURES
from dpquant.studies.command import StudyCommand


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of aamand25 only."""
    parser.add_argument("--figure", choices=FIGURES, default=None, help="one figure (default: all)")


def argparse_values(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`make_study` set by the options (values checked by argparse)."""
    return {"figures": None if args.figure is None else [args.figure]}


COMMAND = StudyCommand(
    help="aamand25: Sec. 5 and App. I, figures 1a, 1b, 2, 3, 4, 5",
    description=(
        "Re-run the experiments of aamand25 (Sec. 5 and App. I, figures 1a, 1b, 2, 3, 4, 5) and "
        "write, per figure, <figure>.csv (success rate per configuration, mechanism, ε and "
        "α_test), <figure>_errors.csv (one row per run) and PNG plots."
    ),
    min_runs=1,
    runs_help="runs per configuration (default 200; --quick: 4)",
    workers_help="processes (default: the number of CPUs)",
    add_arguments=add_arguments,
    parsed={},
    argparse_options={"figures": "--figure"},
    argparse_values=argparse_values,
)
"""The sub-parser ``dpquant reproduce aamand25``."""
study_options = COMMAND.study_options
"""The keywords of :func:`make_study` set by the options (values checked by argparse)."""

__all__ = ["COMMAND", "add_arguments", "argparse_values", "study_options"]
