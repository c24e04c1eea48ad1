"""Theorem 6 of fukuchi19 (Algorithm 2 is ε-LDP; the privacy part of Theorem 2), exactly.

* Output level: on random tiny instances (N <= 4, L <= 4, random γ, neighbours D, D′ that differ in
  one coordinate) every leaf has P_D <= e^ε·P_D′, exactly in rationals when e^{ε/L} is rational and
  at 60 digits (margin 1e-40) for a float ε.
* Transcript level: for N·L <= 12 every one of the 2^{NL} report matrices is enumerated here,
  independently of the package (the decision is the paper's Φ′ >= γ in exact arithmetic, not the
  package's threshold m*). With p = a/(1 + a), a = e^u, a matrix R has probability
  a^{m(R)}/(1 + a)^{NL} where m(R) counts the reports that equal the true bit, so the full view's
  log-likelihood ratio is u·(m_D(R) − m_D′(R)): the loss is an integer multiple of u. The
  enumeration is compared with :class:`dpquant.reference.ldp_minimum.transcript.UserTranscript` (its
  exact law, aggregated, and its maximal loss) and with the exact output law.
* Tightness (the reference laws of ``notes/fukuchi19.md``): N = 1, L = 2, e^u = 3, γ = ½ gives (9, 3, 3, 1)/16 against (1, 3, 3, 9)/16,
  ratio 9 = e^ε exactly; the transcript loss is ε at x = −1, x′ = 1 for every N, L, γ.
* The usual transcript formula u·max #{t : τ_t ∈ [min, max)} is an upper bound; it is not always
  attained when the user's own report steers the search (N = 1, L = 4, x = ∓0.3: 2u < 3u).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum.exact_law import leaf_probabilities_exact
from dpquant.reference.ldp_minimum.round_statistic import round_rule
from dpquant.reference.ldp_minimum.transcript import UserTranscript

MARGIN = mpmath.mpf(10) ** -40  # far above the 60-digit working precision, far below any gap

GRID = [Fraction(k, 8) for k in range(-8, 9)]  # every τ of depth <= 3 and the ends: ties
value = st.sampled_from([float(g) for g in GRID]) | st.floats(-1.0, 1.0)
gammas = st.sampled_from([0.125, 0.25, 1 / 3, 0.5, 2 / 3, 0.75, 1.0, 1.25]) | st.floats(0.01, 1.5)
exp_us = st.builds(lambda a, b: 1 + Fraction(a, b), st.integers(1, 8), st.integers(1, 4))
epsilons = st.floats(0.05, 8.0)


@st.composite
def neighbours(draw, max_n: int = 4, max_levels: int = 4, max_cells: int = 16):
    """(D, D′, i, L, γ): D′ is D with coordinate i replaced."""
    levels = draw(st.integers(1, max_levels))
    n = draw(st.integers(1, min(max_n, max_cells // levels)))
    d = draw(st.lists(value, min_size=n, max_size=n))
    i = draw(st.integers(0, n - 1))
    d2 = list(d)
    d2[i] = draw(value)
    return np.array(d), np.array(d2), i, levels, draw(gammas)


# ============================================================================= output level


@given(neighbours(), exp_us)
def test_theorem_6_output_law_is_eps_dp_exactly_with_rational_exp_u(case, a) -> None:
    d, d2, _, levels, gamma = case
    rule = round_rule(len(d), levels, gamma, exp_u=a)
    p, q = leaf_probabilities_exact(d, rule), leaf_probabilities_exact(d2, rule)
    bound = a**levels  # e^ε, exactly
    assert sum(p) == 1 and sum(q) == 1
    for pj, qj in zip(p, q, strict=True):
        assert (pj == 0) == (qj == 0)
        assert pj <= bound * qj and qj <= bound * pj


@given(neighbours(), epsilons)
def test_theorem_6_output_law_is_eps_dp_at_60_digits_with_float_epsilon(case, eps) -> None:
    d, d2, _, levels, gamma = case
    rule = round_rule(len(d), levels, gamma, epsilon=eps)
    p, q = leaf_probabilities_exact(d, rule), leaf_probabilities_exact(d2, rule)
    with workdps():
        worst = max(abs(mpmath.log(pj) - mpmath.log(qj)) for pj, qj in zip(p, q, strict=True))
        assert worst <= to_mpf(eps) + MARGIN


# ============================================================================= transcript level


def _decisions_exact(n: int, gamma: float, a: Fraction) -> list[bool]:
    """Algorithm 2, line 8, for every count P of "+1" reports: Φ′ = (c/(2N))(2P − N) + ½ >= γ,
    with c = (a + 1)/(a − 1) and γ's binary value, exactly."""
    g, c = Fraction(gamma), (a + 1) / (a - 1)
    return [c * (2 * k - n) / (2 * n) + Fraction(1, 2) >= g for k in range(n + 1)]


