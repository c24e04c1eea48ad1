"""``dpquant validate REFERENCE CANDIDATE``: test that a candidate implementation draws from the
reference mechanism's law on a battery of data sets, and audit it under the reference's claim
(exit 0: passed; 1: a difference or a violation)."""

from __future__ import annotations

import argparse
from typing import Any

from dpquant.cli.audit import audit_alpha, audit_seed, samples_cap, write_report_files
from dpquant.cli.messages import EXIT_FAILED, EXIT_OK, stderr_progress
from dpquant.cli.paths import check_output_file, distinct_paths, print_out
from dpquant.cli.targets import resolve_candidate, resolve_reference
from dpquant.options import optional, parse_int, parse_int_list, parse_open_probability
from dpquant.reference.validation import MAX_DRAWS

MAX_BATTERY_SIZE = 10**5
"""``validate --sizes``: the largest data set of the battery."""


def run(args: argparse.Namespace) -> int:
    """Every option checked, then the comparison and the audit."""
    from dpquant.audit.tools import equivalence

    samples = parse_int(args.samples, "--samples", 100, MAX_DRAWS)
    alpha = audit_alpha(args.alpha)
    beta = parse_open_probability(args.beta, "--beta")
    seed = audit_seed(args.seed)
    sizes = optional(args.sizes, parse_int_list, "--sizes", 1, MAX_BATTERY_SIZE)
    audit_samples = optional(args.audit_samples, parse_int, "--audit-samples", 10, samples_cap())
    json_path = optional(args.json, check_output_file, "--json")
    md_path = optional(args.markdown, check_output_file, "--markdown")
    distinct_paths({"--json": json_path, "--markdown": md_path})
    reference, ref_name = resolve_reference(args.reference)
    candidate, cand_name = resolve_candidate(args.candidate)
    datasets = None
    if sizes is not None:
        datasets = equivalence.battery(reference.domain, reference.claim.adjacency, sizes)
    report = equivalence.validate(
        reference,
        candidate,
        datasets=datasets,
        samples=samples,
        alpha=alpha,
        beta=beta,
        seed=seed,
        audit=not args.no_audit,
        audit_samples=audit_samples,
        reference_name=ref_name,
        candidate_name=cand_name,
        progress=stderr_progress(args.quiet),
    )
    print_out(report.summary())
    write_report_files(report, json_path, md_path)
    return EXIT_OK if report.passed else EXIT_FAILED


DESCRIPTION = (
    "Test that CANDIDATE draws from the same law as REFERENCE on a battery of data sets "
    "(against the reference's exact law where it has one, by a two-sample test "
    "otherwise; family-wise false alarm <= --alpha), report the smallest deviation each "
    "test detects with probability 1 − --beta, and audit the candidate under the "
    "reference's claim. REFERENCE: a name from `dpquant mechanisms` or MODULE:ATTR of a "
    "mechanism. CANDIDATE: MODULE:ATTR or path/to/file.py:ATTR of a mechanism or of a "
    "function fn(data, rng) -> output, or peer:NAME[:KEY=VALUE...] (diffprivlib, opendp, "
    "python-dp, eeprivacy at your parameters: see `dpquant mechanisms`). Exit code 0: "
    "passed; 1: a difference or a violation; "
    "2: usage error; 3: the run failed unexpectedly."
)


def add_parser(commands: Any) -> None:
    """The ``validate`` sub-parser."""
    p = commands.add_parser(
        "validate",
        help="test a candidate implementation against a reference mechanism, and audit it",
        description=DESCRIPTION,
    )
    p.add_argument("reference", help="registry name or MODULE:ATTR")
    p.add_argument(
        "candidate", help="MODULE:ATTR, path/to/file.py:ATTR or peer:NAME[:KEY=VALUE...]"
    )
    p.add_argument("--samples", default=20_000, help="draws per data set (20000)")
    p.add_argument("--alpha", default=None, help="family-wise false alarm (default 1e-6)")
    p.add_argument("--beta", default=0.05, help="1 − power of the reported deviation")
    p.add_argument("--seed", default=0, help="random seed (default 0)")
    p.add_argument(
        "--sizes", default=None, metavar="LIST",
        help="data-set sizes of the battery (default 1,2,5,9,33,200)",
    )  # fmt: skip
    p.add_argument("--no-audit", action="store_true", help="skip the audit of the candidate")
    p.add_argument("--audit-samples", default=None, help="the audit's draws per data set")
    p.add_argument(
        "-q", "--quiet", action="store_true",
        help="no progress on stderr (shown only when stderr is a terminal)",
    )  # fmt: skip
    p.add_argument("--json", default=None, metavar="PATH", help="write the report as JSON")
    p.add_argument("--markdown", default=None, metavar="PATH", help="write the report as Markdown")
    p.set_defaults(func=run)


__all__ = ["MAX_BATTERY_SIZE", "add_parser", "run"]
