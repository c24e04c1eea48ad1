"""The classic benchmark of DP-violation detectors as audit-ready mechanisms: the mechanisms of
StatDP (Ding, Wang, Wang, Zhang, Kifer, CCS 2018) and DP-Sniper (Bichsel, Steffen, Bogunovic,
Vechev, IEEE S&P 2021), which include the sparse vector variants of Lyu, Su and Li (VLDB 2017).

Each :class:`ClassicEntry` builds the mechanism at a claimed ε (``make``), as
:func:`dpquant.audit.from_callable` wraps it, on query answers (:class:`dpquant.audit.model.relations.QueryAnswers`)
with DP-Sniper's dimensions, domains and neighbourhoods: ℓ∞ ("every answer may move by 1":
noisy max, the SVTs, SVT34Parallel, PrefixSum, NumericalSVT) or ℓ1 ("one count moves by 1": the
histograms, the Laplace mechanisms, the geometric mechanism, RAPPOR). Entries are named as
DP-Sniper names its experiments; ``aliases`` hold StatDP's function names and figure titles and
Lyu et al.'s names. StatDP's ``SVT`` and ``iSVT1``-``iSVT4`` (N = 1, T = 1; ``SVT`` with T = 0.5)
are DP-Sniper's SparseVectorTechnique1, 5, 6, 4 and 3 with the same parameters, so they are
aliases, not entries (StatDP also runs them on 5 answers: build
:class:`dpquant.audit.suites.classic.sparse_vector.SparseVector` with ``queries=5`` for that; DP-Sniper's re-run
of StatDP audits iSVT1 at ε = 0.05, ``make(0.05)``).

**True ε** (:meth:`ClassicEntry.true_epsilon`; ``tight`` says whether it is the least ε' for which
the mechanism is ε'-DP or only an upper bound on it; ``math.inf`` when no finite ε' holds;
``None`` when not known). "Derived" marks our own argument, stated here:

* ReportNoisyMax3 (value of the max, Laplace(b), b = 2/ε, k = 5): exactly kε/2 (derived). The
  density of the max is Σ_i f(x − q_i) Π_{j≠i} F(x − q_j); the Laplace density and CDF change by
  at most e^{1/b} when their location moves by 1, so every term, and the density, changes by at
  most e^{k/b}. For "all answers up by 1" and x below every q_i the ratio is exactly e^{k/b}.
* ReportNoisyMax4 (value, exponential noise): ∞ (derived): the max lies in [max q, ∞), so for
  q = 1, q' = 2 the event max < 2 has probability 0 under q' only.
* NoisyHist2 (Lap(ε)): exactly 1/ε (derived): Laplace scale ε over an ℓ1 shift of 1.
* SparseVectorTechnique4: (1 + 6c)ε/4 (an upper bound, as DP-Auditorium's docstring states it:
  threshold noise costs ε/4, each of the c answers above 2·(3ε/4)); tightness not shown.
* SparseVectorTechnique5 (no query noise): ∞ (derived): given ρ its answers are deterministic;
  on the "x shape" pair ([1]×5+[0]×5 against [0]×5+[1]×5) the list ⊤×5+⊥×5 has probability
  P(0 < T + ρ <= 1) > 0 on the first input and 0 on the second.
* SparseVectorTechnique3, SparseVectorTechnique6 and SVT34Parallel: finite but not known (None).
  Lyu et al. and DP-Auditorium call SVT3 and SVT6 not private: their loss grows without bound
  with the number of queries, so no ε' holds for every query sequence. With DP-Sniper's fixed
  number k of queries it is finite (derived): for a fixed ρ every position's probability (⊥,
  ⊤, or the density of the released noisy answer) changes by at most e^{1/b_ν} when its answer
  moves by 1, so the loss is at most k/b_ν: kε/(2c) for SVT3 (5ε with DP-Sniper's k = 10, c = 1),
  kε/2 for SVT6 (5ε), and kε/(2c) + (1 + 6c)ε/4 = 5.75ε for SVT34Parallel (k = 10, c = 2).
* PrefixSum under ℓ∞: exactly kε (derived; :mod:`dpquant.audit.suites.classic.laplace`).
* TruncatedGeometricMechanism: exactly ln(1 + 2^{−⌈ln(2/ε)⌉}) (Balcer and Vadhan, Thm. 4.7;
  :mod:`dpquant.audit.suites.classic.geometric`): above ε for small ε (0.1178 at 0.1).
* Rappor and OneTimeRappor: the exact loss of this module's Bloom filters
  (:meth:`dpquant.audit.suites.classic.rappor.Rappor.true_epsilon`), at most the claimed ε∞.
* The other correct mechanisms: the claimed ε (exact for the Laplace releases; an upper bound for
  noisy max's index, SVT1, SVT2 and NumericalSVT).

**Ranges** (issue 34). ``make(ε)`` takes the ε at which the sampler draws its law with finite
draws (:mod:`dpquant.audit.suites.classic.inputs`: PrefixSum needs ε >= 1e-300); ``true_epsilon`` and
``correct_at`` refuse an ε whose true ε is not a double (10ε for PrefixSum at ε = 1e308, 1/ε for
NoisyHist2 at 5e-324: inf would say "no finite ε' holds", a wrong value). ``entry(name)`` refuses
an unknown name listing the closest names and aliases.

``correct`` is the status at the benchmarks' claimed ε = 0.1 (DP-Sniper's): whether the
mechanism is 0.1-DP. Some statuses change with ε (NoisyHist2 is correct for ε >= 1; GeoSample is
not at 0.1, its k = 3 holding for ε ∈ (2e^{-3}, 2e^{-2}], but is at 0.5);
:meth:`ClassicEntry.correct_at` decides at any ε where the true ε is known.
"""

