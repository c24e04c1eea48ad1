"""What a study gives ``dpquant reproduce <paper>``: its help, its own options, and how their
values become the keywords of its ``make_study`` (:class:`StudyCommand`, one per paper, in
``dpquant.studies.<paper>.arguments``).

The options every study takes (``--runs``, ``--seed``, ``--workers``, ``--out``, ``--quick``,
``-q``) are the command line's (:mod:`dpquant.cli.reproduce`); a study adds only its own. Most
are text that the study parses and range-checks (:data:`Parsed`: one table entry per keyword);
the others are choices and switches that argparse checks itself.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpquant.options import optional

Parsed = tuple[Any, ...]
"""How a text option sets a keyword of ``make_study``: ``(option, parse, *bounds)``, the value
being ``parse(text, option, *bounds)`` (:mod:`dpquant.options`), or ``None`` when not given."""


def no_outcome_lines(paths: list[Path]) -> list[str]:
    """Nothing to say beyond the files written."""
    return []


def no_values(args: argparse.Namespace) -> dict[str, Any]:
    """No keywords beyond those of the text options."""
    return {}


def option_dest(option: str) -> str:
    """The attribute argparse stores ``option``'s value in (``--min-log2n``: ``min_log2n``)."""
    return option.lstrip("-").replace("-", "_")


def parse_options(args: argparse.Namespace, parsed: Mapping[str, Parsed]) -> dict[str, Any]:
    """The keywords of ``parsed`` (keyword → :data:`Parsed`) with their values in ``args``,
    parsed and range-checked (``None``: the option was not given)."""
    return {
        keyword: optional(getattr(args, option_dest(option)), parse, option, *bounds)
        for keyword, (option, parse, *bounds) in parsed.items()
    }


@dataclass(frozen=True)
class StudyCommand:
    """A paper's sub-parser of ``dpquant reproduce``.

    ``help`` and ``description`` (its help texts), ``min_runs`` (``--runs`` at least),
    ``runs_help`` and ``workers_help`` (the help of ``--runs`` and ``--workers``),
    ``add_arguments(parser)`` (the paper's own options), ``parsed`` (its text options: keyword of
    :func:`make_study` → :data:`Parsed`), ``argparse_options`` (the keywords set by the options
    argparse checks itself → those options) and ``argparse_values(args)`` (their values), and
    ``outcome_lines(paths)`` (lines printed before the files written).
    """

    help: str
    description: str
    min_runs: int
    runs_help: str
    workers_help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    parsed: Mapping[str, Parsed]
    argparse_options: Mapping[str, str] = field(default_factory=dict)
    argparse_values: Callable[[argparse.Namespace], dict[str, Any]] = no_values
    outcome_lines: Callable[[list[Path]], list[str]] = no_outcome_lines

    @property
    def options(self) -> dict[str, str]:
        """Each keyword of ``make_study`` the paper's options set → that option (to name the
        options in the study's error messages)."""
        return {**{k: p[0] for k, p in self.parsed.items()}, **self.argparse_options}

    def study_options(self, args: argparse.Namespace) -> dict[str, Any]:
        """The keywords of ``make_study`` set by the options, parsed and range-checked."""
        return {**parse_options(args, self.parsed), **self.argparse_values(args)}


def add_text_options(
    parser: argparse.ArgumentParser, options: Mapping[str, tuple[str, str]]
) -> None:
    """Options whose text ``study_options`` parses (default ``None``: not given), in order:
    option → (metavar, help)."""
    for option, (metavar, text) in options.items():
        parser.add_argument(option, default=None, metavar=metavar, help=text)


__all__ = [
    "Parsed",
    "StudyCommand",
    "add_text_options",
    "no_outcome_lines",
    "no_values",
    "option_dest",
    "parse_options",
]
