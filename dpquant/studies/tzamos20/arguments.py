"""``dpquant reproduce tzamos20``: the study's own options on the command line."""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from dpquant.options import parse_fraction, parse_int_list, parse_names
from dpquant.studies.command import StudyCommand, add_text_options
from dpquant.studies.tzamos20.config import C_RULES, MAX_STUDY_N, QUICK_REGIMES, REGIMES
from dpquant.studies.tzamos20.data import DISTRIBUTIONS

C_RANGE = (Fraction(1, 10**6), Fraction(10**6))
"""``--c``: the constant C (or C0) lies in this closed interval."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of tzamos20 only."""
    add_text_options(
        parser,
        {
            "--regimes": (
                "LIST",
                "statistical, local, global (which of T1, T2, T3 dominates; default all three; "
                "--quick: quick)",
            ),
            "--distributions": ("LIST", "uniform, pareto or both (default both)"),
            "--n-values": (
                "LIST",
                "sample sizes (default 20,40,80,160,320,480,640,1280,2560,5120; --quick: 8,16,32)",
            ),
            "--c": (
                "C",
                "the constant C (default 5/4), or C0 with --c-rule log (C = C0 ln n)",
            ),
        },
    )
    parser.add_argument(
        "--c-rule",
        choices=C_RULES,
        default=None,
        help="C constant (default) or C0 ln n (Cor. E.10)",
    )


def argparse_values(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword of :func:`make_study` set by ``--c-rule`` (checked by argparse)."""
    return {"c_rule": "constant" if args.c_rule is None else args.c_rule}


COMMAND = StudyCommand(
    help="tzamos20: the accuracy study of the ε-DP private median",
    description=(
        "Run the accuracy study of tzamos20's ε-DP private median (exact miss probability per "
        "data set, averaged over data sets, vs n, against the terms of Theorem 3.1); writes "
        "tzamos20.csv, tzamos20_runs.csv, tzamos20_crossings.csv and PNG figures."
    ),
    min_runs=2,
    runs_help="data sets per cell (default 40; --quick: 12)",
    workers_help="processes (default 1)",
    add_arguments=add_arguments,
    parsed={
        "regimes": ("--regimes", parse_names, tuple(g.name for g in (*REGIMES, *QUICK_REGIMES))),
        "distributions": ("--distributions", parse_names, DISTRIBUTIONS),
        "ns": ("--n-values", parse_int_list, 2, MAX_STUDY_N),
        "c": ("--c", parse_fraction, *C_RANGE),
    },
    argparse_options={"c_rule": "--c-rule"},
    argparse_values=argparse_values,
)
"""The sub-parser ``dpquant reproduce tzamos20``."""
study_options = COMMAND.study_options
"""The keywords of :func:`make_study` set by the options, parsed and range-checked."""

__all__ = ["C_RANGE", "COMMAND", "add_arguments", "argparse_values", "study_options"]
