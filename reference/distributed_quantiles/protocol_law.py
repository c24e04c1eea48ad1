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

import itertools
import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np

from reference.distributions import DiscreteLaw
from reference.exact.mp import workdps
from reference.primitives.randomized_response import keep_probability_mp

MAX_PATHS = 2_000_000
_FLIP = float(np.nextafter(1.0, 0.0))


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

    def permutation(self, x: Any, axis: int = 0) -> np.ndarray:  # type: ignore[override]
        if not isinstance(x, int | np.integer):
            raise NotImplementedError("ScriptedGenerator permutes index ranges only")
        n = int(x)
        choice = self._choose(math.factorial(n), f"perm{n}")
        return np.array(_permutations(n)[choice], dtype=np.int64)

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:  # type: ignore[override]
        shape = () if size is None else size
        count = int(np.prod(shape))
        vals = [0.0 if self._choose(2, "rr") == 0 else _FLIP for _ in range(count)]
        arr = np.array(vals, dtype=float).reshape(shape)
        return float(arr) if size is None else arr

    def __getattribute__(self, name: str) -> Any:
        if name in _FORBIDDEN:
            raise NotImplementedError(f"ScriptedGenerator cannot enumerate rng.{name}")
        return super().__getattribute__(name)


_FORBIDDEN = frozenset(
    {"integers", "choice", "shuffle", "binomial", "normal", "uniform", "exponential", "bytes"}
)
_PERMS: dict[int, list[tuple[int, ...]]] = {}


def _permutations(n: int) -> list[tuple[int, ...]]:
    if n not in _PERMS:
        _PERMS[n] = list(itertools.permutations(range(n)))
    return _PERMS[n]


def protocol_law(
    run: Callable[[np.random.Generator], Any], epsilon: float, *, max_paths: int = MAX_PATHS
) -> DiscreteLaw:
    """The exact law of ``run(rng)`` over every permutation and RR outcome it can draw.

    ``run`` is the protocol with its data and parameters bound; its RR reports must all use the
    same ``epsilon``. An exception raised on a path becomes the atom ``raised:<Type>``, as the
    auditor treats it. Raises ``ValueError`` past ``max_paths`` paths.
    """
    with workdps():
        keep = keep_probability_mp(epsilon)
        masses: dict[Any, mpmath.mpf] = {}
        script: list[int] = []
        paths = 0
        while True:
            paths += 1
            if paths > max_paths:
                raise ValueError(f"more than {max_paths} random paths: the input is too large")
            gen = ScriptedGenerator(script)
            try:
                out: Any = run(gen)
                out = int(out) if isinstance(out, int | np.integer) else out
            except NotImplementedError:
                raise
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
