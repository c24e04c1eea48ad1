"""The fuzz suite's random driver at full size (issue 18; issue 39, item 4).

tests/contract/test_fuzz.py checks every public entry point against hostile values: a sweep over
the named hostile pools (exhaustive) and hypothesis drawing from the same pools and from random
floats, integers and lists (derandomized). Each call must give a ``ValueError`` naming the
parameter or a correct result (tests/contract/harness.py). In the suite the random driver draws
10 examples per entry; this script draws ``--examples`` per entry (default 30, what the suite drew
before issue 39), each entry's examples derandomized, and prints one line per entry: its seconds
and its verdict (the first line of a failure).

Run: ``.venv/bin/python benchmarks/study_fuzz_random.py [--examples N] [--only NAME,...]``
(about two minutes at 30 examples on one core). Exits 1 when an entry failed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CONTRACT = Path(__file__).resolve().parents[1] / "tests" / "contract"
if str(CONTRACT) not in sys.path:
    sys.path.insert(0, str(CONTRACT))

from harness import Entry, run, strategy  # noqa: E402
from test_fuzz import ENTRIES  # noqa: E402


def check_entry(entry: Entry, examples: int) -> str | None:
    """``examples`` derandomized hypothesis examples of ``entry``'s random driver.

    Args:
        entry: The entry point.
        examples: How many examples to draw.

    Returns:
        None when every call gave a refusal naming its parameter or a correct result, else the
        first line of the failure.
    """

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(data=st.data())
    def random_calls(data: Any) -> None:
        param, value = data.draw(strategy(entry))
        run(entry, param, value)

    try:
        random_calls()
    except Exception as exc:  # noqa: BLE001 -- every failure is a finding to print
        text = str(exc).strip().splitlines()
        return f"{type(exc).__name__}: {text[0] if text else ''}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the random driver on every entry (or ``--only`` those named) and print the failures.

    Args:
        argv: The command-line arguments (default ``sys.argv[1:]``).

    Returns:
        0 when every entry passed, 1 otherwise.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=30, help="examples per entry (30)")
    parser.add_argument("--only", default="", help="comma-separated entry names")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n]
    chosen = [e for e in ENTRIES if not names or e.name in names]
    missing = sorted(set(names) - {e.name for e in chosen})
    if missing:
        parser.error(f"no fuzz entry named {', '.join(missing)}")
    start, failed = time.perf_counter(), 0
    print(f"{'entry':<60} {'seconds':>8}  verdict")
    for entry in chosen:
        began = time.perf_counter()
        finding = check_entry(entry, args.examples)
        failed += finding is not None
        verdict = "ok" if finding is None else f"FAILED {finding}"
        print(f"{entry.name:<60.60} {time.perf_counter() - began:>8.2f}  {verdict}")
    seconds = time.perf_counter() - start
    print(
        f"{len(chosen)} entries, {args.examples} examples each, {seconds:.0f} s: "
        + ("every entry passed" if not failed else f"{failed} FAILED")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
