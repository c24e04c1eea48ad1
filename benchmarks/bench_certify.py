"""The certified claims (issue 38): the time to prove each certification of the catalogue again
(``dpquant certify``) and the time the independent checker takes to re-verify each certificate,
side by side in one run: ``python benchmarks/bench_certify.py [--claim ID ...]``.

The checker runs in ``make test`` (``proofs_checks/test_certificates.py``); proving again is not
part of the tests (the certificates are committed), so its time is printed here.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpquant.certify.catalogue import CATALOGUE  # noqa: E402
from dpquant.certify.certificates import certificate_path, certify  # noqa: E402
from proofs_checks.certificate_checker import certificate_files, check_file  # noqa: E402


def main(argv: list[str]) -> int:
    wanted = {a for a in argv if not a.startswith("-")}
    specs = [s for s in CATALOGUE if not wanted or s.claim in wanted]
    print("| claim | parts | leaves | prove (s) | check (s) | certificate (KB) |")
    print("|---|---:|---:|---:|---:|---:|")
    prove_total = check_total = 0.0
    for spec in specs:
        done = certify(spec)
        path = certificate_path(spec.claim)
        checked = check_file(path)
        prove_total += done.seconds
        check_total += checked.seconds
        print(
            f"| {spec.claim} | {checked.parts} | {checked.leaves} | {done.seconds:.2f} "
            f"| {checked.seconds:.2f} | {path.stat().st_size / 1024:.0f} |"
        )
    start = time.perf_counter()
    files = list(certificate_files())
    for path in files:
        check_file(path)
    every = time.perf_counter() - start
    print(f"\n{len(specs)} certifications proven again in {prove_total:.1f} s (one core);")
    print(f"the checker re-verifies all {len(files)} certificates in {every:.1f} s "
          f"(the catalogue's: {check_total:.1f} s).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
