"""The ``dpquant`` command line: ``dpquant claims``, ``dpquant audit --all``, ``dpquant mechanisms``."""

from __future__ import annotations

import argparse
import sys

from reference.claims import format_ledger, ledger_problems, load_ledger
from reference.registry import REGISTRY


def _claims(args: argparse.Namespace) -> int:
    claims = load_ledger(args.ledger)
    print(format_ledger(claims))
    problems = ledger_problems(claims)
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    return 1 if problems else 0


def _audit(args: argparse.Namespace) -> int:
    from audit.report import (
        audit_all,
    )  # the CLI may use both packages; reference never imports audit

    if not args.all:
        print("dpquant audit: pass --all to audit every reference mechanism", file=sys.stderr)
        return 2
    report = audit_all(args.out, seed=args.seed)
    for e in report["mechanisms"]:
        x = e["exact"]
        print(
            f"{e['mechanism']:<52} exact eps {x['epsilon_exact_max']:.6f} <= claimed "
            f"{x['claimed_epsilon']:g}: {'no' if x['violation'] else 'yes'}  ({x['pairs']} pairs, {e['seconds']} s)"
        )
    print(f"report written to {args.out}/report.json and {args.out}/report.md")
    return 1 if report["violations"] or report["conformance_failures"] else 0


def _mechanisms(args: argparse.Namespace) -> int:
    for e in REGISTRY:
        print(f"{e.name:<52} {e.description}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dpquant", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("claims", help="print the claims ledger with counts per status")
    p.add_argument(
        "--ledger", default=None, help="path to claims.toml (default: notes/claims.toml)"
    )
    p.set_defaults(func=_claims)
    p = sub.add_parser("audit", help="audit reference mechanisms and write a report")
    p.add_argument("--all", action="store_true", help="audit every mechanism of the registry")
    p.add_argument("--out", default="reports/audit", help="output folder (default: reports/audit)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_audit)
    p = sub.add_parser("mechanisms", help="list the reference mechanisms")
    p.set_defaults(func=_mechanisms)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:
        print(f"dpquant: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
