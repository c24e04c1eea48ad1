"""The exact output law of an adaptive protocol on a tiny input, by enumerating its random choices.

Every adaptive protocol of this package draws its randomness in two forms only: the uniformly
random order of the users (``rng.permutation(n)``, in :class:`UserStream`) and one uniform per
RR report, read as "flip iff u >= e^ε/(1 + e^ε)" (:func:`threshold_rr`, :func:`bayes_learn`).
:class:`ScriptedGenerator` replays a prescribed choice for each of these draws, and
:func:`protocol_law` walks the whole tree of choices depth first (odometer order), weighting each
path by 1/n! per permutation and by the exact keep or flip probability per report. The result is
the protocol's exact output law (an mpmath :class:`DiscreteLaw`), which the auditor's exact mode
uses and a conformance test ties to the protocol's own sampler.

Feasible for a handful of users: a path has n! · 2^(reports) leaves at most.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np

from reference.distributions import DiscreteLaw
from reference.exact.mp import workdps
from reference.primitives.randomized_response import keep_probability_mp
from reference.validation import check_int

MAX_PATHS = 100_000
"""The most random paths :func:`protocol_law` walks (a path is one run of the protocol, tens of
microseconds for a tiny input): past it the law is refused rather than computed for minutes."""

MAX_PERMUTED = 20
"""The largest n whose n! orders :class:`ScriptedGenerator` can script (20! < 2^63)."""

_FLIP = float(np.nextafter(1.0, 0.0))


class CannotEnumerate(NotImplementedError):
    """A draw :class:`ScriptedGenerator` cannot enumerate (another distribution, or too many
    outcomes); :func:`protocol_law` turns it into a ``ValueError`` naming ``run``."""


class ScriptedGenerator(np.random.Generator):
    """A Generator whose ``permutation`` and ``random`` replay ``script`` and record arities.

    Each permutation(n) is one decision with n! outcomes; each uniform of ``random(size)`` is one
    binary decision (0 = keep: returns 0.0; 1 = flip: returns the largest double below 1). Any
    other draw raises, so a protocol that uses other randomness cannot be enumerated silently.
    """

    def __init__(self, script: list[int]):
        super().__init__(np.random.PCG64(0))
        self.script = script
        self.arities: list[int] = []
        self.kinds: list[str] = []

    def _choose(self, arity: int, kind: str) -> int:
        pos = len(self.arities)
        self.arities.append(arity)
        self.kinds.append(kind)
        return self.script[pos] if pos < len(self.script) else 0

    def permutation(self, x: Any, axis: int = 0) -> np.ndarray:
        if isinstance(x, bool | np.bool_) or not isinstance(x, int | np.integer):
            raise CannotEnumerate("ScriptedGenerator permutes index ranges only")
        n = int(x)
        if not 0 <= n <= MAX_PERMUTED:
            raise CannotEnumerate(
                f"ScriptedGenerator enumerates permutations of at most {MAX_PERMUTED} items, "
                f"got {n}"
            )
        choice = self._choose(math.factorial(n), f"perm{n}")
        return _unrank(n, choice)

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        shape = () if size is None else size
        count = int(np.prod(shape))
        if count > MAX_PATHS:
            raise CannotEnumerate(f"ScriptedGenerator enumerates at most {MAX_PATHS} uniforms")
        vals = [0.0 if self._choose(2, "rr") == 0 else _FLIP for _ in range(count)]
        arr = np.array(vals, dtype=float).reshape(shape)
        return float(arr) if size is None else arr

    def __getattribute__(self, name: str) -> Any:
        if name in _FORBIDDEN:
            raise CannotEnumerate(f"ScriptedGenerator cannot enumerate rng.{name}")
        return super().__getattribute__(name)


_FORBIDDEN = frozenset(
    {"integers", "choice", "shuffle", "binomial", "normal", "uniform", "exponential", "bytes"}
)


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
    """The exact law of ``run(rng)`` over every permutation and RR outcome it can draw.

    ``run`` is the protocol with its data and parameters bound; its RR reports must all use the
    same ``epsilon``. An exception raised on a path becomes the atom ``raised:<Type>``, as the
    auditor treats it. Raises ``ValueError`` past ``max_paths`` (<= :data:`MAX_PATHS`) paths, and
    when ``run`` draws randomness the enumeration cannot follow (:class:`CannotEnumerate`).
    """
    if not callable(run):
        raise ValueError(f"run must be callable as run(rng), got {type(run).__name__}")
    max_paths = check_int(max_paths, "max_paths", minimum=1, maximum=MAX_PATHS)
    keep_probability_mp(epsilon)  # checks epsilon
    with workdps():
        keep = keep_probability_mp(epsilon)
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
            gen = ScriptedGenerator(script)
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
            except CannotEnumerate as exc:
                raise ValueError(f"run cannot be enumerated: {exc}") from None
            except Exception as exc:  # noqa: BLE001 -- a crash is an output
                out = f"raised:{type(exc).__name__}"
            arities, kinds = gen.arities, gen.kinds
            taken = script + [0] * (len(arities) - len(script))
            weight = mpmath.mpf(1)
            for choice, arity, kind in zip(taken, arities, kinds, strict=True):
                if kind == "rr":
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