from __future__ import annotations

import difflib
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from dpquant.audit.model.relations import QueryAnswers
from dpquant.audit.model.wrap import CallableMechanism, from_callable
from dpquant.audit.suites.classic.geometric import TruncatedGeometric, geo_true_epsilon
from dpquant.audit.suites.classic.laplace import LaplaceParallel, LaplaceRelease, PrefixSum
from dpquant.audit.suites.classic.noisy_max import NoisyMax
from dpquant.audit.suites.classic.rappor import Rappor
from dpquant.audit.suites.classic.sparse_vector import NumericalSVT, SparseVector, svt34_parallel
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.validation import check_epsilon

BENCHMARK_EPSILON = 0.1
"""The claimed ε of DP-Sniper's evaluation, at which ``correct`` is stated."""
WIDE = (-10.0, 10.0)
"""DP-Sniper's input domain for real-valued answers (and RAPPOR's integers)."""

DPS = "DP-Sniper (Bichsel et al., S&P 2021), dpsniper/mechanisms/"
STATDP = "StatDP (Ding et al., CCS 2018), statdp/algorithms.py"
LYU = "Lyu, Su, Li (VLDB 2017)"


def claimed(epsilon: float) -> float:
    """The claimed ε itself (a correct mechanism)."""
    return epsilon


def scaled(factor: float, epsilon: float) -> float:
    """``factor`` · ε; a ``ValueError`` naming ``epsilon`` when that is not a double."""
    value = factor * epsilon
    if math.isinf(value):
        raise ValueError(
            f"epsilon must be at most {sys.float_info.max / factor:.4g} here: the true ε, "
            f"{factor:g}·epsilon, must be a finite double; got {epsilon!r}"
        )
    return value


def inverse(epsilon: float) -> float:
    """1/ε (a Laplace release of scale ε); a ``ValueError`` naming ``epsilon`` when that is not
    a double."""
    value = 1.0 / epsilon
    if math.isinf(value):
        raise ValueError(
            f"epsilon must be at least {1.0 / sys.float_info.max:.4g} here: the true ε, "
            f"1/epsilon, must be a finite double; got {epsilon!r}"
        )
    return value


