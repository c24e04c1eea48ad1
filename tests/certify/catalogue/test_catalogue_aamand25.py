"""The catalogue's aamand25 expressions are the implementation's quantities."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from hypothesis import given
from hypothesis import strategies as st

from dpquant.certify.catalogue.aamand25 import LEMMA_G5
from dpquant.certify.expressions import enclose
from dpquant.reference.distributed_quantiles.amplification import (
    fmt_epsilon_mp,
    local_epsilon_lemma_g5,
)


@given(
    st.floats(min_value=1e-3, max_value=1.0),
    st.floats(min_value=1e-12, max_value=0.9),
    st.floats(min_value=1.01, max_value=1e4),
)
def test_lemma_g5_expression_is_the_implementations_epsilon(
    eps: float, delta: float, stretch: float
) -> None:
    """At (ε, s = 1/ln(4/δ), w = 80·ln(4/δ)/(ε²n)), ε minus the goal's logarithm is the
    implementation's Thm G.4 ε at Lemma G.5's local ε."""
    a = math.log(4 / delta)
    n = math.ceil(256 * a / eps**2 * stretch) + 1
    eps_local = local_epsilon_lemma_g5(eps, n, delta)
    implemented = fmt_epsilon_mp(eps_local, n, delta)
    with mpmath.workdps(60):
        a_mp = mpmath.log(4 / mpmath.mpf(delta))
        s = Fraction(mpmath.nstr(1 / a_mp, 40))
        w = Fraction(mpmath.nstr(80 * a_mp / (mpmath.mpf(eps) ** 2 * n), 40))
    goal = enclose(LEMMA_G5.parts[0].goal.expression, {"eps": Fraction(eps), "s": s, "w": w})
    assert abs(float(goal.mid()) - (eps - float(implemented))) <= 1e-12
    assert 0 <= float(s) <= float(Fraction(LEMMA_G5.parts[0].variables[1].hi))
    assert 0 <= float(w) < 5 / 16
