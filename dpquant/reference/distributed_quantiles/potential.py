"""Lemma E.3's potential and the exact expected drift of one BayesLearn step (App. E).

State of one step of BayesLearn (Alg. 2) against the adversary of Def. E.1:

* weights ``w`` over the intervals ``1..B−1`` (interval ``i`` lies between coins ``i`` and
  ``i+1``); any positive vector, normalised here (BayesLearn keeps Σw = 1);
* the initial coin probabilities ``p1 = (p_0, …, p_B)`` with ``0 = p_0 <= p_1 <= … <= p_B = 1``
  (coins ``1..B`` are flipped; ``p_0 = 0`` is Def. E.1's sentinel coin, ``notes/aamand25.md``
  "Coins and sentinels");
* the adversary's current probabilities ``pt`` with ``|pt_i − p1_i| <= cα``, in [0, 1], in the
  same order (Def. E.1); only the flipped coin's value matters for one step;
* the multiset ``L`` through two counts: its size and how many of its entries are good.

The potential (App. E, "New potential") is

    Φ(w, L) = lg w(a) + 12·C_{τ,α}·(|{x ∈ L : x ∈ [ℓ, r]}| − γ·|L|),

with ``a = max{i ∈ [B−1] : p1_i <= τ}`` (so ``p1_a <= τ < p1_{a+1}``: interval ``a`` holds the
τ-point) and ``[ℓ, r]`` the (τ, α(1+c))-good intervals: interval ``i`` is (τ, α')-good when
``[p1_i, p1_{i+1}] ∩ (τ − α', τ + α') ≠ ∅``, i.e. ``p1_i < τ + α'`` and ``p1_{i+1} > τ − α'``
(Eq. (3)); by monotonicity these intervals are consecutive and contain ``a``.

One step: ``j = min{i : W(i) >= q}``, ``k = (q − W(j−1))/w(j)``; the flipped coin is ``j`` if
``k <= q`` else ``j+1`` (rounding ``"paper"``, Alg. 2 line 5) or always ``j`` (``"left"``, the
authors' code, ``notes/aamand25.md`` "Rounding"); the flip is heads with probability
``pt[coin]``; the weights are multiplied by ``d_{ỹ,0}`` left of ``j`` and ``d_{ỹ,1}`` right of it,
and ``w(j) ← d_{ỹ,0}·(q − W(j−1)) + d_{ỹ,1}·(W(j) − q)``; ``j`` joins ``L``. Given the state the
step is deterministic up to that one flip, so ``E[Φ_{t+1} − Φ_t | state]`` is a two-term sum,
computed here in mpmath (default 80 digits). Lemma E.3 claims it is at least
``(1 − 12γ)·C_{τ,α}`` for ``c <= 1`` and ``α <= ½·min(τ, 1 − τ)``; it is linear in ``pt[coin]``,
so the two adversarial extremes ``pt = clip(p1 ± cα)`` cover every adversary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.channel import (
    MAX_DPS,
    BayesWeights,
    bayes_weights_mp,
    capacity_mp,
    mp_real,
    mp_unit,
)
from dpquant.reference.validation import check_choice, check_int

__all__ = [
    "DRIFT_OPTIONS",
    "DriftResult",
    "Rounding",
    "adversarial_probabilities",
    "bayes_update",
    "expected_potential_drift",
    "good_intervals",
    "lemma_e3_bound",
    "potential",
    "query_interval",
    "round_interval_to_coin",
    "target_interval",
    "uniform_weights",
    "worst_case_drift",
]

Rounding = Literal["paper", "left"]
DEFAULT_DPS = 80

MAX_COINS = 10**4
"""The largest B of the exact one-step computations (O(B) mpmath numbers per step)."""

# ----------------------------------------------------------------------------- validation


def _mp_vector(values: Any, name: str) -> list[mpmath.mpf]:
    if not isinstance(values, list | tuple | np.ndarray):
        raise ParameterError(
            name,
            "must be a sequence (list, tuple or 1-D array) of real numbers",
            type(values).__name__,
        )
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise ParameterError(
            name,
            "must be a 1-D sequence of real numbers",
            f"shape {values.shape}",
        )
    if len(values) > MAX_COINS + 1:
        raise ParameterError(name, f"must hold at most {MAX_COINS + 1} numbers", len(values))
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    return [mp_real(v, f"{name}[{i}]") for i, v in enumerate(items)]


def _positive(w: Any) -> list[mpmath.mpf]:
    """Positive weights over intervals 1..B−1 (as given)."""
    vals = _mp_vector(w, "w")
    if not vals:
        raise ParameterError("w", "must hold one weight per interval 1..B-1 (B >= 2)", "none")
    if any(v <= 0 for v in vals):
        raise ParameterError("w", "must be positive (every weight in (0, inf))")
    return vals


def _weights(w: Any) -> list[mpmath.mpf]:
    """Positive weights over intervals 1..B−1, normalised to sum 1."""
    vals = _positive(w)
    total = mpmath.fsum(vals)
    return [v / total for v in vals]


def _probabilities(p: Any, name: str, B: int | None = None) -> list[mpmath.mpf]:
    """p_0..p_B in [0, 1], non-decreasing."""
    vals = _mp_vector(p, name)
    if len(vals) < 3:
        raise ParameterError(name, "must hold p_0..p_B for B >= 2 (length >= 3)", len(vals))
    if B is not None and len(vals) != B + 1:
        raise ParameterError(name, f"must have length B + 1 = {B + 1} (p_0..p_B)", len(vals))
    if any(not 0 <= v <= 1 for v in vals):
        raise ParameterError(name, "must lie in [0, 1]")
    if any(vals[i] > vals[i + 1] for i in range(len(vals) - 1)):
        raise ParameterError(name, "must be non-decreasing (coins are ordered, Def. E.1)")
    return vals


def _initial_probabilities(p1: Any) -> list[mpmath.mpf]:
    vals = _probabilities(p1, "p1")
    if vals[0] != 0 or vals[-1] != 1:
        raise ParameterError("p1", "must have the sentinels p1[0] = 0 and p1[B] = 1 (Def. E.1)")
    return vals


def _slack(c: Any, gamma: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    cv = mp_real(c, "c")
    if not 0 <= cv <= 1:
        raise ParameterError("c", "must lie in [0, 1] (Lemma E.3 assumes c <= 1)", repr(c))
    gv = mp_real(gamma, "gamma")
    if not 0 <= gv <= 1:
        raise ParameterError("gamma", "must lie in [0, 1]", repr(gamma))
    return cv, gv


def _check_rounding(rounding: Any) -> str:
    return check_choice(rounding, "rounding", ("paper", "left"))


def _check_dps(dps: Any) -> int:
    return check_int(dps, "dps", minimum=50, maximum=MAX_DPS)


def _check_count(value: Any, name: str) -> int:
    return check_int(value, name, minimum=0, maximum=2**62)


def _tau(tau: Any) -> mpmath.mpf:
    value = mp_real(tau, "tau")
    if not 0 < value < 1:
        raise ParameterError("tau", "must lie in (0, 1)", repr(tau))
    return value


def _step_args(w: Any, q: Any, j: Any) -> tuple[list[mpmath.mpf], mpmath.mpf, int]:
    """Positive weights (as given), a query point in [0, 1] and an index j in 1..len(w)."""
    weights = _positive(w)
    return weights, mp_unit(q, "q"), check_int(j, "j", minimum=1, maximum=len(weights))


# ----------------------------------------------------------------------------- the step


def uniform_weights(B: int) -> list[mpmath.mpf]:
    """BayesLearn's prior w(i) = 1/(B−1) on intervals 1..B−1 (Alg. 2 line 8)."""
    B = check_int(B, "B", minimum=2, maximum=MAX_COINS)
    return [mpmath.mpf(1) / (B - 1)] * (B - 1)


