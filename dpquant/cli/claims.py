"""``dpquant claims [--ledger PATH] [--full]``: print the claims ledger with counts per status (a
table whose statements are cut to a line; ``--full``: every claim whole, with its note and
checks); exit 1 when the ledger has a problem (a claim without a check, a check without a
claim).

The default ledger is the source checkout's ``notes/claims.toml``, else the copy an installed
package ships; outside a source checkout the tests are not there, so the test ids are not checked
(a note on stderr says so).

A bad ledger (not a regular file, larger than :data:`dpquant.reference.claims.MAX_LEDGER_BYTES`, not
UTF-8 TOML, nested too deep, claims of the wrong shape) is one line naming ``--ledger`` (exit code
2); a reader of the table that quits early (``dpquant claims | head -1``) is no error
(:func:`dpquant.cli.paths.print_out`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dpquant.cli.messages import EXIT_FAILED, EXIT_OK
from dpquant.cli.paths import path_text, print_out
from dpquant.options import UsageError, show
from dpquant.reference.claims import (
    format_claims_full,
    format_ledger,
    ledger_problems,
    load_ledger,
    source_checkout,
)


def run(args: argparse.Namespace) -> int:
    """Print the ledger; its problems go to stderr, one line each."""
    path = None if args.ledger is None else path_text(args.ledger, "--ledger")
    check_ids = source_checkout()
    try:
        claims = load_ledger(path)
        text = format_claims_full(claims) if args.full else format_ledger(claims)
        problems = ledger_problems(claims, check_ids=check_ids)
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        shown = "the ledger" if path is None else f"--ledger {show(path)}"
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise UsageError(f"{shown}: not a readable claims ledger ({detail})") from None
    print_out(text)
    if not check_ids:
        print(
            "note: the test ids were not checked: the tests are in the source checkout, "
            "not in the installed package",
            file=sys.stderr,
        )
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    return EXIT_FAILED if problems else EXIT_OK


def add_parser(commands: Any) -> None:
    """The ``claims`` sub-parser."""
    p = commands.add_parser("claims", help="print the claims ledger with counts per status")
    p.add_argument(
        "--ledger",
        default=None,
        help="path to claims.toml (default: notes/claims.toml, else the installed package's copy)",
    )
    p.add_argument(
        "--full",
        action="store_true",
        help="every claim whole: the statement uncut, its note and its checks",
    )
    p.set_defaults(func=run)


__all__ = ["add_parser", "run"]
