"""Privacy amplification by shuffling for the batched binary search (aamand25, App. G).

Thm G.4 (Feldman, McMillan and Talwar 2021, Thm 3.1): shuffling the reports of ``n`` users, each
from an ε_L-LDP (adaptive) randomizer, is (ε, δ)-DP with

    ε = ln(1 + 8·tanh(ε_L/2)·(sqrt(e^{ε_L}·ln(4/δ)/n) + e^{ε_L}/n)),

provided ε_L ≤ ln(n/(16·ln(2/δ))) (the *precondition*). Lemma G.5 picks
ε_L = ln(ε²·n/(80·ln(4/δ))).

The local budget of one batch can be chosen four ways (``notes/aamand25.md``, "Shuffle local ε"):

* ``local_epsilon_paper``: App. I.3's formula, batch ⌊n/⌈lg B⌉⌋ + 1 (the *larger* batch size);
* ``local_epsilon_authors``: the authors' ``get_eps_for_shuffle``, batch n/ln K (natural log);
* ``local_epsilon_lemma_g5``: Lemma G.5 at the real (smallest) batch ⌊n/r⌋ — the default;
* ``local_epsilon_inverted``: the largest ε_L the exact Thm G.4 bound allows on that batch.

Every chooser refuses, with a ``ValueError``, a local budget that is not > 0 (randomized response
at ε_L ≤ 0 carries no signal) or one that breaks the precondition (the bound then says nothing).
The precondition only involves ε_L and the batch, so when a rule ties ε_L to the batch size the
failure does not go away with more users: the message then gives the largest ε the rule allows.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.users import MAX_B, check_domain_size
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.validation import check_choice, check_epsilon, check_int, check_probability

#: The local-ε rules understood by :func:`shuffle_local_epsilon`.
LOCAL_EPSILON_RULES = ("lemma_g5", "paper", "authors", "inverted")


# ------------------------------------------------------------------------------------ validation


def _check_delta(delta: Any) -> float:
    """δ in the open interval (0, 1) (Thm G.4 allows δ = 1, which makes the claim empty)."""
    return check_probability(delta, "delta", open_left=True, open_right=True)


def _check_n(n: Any, name: str = "n") -> int:
    return check_int(n, name, minimum=1, maximum=MAX_B)


def _check_local(eps_local: Any) -> float:
    return check_epsilon(eps_local, "eps_local")


def _mp_or_float(x: Any, check: Any, name: str) -> mpmath.mpf:
    """A finite ``mpf`` as it is (the caller checks its range), any other value through
    ``check`` (a validation helper), converted exactly."""
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ParameterError(name, "must be a finite number", x)
        return x
    return to_mpf(check(x, name))


def _log_ratio(c: float, delta: float) -> float:
    """ln(c/δ) = ln c − ln δ, finite for every δ > 0 (c/δ itself overflows at δ = 5e-324)."""
    return math.log(c) - math.log(delta)


def _log_tanh_half(e: float) -> float:
    """ln tanh(e/2) for e > 0, without underflow (tanh(e/2) = e/2 to double precision when
    e < 1e-8, and e/2 itself underflows at e = 5e-324)."""
    return math.log(e) - math.log(2.0) if e < 1e-8 else math.log(math.tanh(e / 2.0))


def _log_direct(direct: Any, fallback: float) -> float:
    """ln of ``direct()`` (the formula as printed, in floats) when it is a positive finite float,
    else ``fallback`` (the same logarithm computed term by term, which cannot overflow)."""
    try:
        x = direct()
    except (OverflowError, ZeroDivisionError):
        return fallback
    return math.log(x) if 0.0 < x < math.inf else fallback


def _ratio_floor(num: float, epsilon: float) -> int:
    """⌊num/ε²⌋ as the float formula gives it where that is finite, else exactly in mpmath (a
    huge ratio is an int, never an overflow)."""
    try:
        q = num / epsilon**2
    except OverflowError:
        q = 0.0
    except ZeroDivisionError:
        q = math.inf
    if math.isfinite(q):
        return math.floor(q)
    with workdps():
        return int(mpmath.floor(to_mpf(num) / to_mpf(epsilon) ** 2))


def _fmt_number(n: int) -> str:
    text = str(n)
    return text if len(text) <= 15 else f"{text[0]}.{text[1:4]}e+{len(text) - 1}"


def rounds(K: int) -> int:
    """r = ⌈lg K⌉, the number of batches of the binary search over K coins (App. I; Thm G.3)."""
    K = check_int(K, "K", minimum=1, maximum=MAX_B)
    return (K - 1).bit_length()


# ------------------------------------------------------------------------------- Thm G.4 (FMT21)


def fmt_epsilon(eps_local: float, n: int, delta: float) -> float:
    """The ε of Thm G.4 (FMT21 Thm 3.1) for n shuffled ε_L-LDP reports, in floating point.

    ε = ln(1 + 8·tanh(ε_L/2)·(sqrt(e^{ε_L}·ln(4/δ)/n) + e^{ε_L}/n)), evaluated in the log domain
    so that it never overflows. This is the formula only: the bound is a valid DP guarantee only
    when :func:`fmt_precondition` holds.
    """
    eps_local, n, delta = _check_local(eps_local), _check_n(n), _check_delta(delta)
    log_a = math.log(_log_ratio(4.0, delta))
    log_sqrt_term = 0.5 * (eps_local + log_a - math.log(n))
    log_lin_term = eps_local - math.log(n)
    log_x = math.log(8.0) + _log_tanh_half(eps_local)
    log_x += float(np.logaddexp(log_sqrt_term, log_lin_term))
    return float(np.logaddexp(0.0, log_x))


def fmt_epsilon_mp(eps_local: Any, n: int, delta: Any) -> mpmath.mpf:
    """The ε of Thm G.4 in mpmath at the project precision (>= 50 digits).

    ``eps_local`` and ``delta`` may be floats (converted exactly) or ``mpf``.
    """
    n = _check_n(n)
    with workdps():
        e = _mp_or_float(eps_local, check_epsilon, "eps_local")
        d = _mp_or_float(delta, lambda v, _name: _check_delta(v), "delta")
        if not e > 0:
            raise ParameterError("eps_local", "must be > 0", repr(eps_local))
        if not 0 < d < 1:
            raise ParameterError("delta", "must lie in (0, 1)", repr(delta))
        a = mpmath.log(4 / d)
        term = mpmath.sqrt(mpmath.exp(e) * a / n) + mpmath.exp(e) / n
        return mpmath.log(1 + 8 * mpmath.tanh(e / 2) * term)


def fmt_precondition_bound(n: int, delta: float) -> float:
    """ln(n/(16·ln(2/δ))), the largest ε_L Thm G.4 allows on a batch of n users."""
    n, delta = _check_n(n), _check_delta(delta)
    return math.log(n) - math.log(16.0 * _log_ratio(2.0, delta))


def fmt_precondition(eps_local: float, n: int, delta: float) -> bool:
    """Whether Thm G.4 applies: ε_L ≤ ln(n/(16·ln(2/δ))) (checked in mpmath, exactly enough)."""
    eps_local, n, delta = _check_local(eps_local), _check_n(n), _check_delta(delta)
    with workdps():
        cap = mpmath.log(n) - mpmath.log(16 * mpmath.log(2 / to_mpf(delta)))
        return bool(to_mpf(eps_local) <= cap)


# ------------------------------------------------------------------------ local budget choosers


def _require_usable(
    eps_local: float,
    n_batch: int,
    delta: float,
    *,
    rule: str,
    n_name: str,
    n_needed: int,
    eps_max: float | None,
    require_precondition: bool,
) -> float:
    """Refuse ε_L ≤ 0 (say which n would do) and, if asked, a broken FMT precondition."""
    if not eps_local > 0:
        raise ValueError(
            f"local epsilon from the {rule} rule is {eps_local:.6g} <= 0: shuffling amplifies "
            f"nothing at this size; it needs {n_name} >= {_fmt_number(n_needed)}"
        )
    if require_precondition and not fmt_precondition(eps_local, n_batch, delta):
        cap = fmt_precondition_bound(n_batch, delta)
        hint = (
            f"; under this rule more users do not help, it needs epsilon <= {eps_max:.6g}"
            if eps_max is not None
            else ""
        )
        raise ValueError(
            f"FMT precondition fails for the {rule} rule: eps_local = {eps_local:.6g} > "
            f"ln(n'/(16 ln(2/delta))) = {cap:.6g} on a batch of n' = {n_batch} users{hint} "
            f"(or use local_epsilon='inverted')"
        )
    return eps_local


def _ceil_above(x: float) -> int:
    """The smallest integer strictly greater than x (x >= 0)."""
    return math.floor(x) + 1


def _shuffle_batches(
    epsilon: Any, n: Any, delta: Any, coins: Any, coins_name: str, rule: str
) -> tuple[float, int, float, int, int, int]:
    """Checked (ε, n, δ, coins) with r = ⌈lg coins⌉ batches and the smallest batch m = ⌊n/r⌋,
    refused (naming ``rule``) when m < 1."""
    epsilon, n, delta = check_epsilon(epsilon), _check_n(n), _check_delta(delta)
    coins = check_domain_size(coins, coins_name)
    r = rounds(coins)
    m = n // r
    if m < 1:
        raise ValueError(f"n too small for {rule} shuffle rule: needs n >= r = {r}, got {n}")
    return epsilon, n, delta, coins, r, m


def local_epsilon_paper(
    epsilon: float, n: int, B: int, delta: float, *, require_precondition: bool = True
) -> float:
    """App. I.3's ε_RR = ln((ε²/(80·ln(4/δ)))·(⌊n/⌈lg B⌉⌋ + 1)) (the experiments' formula).

    It is Lemma G.5 at the batch size ⌊n/r⌋ + 1, one more than the smallest real batch when r
    divides n (``notes/aamand25.md``, "Shuffle local ε"). The precondition is checked on the
    smallest real batch ⌊n/r⌋. ``require_precondition=False`` returns the formula's value even where
    Thm G.4 does not apply (to reproduce Fig. 4's setting at large ε, ``notes/aamand25.md``
    erratum 6); a value ≤ 0 is refused either way.
    """
    epsilon, n, delta, B, r, m = _shuffle_batches(epsilon, n, delta, B, "B", "the paper's")
    a = _log_ratio(4.0, delta)
    value = _log_direct(
        lambda: epsilon**2 / (80.0 * a) * (m + 1),
        2.0 * math.log(epsilon) - math.log(80.0 * a) + math.log(m + 1),
    )
    # ε_L > 0 ⇔ m + 1 > 80a/ε² ⇔ m >= ⌊80a/ε²⌋ (and m >= 1)
    needed = r * max(1, _ratio_floor(80.0 * a, epsilon))
    b = _log_ratio(2.0, delta)
    eps_max = math.sqrt(5.0 * a * m / (b * (m + 1)))
    return _require_usable(
        value,
        m,
        delta,
        rule="paper",
        n_name="n",
        n_needed=needed,
        eps_max=eps_max,
        require_precondition=require_precondition,
    )


def local_epsilon_authors(
    epsilon: float, n: int, K: int, delta: float, *, require_precondition: bool = True
) -> float:
    """The authors' ``get_eps_for_shuffle``: ln(ε²·n/(80·ln(K)·ln(4/δ))), K = number of coins.

    It assumes batches of n/ln K users while the real batches hold ⌊n/⌈lg K⌉⌋
    (``notes/aamand25.md``, "Shuffle local ε"); the precondition is checked on that real smallest
    batch. ``require_precondition=False`` returns the formula's value regardless (as for
    :func:`local_epsilon_paper`).
    """
    epsilon, n, delta, K, r, m = _shuffle_batches(epsilon, n, delta, K, "K", "the authors'")
    a = _log_ratio(4.0, delta)
    value = _log_direct(
        lambda: epsilon**2 * n / (80.0 * math.log(K) * a),
        2.0 * math.log(epsilon) + math.log(n) - math.log(80.0 * math.log(K) * a),
    )
    needed = max(r, _ratio_floor(80.0 * math.log(K) * a, epsilon) + 1)
    b = _log_ratio(2.0, delta)
    eps_max = math.sqrt(5.0 * a * math.log(K) * m / (b * n))
    return _require_usable(
        value,
        m,
        delta,
        rule="authors",
        n_name="n",
        n_needed=needed,
        eps_max=eps_max,
        require_precondition=require_precondition,
    )


def local_epsilon_lemma_g5(epsilon: float, n_batch: int, delta: float) -> float:
    """Lemma G.5: ε_L = ln(ε²·n'/(80·ln(4/δ))) on a batch of n' users (the default rule).

    Used with n' = ⌊n/r⌋, the smallest batch. Refuses ε_L ≤ 0 (n' ≤ 80·ln(4/δ)/ε²) and a broken
    precondition, which for this rule is n-free: it holds iff ε² ≤ 5·ln(4/δ)/ln(2/δ). Lemma G.5
    itself assumes ε ≤ 1 and ε > 16·sqrt(ln(4/δ)/n'); neither is needed for Thm G.4 to apply, so
    neither is imposed here (the proofs_checks file checks the bound directly).
    """
    epsilon, n_batch, delta = (
        check_epsilon(epsilon),
        _check_n(n_batch, "n_batch"),
        _check_delta(delta),
    )
    a, b = _log_ratio(4.0, delta), _log_ratio(2.0, delta)
    value = _log_direct(
        lambda: epsilon**2 * n_batch / (80.0 * a),
        2.0 * math.log(epsilon) + math.log(n_batch) - math.log(80.0 * a),
    )
    return _require_usable(
        value,
        n_batch,
        delta,
        rule="lemma_g5",
        n_name="n_batch",
        n_needed=_ratio_floor(80.0 * a, epsilon) + 1,
        eps_max=math.sqrt(5.0 * a / b),
        require_precondition=True,
    )


def _float_down(x: mpmath.mpf) -> float:
    """The largest double <= x."""
    f = float(x)
    if to_mpf(f) > x:
        f = math.nextafter(f, -math.inf)
    return f


def local_epsilon_inverted(epsilon: float, n_batch: int, delta: float) -> float:
    """The largest ε_L with fmt_epsilon(ε_L, n', δ) ≤ ε and the Thm G.4 precondition holding.

    fmt_epsilon is increasing in ε_L and is 0 at ε_L = 0, so the answer is the smaller of the
    precondition cap ln(n'/(16 ln(2/δ))) and the root of fmt_epsilon(ε_L) = ε, found by bisection
    at the project precision and rounded down to a double; the double is re-checked in mpmath.
    Refuses n' ≤ 16·ln(2/δ) (the cap is then ≤ 0).
    """
    epsilon, n_batch, delta = (
        check_epsilon(epsilon),
        _check_n(n_batch, "n_batch"),
        _check_delta(delta),
    )
    with workdps():
        eps_mp, d = to_mpf(epsilon), to_mpf(delta)
        cap = mpmath.log(n_batch) - mpmath.log(16 * mpmath.log(2 / d))
        if not cap > 0:
            needed = _ceil_above(float(16 * mpmath.log(2 / d)))
            raise ValueError(
                f"FMT precondition fails for the inverted rule: ln(n'/(16 ln(2/delta))) <= 0 on "
                f"a batch of n' = {n_batch} users; it needs n_batch >= {needed}"
            )
        if fmt_epsilon_mp(cap, n_batch, d) <= eps_mp:
            root = cap
        else:
            lo, hi = mpmath.mpf(0), cap
            tol = mpmath.mpf(10) ** -50 * max(1, cap)
            while hi - lo > tol:
                mid = (lo + hi) / 2
                if fmt_epsilon_mp(mid, n_batch, d) <= eps_mp:
                    lo = mid
                else:
                    hi = mid
            root = lo
        value = _float_down(root)
        if not value > 0:
            raise ValueError(
                f"local epsilon from the inverted rule underflows to 0 at epsilon = {epsilon!r}"
            )
        assert to_mpf(value) <= cap
        assert fmt_epsilon_mp(value, n_batch, d) <= eps_mp
    return value


# ------------------------------------------------------------------------- the protocol's choice


def shuffle_local_epsilon(
    epsilon: float, delta: float, n: int, B: int, rule: str = "lemma_g5"
) -> float:
    """The per-batch local budget ε_L that :func:`shuffle_nbs` uses (Thm 1.4 / G.6, App. I.3).

    ``B`` is the number K of candidate coins (the domain size when the search covers [B]); the
    search has r = ⌈lg K⌉ batches, the smallest of ⌊n/r⌋ users. ``rule`` is one of
    :data:`LOCAL_EPSILON_RULES`: ``"lemma_g5"`` and ``"inverted"`` use the smallest batch,
    ``"paper"`` and ``"authors"`` their own formulas (checked on the smallest batch). Whatever the
    rule, the value is returned only if the Thm G.4 bound on the smallest batch is ≤ ε (checked
    in mpmath); the bound decreases with the batch size, so it covers every batch.
    """
    rule = check_choice(rule, "rule", LOCAL_EPSILON_RULES)
    epsilon, delta, n = check_epsilon(epsilon), _check_delta(delta), _check_n(n)
    K = check_domain_size(B, "B")
    eps_local = _rule_value(epsilon, delta, n, K, rule)
    m = n // rounds(K)
    with workdps():
        if fmt_epsilon_mp(eps_local, m, delta) > to_mpf(epsilon):
            raise ValueError(
                f"the {rule} rule gives eps_local = {eps_local:.6g}, whose Thm G.4 bound on the "
                f"smallest batch of {m} users exceeds epsilon = {epsilon!r}"
            )
    return eps_local


def _rule_value(epsilon: float, delta: float, n: int, K: int, rule: str) -> float:
    """The local budget of ``rule`` for n users and K coins (validated by the caller)."""
    if rule == "paper":
        return local_epsilon_paper(epsilon, n, K, delta)
    if rule == "authors":
        return local_epsilon_authors(epsilon, n, K, delta)
    r = rounds(K)
    m = n // r
    if m < 1:
        raise ValueError(f"n too small for the shuffle search: r = {r} batches need n >= {r}")
    try:
        if rule == "lemma_g5":
            return local_epsilon_lemma_g5(epsilon, m, delta)
        return local_epsilon_inverted(epsilon, m, delta)
    except ValueError as err:
        if rule == "lemma_g5":
            batch_needed = _ratio_floor(80.0 * _log_ratio(4.0, delta), epsilon) + 1
            if m >= batch_needed:  # the precondition failed: no n helps, the message says so
                raise
        else:
            batch_needed = _ceil_above(16.0 * _log_ratio(2.0, delta))
        raise ValueError(
            f"{err}; the batch is n' = floor(n/{r}) = {m} of n = {n} users, so a batch of "
            f"{_fmt_number(batch_needed)} needs n >= {_fmt_number(r * batch_needed)} in total"
        ) from None


def notebook_min_users(epsilon: float, B: int, delta: float) -> float:
    """The authors' notebook threshold n ≥ 80·ln(4/δ)·⌈lg B⌉/ε² for ε_RR ≥ 0 (App. I.3 text).

    App. I.3 quotes it for δ = 1e-8, B = 4^8 as 2.5e7, 7.8e4, 1.3e4; the first is a typo for
    2.535e6, and the ε's are the grid points 0.569 and 1.357, not 0.5 and 1 (``notes/aamand25.md``
    erratum 6).
    """
    epsilon, delta = check_epsilon(epsilon), _check_delta(delta)
    B = check_domain_size(B)
    log_value = math.log(80.0 * _log_ratio(4.0, delta) * rounds(B)) - 2.0 * math.log(epsilon)
    if log_value > 709.0:
        raise ParameterError(
            "epsilon",
            "must be large enough for the threshold 80 ln(4/delta) ceil(lg B)/epsilon^2 to fit a "
            "float64",
            f"epsilon = {epsilon!r}",
        )
    return 80.0 * _log_ratio(4.0, delta) * rounds(B) / (epsilon * epsilon)