def infinite(epsilon: float) -> float:
    """No finite ε' holds."""
    return math.inf


def unknown(epsilon: float) -> None:
    """Finite but not known."""
    return None


def rappor_loss(instantaneous: bool, epsilon: float) -> float:
    """The exact loss of (one-time) RAPPOR built for ``epsilon``."""
    return Rappor(epsilon, instantaneous).true_epsilon()


@dataclass(frozen=True, kw_only=True)
class ClassicEntry:
    """One mechanism of the benchmark (module docstring).

    ``sampler(ε)`` builds the vectorised function ``fn(q, size, rng)``; ``loss(ε)`` gives the true
    ε; ``relation`` and ``domain`` are its neighbour relation and input domain."""

    name: str
    aliases: tuple[str, ...]
    correct: bool
    sampler: Callable[[float], Callable[..., Any]]
    relation: QueryAnswers
    domain: tuple[float, float]
    loss: Callable[[float], float | None]
    tight: bool
    why: str
    source: str

    def make(self, epsilon: Any) -> CallableMechanism:
        """The mechanism claiming pure ``epsilon``-DP under its query-answer relation."""
        eps = check_epsilon(epsilon)
        claim = PrivacyClaim(eps, 0.0, "query_answers")
        fn = self.sampler(eps)
        return from_callable(
            fn, claim, self.domain, self.name, vectorized=True, relation=self.relation
        )

    def true_epsilon(self, epsilon: Any) -> float | None:
        """The ε' the mechanism built for ``epsilon`` satisfies (module docstring): the least one
        when ``tight``, else an upper bound; ``math.inf`` if none, None when not known."""
        return self.loss(check_epsilon(epsilon))

    def correct_at(self, epsilon: Any) -> bool | None:
        """Whether the mechanism built for ``epsilon`` is ``epsilon``-DP (None when its true ε is
        not known; an upper bound above ``epsilon`` that is not tight decides nothing)."""
        eps = check_epsilon(epsilon)
        true = self.loss(eps)
        if true is None:
            return None
        if true <= eps * (1 + 1e-12):
            return True
        return False if self.tight else None


def _noisy_max(number: int, noise: str, release: str) -> ClassicEntry:
    statdp = {1: "noisy_max_v1a", 2: "noisy_max_v2a", 3: "noisy_max_v1b", 4: "noisy_max_v2b"}
    figure = "Noisy Max (" + "abcd"[number - 1] + ")"
    index = release == "index"
    if index:
        loss: Callable[[float], float | None] = claimed
        why = f"the index of the max with {noise} noise of scale 2/ε is ε-DP"
    elif noise == "laplace":
        loss = partial(scaled, 2.5)
        why = "releases the noisy maximum instead of its index: exactly (kε/2)-DP, k = 5"
    else:
        loss = infinite
        why = "releases the noisy maximum; one-sided noise: its support [max q, ∞) moves with q"
    return ClassicEntry(
        name=f"ReportNoisyMax{number}",
        aliases=(statdp[number], figure, f"StatDP Alg. {number + 4}"),
        correct=index,
        sampler=partial(NoisyMax, noise=noise, release=release),
        relation=QueryAnswers(5, 1.0, "linf"),
        domain=WIDE,
        loss=loss,
        tight=not index,
        why=why,
        source=f"{STATDP} ({statdp[number]}); {DPS}report_noisy_max.py",
    )