def query_interval(w: Sequence[mpmath.mpf], q: mpmath.mpf) -> int:
    """GetIntervalFromQuantile (Alg. 2 line 2): j = min{i : W(i) >= q}, 1-based; normalised w."""
    w = _positive(w)
    q = mp_unit(q, "q")
    total = mpmath.mpf(0)
    for i, wi in enumerate(w, start=1):
        total += wi
        if total >= q:
            return i
    return len(w)  # W(B−1) = 1 >= q up to rounding


def round_interval_to_coin(
    j: int, w: Sequence[mpmath.mpf], q: mpmath.mpf, rounding: Rounding
) -> tuple[int, mpmath.mpf]:
    """RoundIntervalToCoin (Alg. 2 line 5): (coin, k) with k = (q − W(j−1))/w(j); the coin is j if
    k <= q else j + 1 ("paper"), or always j ("left", the authors' code)."""
    w, q, j = _step_args(w, q, j)
    before = mpmath.fsum(w[: j - 1])
    k = (q - before) / w[j - 1]
    if _check_rounding(rounding) == "left":
        return j, k
    return (j if k <= q else j + 1), k


def bayes_update(
    w: Sequence[mpmath.mpf], j: int, q: mpmath.mpf, flip: int, d: BayesWeights
) -> list[mpmath.mpf]:
    """Alg. 2 line 18 (with the fix W(j) − q, ``notes/aamand25.md`` erratum 1): d_{ỹ,0} left of
    j, d_{ỹ,1} right of j, and w(j) ← d_{ỹ,0}·(q − W(j−1)) + d_{ỹ,1}·(W(j) − q)."""
    w, q, j = _step_args(w, q, j)
    if not isinstance(d, BayesWeights):
        raise ParameterError("d", "must be a BayesWeights", type(d).__name__)
    left, right = d.d(flip, 0), d.d(flip, 1)
    before = mpmath.fsum(w[: j - 1])
    out = [wi * left for wi in w[: j - 1]]
    out.append(left * (q - before) + right * (before + w[j - 1] - q))
    out.extend(wi * right for wi in w[j:])
    return out


