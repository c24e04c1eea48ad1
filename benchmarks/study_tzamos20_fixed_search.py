"""The long counterexample search for tzamos20's fixed typical set H_fix (1 500 examples).

What it checks: on hypothesis-generated pairs (X ∈ H_fix, Y a neighbour of X at any distance,
small C), at ε ∈ {1/4, 1}, the analogues of Lemma 3.2/(B.1) and Lemma 3.3 and of Prop. A.5(b)
hold for the variant, and its laws on X and Y are (ε·d(X, Y))-close (a certified loss): the
property :func:`check_counterexample_candidate` of
``tests/reference/private_median/test_tzamos20_fixed_variant.py``, whose test runs it on 300
examples in ``make test``; this is the 1 500-example search (about 20 s on one core).

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/study_tzamos20_fixed_search.py [--examples 1500]
[--seed N]``. Prints the examples searched and the verdict; exits 1 when a counterexample is
found (hypothesis prints the shrunk example). Without ``--seed`` the search is derandomized (the
same examples on every run, as under the CI profile).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
TEST_FILE = ROOT / "tests" / "reference" / "private_median" / "test_tzamos20_fixed_variant.py"


def load_property() -> ModuleType:
    """The test module that defines the strategy and the property (loaded from its file).

    Returns:
        The module.
    """
    spec = importlib.util.spec_from_file_location("tzamos20_fixed_variant_checks", TEST_FILE)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {TEST_FILE}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def search(examples: int, seed: int | None) -> None:
    """Run the property on ``examples`` generated cases.

    Args:
        examples: Hypothesis's ``max_examples``.
        seed: A hypothesis seed, or None for a derandomized search.

    Raises:
        AssertionError: A counterexample (shrunk by hypothesis).
    """
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as with_seed
    from hypothesis import strategies as st

    checks = load_property()
    runner = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=seed is None,
        suppress_health_check=[HealthCheck.too_slow],
    )(
        given(checks.member_pairs(small_c=True), st.sampled_from(checks.SEARCH_EPSILONS))(
            checks.check_counterexample_candidate
        )
    )
    if seed is not None:
        runner = with_seed(seed)(runner)
    runner()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the search and print its verdict.

    Args:
        argv: The command line (None: ``sys.argv[1:]``).

    Returns:
        0 when no counterexample is found, else 1.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        search(args.examples, args.seed)
    except AssertionError as exc:
        print(f"FAIL: counterexample after {time.perf_counter() - start:.1f} s: {exc}")
        return 1
    print(f"ok: no counterexample in {args.examples} examples ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
