"""The exact output law of an adaptive protocol on a tiny input, by enumerating its random choices.

Every adaptive protocol of this package draws its randomness in two forms: the uniformly
random order of the users (``rng.permutation(n)``, in :class:`UserStream`) and one uniform per
RR report, read as "flip iff u >= e^ε/(1 + e^ε)" (:func:`threshold_rr`, :func:`bayes_learn`);
or, on the counts path (:class:`.population.CountStream`), hypergeometric and multivariate
hypergeometric counts of users and binomial counts of kept RR answers with p = e^ε/(1 + e^ε).
:class:`ScriptedGenerator` replays a prescribed choice for each of these draws, and
:func:`protocol_law` walks the whole tree of choices depth first (odometer order), weighting each
path by 1/n! per permutation, by the exact keep or flip probability per report, and by the exact
probability mass of each count. The result is the protocol's exact output law (an mpmath
:class:`DiscreteLaw`), which the auditor's exact mode uses and a conformance test ties to the
protocol's own sampler.

Feasible for a handful of users: a path has n! · 2^(reports) leaves at most.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError, recorded_name
from dpquant.reference.distributions import DiscreteLaw
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.randomized_response import keep_probability, keep_probability_mp
from dpquant.reference.validation import check_int

MAX_PATHS = 100_000
"""The most random paths :func:`protocol_law` walks (a path is one run of the protocol, tens of
microseconds for a tiny input): past it the law is refused rather than computed for minutes."""

MAX_PERMUTED = 20
"""The largest n whose n! orders :class:`ScriptedGenerator` can script (20! < 2^63)."""

_FLIP = float(np.nextafter(1.0, 0.0))


class _CannotEnumerate(NotImplementedError):
    """A draw :class:`ScriptedGenerator` cannot enumerate (another distribution, or too many
    outcomes); :func:`protocol_law` turns it into a ``ValueError`` naming ``run``."""


class ScriptedGenerator(np.random.Generator):
    """A Generator whose draws replay ``script`` and record arities (and exact masses).

    Each permutation(n) is one decision with n! outcomes; each uniform of ``random(size)`` is one
    binary decision (0 = keep: returns 0.0; 1 = flip: returns the largest double below 1). Each
    ``hypergeometric``, ``multivariate_hypergeometric`` and ``binomial`` draw is one decision
    over its support, with the exact mass of every outcome recorded in ``masses`` (a binomial's
    ``p`` must be one of ``exact_p``'s keys, the float of an exact probability). Any other draw
    raises, so a protocol that uses other randomness cannot be enumerated silently.
    """

    def __init__(self, script: list[int], exact_p: dict[float, Any] | None = None):
        super().__init__(np.random.PCG64(0))
        self.script = script
        self.exact_p = dict(exact_p or {})
        self.arities: list[int] = []
        self.kinds: list[str] = []
        self.masses: list[list[Any] | None] = []

    def _choose(self, arity: int, kind: str, masses: list[Any] | None = None) -> int:
        pos = len(self.arities)
        self.arities.append(arity)
        self.kinds.append(kind)
        self.masses.append(masses)
        return self.script[pos] if pos < len(self.script) else 0

    def hypergeometric(self, ngood: Any, nbad: Any, nsample: Any, size: Any = None) -> Any:
        if size is not None:
            raise _CannotEnumerate("ScriptedGenerator draws one hypergeometric at a time")
        good, bad, k = (_count(v) for v in (ngood, nbad, nsample))
        if k > good + bad:
            raise ValueError("ngood + nbad < nsample")
        _check_outcomes(min(k, good) + 1, "hypergeometric")
        support = list(range(max(0, k - bad), min(k, good) + 1))
        total = mpmath.binomial(good + bad, k)
        masses = [mpmath.binomial(good, g) * mpmath.binomial(bad, k - g) / total for g in support]
        return np.int64(support[self._choose(len(support), "hypergeometric", masses)])

    def multivariate_hypergeometric(
        self, colors: Any, nsample: Any, size: Any = None, method: str = "marginals"
    ) -> np.ndarray:
        if size is not None:
            raise _CannotEnumerate("ScriptedGenerator draws one sample at a time")
        cols, k = [_count(c) for c in colors], _count(nsample)
        if k > sum(cols):
            raise ValueError("nsample > sum(colors)")
        _check_outcomes(math.comb(k + len(cols) - 1, k), "multivariate hypergeometric")
        outcomes = _compositions(k, cols)
        total = mpmath.binomial(sum(cols), k)
        masses = [
            mpmath.fprod(mpmath.binomial(c, x) for c, x in zip(cols, o, strict=True)) / total
            for o in outcomes
        ]
        choice = self._choose(len(outcomes), "multivariate_hypergeometric", masses)
        return np.array(outcomes[choice], dtype=np.int64)

    def binomial(self, n: Any, p: Any, size: Any = None) -> Any:
        if size is not None:
            raise _CannotEnumerate("ScriptedGenerator draws one binomial at a time")
        trials = _count(n)
        _check_outcomes(trials + 1, "binomial")
        if float(p) not in self.exact_p:
            raise _CannotEnumerate(f"a binomial with p = {p!r} (no exact value given)")
        q = self.exact_p[float(p)]
        masses = [
            mpmath.binomial(trials, k) * q**k * (1 - q) ** (trials - k) for k in range(trials + 1)
        ]
        return np.int64(self._choose(trials + 1, "binomial", masses))

    def permutation(self, x: Any, axis: int = 0) -> np.ndarray:
        if isinstance(x, bool | np.bool_) or not isinstance(x, int | np.integer):
            raise _CannotEnumerate("ScriptedGenerator permutes index ranges only")
        n = int(x)
        if not 0 <= n <= MAX_PERMUTED:
            raise _CannotEnumerate(
                f"ScriptedGenerator enumerates permutations of at most {MAX_PERMUTED} items, "
                f"got {n}"
            )
        choice = self._choose(math.factorial(n), f"perm{n}")
        return _unrank(n, choice)

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        shape = () if size is None else size
        count = int(np.prod(shape))
        if count > MAX_PATHS:
            raise _CannotEnumerate(f"ScriptedGenerator enumerates at most {MAX_PATHS} uniforms")
        vals = [0.0 if self._choose(2, "rr") == 0 else _FLIP for _ in range(count)]
        arr = np.array(vals, dtype=float).reshape(shape)
        return float(arr) if size is None else arr

    def __getattribute__(self, name: str) -> Any:
        if name in _FORBIDDEN:
            raise _CannotEnumerate(f"ScriptedGenerator cannot enumerate rng.{name}")
        return super().__getattribute__(name)


_ENUMERATED = frozenset(
    {"permutation", "random", "hypergeometric", "multivariate_hypergeometric", "binomial"}
)
_FORBIDDEN = (
    frozenset(name for name in dir(np.random.Generator) if not name.startswith("_")) - _ENUMERATED
)
"""Every public attribute of a numpy Generator but the draws enumerated here (its bit generator
and ``spawn`` included: both give randomness the enumeration cannot follow)."""


def _check_outcomes(count: int, kind: str) -> None:
    if count > MAX_PATHS:
        raise _CannotEnumerate(f"a {kind} draw with more than {MAX_PATHS} outcomes")


def _count(value: Any) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise _CannotEnumerate(f"ScriptedGenerator counts must be integers, got {value!r:.40}")
    if value < 0:
        raise ParameterError("counts", "must be >= 0", value)
    return int(value)


def _compositions(k: int, caps: list[int]) -> list[tuple[int, ...]]:
    """Every (x_1, …, x_m) with 0 <= x_i <= caps[i] and Σ x_i = k, in lexicographic order."""
    if not caps:
        return [()] if k == 0 else []
    room = sum(caps[1:])
    return [
        (x, *rest)
        for x in range(max(0, k - room), min(k, caps[0]) + 1)
        for rest in _compositions(k - x, caps[1:])
    ]


def _unrank(n: int, rank: int) -> np.ndarray:
    """The ``rank``-th permutation of range(n) in lexicographic order (the order of
    ``itertools.permutations``), from the factorial digits of ``rank``: O(n²), no table."""
    items = list(range(n))
    out = []
    for i in range(n, 0, -1):
        digit, rank = divmod(rank, math.factorial(i - 1))
        out.append(items.pop(digit))
    return np.array(out, dtype=np.int64)


def protocol_law(
    run: Callable[[np.random.Generator], Any], epsilon: float, *, max_paths: int = MAX_PATHS
) -> DiscreteLaw:
    """The exact law of ``run(rng)`` over every permutation, RR outcome and count it can draw.

    ``run`` is the protocol with its data and parameters bound; its RR reports (and the ``p`` of
    its binomial counts of kept answers) must all use the same ``epsilon``. An exception raised on a path becomes the atom ``raised:<Type>``, as the
    auditor treats it. Raises ``ValueError`` past ``max_paths`` (<= :data:`MAX_PATHS`) paths, and
    when ``run`` draws randomness the enumeration cannot follow (:class:`_CannotEnumerate`).
    """
    if not callable(run):
        raise ParameterError("run", "must be callable as run(rng)", type(run).__name__)
    max_paths = check_int(max_paths, "max_paths", minimum=1, maximum=MAX_PATHS)
    keep_probability_mp(epsilon)  # checks epsilon
    with workdps():
        keep = keep_probability_mp(epsilon)
        # the floats a sampler passes as p for the exact keep probability
        exact_p = {keep_probability(epsilon): keep, float(keep): keep}
        masses: dict[Any, mpmath.mpf] = {}
        script: list[int] = []
        paths = 0
        while True:
            paths += 1
            if paths > max_paths:
                raise ValueError(
                    f"the exact law needs more than max_paths = {max_paths} random paths: the "
                    "input is too large to enumerate"
                )
            gen = ScriptedGenerator(script, exact_p)
            try:
                out: Any = run(gen)
                if isinstance(out, bool | np.bool_):
                    out = f"returned:{out}"
                elif isinstance(out, int | np.integer):
                    out = int(out)
                elif isinstance(out, float | np.floating) and np.isfinite(out):
                    out = float(out)
                elif not isinstance(out, str):
                    out = f"returned:{type(out).__name__}"
            except _CannotEnumerate as exc:
                raise ParameterError("run", f"cannot be enumerated: {exc}") from None
            except Exception as exc:  # noqa: BLE001 -- a crash is an output
                out = f"raised:{recorded_name(exc)}"
            arities, kinds = gen.arities, gen.kinds
            taken = script + [0] * (len(arities) - len(script))
            weight = mpmath.mpf(1)
            for choice, arity, kind, table in zip(taken, arities, kinds, gen.masses, strict=True):
                if table is not None:
                    weight *= table[choice]
                elif kind == "rr":
                    weight *= keep if choice == 0 else 1 - keep
                else:
                    weight /= arity
            masses[out] = masses.get(out, mpmath.mpf(0)) + weight
            # odometer: advance the last decision that has an untried outcome
            pos = len(taken) - 1
            while pos >= 0 and taken[pos] + 1 >= arities[pos]:
                pos -= 1
            if pos < 0:
                break
            script = taken[:pos] + [taken[pos] + 1]
        atoms = sorted(masses, key=lambda a: (isinstance(a, str), a))
        return DiscreteLaw.from_probabilities(atoms, [masses[a] for a in atoms])