def target_interval(p1: Any, tau: Any) -> int:
    """a = max{i ∈ [B−1] : p1_i <= τ} (Lemma E.3); p1_a <= τ < p1_{a+1} since p1_B = 1 > τ.

    Raises ``ValueError`` when p1_1 > τ: the τ-point then lies left of coin 1, outside every
    interval BayesLearn tracks, and Lemma E.3's a does not exist.
    """
    p = _initial_probabilities(p1)
    t = _tau(tau)
    candidates = [i for i in range(1, len(p) - 1) if p[i] <= t]
    if not candidates:
        raise ParameterError(
            "p1[1]",
            "must be <= tau: Lemma E.3's interval a = max{i in [B-1] : p1_i <= tau} does not "
            "exist otherwise",
        )
    return max(candidates)


def good_intervals(p1: Any, tau: Any, alpha_good: Any) -> tuple[int, int]:
    """(ℓ, r): the (τ, α')-good intervals are exactly ℓ..r, i.e. p1_i < τ + α' and
    p1_{i+1} > τ − α' (Eq. (3)); Lemma E.3 uses α' = α(1 + c). Requires the interval a
    of :func:`target_interval` (which is always good)."""
    p = _initial_probabilities(p1)
    t, ag = _tau(tau), mp_real(alpha_good, "alpha_good")
    if ag <= 0:
        raise ParameterError("alpha_good", "must be > 0", repr(alpha_good))
    a = target_interval(p, t)
    good = [i for i in range(1, len(p) - 1) if p[i] < t + ag and p[i + 1] > t - ag]
    if a not in good or good != list(range(good[0], good[-1] + 1)):  # pragma: no cover
        raise ArithmeticError("good intervals are not consecutive around a")
    return good[0], good[-1]


def adversarial_probabilities(p1: Any, alpha: Any, c: Any, direction: int) -> list[mpmath.mpf]:
    """The adversary's extreme ``clip(p1 + direction·cα, 0, 1)`` (Def. E.1): every coin moved by
    cα the same way, so the order is kept; direction is +1 or −1."""
    direction = check_int(direction, "direction", minimum=-1, maximum=1)
    if direction == 0:
        raise ParameterError("direction", "must be +1 or -1", "0")
    p = _initial_probabilities(p1)
    shift = mp_real(alpha, "alpha") * mp_real(c, "c") * direction
    return [min(max(v + shift, mpmath.mpf(0)), mpmath.mpf(1)) for v in p]


# ----------------------------------------------------------------------------- the potential


def potential(
    w: Any,
    good_count: int,
    size: int,
    p1: Any,
    tau: Any,
    capacity: Any,
    gamma: Any = Fraction(1, 13),
) -> mpmath.mpf:
    """Φ(w, L) = lg w(a) + 12·C·(good_count − γ·size) (App. E, "New potential"); ``good_count``
    is |{x ∈ L : x ∈ [ℓ, r]}| and ``size`` is |L|; ``w`` is normalised first."""
    good_count, size = _check_count(good_count, "good_count"), _check_count(size, "size")
    if good_count > size:
        raise ParameterError("good_count", f"must be <= size = {size}", good_count)
    weights = _weights(w)
    p = _initial_probabilities(p1)
    if len(p) != len(weights) + 2:
        raise ParameterError("p1", f"must have length B + 1 = {len(weights) + 2}", len(p))
    a = target_interval(p, tau)
    C, g = mp_real(capacity, "capacity"), mp_real(gamma, "gamma")
    return mpmath.log(weights[a - 1], 2) + 12 * C * (good_count - g * size)


def lemma_e3_bound(tau: Any, alpha: Any, gamma: Any = Fraction(1, 13), *, dps: int = 60) -> Any:
    """Lemma E.3's lower bound (1 − 12γ)·C_{τ,α} (mpmath)."""
    with mpmath.workdps(_check_dps(dps) + 20):
        return (1 - 12 * mp_real(gamma, "gamma")) * capacity_mp(tau, alpha, dps=dps)


@dataclass(frozen=True)
class DriftResult:
    """One BayesLearn step from a state (Lemma E.3): the exact expected potential change and the
    pieces it came from. ``phi_after`` = (Φ after tails, Φ after heads)."""

    drift: mpmath.mpf
    bound: mpmath.mpf
    capacity: mpmath.mpf
    interval: int
    coin: int
    k: mpmath.mpf
    heads_probability: mpmath.mpf
    target: int
    good: tuple[int, int]
    phi: mpmath.mpf
    phi_after: tuple[mpmath.mpf, mpmath.mpf]

    @property
    def slack(self) -> mpmath.mpf:
        """drift − (1 − 12γ)·C; Lemma E.3 says it is >= 0."""
        return self.drift - self.bound