def _decisions_float(n: int, levels: int, gamma: float, eps: float) -> list[bool]:
    """The same at 60 digits for a float ε (c = coth(u/2)); an exact tie needs 2P = N and γ = ½,
    where both sides are exactly ½."""
    with workdps():
        c = mpmath.coth(to_mpf(eps) / (2 * levels))
        return [c * (2 * k - n) / (2 * n) + mpmath.mpf(0.5) >= to_mpf(gamma) for k in range(n + 1)]


def _enumerate(data: np.ndarray, levels: int, left: list[bool], user: int):
    """Every report matrix R ∈ {−1, +1}^{L×N} (rows: rounds), replayed through Algorithm 2.

    Returns m(R) (reports equal to the true bit), the leaf index, and the user's transcript code
    Σ_t (2·s_t + [z_{t,user} = +1])·(2N)^t with s_t the other users' "+1" count.
    """
    n = data.size
    cells = n * levels
    r = ((np.arange(2**cells)[:, None] >> np.arange(cells)) & 1).reshape(-1, levels, n)
    plus = r.astype(bool)
    node = np.zeros(len(r), dtype=np.int64)
    matches = np.zeros(len(r), dtype=np.int64)
    code = np.zeros(len(r), dtype=np.int64)
    lookup = np.array(left)
    for t in range(levels):
        width = 2.0 ** (1 - t)  # depth t + 1: τ = −1 + (2j + 1)·2^{−t}
        tau = -1.0 + (2 * node + 1) * width / 2
        truth = data[None, :] <= tau[:, None]
        matches += np.count_nonzero(plus[:, t, :] == truth, axis=1)
        total = np.count_nonzero(plus[:, t, :], axis=1)
        others = total - plus[:, t, user]
        code += (2 * others + plus[:, t, user]) * (2 * n) ** t
        node = 2 * node + np.where(lookup[total], 0, 1)
    return matches, node, code


def _aggregate(keys: np.ndarray, weights: list) -> dict[int, object]:
    out: dict[int, object] = {}
    for k, w in zip(keys.tolist(), weights, strict=True):
        out[k] = out.get(k, 0) + w
    return out


@given(neighbours(max_cells=12), exp_us)
def test_theorem_6_full_transcript_by_enumeration_with_rational_exp_u(case, a) -> None:
    d, d2, i, levels, gamma = case
    n = d.size
    left = _decisions_exact(n, gamma, a)
    m0, leaf0, code0 = _enumerate(d, levels, left, i)
    m1, leaf1, code1 = _enumerate(d2, levels, left, i)
    assert np.array_equal(leaf0, leaf1) and np.array_equal(code0, code1)  # the view fixes both
    # full view: |ln P_D(R) − ln P_D′(R)| = u·|m_D(R) − m_D′(R)| <= L·u = ε
    units = int(np.max(np.abs(m0 - m1)))
    assert units <= levels
    # the per-user channel (others fixed) has the same law, aggregated, and the same maximal loss
    others = tuple(np.delete(d, i).tolist())
    channel = UserTranscript.with_exp_u(a, levels, gamma, others)
    scale = (1 + a) ** (n * levels)
    pow_a = [a**k for k in range(n * levels + 1)]
    for data, m in ((d, m0), (d2, m1)):
        law = _aggregate(code0, [pow_a[k] / scale for k in m.tolist()])
        assert channel.probabilities(data[i]) == {c: w for c, w in law.items()}
        leaves = _aggregate(leaf0, [pow_a[k] / scale for k in m.tolist()])
        rule = round_rule(n, levels, gamma, exp_u=a)
        exact = leaf_probabilities_exact(data, rule)
        assert all(exact[j] == leaves.get(j, 0) for j in range(2**levels))
    assert channel.max_loss_units(d[i], d2[i]) == units
    assert units <= channel.max_differing_rounds(d[i], d2[i]) <= levels


@given(neighbours(max_cells=12), epsilons)
def test_theorem_6_full_transcript_by_enumeration_with_float_epsilon(case, eps) -> None:
    d, d2, i, levels, gamma = case
    n = d.size
    left = _decisions_float(n, levels, gamma, eps)
    m0, _, code0 = _enumerate(d, levels, left, i)
    m1, _, _ = _enumerate(d2, levels, left, i)
    units = int(np.max(np.abs(m0 - m1)))
    channel = UserTranscript(eps, levels, gamma, tuple(np.delete(d, i).tolist()))
    assert channel.max_loss_units(d[i], d2[i]) == units <= levels
    with workdps():
        u = to_mpf(eps) / levels
        assert channel.max_loss(d[i], d2[i]) <= to_mpf(eps) + MARGIN
        p = 1 / (1 + mpmath.exp(-u))
        cells = n * levels
        law = _aggregate(code0, [p**k * (1 - p) ** (cells - k) for k in m0.tolist()])
        got = channel.probabilities(d[i])
        assert set(got) == set(law)
        assert max(abs(got[c] - law[c]) for c in law) <= MARGIN
        # the channel's exact law gives the same loss
        q = channel.probabilities(d2[i])
        worst = max(abs(mpmath.log(got[c]) - mpmath.log(q[c])) for c in got)
        assert abs(worst - units * u) <= MARGIN


