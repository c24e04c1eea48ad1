"""The four adapters (see :mod:`dpquant.audit.suites.adapters` for the table).

Each factory checks that its library imports, builds the call once (OpenDP's measurement is
cached per configuration) and returns a :class:`PeerMechanism` whose ``fn`` is a module-level
``functools.partial`` (picklable, so audits can spread draws over processes).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import numpy as np

from dpquant.audit.suites.adapters.base import PeerMechanism, require
from dpquant.reference.core import PrivacyClaim, check_adjacency
from dpquant.reference.primitives.candidate_quantile import check_candidates, opendp_alpha
from dpquant.reference.validation import (
    check_choice,
    check_domain,
    check_epsilon,
    check_probability,
)

DIFFPRIVLIB_CHECKED = "0.6.6"
OPENDP_CHECKED = "0.16.0"
PYDP_CHECKED = "1.1.5"
EEPRIVACY_CHECKED = "0.0.5"
SEED_BOUND = 2**32
DEFAULT_CANDIDATES = tuple(float(v) for v in np.linspace(0.0, 1.0, 21))
CHECKED_VERSIONS = {
    "diffprivlib": DIFFPRIVLIB_CHECKED,
    "opendp": OPENDP_CHECKED,
    "python-dp": PYDP_CHECKED,
    "eeprivacy": EEPRIVACY_CHECKED,
}
"""The version of each library that its adapter was checked against."""


MAX_LISTED_CANDIDATES = 6
"""A label lists up to this many candidates; more are named by their count, ends and digest."""


def _bounds(bounds: Sequence[float]) -> tuple[float, float]:
    """Finite bounds lo < hi whose width fits a float64."""
    return check_domain(bounds, "bounds", finite=True)


def number_text(x: float) -> str:
    """``x`` as short as it reads (``1``, ``0.25``, ``1e-07``) when that text is exactly ``x``,
    else its shortest round-trip text (``0.1234567``): two different values never read the same.

    Args:
        x: A finite float.

    Returns:
        The text of ``x``.
    """
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def candidates_text(candidates: tuple[float, ...]) -> str:
    """The candidates of a label, distinct for distinct grids: the adapters' default grid as
    ``21 candidates``, a few candidates listed, more by count, ends and a digest of the values.

    Args:
        candidates: Checked candidates (distinct, finite, sorted).

    Returns:
        The text, e.g. ``candidates=(0,0.5,1)``.
    """
    if candidates == DEFAULT_CANDIDATES:
        return f"{len(candidates)} candidates"
    if len(candidates) <= MAX_LISTED_CANDIDATES:
        return "candidates=(" + ",".join(number_text(c) for c in candidates) + ")"
    digest = hashlib.sha256(np.asarray(candidates, dtype=np.float64).tobytes()).hexdigest()
    lo, hi = number_text(candidates[0]), number_text(candidates[-1])
    return f"{len(candidates)} candidates in [{lo},{hi}] #{digest[:12]}"


def _median_at_half(function: str, q: float, name: str) -> None:
    """A median is the ½-quantile: ``function="median"`` with another ``q`` would ignore it.

    Args:
        function: The library function chosen.
        q: The checked quantile.
        name: The parameter's name, for the message.

    Raises:
        ValueError: naming ``name``, when ``function`` is ``"median"`` and ``q`` is not ½.
    """
    if function == "median" and q != 0.5:
        raise ValueError(
            f"{name} must be 0.5 (or left out) with function='median', got {q!r}; "
            f"function='{'percentile' if name == 'percentile' else 'quantile'}' takes any {name}"
        )


def _peer(
    library: str,
    version: str,
    fn: Callable[..., float],
    epsilon: float,
    adjacency: str,
    label: str,
    call: str,
    *,
    seedable: bool,
    chunk_guard: Callable[[], contextlib.AbstractContextManager[Any]] | None = None,
) -> PeerMechanism:
    """The adapter of ``library`` (``version`` installed): ``fn``, claimed pure ``epsilon``-DP
    under ``adjacency``, any real output, named ``"<library> <label>"``, checked against
    :data:`CHECKED_VERSIONS` (``chunk_guard``: as :class:`PeerMechanism`'s)."""
    return PeerMechanism(
        fn,
        PrivacyClaim(epsilon, 0.0, adjacency),
        (-math.inf, math.inf),
        f"{library} {label}",
        library=library,
        checked_version=CHECKED_VERSIONS[library],
        version=version,
        call=call,
        seedable=seedable,
        chunk_guard=chunk_guard,
    )


# ----------------------------------------------------------------------------------- diffprivlib


def _diffprivlib_release(
    data: np.ndarray,
    rng: np.random.Generator,
    *,
    function: str,
    quantile: float,
    epsilon: float,
    bounds: tuple[float, float],
) -> float:
    from diffprivlib import tools
    from diffprivlib.accountant import BudgetAccountant

    common = {
        "epsilon": epsilon,
        "bounds": bounds,
        "random_state": int(rng.integers(SEED_BOUND)),  # a Generator is refused; an int is not
        "accountant": BudgetAccountant(),  # the default accountant would accumulate every call
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RuntimeWarning on the issue-107 path; we keep outputs
        if function == "median":
            return float(tools.median(data, **common))
        if function == "percentile":
            return float(tools.percentile(data, 100 * quantile, **common))
        return float(tools.quantile(data, quantile, **common))


def diffprivlib_quantile(
    quantile: float = 0.5,
    epsilon: float = 1.0,
    bounds: tuple[float, float] = (0.0, 1.0),
    *,
    function: Literal["quantile", "median", "percentile"] = "quantile",
    adjacency: Literal["replace_one", "add_remove", "local"] = "replace_one",
) -> PeerMechanism:
    """IBM diffprivlib's ``tools.quantile(data, q, epsilon, bounds, random_state)`` (or ``median``,
    ``percentile``): Smith's exponential mechanism with utility −|j − q·n| and sensitivity 1, pure
    ε-DP.

    Args:
        quantile: The quantile q, in [0, 1] (0.5 with ``function="median"``).
        epsilon: The ε passed to the library, and claimed.
        bounds: The library's ``bounds`` (lo, hi), finite with lo < hi.
        function: The library function called.
        adjacency: The relation claimed: diffprivlib does not name one; Δ = 1 holds for both,
            so the default audits replace-one (the stronger for a fixed n).

    Returns:
        The mechanism, named with every parameter.

    Raises:
        PeerUnavailable: diffprivlib is not installed.
        ValueError: A parameter is refused (named in the message).
    """
    version = require("diffprivlib", "diffprivlib.tools")
    kind = check_choice(function, "function", ("quantile", "median", "percentile"))
    q = check_probability(quantile, "quantile")
    _median_at_half(kind, q, "quantile")
    eps = check_epsilon(epsilon)
    lo, hi = _bounds(bounds)
    relation = check_adjacency(adjacency)
    qt, et, lt, ht = (number_text(v) for v in (q, eps, lo, hi))
    call = {
        "quantile": f"diffprivlib.tools.quantile(x, {qt}, epsilon={et}, bounds=({lt}, {ht}))",
        "median": f"diffprivlib.tools.median(x, epsilon={et}, bounds=({lt}, {ht}))",
        "percentile": (
            f"diffprivlib.tools.percentile(x, {number_text(100 * q)}, epsilon={et}, "
            f"bounds=({lt}, {ht}))"
        ),
    }[kind]
    fn = functools.partial(
        _diffprivlib_release, function=kind, quantile=q, epsilon=eps, bounds=(lo, hi)
    )
    label = f"{kind}[q={qt},eps={et},bounds=({lt},{ht}),{relation}]"
    return _peer("diffprivlib", version, fn, eps, relation, label, call, seedable=True)


# ---------------------------------------------------------------------------------------- OpenDP


@functools.lru_cache(maxsize=64)
def opendp_measurement(
    candidates: tuple[float, ...], alpha: float, scale: float, measure: str
) -> Any:
    """OpenDP's private quantile measurement (``make_private_quantile``, contrib) over vectors
    of floats under the symmetric distance, built once per configuration."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()
    output_measure = getattr(dp, measure)()
    return dp.m.make_private_quantile(*space, output_measure, list(candidates), alpha, scale)


def _opendp_release(
    data: np.ndarray,
    rng: np.random.Generator,
    *,
    candidates: tuple[float, ...],
    alpha: float,
    scale: float,
    measure: str,
) -> float:
    del rng  # OpenDP draws from OpenSSL, seeded by the OS; no seed from Python (see seeding.py)
    measurement = opendp_measurement(candidates, alpha, scale, measure)
    return float(measurement(np.ascontiguousarray(data, dtype=np.float64)))


def opendp_quantile(
    quantile: float = 0.5,
    epsilon: float = 1.0,
    candidates: Sequence[float] = DEFAULT_CANDIDATES,
    *,
    measure: Literal["max_divergence", "zero_concentrated_divergence"] = "max_divergence",
    adjacency: Literal["add_remove", "replace_one"] = "add_remove",
) -> PeerMechanism:
    """OpenDP's ``make_private_quantile`` over ``candidates`` with ``scale`` set so that its
    privacy map gives ε at d_in = 1 (add/remove; replace-one is d_in = 2): scale =
    2·d_in·max(a, d − a)/(d·ε) for α = a/d. The library's own map is checked against ε.

    Args:
        quantile: The quantile α, in [0, 1].
        epsilon: The ε claimed, which sets the scale.
        candidates: The candidate outputs, finite and distinct.
        measure: ``"max_divergence"`` (pure DP; the release is permute-and-flip) or
            ``"zero_concentrated_divergence"`` (the exponential mechanism; claimed here as the
            pure ε it also satisfies).
        adjacency: ``"add_remove"`` or ``"replace_one"``.

    Returns:
        The mechanism, named with every parameter.

    Raises:
        PeerUnavailable: OpenDP is not installed.
        ValueError: A parameter is refused (named in the message), or OpenDP refuses it.
    """
    version = require("opendp", "opendp.prelude")
    divergence = check_choice(
        measure, "measure", ("max_divergence", "zero_concentrated_divergence")
    )
    q = check_probability(quantile, "quantile")
    eps = check_epsilon(epsilon)
    cands = check_candidates(candidates)
    relation = check_adjacency(adjacency)
    if relation == "local":
        raise ValueError("adjacency must be add_remove or replace_one for a quantile")
    d_in = 1 if relation == "add_remove" else 2
    a, d = opendp_alpha(q)
    scale = 2 * d_in * max(a, d - a) / (d * eps)
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"epsilon = {eps!r} gives a noise scale {scale!r} OpenDP cannot take")
    if divergence == "max_divergence":
        try:
            mapped = float(opendp_measurement(cands, q, scale, divergence).map(d_in))
        except Exception as exc:  # noqa: BLE001 -- the library refuses these parameters
            raise ValueError(
                f"OpenDP refuses epsilon = {eps!r} with these candidates: {exc}"
            ) from None
        if not math.isfinite(mapped):
            raise ValueError(f"epsilon = {eps!r} is beyond what OpenDP's privacy map represents")
        if mapped > eps * (1 + 1e-9):
            raise AssertionError(f"OpenDP maps d_in = {d_in} to ε = {mapped} > {eps}")
    fn = functools.partial(
        _opendp_release, candidates=cands, alpha=q, scale=scale, measure=divergence
    )
    qt, et = number_text(q), number_text(eps)
    label = f"private_quantile[{divergence},q={qt},eps={et},{candidates_text(cands)},{relation}]"
    call = (
        f"dp.m.make_private_quantile(vector_domain(atom_domain(T=float, nan=False)), "
        f"symmetric_distance(), {divergence}(), candidates, {qt}, scale={number_text(scale)})"
    )
    return _peer("opendp", version, fn, eps, relation, label, call, seedable=False)


# ------------------------------------------------------------------------------------- python-dp


def _pydp_release(
    data: np.ndarray,
    rng: np.random.Generator,
    *,
    function: str,
    percentile: float,
    epsilon: float,
    bounds: tuple[float, float],
) -> float:
    del rng  # python-dp draws from OpenSSL's generator; it cannot be seeded from Python
    from pydp.algorithms.laplacian import Median, Percentile

    lo, hi = bounds
    if function == "median":
        algorithm = Median(epsilon=epsilon, lower_bound=lo, upper_bound=hi, dtype="float")
    else:
        algorithm = Percentile(
            epsilon=epsilon, percentile=percentile, lower_bound=lo, upper_bound=hi, dtype="float"
        )
    return float(algorithm.quick_result([float(v) for v in np.ravel(data)]))


PYDP_MIN_EPSILON = 2.0**-30
"""The smallest ε the adapter passes to python-dp 1.1.5: from about 2^-31 (``Median``) or 2^-33
(``Percentile``) down, the library releases NaN on data in its bounds, and below about 2^-43 it
raises ``RuntimeError`` ("Epsilon must be at least 2^-50": its budget split goes below its own
limit). Measured on [0.25, 0.5, 0.75] with bounds (0, 1); ``notes/peers.md``."""


def pydp_percentile(
    percentile: float = 0.5,
    epsilon: float = 1.0,
    bounds: tuple[float, float] = (0.0, 1.0),
    *,
    function: Literal["median", "percentile"] = "median",
) -> PeerMechanism:
    """Google's python-dp ``Median``/``Percentile(epsilon, percentile, lower_bound, upper_bound,
    dtype="float").quick_result(data)``: an adaptive binary search over noisy counts (Laplace),
    pure ε-DP under add/remove of one record (l0 = linf = 1; under replace-one only 2ε).

    Args:
        percentile: The quantile, in [0, 1] (0.5 with ``function="median"``).
        epsilon: The ε passed to the library, and claimed; at least :data:`PYDP_MIN_EPSILON`.
        bounds: The library's (lower_bound, upper_bound), finite with lo < hi.
        function: The library class used.

    Returns:
        The mechanism, named with every parameter.

    Raises:
        PeerUnavailable: python-dp is not installed.
        ValueError: A parameter is refused (named in the message).
    """
    version = require("python-dp", "pydp.algorithms.laplacian")
    kind = check_choice(function, "function", ("median", "percentile"))
    p = check_probability(percentile, "percentile")
    _median_at_half(kind, p, "percentile")
    eps = check_epsilon(epsilon)
    if eps < PYDP_MIN_EPSILON:
        raise ValueError(
            f"epsilon must be at least 2^-30 for python-dp (below, it releases NaN, and below "
            f"about 2^-43 it raises), got {eps!r}"
        )
    lo, hi = _bounds(bounds)
    fn = functools.partial(_pydp_release, function=kind, percentile=p, epsilon=eps, bounds=(lo, hi))
    pt, et, lt, ht = (number_text(v) for v in (p, eps, lo, hi))
    name = "Median" if kind == "median" else f"Percentile(percentile={pt})"
    label = f"{kind}[p={pt},eps={et},bounds=({lt},{ht}),add_remove]"
    call = (
        f"pydp.algorithms.laplacian.{name}(epsilon={et}, lower_bound={lt}, "
        f"upper_bound={ht}, dtype='float').quick_result(x)"
    )
    return _peer("python-dp", version, fn, eps, "add_remove", label, call, seedable=False)


# ------------------------------------------------------------------------------------- eeprivacy


def _eeprivacy_release(
    data: np.ndarray,
    rng: np.random.Generator,
    *,
    candidates: tuple[float, ...],
    quantile: float,
    epsilon: float,
) -> float:
    """One release; eeprivacy draws from numpy's global generator, seeded here from ``rng`` (its
    state is kept around each chunk of draws by :func:`_numpy_global_state_kept`)."""
    from eeprivacy.operations import PrivateQuantile

    np.random.seed(int(rng.integers(SEED_BOUND)))
    operation = PrivateQuantile(options=list(candidates))
    values = np.asarray(data, dtype=float)
    return float(operation.execute(values=values, epsilon=epsilon, quantile=quantile))


@contextlib.contextmanager
def _numpy_global_state_kept() -> Iterator[None]:
    """Restore numpy's global generator on exit (a caller's ``np.random`` stream is untouched)."""
    state = np.random.get_state()
    try:
        yield
    finally:
        np.random.set_state(state)


def eeprivacy_quantile(
    quantile: float = 0.5,
    epsilon: float = 1.0,
    candidates: Sequence[float] = DEFAULT_CANDIDATES,
    *,
    adjacency: Literal["replace_one", "add_remove", "local"] = "replace_one",
) -> PeerMechanism:
    """eeprivacy's ``PrivateQuantile(options=candidates).execute(values, epsilon, quantile)``:
    report-noisy-max of −|#{x < c} − N·q| with Laplace(1/ε) noise, claimed ε-DP (Dwork and Roth,
    Claim 3.9). The seed drives numpy's global generator during the call, which is restored
    afterwards.

    Args:
        quantile: The quantile q, in [0, 1].
        epsilon: The ε passed to the library, and claimed.
        candidates: The candidate outputs (``options``), finite and distinct.
        adjacency: The relation claimed; replace-one by default (N fixed).

    Returns:
        The mechanism, named with every parameter.

    Raises:
        PeerUnavailable: eeprivacy is not installed.
        ValueError: A parameter is refused (named in the message).
    """
    version = require("eeprivacy", "eeprivacy.operations")
    q = check_probability(quantile, "quantile")
    eps = check_epsilon(epsilon)
    cands = check_candidates(candidates)
    relation = check_adjacency(adjacency)
    fn = functools.partial(_eeprivacy_release, candidates=cands, quantile=q, epsilon=eps)
    qt, et = number_text(q), number_text(eps)
    label = f"PrivateQuantile[q={qt},eps={et},{candidates_text(cands)},{relation}]"
    call = f"PrivateQuantile(options=candidates).execute(values=x, epsilon={et}, quantile={qt})"
    return _peer(
        "eeprivacy", version, fn, eps, relation, label, call,
        seedable=True, chunk_guard=_numpy_global_state_kept,
    )  # fmt: skip


PEERS: dict[str, Callable[..., PeerMechanism]] = {
    "diffprivlib": diffprivlib_quantile,
    "opendp": opendp_quantile,
    "python-dp": pydp_percentile,
    "eeprivacy": eeprivacy_quantile,
}

__all__ = [
    "DEFAULT_CANDIDATES",
    "MAX_LISTED_CANDIDATES",
    "candidates_text",
    "PEERS",
    "diffprivlib_quantile",
    "eeprivacy_quantile",
    "number_text",
    "opendp_measurement",
    "opendp_quantile",
    "pydp_percentile",
]
