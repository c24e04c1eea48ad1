"""BayesLearn's posterior weights over N intervals, in log space, O(log N) per step.

BayesLearn (Alg. 2) keeps a weight w(i) on each interval i = 1..N and, at every step, (1) finds the
interval j holding the q-point, j = min{i : W(i) >= q} with W(x) = Σ_{i<=x} w(i), and the fractional
position k = (q − W(j−1))/w(j) of the q-point inside it; (2) multiplies every w(i), i < j, by one
factor, every w(i), i > j, by another, and w(j) by k·d_left + (1 − k)·d_right.

:class:`LogWeightTree` does both on a dyadic segment tree that is built lazily: a node that has
never been split is a block of intervals of equal weight, so a domain of N = 2^32 − 1 intervals
costs a handful of nodes until the search narrows. Each node stores the natural log of the mass of
its subtree **including its own pending factor** and excluding its ancestors'; a range multiply is
a tag on the O(log N) siblings of one root-to-leaf path, so nothing is ever pushed down. Weights
are never materialised in linear space, so they cannot underflow however far the posterior
concentrates.

:class:`ArrayWeights` is the plain O(N)-per-step array version of the same two operations (floats
or exact Fractions); the tests tie the tree to it step by step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_finite, check_flag, check_fraction, check_int

_exp, _log, _log1p = math.exp, math.log, math.log1p

MAX_INTERVALS = 2**62
"""The most intervals N of a :class:`LogWeightTree` (the domain of B = 2^62 coins)."""

MAX_LISTED = 10**5
"""The most weights :meth:`LogWeightTree.log_weights` and :class:`ArrayWeights` hold."""


def _check_q(q: Any) -> Any:
    """A quantile point in [0, 1]: a float, or an exact rational (``Fraction``) kept exact."""
    value = check_fraction(q, "q")
    if not 0 <= value <= 1:
        raise ParameterError("q", "must lie in [0, 1]", repr(q))
    return q if isinstance(q, Fraction) else float(q)


@dataclass(frozen=True)
class Located:
    """Where the q-point falls: interval ``j`` (1-based), W(j − 1), w(j) and k ∈ [0, 1]."""

    j: int
    prefix: float
    weight: float
    k: float


class LogWeightTree:
    """Log-space weights over intervals 1..N, uniform at the start (w(i) = 1/N).

    ``locate(q)`` finds the q-point; ``update(log_left, log_right, log_cell)`` then multiplies the
    intervals left of it by e^log_left, right of it by e^log_right and the located interval by
    e^log_cell. ``locate`` must precede each ``update``.
    """

    __slots__ = ("N", "_lo", "_size", "_S", "_T", "_L", "_R", "_path", "_leaf", "_off")

    def __init__(self, N: int):
        self.N = check_int(N, "N", minimum=1, maximum=MAX_INTERVALS)
        # node 0 is the root: cells [0, N) (0-based), log mass 0 (total 1)
        self._lo = [0]
        self._size = [self.N]
        self._S = [0.0]
        self._T = [0.0]
        self._L = [-1]
        self._R = [-1]
        self._path: list[int] = []
        self._leaf = -1
        self._off = 0.0

    @property
    def nodes(self) -> int:
        return len(self._S)

    def log_total(self) -> float:
        """Log of Σ w (0 in exact arithmetic: the updates preserve the total, Alg. 2)."""
        return self._S[0]

    def _split(self, v: int) -> None:
        """Give a uniform block two uniform children (their masses exclude v's own tag)."""
        m, a = self._size[v], self._lo[v]
        h = m // 2
        per_cell = self._S[v] - self._T[v] - _log(m)
        n = len(self._S)
        self._lo += [a, a + h]
        self._size += [h, m - h]
        self._S += [per_cell + _log(h), per_cell + _log(m - h)]
        self._T += [0.0, 0.0]
        self._L += [-1, -1]
        self._R += [-1, -1]
        self._L[v], self._R[v] = n, n + 1

    def locate(self, q: float) -> Located:
        """j = min{i : W(i) >= q·Σw} and k = (q·Σw − W(j − 1))/w(j) (GetIntervalFromQuantile)."""
        return self.locate_unchecked(float(_check_q(q)))

    def locate_unchecked(self, q: float) -> Located:
        """:meth:`locate` for a q the caller has checked (a float in [0, 1]; BayesLearn's loop)."""
        S, T, L = self._S, self._T, self._L
        v, off = 0, 0.0
        r = q * _exp(S[0])
        path: list[int] = []
        while True:
            left = L[v]
            if left < 0:
                m = self._size[v]
                if m == 1:
                    break
                # a uniform block: the q-point's cell by arithmetic, then split down to it
                cell = _exp(off + S[v]) / m
                i = min(max(math.ceil(r / cell), 1), m) if cell > 0 else m
                target = self._lo[v] + i - 1
                while self._size[v] > 1:
                    self._split(v)
                    path.append(v)
                    off += T[v]
                    left = L[v]
                    if target < self._lo[left] + self._size[left]:
                        v = left
                    else:
                        r -= _exp(off + S[left])
                        v = self._R[v]
                break
            path.append(v)
            off += T[v]
            mass = _exp(off + S[left])
            if r <= mass:
                v = left
            else:
                r -= mass
                v = self._R[v]
        weight = _exp(off + S[v])
        k = min(max(r / weight, 0.0), 1.0) if weight > 0 else 1.0
        self._path, self._leaf, self._off = path, v, off
        return Located(self._lo[v] + 1, q * _exp(S[0]) - r, weight, k)

    def update(self, log_left: float, log_right: float, log_cell: float) -> None:
        """Multiply w(i) by e^log_left for i < j, e^log_right for i > j, e^log_cell for i = j."""
        self.update_unchecked(
            check_finite(log_left, "log_left"),
            check_finite(log_right, "log_right"),
            check_finite(log_cell, "log_cell"),
        )

    def update_unchecked(self, log_left: float, log_right: float, log_cell: float) -> None:
        """:meth:`update` for factors the caller has checked (finite floats; BayesLearn's loop)."""
        S, T, L, R = self._S, self._T, self._L, self._R
        child = self._leaf
        if child < 0:
            raise ValueError("update needs a preceding locate(q)")
        S[child] += log_cell
        for p in reversed(self._path):
            a, b = L[p], R[p]
            if a == child:
                S[b] += log_right
                T[b] += log_right
            else:
                S[a] += log_left
                T[a] += log_left
            x, z = S[a], S[b]
            S[p] = T[p] + (x + _log1p(_exp(z - x)) if x >= z else z + _log1p(_exp(x - z)))
            child = p
        self._leaf = -1

    def log_weight(self, i: int) -> float:
        """log w(i) for one interval i in 1..N (O(log N); for tests and diagnostics)."""
        i = check_int(i, "i", minimum=1)
        if i > self.N:
            raise ParameterError("i", f"must lie in [1, {self.N}]", i)
        v, off = 0, 0.0
        while self._L[v] >= 0:
            off += self._T[v]
            left = self._L[v]
            v = left if i - 1 < self._lo[left] + self._size[left] else self._R[v]
        return off + self._S[v] - _log(self._size[v])

    def log_weights(self) -> list[float]:
        """Every log w(i), i = 1..N (O(N log N): N <= :data:`MAX_LISTED` only)."""
        if self.N > MAX_LISTED:
            raise ValueError(
                f"log_weights lists at most N = {MAX_LISTED} weights, got N = {self.N}"
            )
        return [self.log_weight(i) for i in range(1, self.N + 1)]


class ArrayWeights:
    """The same two operations on an explicit array: floats, or exact Fractions (O(N) per step).

    With Fraction weights and Fraction factors every quantity is exact, so this is the reference
    the tree is tested against.
    """

    def __init__(self, N: int, *, exact: bool = False):
        self.N = check_int(N, "N", minimum=1, maximum=MAX_LISTED)
        exact = check_flag(exact, "exact")
        one: Any = Fraction(1, self.N) if exact else 1.0 / self.N
        self.w: list[Any] = [one] * self.N
        self._located: Located | None = None

    def locate(self, q: Any) -> Located:
        q = _check_q(q)
        total = sum(self.w)
        target = q * total
        acc: Any = 0
        for idx, wi in enumerate(self.w):
            if acc + wi >= target:
                k = (target - acc) / wi if wi else 1
                self._located = Located(idx + 1, acc, wi, k)
                return self._located
            acc += wi
        last = self.w[-1]
        self._located = Located(self.N, acc - last, last, 1)
        return self._located

    def update(self, left: Any, right: Any, cell: Any) -> None:
        """Multiplicative factors (not logs): w(i)·left, w(j)·cell, w(i)·right."""
        for value, name in ((left, "left"), (right, "right"), (cell, "cell")):
            if not check_fraction(value, name) > 0:
                raise ParameterError(name, "must be a factor > 0", repr(value))
        if self._located is None:
            raise ValueError("update needs a preceding locate(q)")
        j = self._located.j - 1
        self.w = (
            [wi * left for wi in self.w[:j]]
            + [self.w[j] * cell]
            + [wi * right for wi in self.w[j + 1 :]]
        )
        self._located = None
