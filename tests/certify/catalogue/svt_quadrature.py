"""The answer-list probability of the sparse vector technique by numerical integration over the
threshold noise, with the implementation's own scales: the reference the catalogue's exact closed
forms are tied to (shared by the classic tests)."""

from __future__ import annotations

import math

from scipy import integrate

from dpquant.audit.suites.classic import SparseVector


def laplace_cdf(x: float, b: float) -> float:
    """The CDF of Lap(b) at ``x``."""
    return 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)


def quadrature(svt: SparseVector, q: list[int], pattern: str) -> float:
    """P(pattern | q) = ∫ f_ρ(r) Π_i g_i(r) dr with the implementation's scales and threshold
    ("F": below the threshold, else above; no query noise: a step)."""
    b_rho, b_nu, t = svt.threshold_scale, svt.query_scale, svt.threshold

    def integrand(r: float) -> float:
        out = math.exp(-abs(r) / b_rho) / (2 * b_rho)
        for symbol, qi in zip(pattern, q, strict=False):
            x = t + r - qi
            below = laplace_cdf(x, b_nu) if b_nu else float(x > 0)
            out *= below if symbol == "F" else 1 - below
        return out

    cuts = sorted({-60 * b_rho, 0.0, *(qi - t for qi in q), 60 * b_rho})
    return sum(
        integrate.quad(integrand, a, b, epsabs=1e-15, epsrel=1e-12)[0]
        for a, b in zip(cuts, cuts[1:], strict=False)
    )