def _svt(variant: int) -> ClassicEntry:
    statdp = {1: ("SVT",), 3: ("iSVT4",), 4: ("iSVT3",), 5: ("iSVT1",), 6: ("iSVT2",)}
    facts: dict[int, tuple[bool, Callable[[float], float | None], bool, str]] = {
        1: (True, claimed, False, "ε/2 for the threshold, ε/2 for the c answers above"),
        2: (True, claimed, False, "the threshold noise is redrawn after every answer above"),
        3: (False, unknown, False, "releases the noisy answer q_i + ν_i instead of ⊤"),
        4: (False, partial(scaled, 1.75), False, "query noise 4/(3ε) does not scale with c"),
        5: (False, infinite, True, "no noise on the queries and no cutoff"),
        6: (False, unknown, False, "query noise 2/ε does not scale with c, and no cutoff"),
    }
    correct, loss, tight, why = facts[variant]
    return ClassicEntry(
        name=f"SparseVectorTechnique{variant}",
        aliases=(f"SVT{variant}", *statdp.get(variant, ()), f"{LYU}, Alg. {variant}"),
        correct=correct,
        sampler=partial(SparseVector, variant, cutoff=1, threshold=0.5 if variant == 1 else 1.0),
        relation=QueryAnswers(10, 1.0, "linf"),
        domain=WIDE,
        loss=loss,
        tight=tight,
        why=why,
        source=f"{LYU}; {STATDP}; {DPS}sparse_vector_technique.py",
    )


def _entries() -> tuple[ClassicEntry, ...]:
    one = QueryAnswers(1, 1.0, "l1")
    out = [
        ClassicEntry(
            name="LaplaceMechanism",
            aliases=("Laplace",),
            correct=True,
            sampler=partial(LaplaceRelease, answers=1),
            relation=one,
            domain=WIDE,
            loss=claimed,
            tight=True,
            why="Laplace(1/ε) on one answer of sensitivity 1",
            source=f"{DPS}laplace.py",
        ),
        ClassicEntry(
            name="TruncatedGeometricMechanism",
            aliases=("TruncatedGeometric", "GeoSample (Balcer, Vadhan, ITCS 2018, Alg. 4.8)"),
            correct=False,
            sampler=partial(TruncatedGeometric, n=5),
            relation=one,
            domain=(0.0, 5.0),
            loss=geo_true_epsilon,
            tight=True,
            why="k = ceil(ln(2/ε)) rounds the noise: exactly ln(1 + 2^-k)-DP, 0.1178 at ε = 0.1",
            source=f"{DPS}geometric.py",
        ),
        ClassicEntry(
            name="NoisyHist1",
            aliases=("histogram", "Correct Histogram", "StatDP Alg. 9"),
            correct=True,
            sampler=partial(LaplaceRelease, answers=5),
            relation=QueryAnswers(5, 1.0, "l1"),
            domain=(0.0, 10.0),
            loss=claimed,
            tight=True,
            why="Laplace(1/ε) on every bin of a histogram (ℓ1 sensitivity 1)",
            source=f"{STATDP} (histogram); {DPS}noisy_hist.py",
        ),
        ClassicEntry(
            name="NoisyHist2",
            aliases=("histogram_eps", "Incorrect Histogram", "StatDP Alg. 10"),
            correct=False,
            sampler=partial(LaplaceRelease, answers=5, wrong_scale=True),
            relation=QueryAnswers(5, 1.0, "l1"),
            domain=(0.0, 10.0),
            loss=inverse,
            tight=True,
            why="Laplace(ε) noise instead of Laplace(1/ε): exactly (1/ε)-DP",
            source=f"{STATDP} (histogram_eps); {DPS}noisy_hist.py",
        ),
        _noisy_max(1, "laplace", "index"),
        _noisy_max(2, "exponential", "index"),
        _noisy_max(3, "laplace", "value"),
        _noisy_max(4, "exponential", "value"),
        *(_svt(v) for v in range(1, 7)),
        ClassicEntry(
            name="Rappor",
            aliases=("RAPPOR (Erlingsson, Pihur, Korolova, CCS 2014)",),
            correct=True,
            sampler=partial(Rappor, instantaneous=True),
            relation=one,
            domain=WIDE,
            loss=partial(rappor_loss, True),
            tight=True,
            why="f chosen so that ε∞ = 2h ln((1-f/2)/(f/2)) is the claim; the IRR only adds noise",
            source=f"{DPS}rappor.py",
        ),
        ClassicEntry(
            name="OneTimeRappor",
            aliases=("one-time RAPPOR",),
            correct=True,
            sampler=partial(Rappor, instantaneous=False),
            relation=one,
            domain=WIDE,
            loss=partial(rappor_loss, False),
            tight=True,
            why="f chosen so that ε∞ = 2h ln((1-f/2)/(f/2)) is the claim",
            source=f"{DPS}rappor.py",
        ),
        ClassicEntry(
            name="LaplaceParallel",
            aliases=("parallel Laplace",),
            correct=True,
            sampler=partial(LaplaceParallel, copies=20),
            relation=one,
            domain=WIDE,
            loss=claimed,
            tight=True,
            why="20 Laplace mechanisms of ε/20 each: ε-DP by composition",
            source=f"{DPS}parallel.py",
        ),
        ClassicEntry(
            name="SVT34Parallel",
            aliases=("svt_34_parallel",),
            correct=False,
            sampler=svt34_parallel,
            relation=QueryAnswers(10, 1.0, "linf"),
            domain=WIDE,
            loss=unknown,
            tight=False,
            why="SVT3 and SVT4 (c = 2) side by side; SVT3 releases noisy answers",
            source=f"{DPS}parallel.py",
        ),
        ClassicEntry(
            name="PrefixSum",
            aliases=("prefix_sum",),
            correct=False,
            sampler=partial(PrefixSum, answers=10),
            relation=QueryAnswers(10, 1.0, "linf"),
            domain=WIDE,
            loss=partial(scaled, 10.0),
            tight=True,
            why="Laplace(1/ε) per answer, ε-DP under ℓ1 but audited under ℓ∞: exactly kε, k = 10",
            source=f"{DPS}prefix_sum.py; Wang et al. (PLDI 2019)",
        ),
        ClassicEntry(
            name="NumericalSVT",
            aliases=("numerical_svt",),
            correct=True,
            sampler=partial(NumericalSVT, cutoff=2, threshold=1.0),
            relation=QueryAnswers(10, 1.0, "linf"),
            domain=WIDE,
            loss=claimed,
            tight=False,
            why="releases fresh noisy answers Lap(3c/ε) above the threshold: ε-DP (PLDI 2019 proof)",
            source=f"{DPS}sparse_vector_technique.py; Wang et al. (PLDI 2019)",
        ),
    ]
    return tuple(out)


