"""Relative log-weights of the discrete laws at extreme magnitudes (issue 34; notes/foundation.md,
"Issue 34"): the exact difference rounded once, without building the exact rational of an mpf
whose exponent is astronomically far from the others."""

from __future__ import annotations

import random
import time
from fractions import Fraction

import mpmath

from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.distributions.arithmetic import rational, relative_log_weights
from dpquant.reference.exact.mp import workdps


def test_binary_log_weights_are_the_exact_difference_rounded_once() -> None:
    """Floats, ints and mpfs of every size: each relative log-weight equals the exact rational
    difference rounded once to the working precision (the path through Fractions)."""
    rnd = random.Random(34)
    with workdps():
        for _ in range(200):
            weights = [
                rnd.uniform(-1e3, 1e3),
                rnd.randint(-(10**80), 10**80),
                mpmath.mpf(rnd.uniform(-1, 1)) * mpmath.mpf(10) ** rnd.randint(-400, 400),
                mpmath.mpf(-rnd.random()) / 3,
            ]
            top = max(Fraction(rational(w)) for w in weights)
            exact = [Fraction(rational(w)) - top for w in weights]
            want = [mpmath.fdiv(d.numerator, d.denominator) for d in exact]  # rounded once
            assert relative_log_weights(weights) == want


def test_a_law_with_a_log_weight_of_size_e_to_minus_1e300_is_built_at_once() -> None:
    """Issue 34: DiscreteLaplaceLaw(1e-300).truncated(3) handed DiscreteLaw the log-weight
    −2·e^{−1e300}, whose exact rational the law built for minutes. Now immediate, and the atoms'
    log-probabilities are right to the working precision."""
    with workdps():
        tiny = -2 * mpmath.exp(-(mpmath.mpf(10) ** 300))
        start = time.perf_counter()
        law = DiscreteLaw([0, 1, 2], [tiny, -(mpmath.mpf(10) ** 300), mpmath.log(3) + tiny])
        assert time.perf_counter() - start < 1.0
        assert abs(law.logpmf_mp(0) + mpmath.log(4)) < mpmath.mpf(10) ** -55
        assert abs(law.logpmf_mp(2) - mpmath.log(mpmath.mpf(3) / 4)) < mpmath.mpf(10) ** -55
        assert law.logpmf_mp(1) < -(mpmath.mpf(10) ** 299)
