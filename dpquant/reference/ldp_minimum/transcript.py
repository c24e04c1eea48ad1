"""One user's view of Algorithm 2: the per-user transcript channel (Theorem 6, App. B.2).

Algorithm 2 is interactive: in round t every user answers the threshold query τ_t with randomized
response at u = ε/L, and τ_{t+1} depends on the round-t reports. Theorem 6 (and the privacy part of
Theorem 2) says that the whole interaction is ε-LDP for each user. :class:`UserTranscript` is the
channel from one user's value x ∈ [−1, 1] to what the server sees, with the other N − 1 users'
values fixed, so that the auditor (and the exact checks) can test that claim on the transcript and
not only on the output x̃.

**Sufficient statistic.** The server's full view is V = (z′_{t,i})_{t <= L, i <= N}; the τ path and
x̃ are functions of it. Write user 1 for the user and s_t = #{i >= 2 : z′_{t,i} = +1}. Because τ_t
depends only on the counts P_r = [z′_{r,1} = +1] + s_r of the rounds r < t,

    P_x(V) = Π_t RR(z′_{t,1} | b_t(x)) · Π_t Π_{i>=2} RR(z′_{t,i} | b_t(x_i)),     b_t(y) = sign(τ_t − y),

and the second product depends on V (through τ_t, a function of T(V) = (z′_{t,1}, s_t)_t) but not
on x. By the Fisher–Neyman factorisation T is sufficient for x: P_x(T = θ) = A_x(θ)·B(θ) with
A_x(θ) = Π_t RR(z_t | b_t(x)) and B(θ) = Σ_{V : T(V) = θ} Π_{t,i>=2} RR(·) free of x, so

    P_x(V) / P_x′(V) = A_x(T(V)) / A_x′(T(V)) = P_x(T(V)) / P_x′(T(V))

for every view V, and the privacy loss of the full view equals that of T (the supports agree: all
(z_t, s_t) sequences, since 0 < p < 1). Moreover s_t given τ_t is Bin(k′_t, p) + Bin(N − 1 − k′_t,
1 − p) with k′_t = #{i >= 2 : x_i <= τ_t} (the others' per-user reports are never needed), and the
decision is the package's exact one, go left ⇔ [z_t = +1] + s_t >= m* (:mod:`.round_statistic`).

**Codes.** Round t contributes the digit d_t = 2·s_t + [z_t = +1] ∈ [0, 2N), and the transcript is
the integer code Σ_t d_t·(2N)^{t−1} (round 1 is the least significant digit); :meth:`decode`
inverts it and replays the τ path.

**Transcript loss.** Between x < x′, round t's likelihood ratio is e^{±u} when
τ_t ∈ [x, x′) (then b_t(x) = +1 ≠ b_t(x′) = −1) and 1 otherwise, so
ln P_x(θ) − ln P_x′(θ) = u·Σ_{t : τ_t ∈ [x, x′)} z_t. Hence the maximal loss is at most
u·max over reachable τ paths of #{t : τ_t ∈ [min(x, x′), max(x, x′))} <= Lu = ε
(:meth:`UserTranscript.loss_bound`, the usual per-round count), with equality ε at x = −1, x′ = 1 (every
τ_t lies in (−1, 1)). The exact maximum (:meth:`UserTranscript.max_loss`) can be smaller, because
the user's own report may decide the direction of the search (for instance N = 1, where
go left ⇔ z_t = +1 when m* = 1): it is computed by a max/min recursion over the search tree
(``notes/fukuchi19.md``, what the auditor finds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, ExactMechanismBase
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.ldp_minimum.exact_law import distinct_counts
from dpquant.reference.ldp_minimum.round_statistic import (
    Exact,
    RoundRule,
    check_exact_work,
    check_exp_u,
    epsilon_of_exp_u,
    round_rule,
)
from dpquant.reference.ldp_minimum.schedules import MAX_USERS, check_levels
from dpquant.reference.ldp_minimum.search import (
    check_round_fields,
    node_midpoints,
    per_user_draw_limit,
    sorted_counts,
)
from dpquant.reference.validation import (
    check_data,
    check_int,
    check_positive,
    check_real_array,
    check_record,
)

UNIT = (-1.0, 1.0)
MAX_CODE = 1 << 62  # codes are int64
MAX_EXACT_CODES = 1 << 16  # (2N)^L atoms for the exact law
MAX_LOSS_LEVELS = 16
"""The most levels :meth:`UserTranscript.max_differing_rounds` and
:meth:`UserTranscript.max_loss_units` recurse over (2^L nodes)."""


@dataclass(frozen=True)
class TranscriptView:
    """One decoded transcript: the user's reports z_t ∈ {−1, +1}, the others' "+1" counts s_t, the
    τ path, the decisions (True = left) and the output x̃ (Algorithm 2, minimum on [−1, 1])."""

    reports: np.ndarray  # (L,) int8
    others_plus: np.ndarray  # (L,) int64
    taus: np.ndarray  # (L,)
    left: np.ndarray  # (L,) bool
    output: float


def check_user_value(data: Any, name: str = "data") -> float:
    """One user's value in [−1, 1]: a number or a length-1 sequence (the data policy of
    :func:`dpquant.reference.validation.check_record`)."""
    x = check_record(data, name)
    if not -1.0 <= x <= 1.0:
        raise ParameterError(name, "must be one user's value in [-1, 1]", repr(x))
    return x


def others_plus_pmf(keep: Exact, k: int, m: int) -> list[Exact]:
    """Law of s = Bin(k, p) + Bin(m − k, 1 − p) (the others' "+1" count), exactly: entry j is
    P(s = j), j = 0..m (Theorem 6's round channel for the m = N − 1 other users).
    ``keep`` is p in (0, 1]: a Fraction (exact) or an mpf; O(k·(m − k)) products, m <= 10^4."""
    m = check_int(m, "m", minimum=0, maximum=10_000)
    k = check_int(k, "k", minimum=0)
    if not 0 <= k <= m:
        raise ParameterError("k", f"must lie in [0, {m}]", k)
    if isinstance(keep, bool) or not isinstance(keep, Fraction | mpmath.mpf | int):
        raise ParameterError("keep", "must be a Fraction or an mpf in (0, 1]", f"{keep!r:.80}")
    if not 0 < keep <= 1:
        raise ParameterError("keep", "must lie in (0, 1]", keep)
    if isinstance(keep, Fraction | int):
        keep = Fraction(keep)
        exact = keep / (1 - keep) if keep < 1 else Fraction(2)
        check_exact_work(m, 1, exact, "keep, m", terms=max(1, (k + 1) * (m - k + 1)))
    q = 1 - keep
    a = [math.comb(k, i) * keep**i * q ** (k - i) for i in range(k + 1)]
    b = [math.comb(m - k, j) * q**j * keep ** (m - k - j) for j in range(m - k + 1)]
    out = [0 * keep] * (m + 1)
    for i, ai in enumerate(a):
        for j, bj in enumerate(b):
            out[i + j] += ai * bj
    return out


@dataclass(frozen=True)
class UserTranscript(ExactMechanismBase):
    """The server's view of one user in Algorithm 2 (others fixed), as a local-DP Mechanism.

    ``epsilon`` = the total budget ε (L rounds at u = ε/L); ``levels`` = L; ``gamma`` = γ;
    ``others`` = the other N − 1 users' values in [−1, 1] (may be empty); ``exp_u`` = e^u exactly
    (an int or Fraction > 1; then ``epsilon`` must be L·ln(exp_u) rounded up, see
    :meth:`with_exp_u`) makes the exact law rational; ``sampler`` = ``"binomial"`` (the others'
    count by two binomials) or ``"per_user"`` (every other user's report drawn). The output is the
    transcript code (module docstring); the claim is ε-DP for any two values of the user
    (``"local"``, Theorem 6). The exact law is built for (2N)^L <= :data:`MAX_EXACT_CODES`
    codes within :data:`.round_statistic.MAX_EXACT_WORK` (about 10 s), refused beyond.
    """

    epsilon: float
    levels: int
    gamma: float
    others: tuple[float, ...]
    exp_u: Fraction | None = None
    sampler: str = "binomial"
    _sorted: np.ndarray = field(init=False, repr=False, compare=False, hash=False)

    adjacency = Adjacency.LOCAL

    def __post_init__(self) -> None:
        object.__setattr__(self, "levels", check_levels(self.levels))
        object.__setattr__(self, "gamma", check_positive(self.gamma, "gamma"))
        if self.others is None or isinstance(self.others, str | bytes):
            raise ParameterError(
                "others",
                "must be a sequence of values in [-1, 1]",
                repr(self.others),
            )
        others = check_data(self.others, "others", domain=UNIT, allow_empty=True)
        if others.size + 1 > MAX_USERS:
            raise ParameterError("others", f"must hold at most {MAX_USERS - 1} values")
        object.__setattr__(self, "others", tuple(float(v) for v in others))
        object.__setattr__(self, "_sorted", np.sort(others))
        check_round_fields(self, "UserTranscript.with_exp_u")
        if self.radix**self.levels > MAX_CODE:
            raise ValueError(
                f"others and levels: (2N)^L must be at most 2^62 for int64 codes, got N = "
                f"{self.n}, L = {self.levels}"
            )

    @classmethod
    def with_exp_u(
        cls, exp_u: Any, levels: int, gamma: float, others: Any, **options: Any
    ) -> UserTranscript:
        """The channel with per-round factor e^{ε/L} = ``exp_u`` exactly (ε = L·ln exp_u)."""
        exp_u = check_exp_u(exp_u)
        levels = check_levels(levels)
        if set(options) - {"sampler"}:
            raise ParameterError("options", "must be among ('sampler',)", sorted(options))
        return cls(epsilon_of_exp_u(exp_u, levels), levels, gamma, others, exp_u=exp_u, **options)

    # -- the Mechanism protocol (claim: Theorem 6, ε-LDP for the user's value) -------------------

    @property
    def domain(self) -> tuple[float, float]:
        return UNIT

    @property
    def output_range(self) -> tuple[float, float]:
        """The transcript codes 0..(2N)^L − 1."""
        return (0.0, float(self.n_codes - 1))

    def check_input(self, data: Any) -> float:
        """One user's value in [−1, 1] (a number or a length-1 sequence)."""
        return check_user_value(data)

    def draw_limit(self, data: float) -> int:
        if self.sampler == "per_user":
            return min(self.max_draws, per_user_draw_limit(self.n, self.levels))
        return self.max_draws

    @property
    def n(self) -> int:
        """N = 1 + the number of other users."""
        return len(self.others) + 1

    @property
    def radix(self) -> int:
        """2N: the number of (z_t, s_t) digits per round."""
        return 2 * self.n

    @property
    def n_codes(self) -> int:
        """(2N)^L transcript codes."""
        return self.radix**self.levels

    @cached_property
    def rule(self) -> RoundRule:
        """The round rule (threshold m*) for the N users (:func:`.round_statistic.round_rule`)."""
        if self.exp_u is not None:
            return round_rule(self.n, self.levels, self.gamma, exp_u=self.exp_u)
        return round_rule(self.n, self.levels, self.gamma, epsilon=self.epsilon)

    @cached_property
    def u(self) -> mpmath.mpf:
        """u = ε/L at the working precision (ln(exp_u) when e^u is exact)."""
        with workdps():
            if self.exp_u is not None:
                return mpmath.log(to_mpf(self.exp_u))
            return to_mpf(self.epsilon) / self.levels

    # -- codes ---------------------------------------------------------------------------------

    def encode(self, reports: Any, others_plus: Any) -> int:
        """The code Σ_t (2·s_t + [z_t = +1])·(2N)^{t−1} of reports z_t ∈ {−1, +1} and counts s_t."""
        z = check_real_array(reports, "reports")
        s = check_real_array(others_plus, "others_plus")
        if z.shape != (self.levels,) or s.shape != (self.levels,):
            raise ValueError(f"reports and others_plus must have shape ({self.levels},)")
        if not np.all(np.isin(z, (-1, 1))):
            raise ParameterError("reports", "must be -1 or +1")
        if np.any(s < 0) or np.any(s > self.n - 1) or not np.all(s == np.round(s)):
            raise ParameterError("others_plus", f"must be integers in [0, {self.n - 1}]")
        digits = 2 * s.astype(np.int64) + (z == 1)
        return int(sum(int(d) * self.radix**t for t, d in enumerate(digits.tolist())))

    def decode(self, code: int) -> TranscriptView:
        """The transcript of ``code``: reports, others' counts, and the replayed τ path."""
        code = check_int(code, "code", minimum=0)
        if code >= self.n_codes:
            raise ParameterError("code", f"must lie in [0, {self.n_codes - 1}]", code)
        z = np.empty(self.levels, dtype=np.int8)
        s = np.empty(self.levels, dtype=np.int64)
        rest = code
        for t in range(self.levels):
            rest, d = divmod(rest, self.radix)
            z[t], s[t] = (1 if d % 2 else -1), d // 2
        taus, left = np.empty(self.levels), np.empty(self.levels, dtype=bool)
        node = 0
        for t in range(self.levels):
            taus[t] = float(node_midpoints(t + 1, node))
            left[t] = bool(self.rule.goes_left(int(z[t] == 1) + int(s[t])))
            node = 2 * node + (0 if left[t] else 1)
        output = float(node_midpoints(self.levels + 1, node))
        return TranscriptView(z, s, taus, left, output)

    # -- sampling ------------------------------------------------------------------------------

    def _others_plus(self, tau: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """s_t for each run: two binomials, or every other user's RR (``sampler="per_user"``)."""
        m, p = self.n - 1, self.rule.keep
        if m == 0:
            return np.zeros(tau.size, dtype=np.int64)
        if self.sampler == "binomial":
            k = sorted_counts(self._sorted, tau)
            return rng.binomial(k, p) + rng.binomial(m - k, 1.0 - p)
        bits = self._sorted[None, :] <= tau[:, None]
        flips = rng.random(bits.shape) >= p
        return np.count_nonzero(bits ^ flips, axis=1).astype(np.int64)

    def _draw(self, data: float, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` transcript codes for the user's value ``data`` (vectorised over runs; the
        per-user path draws runs × (N − 1) uniforms per round, at most
        :data:`.search.PER_USER_CELLS` per call)."""
        x = data
        node = np.zeros(size, dtype=np.int64)
        code = np.zeros(size, dtype=np.int64)
        for t in range(self.levels):
            tau = node_midpoints(t + 1, node)
            z_plus = (x <= tau) ^ (rng.random(size) >= self.rule.keep)
            s = self._others_plus(tau, rng)
            left = self.rule.goes_left(z_plus.astype(np.int64) + s)
            code += (2 * s + z_plus) * self.radix**t
            node = 2 * node + np.where(left, 0, 1)
        return code

    # -- the exact law ---------------------------------------------------------------------------

    def probabilities(self, data: Any) -> dict[int, Exact]:
        """P(code) for every code, exactly (Fractions when e^u is rational, else 60-digit mpf):
        Π_t RR(z_t | b_t(x))·P(s_t | τ_t) along the replayed τ path (module docstring)."""
        x = check_user_value(data)
        self._check_exact()
        p = self.rule.keep_exact()
        m, threshold = self.n - 1, self.rule.threshold
        pmf_cache: dict[int, list[Exact]] = {}
        with workdps():
            states: list[tuple[int, int, Exact]] = [(0, 0, 0 * p + 1)]  # (code, node, probability)
            for t in range(self.levels):
                weight = self.radix**t
                nxt: list[tuple[int, int, Exact]] = []
                for code, node, prob in states:
                    tau = float(node_midpoints(t + 1, node))
                    k = int(sorted_counts(self._sorted, tau))
                    if k not in pmf_cache:
                        pmf_cache[k] = others_plus_pmf(p, k, m)
                    bit = 1 if x <= tau else 0
                    for z_plus in (1, 0):
                        pz = prob * (p if z_plus == bit else 1 - p)
                        for s, ps in enumerate(pmf_cache[k]):
                            child = 2 * node + (0 if z_plus + s >= threshold else 1)
                            nxt.append((code + (2 * s + z_plus) * weight, child, pz * ps))
                states = nxt
        return {code: prob for code, _, prob in states}

    def _check_exact(self) -> None:
        """ValueError when the exact law is beyond :data:`MAX_EXACT_CODES` codes or the
        exact-law budget (the others' count law at each distinct k: O(N²) products)."""
        if self.n_codes > MAX_EXACT_CODES:
            raise ValueError(
                f"others and levels: the exact law is refused beyond (2N)^L = {MAX_EXACT_CODES} "
                f"codes, got {self.n_codes}"
            )
        distinct = distinct_counts(self._sorted, self.levels)
        check_exact_work(
            self.n, distinct, self.rule.exp_u, "others and levels", terms=max(1, self.n**2 // 4)
        )

    def _law(self, data: float) -> DiscreteLaw:
        """The exact law of the transcript code (a :class:`DiscreteLaw` over (2N)^L codes)."""
        probs = self.probabilities(data)
        return DiscreteLaw.from_probabilities(list(probs), list(probs.values()))

    # -- the maximal transcript privacy loss (the module's docstring) ----------------------------

    def _differing(self, x: float, x_prime: float, depth: int, node: int) -> bool:
        """τ of (depth, node) lies in [min(x, x′), max(x, x′)): the round's bits differ."""
        tau = float(node_midpoints(depth, node))
        return min(x, x_prime) <= tau < max(x, x_prime)

    def _check_loss_levels(self) -> None:
        if self.levels > MAX_LOSS_LEVELS:
            raise ParameterError(
                "levels",
                f"must be at most {MAX_LOSS_LEVELS} for the recursion over the 2^L nodes of the "
                "search tree",
                self.levels,
            )

    def max_differing_rounds(self, x: Any, x_prime: Any) -> int:
        """max over reachable τ paths of #{t : τ_t ∈ [min(x, x′), max(x, x′))} (the bound of
        the module's docstring).

        With 0 < p < 1 every (z_t, s_t) has positive probability, so left is reachable iff
        m* <= N and right iff m* >= 1."""
        x, x_prime = check_user_value(x, "x"), check_user_value(x_prime, "x_prime")
        self._check_loss_levels()
        m_star = self.rule.threshold
        moves = [c for c, ok in ((0, m_star <= self.n), (1, m_star >= 1)) if ok]
        best = [0] * (1 << self.levels)  # the leaves: no round left
        for depth in range(self.levels, 0, -1):
            best = [
                int(self._differing(x, x_prime, depth, j)) + max(best[2 * j + c] for c in moves)
                for j in range(1 << (depth - 1))
            ]
        return best[0]

    def loss_bound(self, x: Any, x_prime: Any) -> mpmath.mpf:
        """The transcript-loss bound of the module's docstring:
        u·max_paths #{t : τ_t ∈ [min(x, x′), max(x, x′))} <= ε."""
        with workdps():
            return self.u * self.max_differing_rounds(x, x_prime)

    def max_loss_units(self, x: Any, x_prime: Any) -> int:
        """max over transcripts of |ln P_x − ln P_x′|/u = max |Σ_{t : τ_t ∈ [lo, hi)} z_t|, where
        z_t must lead the search where the transcript goes: given z_t, left needs
        [z_t = +1] + s_t >= m* for some s_t <= N − 1, right needs [z_t = +1] + s_t < m* for some
        s_t >= 0 (max/min recursion over the search tree)."""
        x, x_prime = check_user_value(x, "x"), check_user_value(x_prime, "x_prime")
        self._check_loss_levels()
        m_star, n = self.rule.threshold, self.n
        moves = {
            zp: [c for c, ok in ((0, zp + n - 1 >= m_star), (1, zp < m_star)) if ok]
            for zp in (0, 1)
        }
        hi = lo = [0] * (1 << self.levels)
        for depth in range(self.levels, 0, -1):
            width = 1 << (depth - 1)
            new_hi, new_lo = [], []
            for j in range(width):
                d = int(self._differing(x, x_prime, depth, j))
                # z = +1 raises ln P_x/P_x′ by u on a differing round (when x < x′)
                ups = [(2 * zp - 1) * d + hi[2 * j + c] for zp in (0, 1) for c in moves[zp]]
                downs = [(2 * zp - 1) * d + lo[2 * j + c] for zp in (0, 1) for c in moves[zp]]
                new_hi.append(max(ups))
                new_lo.append(min(downs))
            hi, lo = new_hi, new_lo
        return max(hi[0], -lo[0])

    def max_loss(self, x: Any, x_prime: Any) -> mpmath.mpf:
        """The exact maximal transcript privacy loss max_θ |ln P_x(θ) − ln P_x′(θ)| (Theorem 6:
        <= ε; equal to ε at x = −1, x′ = 1)."""
        with workdps():
            return self.u * self.max_loss_units(x, x_prime)


__all__ = [
    "MAX_EXACT_CODES",
    "MAX_LOSS_LEVELS",
    "TranscriptView",
    "UserTranscript",
    "check_user_value",
    "others_plus_pmf",
]