DRIFT_OPTIONS = ("gamma", "good_count", "size", "rounding", "dps")
"""The keyword options of :func:`expected_potential_drift` and :func:`worst_case_drift`."""


def expected_potential_drift(
    w: Any,
    p1: Any,
    pt: Any,
    tau: Any,
    alpha: Any,
    c: Any,
    *,
    gamma: Any = Fraction(1, 13),
    good_count: int = 0,
    size: int = 0,
    rounding: Rounding = "paper",
    dps: int = DEFAULT_DPS,
) -> DriftResult:
    """E[Φ_{t+1} − Φ_t | state] for one BayesLearn step (Alg. 2; Lemma E.3), exact to ``dps``.

    The step is run on the full state for both flip outcomes; Φ is recomputed from the updated
    weights and multiset (the L part changes by 12C·([j ∈ [ℓ, r]] − γ)). Inputs: see the module
    docstring; ``pt`` must satisfy |pt_i − p1_i| <= cα (up to 1e-40), lie in [0, 1] and be ordered.
    """
    dps = _check_dps(dps)
    _check_rounding(rounding)
    good_count, size = _check_count(good_count, "good_count"), _check_count(size, "size")
    if good_count > size:
        raise ParameterError("good_count", f"must be <= size = {size}", good_count)
    with mpmath.workdps(dps):
        t, a_ = mp_real(tau, "tau"), mp_real(alpha, "alpha")
        C = capacity_mp(t, a_, dps=dps)  # validates tau in (0, 1), alpha in (0, min(tau, 1-tau))
        cv, gv = _slack(c, gamma)
        weights = _weights(w)
        B = len(weights) + 1
        p = _initial_probabilities(p1)
        if len(p) != B + 1:
            raise ParameterError("p1", f"must have length B + 1 = {B + 1} (p_0..p_B)", len(p))
        now = _probabilities(pt, "pt", B)
        tol = mpmath.mpf(10) ** -40
        if any(abs(x - y) > cv * a_ + tol for x, y in zip(now, p, strict=True)):
            raise ParameterError(
                "pt",
                "must satisfy |pt_i - p1_i| <= c*alpha for every coin (Def. E.1)",
            )

        d = bayes_weights_mp(t, a_, dps=dps)
        q = d.q
        target = target_interval(p, t)
        lo, hi = good_intervals(p, t, a_ * (1 + cv))
        j = query_interval(weights, q)
        coin, k = round_interval_to_coin(j, weights, q, rounding)
        heads = now[coin]
        joins_good = int(lo <= j <= hi)

        phi = potential(weights, good_count, size, p, t, C, gv)
        after = []
        for flip in (0, 1):
            new_w = bayes_update(weights, j, q, flip, d)
            # q·d_{y,0} + (1−q)·d_{y,1} = 1 keeps Σw = 1 (App. E)
            if abs(mpmath.fsum(new_w) - 1) > tol:  # pragma: no cover
                raise ArithmeticError("BayesLearn's update lost the normalisation")
            after.append(potential(new_w, good_count + joins_good, size + 1, p, t, C, gv))
        drift = heads * (after[1] - phi) + (1 - heads) * (after[0] - phi)
        return DriftResult(
            drift=drift,
            bound=(1 - 12 * gv) * C,
            capacity=C,
            interval=j,
            coin=coin,
            k=k,
            heads_probability=heads,
            target=target,
            good=(lo, hi),
            phi=phi,
            phi_after=(after[0], after[1]),
        )


def worst_case_drift(w: Any, p1: Any, tau: Any, alpha: Any, c: Any, **options: Any) -> DriftResult:
    """The smaller expected drift over the two adversarial extremes pt = clip(p1 ± cα); the drift
    is linear in the flipped coin's pt, so this is the minimum over every admissible adversary.
    ``options``: the keyword options of :func:`expected_potential_drift` (``gamma``,
    ``good_count``, ``size``, ``rounding``, ``dps``), checked there."""
    unknown = sorted(set(options) - set(DRIFT_OPTIONS))
    if unknown:
        raise ParameterError(unknown[0], f"is not an option of the drift; options: {DRIFT_OPTIONS}")
    with mpmath.workdps(_check_dps(options.get("dps", DEFAULT_DPS))):
        results = [
            expected_potential_drift(
                w, p1, adversarial_probabilities(p1, alpha, c, direction), tau, alpha, c, **options
            )
            for direction in (1, -1)
        ]
    return min(results, key=lambda r: r.drift)
