"""``dpquant reproduce tzamos20``: the study's own options on the command line."""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

from dpquant.options import optional, parse_fraction, parse_int_list, parse_names
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


def study_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`make_study` set by the options, parsed and range-checked."""
    regimes = tuple(g.name for g in (*REGIMES, *QUICK_REGIMES))
    return {
        "regimes": optional(args.regimes, parse_names, "--regimes", regimes),
        "distributions": optional(
            args.distributions, parse_names, "--distributions", DISTRIBUTIONS
        ),
        "ns": optional(args.n_values, parse_int_list, "--n-values", 2, MAX_STUDY_N),
        "c": optional(args.c, parse_fraction, "--c", *C_RANGE),
        "c_rule": "constant" if args.c_rule is None else args.c_rule,
    }


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
    options={
        "regimes": "--regimes",
        "distributions": "--distributions",
        "ns": "--n-values",
        "c": "--c",
        "c_rule": "--c-rule",
    },
    add_arguments=add_arguments,
    study_options=study_options,
)
"""The sub-parser ``dpquant reproduce tzamos20``."""

__all__ = ["C_RANGE", "COMMAND", "add_arguments", "study_options"]
