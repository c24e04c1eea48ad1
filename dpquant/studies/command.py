"""What a study gives ``dpquant reproduce <paper>``: its help, its own options, and how their
values become the keywords of its ``make_study`` (:class:`StudyCommand`, one per paper, in
``dpquant.studies.<paper>.arguments``).

The options every study takes (``--runs``, ``--seed``, ``--workers``, ``--out``, ``--quick``,
``-q``) are the command line's (:mod:`dpquant.cli.reproduce`); a study adds only its own.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def no_outcome_lines(paths: list[Path]) -> list[str]:
    """Nothing to say beyond the files written."""
    return []


@dataclass(frozen=True)
class StudyCommand:
    """A paper's sub-parser of ``dpquant reproduce``.

    ``help`` and ``description`` (its help texts), ``min_runs`` (``--runs`` at least),
    ``runs_help`` and ``workers_help`` (the help of ``--runs`` and ``--workers``), ``options``
    (the study's keywords of :func:`make_study` and the options that set them, to name the
    options in its error messages), ``add_arguments(parser)`` (the paper's own options),
    ``study_options(args)`` (their values as keywords of ``make_study``, parsed and
    range-checked) and ``outcome_lines(paths)`` (lines printed before the files written).
    """

    help: str
    description: str
    min_runs: int
    runs_help: str
    workers_help: str
    options: Mapping[str, str]
    add_arguments: Callable[[argparse.ArgumentParser], None]
    study_options: Callable[[argparse.Namespace], dict[str, Any]]
    outcome_lines: Callable[[list[Path]], list[str]] = no_outcome_lines


def add_text_options(
    parser: argparse.ArgumentParser, options: Mapping[str, tuple[str, str]]
) -> None:
    """Options whose text ``study_options`` parses (default ``None``: not given), in order:
    option → (metavar, help)."""
    for option, (metavar, text) in options.items():
        parser.add_argument(option, default=None, metavar=metavar, help=text)


__all__ = ["StudyCommand", "add_text_options", "no_outcome_lines"]
