"""``dpquant certify [--claim ID ...] [--write] [--out DIR]``: prove the certified claims of the
catalogue (:mod:`dpquant.certify.catalogue`) again, print each one's parts, leaves and time, and
with ``--write`` write their certificates (default folder: the source checkout's
``proofs_checks/certificates``). Exit 1 when a claim is not proven (its undecided box or
counterexample is printed); 2 for a claim id the catalogue does not hold, or when python-flint
(the ``certify`` extra) is missing.

The certificates are checked by the independent checker ``proofs_checks/certificate_checker.py``
(``python proofs_checks/certificate_checker.py``), which imports no dpquant code."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Any

from dpquant.cli.messages import EXIT_FAILED, EXIT_OK
from dpquant.cli.paths import path_text, print_out
from dpquant.options import UsageError, show


def run(args: argparse.Namespace) -> int:
    """Prove the catalogue's claims (all, or ``--claim``), print a line each, write with ``--write``."""
    if importlib.util.find_spec("flint") is None:
        raise UsageError("certify needs python-flint: pip install 'dpquant[certify]'")
    from dpquant.certify.branch_and_bound import CertificationFailed
    from dpquant.certify.catalogue import CATALOGUE
    from dpquant.certify.certificates import CERTIFICATES, certify, write

    known = {spec.claim: spec for spec in CATALOGUE}
    wanted = args.claim or list(known)
    unknown = [c for c in wanted if c not in known]
    if unknown:
        raise UsageError(
            f"--claim {show(unknown[0])} is not in the catalogue (dpquant certify --list)"
        )
    if args.list:
        print_out("\n".join(f"{c}  {known[c].domain}" for c in wanted))
        return EXIT_OK
    if args.write and args.out is None and not CERTIFICATES.parent.is_dir():
        raise UsageError(
            "--write needs --out DIR outside a source checkout (no proofs_checks/ here)"
        )
    out = CERTIFICATES if args.out is None else Path(path_text(args.out, "--out"))
    failed = 0
    for claim in wanted:
        try:
            done = certify(known[claim])
        except CertificationFailed as exc:
            failed += 1
            print_out(f"NOT PROVEN  {claim}: {exc}")
            continue
        where = f"  -> {write(done, out)}" if args.write else ""
        print_out(
            f"proven  {claim}: {len(done.data['parts'])} part(s), {done.leaves} leaves, {done.seconds:.2f} s{where}"
        )
    print_out(f"{len(wanted) - failed} proven, {failed} not proven")
    return EXIT_FAILED if failed else EXIT_OK


def add_parser(commands: Any) -> None:
    """The ``certify`` sub-parser."""
    p = commands.add_parser(
        "certify", help="prove the certified claims again and write their certificates"
    )
    p.add_argument(
        "--claim",
        action="append",
        default=None,
        help="a ledger id (repeatable; default: every certified claim)",
    )
    p.add_argument(
        "--write",
        action="store_true",
        help="write the certificates (default folder: proofs_checks/certificates)",
    )
    p.add_argument(
        "--out", default=None, help="the folder of the certificates written with --write"
    )
    p.add_argument(
        "--list",
        action="store_true",
        help="list the catalogue's claims and their domains, proving nothing",
    )
    p.set_defaults(func=run)


__all__ = ["add_parser", "run"]
