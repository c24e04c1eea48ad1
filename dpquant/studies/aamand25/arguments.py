"""``dpquant reproduce aamand25``: the study's own options on the command line."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dpquant.studies.aamand25.config import FIGURES

HELP = "aamand25: Sec. 5 and App. I, figures 1a, 1b, 2, 3, 4, 5"
DESCRIPTION = (
    "Re-run the experiments of aamand25 (Sec. 5 and App. I, figures 1a, 1b, 2, 3, 4, 5) and "
    "write, per figure, <figure>.csv (success rate per configuration, mechanism, ε and α_test), "
    "<figure>_errors.csv (one row per run) and PNG plots."
)
MIN_RUNS = 1
RUNS_HELP = "runs per configuration (default 200; --quick: 4)"
WORKERS_HELP = "processes (default: the number of CPUs)"
OPTIONS = {"figures": "--figure"}
"""The study's keywords (:func:`make_study`) and the options that set them."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of aamand25 only."""
    parser.add_argument("--figure", choices=FIGURES, default=None, help="one figure (default: all)")


def study_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`make_study` set by the options (values checked by argparse)."""
    return {"figures": None if args.figure is None else [args.figure]}


def outcome_lines(paths: list[Path]) -> list[str]:
    """Nothing to say beyond the files written."""
    return []


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
