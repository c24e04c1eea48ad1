"""BayesLearn's steps compiled: the lazy log-weight tree in flat arrays, many runs in one call.

:func:`learn_runs` runs Alg. 2 (BayesLearn) for R independent runs, each on its own users, RR
flips and list of intervals, and returns every run's queried intervals L. Per step it does what
:class:`dpquant.reference.distributed_quantiles.weight_tree.LogWeightTree` does (``locate`` the q-point,
round it to a coin, ``update`` the posterior in log space), the same floating-point operations in
the same order, on a node pool held in growable arrays, compiled with numba. The readable
reference is :func:`dpquant.reference.distributed_quantiles.bayes_learning.bayes_learn_tree`; a test ties
the two step for step (identical L on random inputs, both roundings, contiguous and scattered
intervals).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_INITIAL_NODES = 1024


@njit(cache=True)
def _grow(a: np.ndarray, size: int) -> np.ndarray:  # pragma: no cover - compiled
    out = np.empty(size, dtype=a.dtype)
    out[: a.size] = a
    return out


@njit(cache=True)
def _learn_one(  # noqa: PLR0913, PLR0915  # pragma: no cover - compiled
    values: np.ndarray,
    flips: np.ndarray,
    count: int,
    lefts: np.ndarray,
    rights: np.ndarray,
    scattered: bool,
    q: float,
    d0: np.ndarray,
    d1: np.ndarray,
    log_d0: np.ndarray,
    log_d1: np.ndarray,
    paper: bool,
    out: np.ndarray,
) -> None:
    cap = _INITIAL_NODES
    lo = np.empty(cap, dtype=np.int64)
    size = np.empty(cap, dtype=np.int64)
    S = np.empty(cap, dtype=np.float64)
    T = np.empty(cap, dtype=np.float64)
    L = np.empty(cap, dtype=np.int64)
    R = np.empty(cap, dtype=np.int64)
    lo[0], size[0], S[0], T[0], L[0], R[0] = 0, count, 0.0, 0.0, -1, -1
    nodes = 1
    path = np.empty(128, dtype=np.int64)
    for s in range(values.size):
        # -- locate the q-point (LogWeightTree.locate_unchecked) --
        depth = 0
        v, off = 0, 0.0
        r = q * math.exp(S[0])
        while True:
            left = L[v]
            if left < 0:
                m = size[v]
                if m == 1:
                    break
                cell = math.exp(off + S[v]) / m
                if cell > 0:
                    x = math.ceil(r / cell)
                    i = m if x >= m else (1 if x < 1 else int(x))
                else:
                    i = m
                target = lo[v] + i - 1
                while size[v] > 1:
                    if nodes + 2 > cap:
                        cap *= 2
                        lo, size = _grow(lo, cap), _grow(size, cap)
                        S, T = _grow(S, cap), _grow(T, cap)
                        L, R = _grow(L, cap), _grow(R, cap)
                    # split v into two uniform children (LogWeightTree._split)
                    mm, a = size[v], lo[v]
                    h = mm // 2
                    per_cell = S[v] - T[v] - math.log(mm)
                    lo[nodes], lo[nodes + 1] = a, a + h
                    size[nodes], size[nodes + 1] = h, mm - h
                    S[nodes] = per_cell + math.log(h)
                    S[nodes + 1] = per_cell + math.log(mm - h)
                    T[nodes], T[nodes + 1] = 0.0, 0.0
                    L[nodes], L[nodes + 1], R[nodes], R[nodes + 1] = -1, -1, -1, -1
                    L[v], R[v] = nodes, nodes + 1
                    nodes += 2
                    path[depth] = v
                    depth += 1
                    off += T[v]
                    left = L[v]
                    if target < lo[left] + size[left]:
                        v = left
                    else:
                        r -= math.exp(off + S[left])
                        v = R[v]
                break
            path[depth] = v
            depth += 1
            off += T[v]
            mass = math.exp(off + S[left])
            if r <= mass:
                v = left
            else:
                r -= mass
                v = R[v]
        weight = math.exp(off + S[v])
        k = min(max(r / weight, 0.0), 1.0) if weight > 0 else 1.0
        j = lo[v] + 1
        # -- round to a coin, read the user's (flipped) answer (bayes_learn) --
        right_coin = paper and k > q
        if scattered:
            coin = rights[j - 1] if right_coin else lefts[j - 1]
        else:
            coin = j + 1 if right_coin else j
        y = (1 if values[s] <= coin else 0) ^ flips[s]
        cell_factor = k * d0[y] + (1.0 - k) * d1[y]
        # -- update the posterior (LogWeightTree.update_unchecked) --
        log_left, log_right = log_d0[y], log_d1[y]
        child = v
        S[child] += math.log(cell_factor)
        for t in range(depth - 1, -1, -1):
            p = path[t]
            a, b = L[p], R[p]
            if a == child:
                S[b] += log_right
                T[b] += log_right
            else:
                S[a] += log_left
                T[a] += log_left
            xa, zb = S[a], S[b]
            if xa >= zb:
                S[p] = T[p] + (xa + math.log1p(math.exp(zb - xa)))
            else:
                S[p] = T[p] + (zb + math.log1p(math.exp(xa - zb)))
            child = p
        out[s] = j


@njit(cache=True)
def _learn_runs(  # noqa: PLR0913  # pragma: no cover - compiled
    values: np.ndarray,
    flips: np.ndarray,
    counts: np.ndarray,
    lefts: np.ndarray,
    rights: np.ndarray,
    offsets: np.ndarray,
    scattered: bool,
    q: float,
    d0: np.ndarray,
    d1: np.ndarray,
    log_d0: np.ndarray,
    log_d1: np.ndarray,
    paper: bool,
) -> np.ndarray:
    out = np.empty(values.shape, dtype=np.int64)
    for run in range(values.shape[0]):
        a, b = offsets[run], offsets[run + 1]
        _learn_one(
            values[run],
            flips[run],
            counts[run],
            lefts[a:b],
            rights[a:b],
            scattered,
            q,
            d0,
            d1,
            log_d0,
            log_d1,
            paper,
            out[run],
        )
    return out


def learn_runs(
    values: np.ndarray,
    flips: np.ndarray,
    counts: np.ndarray,
    lefts: np.ndarray | None,
    rights: np.ndarray | None,
    offsets: np.ndarray | None,
    q: float,
    d0: tuple[float, float],
    d1: tuple[float, float],
    paper: bool,
) -> np.ndarray:
    """BayesLearn for R runs at once: ``values``/``flips`` (R, steps) int64/int8, ``counts`` (R,)
    the runs' numbers of intervals; ``lefts``/``rights`` the runs' interval endpoints
    concatenated, run r's at ``offsets[r]:offsets[r + 1]`` (all three ``None``: every run on the
    full domain, interval i = [i, i + 1]). ``d0``/``d1``: the Bayes factors d_{ỹ,0}, d_{ỹ,1}.
    Returns L, (R, steps) 1-based interval indices. The callers check their inputs."""
    runs = values.shape[0]
    scattered = lefts is not None
    if lefts is None or rights is None or offsets is None:
        lefts = rights = np.zeros(0, dtype=np.int64)
        offsets = np.zeros(runs + 1, dtype=np.int64)
    d0a, d1a = np.array(d0, dtype=np.float64), np.array(d1, dtype=np.float64)
    return _learn_runs(
        np.ascontiguousarray(values, dtype=np.int64),
        np.ascontiguousarray(flips, dtype=np.int8),
        np.asarray(counts, dtype=np.int64),
        np.asarray(lefts, dtype=np.int64),
        np.asarray(rights, dtype=np.int64),
        np.asarray(offsets, dtype=np.int64),
        scattered,
        float(q),
        d0a,
        d1a,
        np.array([math.log(d0[0]), math.log(d0[1])]),
        np.array([math.log(d1[0]), math.log(d1[1])]),
        bool(paper),
    )


__all__ = ["learn_runs"]
