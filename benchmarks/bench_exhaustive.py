"""Exhaustive verification of the implementations on the registry's own domains (issue 38,
item 3): every registry entry with its grid and data sets up to the registry's size (4), the
whole family ``make audit`` enumerates, with the time each takes (one core).

The test suite checks smaller domains for the piecewise laws (``SMALL_DOMAINS``); this prints
the full family's table: ``python benchmarks/bench_exhaustive.py [--small]``.
"""

from __future__ import annotations

import sys
import time

import mpmath

from dpquant.certify.exhaustive import REGISTRY_DOMAINS, SMALL_DOMAINS, verify_entry
from dpquant.reference.registry import REGISTRY


def main(argv: list[str]) -> int:
    domains = SMALL_DOMAINS if "--small" in argv else REGISTRY_DOMAINS
    start = time.perf_counter()
    print("| mechanism | relation | max n | pairs | largest loss (upper end) | claim ε | verdict | s |")
    print("|---|---|---:|---:|---:|---:|---|---:|")
    for entry in REGISTRY:
        r = verify_entry(entry, domains[entry.name])
        size = "pairs" if entry.pairs is not None else domains[entry.name].max_n
        print(
            f"| `{r.name}` | {r.relation} | {size} | {r.pairs} | {mpmath.nstr(r.largest_loss, 12)} "
            f"| {r.claim.epsilon:.17g} | {r.verdict} | {r.seconds:.1f} |",
            flush=True,
        )
    print(f"total {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
