"""The fuzz suite's hostile values and its one assertion (issue 18).

An :class:`Entry` is one public entry point with a valid call (``kwargs``) and the kind of each
parameter. :func:`sweep` replaces one parameter at a time by every value of that kind's hostile
pool; :func:`strategy` draws the same replacements (and random floats, integers and lists) for
hypothesis. For each call the outcome must be one of

* a ``ValueError`` whose message names the replaced parameter (or one of its ``aliases``);
* a result that passes the entry's ``check`` (default :func:`check_sane`: no NaN anywhere, and a
  mechanism's draws finite), i.e. a correct result;

never another exception type, a hang (each call runs under a time limit), or a wrong value.
"""

from __future__ import annotations

import datetime
import math
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from hypothesis import strategies as st

HUGE_INT = 10**400
TINY = 5e-324

# -- hostile pools, by the kind of the parameter ---------------------------------------------

_NOT_NUMBERS: tuple[Any, ...] = (
    None,
    "1",
    "no",
    "",
    b"1",
    True,
    False,
    np.bool_(True),
    1 + 0j,
    complex(0.5, 1),
    Decimal("0.5"),
    np.datetime64("2020-01-01"),
    datetime.date(2020, 1, 1),
    [],
    [1.0],
    (0.5,),
    {},
    {0.5},
    object(),
)

REALS: tuple[Any, ...] = (
    math.nan,
    np.float64("nan"),
    math.inf,
    -math.inf,
    1e308,
    -1e308,
    sys.float_info.max,
    1e-300,
    -1e-300,
    TINY,
    0.0,
    -0.0,
    0,
    -1,
    -0.5,
    1,
    0.5,
    2.0,
    1e-16,
    1e16,
    2**53 + 1,
    2**63,
    HUGE_INT,
    -HUGE_INT,
    Fraction(HUGE_INT),
    Fraction(1, HUGE_INT),
    Fraction(1, 3),
    np.float32(0.1),
    np.int64(-5),
    np.longdouble(1) / 3,
    *_NOT_NUMBERS,
)

INTS: tuple[Any, ...] = (
    0,
    -1,
    1,
    2,
    3,
    -(2**63),
    2**31,
    2**62,
    2**63,
    2**64,
    10**18,
    HUGE_INT,
    np.int64(2),
    np.uint8(255),
    1.0,
    2.5,
    math.nan,
    math.inf,
    Fraction(3, 1),
    *_NOT_NUMBERS,
)

FLAGS: tuple[Any, ...] = (0, 1, "no", "yes", "True", "", None, 1.0, [], np.int64(1))

SIZES: tuple[Any, ...] = (
    0,
    -1,
    1,
    2**31,
    10**9,
    10**12,
    2**63,
    2**64,
    HUGE_INT,
    1.0,
    2.5,
    math.nan,
    math.inf,
    "5",
    True,
    False,
    None,
    np.int64(10**12),
    [3],
)

RNGS: tuple[Any, ...] = (
    None,
    0,
    42,
    "seed",
    np.random.RandomState(0),
    np.random.default_rng,
    np.random.SeedSequence(0),
    np.random.PCG64(0),
    object(),
)

DATA: tuple[Any, ...] = (
    [],
    [math.nan],
    [0.5, math.nan],
    [math.inf],
    [-math.inf, 0.5],
    ["0.5", "0.9"],
    [True, 0.5],
    [True, False],
    np.array([True, False]),
    [[0.1, 0.2], [0.3, 0.4]],
    np.zeros((2, 2)),
    [[0.1], [0.2, 0.3]],
    np.array(["2020-01-01"], dtype="datetime64[D]"),
    [datetime.date(2020, 1, 1)],
    [HUGE_INT],
    [Fraction(HUGE_INT)],
    [1e308, -1e308],
    [1e-300, 1e-300, 1e-300],
    [TINY, 0.0],
    [0.5] * 200,
    [0.0] * 1000 + [1.0],
    np.array([0.5 + 1j]),
    [1 + 2j],
    np.array([None, 0.5], dtype=object),
    [None],
    [Decimal("0.5")],
    {0.1, 0.2},
    {"a": 0.5},
    "0.5",
    b"\x00",
    0.5,
    None,
    np.float64(0.5),
    (x for x in (0.1, 0.2)),
    np.array([0.25, 0.75], dtype=np.float32),
    np.array([1, 2], dtype=np.int8),
    np.arange(3, dtype=np.uint64),
)

POOLS: dict[str, tuple[Any, ...]] = {
    "real": REALS,
    "int": INTS,
    "flag": FLAGS,
    "size": SIZES,
    "rng": RNGS,
    "data": DATA,
    "any": REALS + DATA,
}


