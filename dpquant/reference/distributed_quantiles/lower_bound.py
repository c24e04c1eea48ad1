"""Theorem F.1 (the adaptive LDP lower bound): the hard family ``P_β`` and the Fano step.

The checks in ``proofs_checks/test_aamand25.py`` verify exactly that the pairwise total variation
distances of the family are 4α, that the α-approximate q-quantile set of ``P_β`` is ``{β − 1}``,
and for which B the Fano step ``lg B − 1 − ½·lg(B − 1) ≥ ¼·lg B`` holds.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import workdps
from dpquant.reference.validation import check_choice, check_fraction, check_int

MAX_QUANTILE_SET = 10**6
"""The most CDF terms :func:`approximate_quantile_set` evaluates (|domain|·|pmf|)."""


def lower_bound_family(
    B: int, q: Any, alpha: Any, beta: int, *, base: int = 0
) -> dict[int, Fraction]:
    """The pmf of ``P_β`` (Theorem F.1).

    ``base = 0`` (App. F): mass ``q − 2α`` at 0, ``4α`` at β, ``1 − q − 2α`` at B − 1, β in
    {1, ..., B − 1}. ``base = 1`` (Sec. 3.2): the same on [B] with atoms 1, β, B and β in
    {2, ..., B − 2}. Needs ``q ∈ (2α, 1 − 2α)``; β at the top atom merges the two masses.
    """
    B = check_int(B, "B", minimum=4)
    a = check_fraction(alpha, "alpha", positive=True)
    qq = check_fraction(q, "q")
    if not 2 * a < qq < 1 - 2 * a:
        raise ParameterError("q", f"must lie in (2α, 1 − 2α) = ({2 * a}, {1 - 2 * a})", repr(q))
    base = check_int(base, "base", minimum=0, maximum=1)
    beta = check_int(beta, "beta")
    lo_b, hi_b = (1, B - 1) if base == 0 else (2, B - 2)
    if not lo_b <= beta <= hi_b:
        raise ParameterError("beta", f"must lie in [{lo_b}, {hi_b}]", beta)
    bottom, top = (0, B - 1) if base == 0 else (1, B)
    pmf: dict[int, Fraction] = {}
    for atom, mass in ((bottom, qq - 2 * a), (beta, 4 * a), (top, 1 - qq - 2 * a)):
        pmf[atom] = pmf.get(atom, Fraction(0)) + mass
    return pmf


def _check_pmf(pmf: Any, name: str) -> dict[Any, Fraction]:
    """A finite pmf: a dict from integer atoms to non-negative rationals (floats exactly)."""
    if not isinstance(pmf, dict):
        raise ParameterError(name, "must be a dict from atoms to probabilities", f"{pmf!r:.60}")
    if len(pmf) > MAX_QUANTILE_SET:
        raise ParameterError(name, f"must have at most {MAX_QUANTILE_SET} atoms", len(pmf))
    out = {}
    for atom, mass in pmf.items():
        key = check_int(atom, f"{name} atoms", minimum=-(2**62), maximum=2**62)
        out[key] = check_fraction(mass, f"{name}[{key}]", nonnegative=True)
    return out


def total_variation(p: dict[int, Fraction], q: dict[int, Fraction]) -> Fraction:
    """``‖P − Q‖_TV = ½·Σ|P(i) − Q(i)|`` exactly."""
    p, q = _check_pmf(p, "p"), _check_pmf(q, "q")
    keys = set(p) | set(q)
    return sum((abs(p.get(k, Fraction(0)) - q.get(k, Fraction(0))) for k in keys), Fraction(0)) / 2


def approximate_quantile_set(
    pmf: dict[int, Fraction], domain: range, q: Any, alpha: Any
) -> list[int]:
    """All ``m`` in ``domain`` with ``F(m) < q + α`` and ``F(m + 1) > q − α`` (Sec. 2, exact).

    ``F(m + 1) = 1`` past the top of the domain (the convention ``F(B + 1) = 1``).
    """
    pmf = _check_pmf(pmf, "pmf")
    if not isinstance(domain, range) or len(domain) == 0:
        raise ParameterError("domain", "must be a non-empty range of integers", f"{domain!r:.60}")
    if len(domain) * max(len(pmf), 1) > MAX_QUANTILE_SET:
        raise ValueError(
            f"domain and pmf need |domain|·|pmf| = {len(domain) * len(pmf)} CDF terms; at most "
            f"{MAX_QUANTILE_SET}"
        )
    qq = check_fraction(q, "q")
    a = check_fraction(alpha, "alpha", positive=True)

    def cdf(m: int) -> Fraction:
        if m > domain[-1]:
            return Fraction(1)
        return sum((w for x, w in pmf.items() if x <= m), Fraction(0))

    return [m for m in domain if cdf(m) < qq + a and cdf(m + 1) > qq - a]


def fano_lower_bound(B: int, *, entropy: str = "printed") -> mpmath.mpf:
    """The Fano step of Theorem F.1: ``H(β*) − 1 − ½·lg(B − 1)``.

    ``entropy="printed"`` uses ``H(β*) = lg B`` as the proof does; ``"uniform"`` uses the actual
    entropy ``lg(B − 1)`` of β* uniform on B − 1 values (``notes/aamand25.md`` erratum 5).
    """
    B = check_int(B, "B", minimum=2)
    entropy = check_choice(entropy, "entropy", ("printed", "uniform"))
    with workdps():
        h = mpmath.log(B, 2) if entropy == "printed" else mpmath.log(B - 1, 2)
        return h - 1 - mpmath.log(B - 1, 2) / 2


def fano_step_holds(B: int, *, entropy: str = "printed") -> bool:
    """Whether ``fano_lower_bound(B) ≥ ¼·lg B`` holds, decided in exact integer arithmetic.

    printed: ``¾·lg B − 1 − ½·lg(B − 1) ≥ 0 ⇔ B³ ≥ 16(B − 1)²``;
    uniform: ``½·lg(B − 1) − 1 ≥ ¼·lg B ⇔ (B − 1)² ≥ 16B``.
    """
    B = check_int(B, "B", minimum=2)
    entropy = check_choice(entropy, "entropy", ("printed", "uniform"))
    if entropy == "printed":
        return B**3 >= 16 * (B - 1) ** 2
    return (B - 1) ** 2 >= 16 * B
