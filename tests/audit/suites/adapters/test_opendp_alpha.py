"""OpenDP's private quantile reads α as we say it does (``opendp_alpha``), checked against the
library's own privacy map, and the adapter builds a mechanism for every α in [0, 1]."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpquant.audit.suites.adapters.libraries import opendp_measurement, opendp_quantile
from dpquant.reference.primitives import opendp_alpha

CANDIDATES = tuple(float(c) for c in np.linspace(0.0, 1.0, 11))
# the α where ⌊α·10⁴⌋ and round(α·10⁴) differ (1/18, 0.57, 0.55555, 0.99995), where the float
# product falls just below an integer (0.57), exact binary fractions, and 200 seeded draws
ALPHAS = (1 / 18, 0.57, 0.55555, 0.99995, 0.29, 0.3, 0.5, 0.25, 0.0, 1.0, 1 / 3, 5e-5) + tuple(
    float(a) for a in np.random.default_rng(20261130).uniform(0.0, 1.0, 200)
)


@pytest.fixture(scope="module")
def opendp() -> None:
    pytest.importorskip("opendp.prelude", reason="opendp is not installed (extra: peers)")


@pytest.mark.parametrize("alpha", ALPHAS[:12])
def test_opendp_alpha_is_the_alpha_of_opendps_privacy_map(opendp: None, alpha: float) -> None:
    """At scale 1 and d_in = 1 OpenDP's map is 2·max(a, d − a)/d for its (a, d): ours give the same
    ε (the float product α·10⁴ floored; rounding it, as we did, missed 1/18 and 0.57)."""
    a, d = opendp_alpha(alpha)
    mapped = float(opendp_measurement(CANDIDATES, alpha, 1.0, "max_divergence").map(1))
    assert mapped == pytest.approx(2 * max(a, d - a) / d, rel=1e-12, abs=0.0)


def test_opendp_alpha_agrees_with_the_map_on_200_seeded_alphas(opendp: None) -> None:
    wrong = []
    for alpha in ALPHAS[12:]:
        a, d = opendp_alpha(alpha)
        mapped = float(opendp_measurement(CANDIDATES, alpha, 1.0, "max_divergence").map(1))
        if not math.isclose(mapped, 2 * max(a, d - a) / d, rel_tol=1e-12, abs_tol=0.0):
            wrong.append((alpha, (a, d), mapped))
    assert wrong == []


@pytest.mark.parametrize("alpha", [1 / 18, 0.57, 0.99995])
def test_the_adapter_builds_opendps_quantile_at_its_epsilon_for_these_alphas(
    opendp: None, alpha: float
) -> None:
    """The adapter's scale, 2·max(a, d − a)/(d·ε), maps to ε itself (it raised an
    AssertionError at α = 1/18 when α was rounded)."""
    mechanism = opendp_quantile(quantile=alpha, epsilon=1.0, candidates=CANDIDATES)
    assert mechanism.claim.epsilon == 1.0
