"""JointExp of Gillenwater, Joseph & Kulesza, "Differentially Private Quantiles", ICML 2021
(arXiv 2102.08244): one exponential mechanism over all m outputs at once (not a baseline of the
imola25 paper; compared in our reproduction, notes/imola25.md).

Definitions (as in the paper and its reference code, google-research ``dp_multiq/joint_exp.py``):
data clamped to the bounds (a, b) and sorted; quantiles 0 < q_1 < ... < q_m < 1 with target gaps
t_j = (q_j − q_{j−1})·n (q_0 = 0, q_{m+1} = 1); outputs a <= o_1 <= ... <= o_m <= b with utility
u(o) = −Σ_{j=1}^{m+1} | #{x : o_{j−1} < x <= o_j} − t_j | (o_0 = a, o_{m+1} = b) and density
∝ exp(ε·u(o)/(2Δ)) on the ordered simplex. Sensitivity Δ = 2 under replace-one ("swap"); under
add/remove one count moves by 1 and every t_j by q_j − q_{j−1}, so Δ = 2·(1 − min_j (q_j − q_{j−1}))
over j = 1..m+1.

The law is computed exactly in log space by :mod:`~dpquant.reference.slice_quantiles.joint_exp_forward`
and sampled by :mod:`~dpquant.reference.slice_quantiles.joint_exp_sampler`. Input values outside the
bounds are clamped (documented), so ``domain`` is (−inf, inf).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.reference.core import MechanismBase
from dpquant.reference.measures import ZCDPClaim
from dpquant.reference.slice_quantiles.inputs import (
    check_adjacency_central,
    check_quantiles,
    check_release_fields,
    clamp_sort,
)
from dpquant.reference.slice_quantiles.joint_exp_forward import (
    METHODS,
    JointExpForward,
    check_forward_size,
    forward,
)
from dpquant.reference.slice_quantiles.joint_exp_sampler import sample_joint_exp, sampling_limit
from dpquant.reference.slice_quantiles.zcdp import em_zcdp_rho
from dpquant.reference.validation import (
    check_choice,
    check_positive,
)


def joint_exp_sensitivity(quantiles: Any, adjacency: str) -> float:
    """Δ of u: 2 (replace-one) or 2·(1 − min_j (q_j − q_{j−1})), j = 1..m+1 (add/remove)."""
    q = check_quantiles(quantiles)
    adjacency = check_adjacency_central(adjacency)
    if adjacency == "replace_one":
        return 2.0
    gaps = np.diff(np.concatenate([[0.0], q, [1.0]]))
    return 2.0 * (1.0 - float(gaps.min()))


def joint_exp(
    data: Any,
    quantiles: Any,
    bounds: tuple[float, float],
    epsilon: float,
    rng: np.random.Generator,
    *,
    adjacency: str = "replace_one",
    method: str = "auto",
) -> np.ndarray:
    """One ε-DP JointExp release: m sorted estimates (module docstring)."""
    return JointExpMechanism(quantiles, epsilon, bounds, adjacency, method=method).sample(
        data, 1, rng
    )[0]


@dataclass(frozen=True)
class JointExpMechanism(MechanismBase):
    """JointExp as a :class:`dpquant.reference.core.Mechanism`: claim (ε, 0); ``domain`` (−inf, inf)
    since inputs are clamped to ``bounds``. ``sensitivity`` overrides Δ (a value below the true
    one is a deliberately broken variant).

    Refused on data where the forward pass is too large (m·(n + 1) above
    :data:`~dpquant.reference.slice_quantiles.joint_exp_forward.MAX_CELLS`) or its log-weights would lose
    precision (c·(n + 1) above :data:`~dpquant.reference.slice_quantiles.joint_exp_forward.MAX_EXPONENT`,
    c = ε/(2Δ)); one call draws at most
    :func:`~dpquant.reference.slice_quantiles.joint_exp_sampler.sampling_limit` releases."""

    quantiles: tuple[float, ...]
    epsilon: float
    bounds: tuple[float, float]
    adjacency: str = "replace_one"
    method: str = "auto"
    sensitivity: float | None = None

    clamps = True  # any finite value is valid input: values outside ``bounds`` are clamped
    allow_empty = True  # the empty data set: uniform on the ordered simplex of (a, b)

    def __post_init__(self) -> None:
        check_release_fields(self)
        check_choice(self.method, "method", METHODS)
        if self.sensitivity is not None:
            object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))
        if not math.isfinite(self.scale):
            raise ValueError("epsilon/(2·sensitivity) must be a finite float")

    @property
    def delta_u(self) -> float:
        if self.sensitivity is not None:
            return float(self.sensitivity)
        return joint_exp_sensitivity(self.quantiles, self.adjacency)

    @property
    def zcdp_claim(self) -> ZCDPClaim:
        """ε²/8-zCDP: JointExp is one exponential mechanism with weight ε/(2Δ) (imola25 Sec. 6,
        citing Cesar and Rogers 2021; :func:`~dpquant.reference.slice_quantiles.zcdp.em_zcdp_rho`)."""
        return ZCDPClaim(em_zcdp_rho(self.epsilon), adjacency=self.adjacency)

    @property
    def scale(self) -> float:
        """c = ε/(2Δ)."""
        return self.epsilon / (2.0 * self.delta_u)

    def forward(self, data: Any) -> JointExpForward:
        """The forward pass on ``data`` (clamped, sorted)."""
        return self._forward(self.check_input(data))

    def _forward(self, data: np.ndarray) -> JointExpForward:
        x = clamp_sort(data, self.bounds)
        check_forward_size(len(self.quantiles), x.size, self.scale, "epsilon/(2·sensitivity)")
        return forward(x, np.asarray(self.quantiles), self.bounds, self.scale, self.method)

    def draw_limit(self, data: np.ndarray) -> int:
        return sampling_limit(len(self.quantiles), data.size)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent releases, shape (size, m)."""
        out = sample_joint_exp(self._forward(data), size, rng)
        return np.clip(out, self.bounds[0], self.bounds[1], out=out)
