"""``dpquant reproduce PAPER [options]``: re-run a paper's experiments and write CSV and PNG files.

One sub-parser per paper (``dpquant reproduce imola25 --m 10,20``): the options every study
takes (``--runs``, ``--seed``, ``--workers``, ``--scheduler``, ``--out``, ``--quick``, ``-q``) and
the paper's own,
added by its study (``dpquant.studies.<paper>.arguments.COMMAND``), so no paper sees
another's options. The common options may also come before the paper's name
(``dpquant reproduce --quick imola25``). Every value is checked (ranges, the output folder, the
study's ``make_study``) before the study runs.

A name that is not a paper's is refused with the closest papers' names ("did you mean
imola25?"): the papers' sub-parsers are held by :class:`PaperParsers`, which leaves argparse's
own check of the choice (no hint) to its call. Another paper's option is argparse's
"unrecognized arguments", naming it.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from dpquant.audit.report.extras import MissingExtra, require
from dpquant.cli.cluster import cluster_executor
from dpquant.cli.messages import EXIT_OK, on_terminal
from dpquant.cli.paths import check_output_folder, print_out
from dpquant.options import MAX_RUNS, UsageError, option_message, optional, parse_int
from dpquant.studies import aamand25, fukuchi19, imola25, tzamos20
from dpquant.studies.aamand25 import arguments as aamand25_arguments
from dpquant.studies.command import StudyCommand
from dpquant.studies.fukuchi19 import arguments as fukuchi19_arguments
from dpquant.studies.harness import MAX_SEED
from dpquant.studies.imola25 import arguments as imola25_arguments
from dpquant.studies.tzamos20 import arguments as tzamos20_arguments

STUDIES: dict[str, tuple[ModuleType, StudyCommand]] = {
    "aamand25": (aamand25, aamand25_arguments.COMMAND),
    "imola25": (imola25, imola25_arguments.COMMAND),
    "fukuchi19": (fukuchi19, fukuchi19_arguments.COMMAND),
    "tzamos20": (tzamos20, tzamos20_arguments.COMMAND),
}
"""Each paper's study (``make_study``, ``run``, ``DEFAULT_OUT``) and its command-line options."""
MAX_WORKERS = max(64, 2 * (os.cpu_count() or 1))
"""``--workers`` at most: a process pool forks every worker at once."""
COMMON = {"runs": "--runs", "seed": "--seed", "workers": "--workers"}


