"""DpBayeSS, the experimental ε-LDP median protocol (Alg. 3 and App. I).

Users are put in a random order and split ln B : ln ln B : 1 (natural logs, as the authors' code):
the first M_B1 feed a DP BayesLearn over the whole domain reduced to about ln²B candidate intervals
(γ = 1/ln²B); if more than 13 survive, the next M_B2 feed a second BayesLearn over them, padded
with the two extreme intervals, reduced with γ = 1/13; the remaining users run DpNaiveNBS over the
surviving endpoint coins. The update parameter α̃ = c·sqrt(ln B / n) (c = 0.6) does not depend on
ε. Every user answers one ε-RR bit, so the protocol is ε-LDP (Lemma A.1; sequential adaptivity,
Eq. (2)).

Options (``notes/aamand25.md``, "Rounding" and "Selection in ReductionToGamma"): ``rounding``
("paper" | "left") and ``selection`` ("paper": sorted-L positions ⌈γ|L|⌉·i; "numpy": the authors'
``round(np.quantile(L, γ·i))``). The authors' code is ``rounding="left", selection="numpy",
faithful_search=True`` (:data:`AUTHORS_OPTIONS`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.bayes_learning import (
    Intervals,
    bayes_learn,
    check_rounding,
    learn_batch,
)
from dpquant.reference.distributed_quantiles.naive_nbs import dp_naive_nbs, rr_tanh
from dpquant.reference.distributed_quantiles.users import (
    MAX_B,
    UserStream,
    check_domain_size,
    check_integers,
    check_users,
)
from dpquant.reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_epsilon,
    check_flag,
    check_int,
    check_positive,
    check_rng,
)

SELECTIONS = ("paper", "numpy")
FINAL_INTERVALS = 13
AUTHORS_OPTIONS = {"rounding": "left", "selection": "numpy", "faithful_search": True}
MAX_SELECTED = 10**6
"""The most quantiles the "numpy" selection evaluates (⌊1/γ⌋ of them)."""


def _check_selection(selection: Any) -> str:
    return check_choice(selection, "selection", SELECTIONS)


def _check_split_domain(B: Any) -> int:
    B = check_domain_size(B)
    if B < 3:
        raise ParameterError(
            "B",
            "must be an integer >= 3 for DpBayeSS (the split uses ln ln B)",
            B,
        )
    return B


def sample_split(n: int, B: int) -> tuple[int, int, int]:
    """(M_B1, M_B2, M_S): ⌊n·lnB/(lnB + ln lnB + 1)⌋, ⌊n·ln lnB/(…)⌋ and the rest (App. I)."""
    n = check_int(n, "n", minimum=0, maximum=MAX_B)
    B = _check_split_domain(B)
    ln_b = math.log(B)
    ln_ln_b = math.log(ln_b)
    total = ln_b + ln_ln_b + 1
    m1 = math.floor(n * ln_b / total)
    m2 = math.floor(n * ln_ln_b / total)
    return m1, m2, n - m1 - m2


def update_parameter(n: int, B: int, c: float = 0.6) -> float:
    """α̃ = c·sqrt(ln B / n) (App. I, "c = 0.6")."""
    n = check_int(n, "n", minimum=1, maximum=MAX_B)
    B = check_domain_size(B)
    c = check_positive(c, "c")
    value = c * math.sqrt(math.log(B) / n)
    if not math.isfinite(value) or value == 0.0:
        raise ParameterError(
            "c",
            "must keep c·sqrt(ln B / n) a positive finite float",
            f"c = {c!r}",
        )
    return value


def select_quantiles(L: np.ndarray, gamma: float, selection: str = "paper") -> np.ndarray:
    """The surviving interval indices of ReductionToGamma, sorted and unique.

    "paper": with s = ⌈γ|L|⌉, the entries at 1-based positions s, 2s, …, ⌊|L|/s⌋·s of sorted(L);
    "numpy": round(np.quantile(L, γ·i)) for i = 1..⌊1/γ⌋ (linear interpolation; Python's round).
    """
    selection = _check_selection(selection)
    L = check_integers(L, "L", minimum=1, maximum=MAX_B)
    gamma = check_positive(gamma, "gamma")
    if not gamma <= 1:
        raise ParameterError("gamma", "must lie in (0, 1]", repr(gamma))
    if selection == "numpy" and 1 / gamma > MAX_SELECTED:
        raise ParameterError(
            "gamma",
            f"must be >= 1/{MAX_SELECTED} for the numpy selection (it evaluates floor(1/gamma) "
            "quantiles)",
            repr(gamma),
        )
    if selection == "paper":
        ordered = np.sort(L)
        step = math.ceil(gamma * L.size)
        picks = ordered[step - 1 : (L.size // step) * step : step]
    else:
        count = math.floor(1 / gamma)
        qs = gamma * np.arange(1, count + 1)
        picks = np.array([round(v) for v in np.quantile(L, qs)], dtype=np.int64)
    return np.unique(picks)


def reduction_to_gamma(
    users: np.ndarray,
    intervals: Intervals,
    alpha: float,
    epsilon: float,
    gamma: float,
    rng: np.random.Generator,
    *,
    rounding: str = "paper",
    selection: str = "paper",
) -> Intervals:
    """ReductionToGamma (Alg. 3): a DP BayesLearn on ``users``, then the γ-quantiles of L."""
    _check_selection(selection)
    check_positive(gamma, "gamma")
    if isinstance(users, list | tuple | np.ndarray) and len(users) == 0:
        raise ParameterError("users", "must be non-empty (BayesLearn needs at least one step)")
    L = bayes_learn(users, intervals, alpha, rng, epsilon=epsilon, rounding=rounding)
    return _reduce(L, intervals, gamma, selection)


def endpoint_coins(intervals: Intervals) -> np.ndarray:
    """The sorted unique endpoint coins of a list of intervals (the final search's coins)."""
    if not isinstance(intervals, Intervals):
        raise ParameterError("intervals", "must be an Intervals", type(intervals).__name__)
    if intervals.lefts is None or intervals.rights is None:  # the full domain: coins 1..count+1
        if intervals.count + 1 > MAX_DRAWS:
            raise ParameterError(
                "intervals",
                f"must list at most {MAX_DRAWS} coins",
                intervals.count + 1,
            )
        return np.arange(1, intervals.count + 2, dtype=np.int64)
    return np.unique(np.concatenate([intervals.lefts, intervals.rights]))


def dp_bayess(
    users: Any,
    B: int,
    epsilon: float,
    rng: np.random.Generator,
    *,
    c: float = 0.6,
    rounding: str = "paper",
    selection: str = "paper",
    faithful_search: bool = False,
) -> int:
    """DpBayeSS (Alg. 3): an ε-LDP estimate of the median coin of ``users`` (values in [1, B]).

    ``faithful_search`` is passed to the final DpNaiveNBS (the authors' negative-index quirk).
    Raises ``ValueError`` when a stage has too few users: α̃ must lie in (0, 1/4) (the authors'
    assertion; n > 16·c²·ln B) and the final search needs at least one user per batch.
    """
    check_rng(rng)
    coins = dp_bayess_runs(
        users,
        B,
        epsilon,
        [rng],
        c=c,
        rounding=rounding,
        selection=selection,
        faithful_search=faithful_search,
    )
    return int(coins[0])


def dp_bayess_runs(
    users: Any,
    B: int,
    epsilon: float,
    rngs: Sequence[np.random.Generator],
    *,
    c: float = 0.6,
    rounding: str = "paper",
    selection: str = "paper",
    faithful_search: bool = False,
) -> np.ndarray:
    """Many independent DpBayeSS runs on the same users, one per generator in ``rngs``, their
    BayesLearn stages advanced together in one compiled call each
    (:func:`dpquant.reference.distributed_quantiles.bayes_learning.learn_batch`). Run r draws everything
    from ``rngs[r]`` in the order :func:`dp_bayess` does, so its coin is the one
    ``dp_bayess(users, B, epsilon, rngs[r], ...)`` returns. Raises the ``ValueError`` the first
    failing run would raise."""
    B = _check_split_domain(B)
    x = check_users(users, B)
    epsilon = check_epsilon(epsilon)
    rr_tanh(epsilon)  # the final search debiases with tanh(ε/2)
    c = check_positive(c, "c")
    rounding, selection = check_rounding(rounding), _check_selection(selection)
    faithful_search = check_flag(faithful_search, "faithful_search")
    if not isinstance(rngs, list | tuple) or not rngs:
        raise ParameterError("rngs", "must be a non-empty list of numpy Generators (one per run)")
    gens = [check_rng(g) for g in rngs]
    if len({id(g) for g in gens}) < len(gens):
        raise ParameterError("rngs", "must be distinct Generators: a run shares no randomness")
    n = x.size
    alpha = update_parameter(n, B, c)
    if not alpha < 0.25:
        bound = 16 * c * c * math.log(B)
        raise ValueError(
            f"n too small for DpBayeSS (or c too large): the update parameter c·sqrt(ln B / n) = "
            f"{alpha:.4g} must be < 1/4, i.e. n > 16 c^2 ln B = {bound:.4g}"
        )
    m1, m2, _ = sample_split(n, B)
    if m1 < 1:
        raise ValueError(f"n too small for DpBayeSS: the first BayesLearn gets {m1} users")
    streams = [UserStream(x, g) for g in gens]
    ln_b = math.log(B)
    first = [st.take(m1, "the first BayesLearn") for st in streams]
    full = Intervals.full(B)
    L1 = learn_batch(first, [full] * len(gens), alpha, gens, epsilon=epsilon, rounding=rounding)
    reduced = [_reduce(L, full, 1 / ln_b**2, selection) for L in L1]
    again = [r for r, iv in enumerate(reduced) if iv.count > FINAL_INTERVALS]
    if again:
        if m2 < 1:
            raise ValueError(f"n too small for DpBayeSS: the second BayesLearn gets {m2} users")
        padded = [_padded(reduced[r], B) for r in again]
        second = [streams[r].take(m2, "the second BayesLearn") for r in again]
        subset = [gens[r] for r in again]
        L2 = learn_batch(second, padded, alpha, subset, epsilon=epsilon, rounding=rounding)
        for r, iv, L in zip(again, padded, L2, strict=True):
            reduced[r] = _reduce(L, iv, 1 / FINAL_INTERVALS, selection)
    return np.array(
        [
            dp_naive_nbs(
                x,
                B,
                epsilon,
                gens[r],
                coins=endpoint_coins(reduced[r]),
                stream=streams[r],
                faithful=faithful_search,
            )
            for r in range(len(gens))
        ],
        dtype=np.int64,
    )


def _reduce(L: np.ndarray, intervals: Intervals, gamma: float, selection: str) -> Intervals:
    """The γ-quantile intervals of a BayesLearn's L (ReductionToGamma's selection step)."""
    picks = select_quantiles(L, gamma, selection)
    if intervals.lefts is None or intervals.rights is None:
        return Intervals.from_coins(picks, picks + 1)
    return Intervals.from_coins(intervals.lefts[picks - 1], intervals.rights[picks - 1])


def _padded(reduced: Intervals, B: int) -> Intervals:
    """The surviving intervals with the two extreme ones added (App. I, the second pass)."""
    assert reduced.lefts is not None and reduced.rights is not None
    return Intervals.from_coins(
        np.concatenate([[1], reduced.lefts, [int(reduced.rights.max())]]),
        np.concatenate([[int(reduced.lefts.min())], reduced.rights, [B]]),
    )