# ============================================================================= tightness


def test_theorem_6_is_attained_for_n1_l2_exp_u_3_as_in_the_reference_law() -> None:
    """The reference law: N = 1, L = 2, e^u = 3, γ = ½: (9, 3, 3, 1)/16 vs (1, 3, 3, 9)/16, ratio 9 = e^ε;
    N = 2, D = (−1, 1) vs D′ = (1, 1): (169, 39, 39, 9)/256 vs (49, 63, 63, 81)/256, ratio 9."""
    rule = round_rule(1, 2, 0.5, exp_u=3)
    p, q = leaf_probabilities_exact([-1.0], rule), leaf_probabilities_exact([1.0], rule)
    assert p == [Fraction(v, 16) for v in (9, 3, 3, 1)]
    assert q == [Fraction(v, 16) for v in (1, 3, 3, 9)]
    assert max(pj / qj for pj, qj in zip(p, q, strict=True)) == 9 == 3**2
    rule2 = round_rule(2, 2, 0.5, exp_u=3)
    p2 = leaf_probabilities_exact([-1.0, 1.0], rule2)
    q2 = leaf_probabilities_exact([1.0, 1.0], rule2)
    assert p2 == [Fraction(v, 256) for v in (169, 39, 39, 9)]
    assert q2 == [Fraction(v, 256) for v in (49, 63, 63, 81)]
    assert max(max(a / b, b / a) for a, b in zip(p2, q2, strict=True)) == 9
    channel = UserTranscript.with_exp_u(3, 2, 0.5, ())
    assert channel.probabilities(-1.0) == dict(zip((3, 1, 2, 0), p, strict=True))


@given(st.integers(1, 4), gammas, st.lists(value, max_size=3), exp_us)
def test_transcript_loss_is_exactly_epsilon_at_the_domain_ends(levels, gamma, others, a) -> None:
    """Every τ_t lies in (−1, 1) ⊂ [−1, 1), so every round's bits differ and any reports are
    allowed: the maximal transcript loss is L·u = ε exactly (transcript.py)."""
    channel = UserTranscript.with_exp_u(a, levels, gamma, tuple(others))
    assert channel.max_loss_units(-1.0, 1.0) == levels == channel.max_differing_rounds(-1.0, 1.0)
    if channel.n_codes <= 2**12:
        p, q = channel.probabilities(-1.0), channel.probabilities(1.0)
        assert max(max(p[c] / q[c], q[c] / p[c]) for c in p) == a**levels  # e^ε, attained


def test_transcript_loss_formula_is_an_upper_bound_not_always_attained() -> None:
    """N = 1, L = 4, e^u = 3, γ = ½ (m* = 1: go left iff the user reports +1), x = −0.3,
    x′ = 0.3: the path 0 → −½ → −¼ → −⅛ meets three thresholds in [−0.3, 0.3), but it needs
    z = +1 at τ = 0 and z = −1 at τ = −¼, whose contributions cancel; the exact maximum is 2u."""
    channel = UserTranscript.with_exp_u(3, 4, 0.5, ())
    assert channel.rule.threshold == 1
    assert channel.max_differing_rounds(-0.3, 0.3) == 3
    assert channel.max_loss_units(-0.3, 0.3) == 2
    p, q = channel.probabilities(-0.3), channel.probabilities(0.3)
    assert max(max(p[c] / q[c], q[c] / p[c]) for c in p) == 3**2


@pytest.mark.parametrize("n", [3, 4])
def test_transcript_loss_formula_is_exact_when_others_can_steer_both_ways(n) -> None:
    """With 2 <= m* <= N − 1 either report of the user allows either direction, so the exact
    maximal loss equals the formula for every pair of values on the depth-3 grid (e^u = 3,
    γ = ½: m* = ⌈N·(1 + 0)/2⌉ = 2)."""
    channel = UserTranscript.with_exp_u(3, 3, 0.5, (0.0,) * (n - 1))
    assert 2 <= channel.rule.threshold <= n - 1
    for x, y in itertools.combinations([float(g) for g in GRID] + [0.3, -0.6], 2):
        assert channel.max_loss_units(x, y) == channel.max_differing_rounds(x, y)