def unknown_paper(name: str) -> str:
    """Why ``name`` is not a paper, with the closest papers' names."""
    papers = list(STUDIES)
    close = difflib.get_close_matches(name.strip().lower(), papers, n=2, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return f"unknown paper {name!r}; {hint}(the papers: {', '.join(papers)})"


class PaperParsers(argparse._SubParsersAction):
    """The sub-parsers of the papers (module docstring): a name that is not a paper's is an
    ``ArgumentError`` naming ``PAPER`` with the closest names, raised by the call."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # argparse's own check of the choice would come first, and give no hint
        self.choices = None  # type: ignore[assignment]

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        name = values[0] if isinstance(values, list) and values else values
        if name not in STUDIES:
            raise argparse.ArgumentError(self, unknown_paper(str(name)))
        super().__call__(parser, namespace, values, option_string)


def _progress(quiet: bool) -> Callable[[str, int, int], None] | None:
    """On a terminal, a tqdm bar per label (without tqdm, one stderr line per label each time
    another tenth of its runs is done); none with ``quiet`` or when stderr is not a terminal
    (:func:`dpquant.cli.messages.on_terminal`)."""
    if quiet or not on_terminal():
        return None
    bars = _bars()
    if bars is not None:
        return bars
    shown: dict[str, int] = {}

    def progress(label: str, done: int, total: int) -> None:
        tenth = 10 * done // max(total, 1)
        if tenth > shown.get(label, -1):
            shown[label] = tenth
            print(f"dpquant: {label}: {done}/{total} runs", file=sys.stderr, flush=True)

    return progress


def _bars() -> Callable[[str, int, int], None] | None:
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dev dependency
        return None
    bars: dict[str, Any] = {}

    def progress(label: str, done: int, total: int) -> None:
        bar = bars.get(label)
        if bar is None:
            for old in bars.values():
                old.close()
            bar = bars[label] = tqdm(total=total, desc=label, unit="run", file=sys.stderr)
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return progress


def run(args: argparse.Namespace) -> int:
    """Every option checked (ranges, the output folder, the study's ``make_study``), then the
    study; one line per file written."""
    study, command = STUDIES[args.paper]
    runs = optional(args.runs, parse_int, "--runs", command.min_runs, MAX_RUNS)
    seed = parse_int(args.seed, "--seed", 0, MAX_SEED)
    workers = optional(args.workers, parse_int, "--workers", 1, MAX_WORKERS)
    options = command.study_options(args)
    out = check_output_folder(study.DEFAULT_OUT if args.out is None else args.out, "--out")
    try:  # every study draws its figures: refused before any run without matplotlib
        require("matplotlib", f"dpquant reproduce {args.paper} (its figures)")
    except MissingExtra as exc:
        raise UsageError(str(exc)) from None
    try:
        config = study.make_study(**options, runs=runs, seed=seed, quick=args.quick)
    except ValueError as exc:
        message = option_message(exc, {**COMMON, **command.options})
        raise UsageError(f"reproduce {args.paper}: {message}") from None
    with cluster_executor(args.scheduler) as (executor, threads):
        paths = study.run(
            config,
            workers=workers or threads,
            out=out,
            progress=_progress(args.quiet),
            executor=executor,
        )
    lines = [*command.outcome_lines(paths), *(f"written: {path}" for path in paths)]
    all(print_out(line) for line in lines)  # stops at a reader that has gone
    return EXIT_OK


def _common_options(
    parser: argparse.ArgumentParser, default: Any, runs_help: str, workers_help: str
) -> None:
    """The options of every study (``default``: ``argparse.SUPPRESS`` on a paper's parser, so
    that a value given before the paper's name is kept)."""

    def value(given: Any) -> Any:
        return given if default is None else default

    parser.add_argument("--runs", default=value(None), help=runs_help)
    parser.add_argument("--seed", default=value(0), help="random seed of the runs (default 0)")
    parser.add_argument("--workers", default=value(None), help=workers_help)
    parser.add_argument(
        "--scheduler",
        default=value(None),
        metavar="ADDRESS",
        help="run the tasks on a dask.distributed cluster (tcp://host:8786), or 'local' for a "
        "LocalCluster on this machine; the results are the same as on one process",
    )
    parser.add_argument(
        "--out",
        default=value(None),
        metavar="DIR",
        help="output folder (default: reports/<paper>)",
    )
    parser.add_argument(
        "--quick", action="store_true", default=value(False), help="a tiny version for smoke tests"
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", default=value(False), help="no progress on stderr (shown only when stderr is a terminal)"
    )


def add_parser(commands: Any) -> None:
    """The ``reproduce`` sub-parser and, under it, one sub-parser per paper."""
    p = commands.add_parser(
        "reproduce",
        help="re-run a paper's experiments and write CSV and PNG files",
        description=(
            "Re-run the experiments of a paper and write CSV and PNG files; "
            "`dpquant reproduce PAPER --help` lists the paper's options."
        ),
    )
    _common_options(p, None, "runs per configuration (default: the paper's)", "processes")
    papers = p.add_subparsers(dest="paper", required=True, metavar="PAPER", action=PaperParsers)
    for name, (_, command) in STUDIES.items():
        paper = papers.add_parser(name, help=command.help, description=command.description)
        _common_options(paper, argparse.SUPPRESS, command.runs_help, command.workers_help)
        command.add_arguments(paper)
        paper.set_defaults(func=run)


__all__ = ["MAX_WORKERS", "STUDIES", "PaperParsers", "add_parser", "run", "unknown_paper"]