SUITE: tuple[ClassicEntry, ...] = _entries()
"""Every mechanism of the benchmark, in DP-Sniper's order."""


def closest(name: str, words: Sequence[str], most: int = 3) -> list[str]:
    """Up to ``most`` of ``words`` closest to ``name`` (case and outer spaces aside; ties in the
    order of ``words``), each at least 60 % alike."""
    key = name.strip().lower()
    scored = [
        (difflib.SequenceMatcher(None, key, w.lower()).ratio(), -i, w) for i, w in enumerate(words)
    ]
    return [w for score, _, w in sorted(scored, reverse=True)[:most] if score >= 0.6]


def lookup(name: Any, parameter: str = "name") -> ClassicEntry:
    """The entry named ``name`` (an entry's name or one of its aliases); a ``ValueError`` naming
    ``parameter``, with the closest names, otherwise."""
    if isinstance(name, str):
        for e in SUITE:
            if name == e.name or name in e.aliases:
                return e
    words = [e.name for e in SUITE] + [a for e in SUITE for a in e.aliases]
    near = closest(name, words) if isinstance(name, str) else []
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise ValueError(
        f"{parameter} must be one of {[e.name for e in SUITE]} (or an alias), "
        f"got {name!r:.80}{hint}"
    )


def entry(name: Any) -> ClassicEntry:
    """The entry named ``name`` (an entry's name or one of its aliases; :func:`lookup`)."""
    return lookup(name, "name")


__all__ = ["BENCHMARK_EPSILON", "SUITE", "WIDE", "ClassicEntry", "closest", "entry", "lookup"]