# -- entry points ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """A public entry point: ``call(**kwargs)`` is a valid call; ``kinds[p]`` names the hostile
    pool of parameter ``p`` (a key of :data:`POOLS`, or ``"choice"``/``"pair"`` whose pools are
    :data:`CHOICES` and :data:`PAIRS`); ``extra[p]`` adds values of its own."""

    name: str
    call: Callable[..., Any]
    kwargs: Mapping[str, Any]
    kinds: Mapping[str, str]
    check: Callable[[Any], None] | None = None
    aliases: Mapping[str, Sequence[str]] = field(default_factory=dict)
    extra: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    timeout: float = 20.0

    def __repr__(self) -> str:  # pytest ids
        return self.name


CHOICES: tuple[Any, ...] = ("", "nope", "DISCRETE", " paper", None, 0, 1, True, 1.5, ["a"], b"x")
PAIRS: tuple[Any, ...] = (
    None,
    (),
    (0.0,),
    (1.0, 0.0),
    (0.5, 0.5),
    (0.0, math.inf),
    (-math.inf, 0.0),
    (math.nan, 1.0),
    (0.0, math.nan),
    (-1e308, 1e308),
    (0.0, 1e308),
    (-1e308, -1e307),
    (0.0, TINY),
    (0.0, 1e-300),
    (1e300, 1e300 * (1 + 1e-15)),
    (0, HUGE_INT),
    (-HUGE_INT, 0),
    ("0", "1"),
    (True, 2.0),
    (0.0, 1.0, 2.0),
    "0,1",
    {0: 0.0, 1: 1.0},
    [[0.0], [1.0]],
    (0 + 0j, 1 + 0j),
    (Decimal(0), Decimal(1)),
)


def pool(entry: Entry, param: str) -> tuple[Any, ...]:
    kind = entry.kinds[param]
    base = {"choice": CHOICES, "pair": PAIRS}.get(kind) or POOLS[kind]
    return base + tuple(entry.extra.get(param, ()))


class Hang(Exception):  # noqa: N818 -- a test outcome, not an error of the library
    """A call outlived its time limit."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in the calling thread after ``seconds`` (SIGALRM; main thread only)."""

    def _raise(signum: int, frame: Any) -> None:
        raise Hang(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _has_nan(x: Any, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if isinstance(x, float | np.floating):
        return math.isnan(x)
    if isinstance(x, mpmath.mpf):
        return bool(mpmath.isnan(x))
    if isinstance(x, np.ndarray):
        if x.dtype.kind in "fc":
            return bool(np.isnan(x).any())
        if x.dtype.kind == "O":
            return any(_has_nan(v, depth + 1) for v in x.ravel()[:1000])
        return False
    if isinstance(x, list | tuple):
        return any(_has_nan(v, depth + 1) for v in x[:1000])
    if isinstance(x, dict):
        return any(_has_nan(v, depth + 1) for v in list(x.values())[:1000])
    return False


def check_sane(result: Any) -> None:
    """The default check of an accepted hostile call: no NaN in the result."""
    assert not _has_nan(result), f"NaN in the result {result!r:.200}"


def check_draws(result: Any) -> None:
    """A mechanism's or a sampler's draws: an array, every numeric draw finite."""
    assert isinstance(result, np.ndarray), f"draws must be an array, got {type(result)}"
    if result.dtype.kind in "fc":
        assert np.isfinite(result).all(), f"non-finite draws {result[~np.isfinite(result)][:5]}"


def total_mass(law: Any) -> mpmath.mpf:
    """The exact total mass of a law (``total_mass()`` where a law has it, else ``mass`` over R)."""
    if hasattr(law, "total_mass"):
        return law.total_mass()
    if not hasattr(law, "mass") and hasattr(law, "components"):  # a product law
        return mpmath.fprod(total_mass(c) for c in law.components)
    return law.mass(-math.inf, math.inf)


def check_law(result: Any) -> None:
    """An exact law: total mass 1 to 1e-40 (mpmath), and no NaN anywhere it can be seen."""
    check_sane(result)
    with mpmath.workdps(60):
        total = total_mass(result)
        assert not mpmath.isnan(total), "total mass NaN"
        assert abs(total - 1) < mpmath.mpf(10) ** -40, f"total mass {total}"


def run(entry: Entry, param: str, value: Any) -> str:
    """One hostile call; returns ``"refused"`` or ``"accepted"``, fails the test otherwise."""
    kwargs = dict(entry.kwargs)
    kwargs[param] = value
    names = (param, *entry.aliases.get(param, ()))
    label = f"{entry.name}({param}={value!r:.80})"
    try:
        with time_limit(entry.timeout):
            result = entry.call(**kwargs)
    except ValueError as exc:
        text = str(exc)
        assert any(n in text for n in names), f"{label}: ValueError not naming {names}: {text}"
        assert len(text) < 2000, f"{label}: an error message of {len(text)} characters"
        return "refused"
    except Hang:
        raise AssertionError(f"{label}: no answer within {entry.timeout} s") from None
    except Exception as exc:  # noqa: BLE001 -- the point of the suite
        raise AssertionError(f"{label}: raised {type(exc).__name__}: {exc}") from exc
    (entry.check or check_sane)(result)
    return "accepted"


def sweep(entry: Entry) -> dict[str, int]:
    """Every hostile value of every parameter, one at a time; counts of outcomes."""
    counts = {"refused": 0, "accepted": 0}
    for param in entry.kinds:
        for value in pool(entry, param):
            counts[run(entry, param, value)] += 1
    return counts


_RANDOMS: dict[str, st.SearchStrategy[Any]] = {
    "real": st.floats(allow_nan=True, allow_infinity=True) | st.integers() | st.fractions(),
    "int": st.integers() | st.floats(),
    "size": st.integers(min_value=-(2**70), max_value=2**70),
    "data": st.lists(
        st.floats(allow_nan=True, allow_infinity=True, width=64) | st.integers(), max_size=30
    ),
    "pair": st.tuples(st.floats(), st.floats()),
}
# one strategy per entry, built once: a strategy built afresh for every example is validated and
# labelled afresh too, which cost hypothesis more than most calls it drew (issue 39)
# (keyed by id, the entry kept beside it so that the id cannot be reused)
_STRATEGIES: dict[int, tuple[Entry, st.SearchStrategy[tuple[str, Any]]]] = {}


def strategy(entry: Entry) -> st.SearchStrategy[tuple[str, Any]]:
    """(parameter, value) pairs: the pool of its kind, plus random values of the same shape.

    Args:
        entry: the entry point whose parameters are drawn.

    Returns:
        One strategy per entry (the same object on every call for the same entry).
    """
    cached = _STRATEGIES.get(id(entry))
    if cached is not None and cached[0] is entry:
        return cached[1]

    def for_param(param: str) -> st.SearchStrategy[tuple[str, Any]]:
        values = st.sampled_from(pool(entry, param))
        if entry.kinds[param] in _RANDOMS:
            values = values | _RANDOMS[entry.kinds[param]]
        return st.tuples(st.just(param), values)

    made = st.one_of([for_param(p) for p in entry.kinds])
    _STRATEGIES[id(entry)] = (entry, made)
    return made


# -- mechanisms --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Specimen:
    """A public mechanism class with a valid configuration and a valid data set.

    ``kinds`` gives the hostile pool of each constructor parameter to fuzz; the entries derived
    from it (:func:`entries_of`) fuzz the constructor (building, then drawing on ``data`` and
    building the exact law), ``sample(data, size, rng)`` and ``exact(data)``. ``draws`` is the
    number of draws of the contract's conformance test (0: the law is too slow to check there).
    """

    name: str
    build: Callable[..., Any]
    kwargs: Mapping[str, Any]
    kinds: Mapping[str, str]
    data: Any
    aliases: Mapping[str, Sequence[str]] = field(default_factory=dict)
    extra: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    draws: int = 4000
    timeout: float = 20.0

    def __repr__(self) -> str:
        return self.name

    def mechanism(self) -> Any:
        return self.build(**self.kwargs)


def _names_data(exc: ValueError) -> bool:
    return str(exc).startswith("data") or "data must" in str(exc)


def check_mechanism_output(mech: Any, out: Any) -> None:
    """Draws of a mechanism: finite, one row per draw, inside its declared output range."""
    check_draws(out)
    rng_ = getattr(mech, "output_range", None)
    if rng_ is not None and out.dtype.kind in "iuf" and out.size:
        assert rng_[0] <= out.min() and out.max() <= rng_[1], (
            f"draws in [{out.min()}, {out.max()}] outside the output range {rng_}"
        )


def _build_and_use(spec: Specimen, **kwargs: Any) -> Any:
    """Build with (possibly hostile) ``kwargs``; if accepted, draw and build the exact law on
    the specimen's data (a data set that the new parameters make invalid is refused, and that
    refusal names the data: fine)."""
    mech = spec.build(**kwargs)
    try:
        out = mech.sample(spec.data, 8, np.random.default_rng(0))
    except ValueError as exc:
        if _names_data(exc):
            return None
        raise
    check_mechanism_output(mech, out)
    if callable(getattr(mech, "exact", None)):
        try:
            law = mech.exact(spec.data)
        except ValueError as exc:
            if _names_data(exc) or "exact" in str(exc):
                return None
            raise
        check_law(law)
    return None


def entries_of(spec: Specimen) -> list[Entry]:
    """The fuzz entries of a specimen: its constructor, ``sample`` and ``exact``."""
    mech = spec.mechanism()
    out = [
        Entry(
            f"{spec.name}()",
            lambda **kw: _build_and_use(spec, **kw),
            dict(spec.kwargs),
            dict(spec.kinds),
            aliases=spec.aliases,
            extra=spec.extra,
            timeout=spec.timeout,
        ),
        Entry(
            f"{spec.name}.sample",
            lambda data, size, rng: mech.sample(data, size, rng),
            {"data": spec.data, "size": 8, "rng": np.random.default_rng(0)},
            {"data": "data", "size": "size", "rng": "rng"},
            check=lambda o: check_mechanism_output(mech, o),
            timeout=spec.timeout,
        ),
    ]
    if callable(getattr(mech, "exact", None)):
        out.append(
            Entry(
                f"{spec.name}.exact",
                lambda data: mech.exact(data),
                {"data": spec.data},
                {"data": "data"},
                check=check_law,
                timeout=spec.timeout,
            )
        )
    return out
