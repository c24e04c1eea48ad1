"""OpenDP measurements audited against their own output measure and privacy map (issue 37).

**OpenDP** (:func:`opendp_measurement`). The user passes a measurement and the input distance
``d_in``; the claim is ``measurement.map(d_in)`` read in ``measurement.output_measure``, and the
neighbouring relation is read from ``measurement.input_metric`` (with ``d_in``):

| output measure | ``map(d_in)`` returns | claim |
|---|---|---|
| ``MaxDivergence`` | ε | ``PrivacyClaim(ε)`` (pure) |
| ``ZeroConcentratedDivergence`` | ρ | ``ZCDPClaim(ρ)`` |
| ``Approximate(MaxDivergence)`` | (ε, δ) | ``PrivacyClaim(ε, δ)`` |
| ``SmoothedMaxDivergence`` | a privacy profile (``curve.delta(ε)``) | ``ProfileClaim`` of (ε, ``curve.delta(ε)``) on the grid ``epsilons`` (:data:`DEFAULT_PROFILE_EPSILONS`) |
| ``Approximate(ZeroConcentratedDivergence)`` | (ρ, δ) | ``ZCDPClaim(ρ)`` when δ = 0; refused when δ > 0 (no claim kind states δ-approximate zCDP) |
| ``Approximate(SmoothedMaxDivergence)`` | (profile, δ) | as ``SmoothedMaxDivergence`` when δ = 0; refused when δ > 0 |
| anything else (``RenyiDivergence``, user divergences) | | refused (``ParameterError`` naming it) |

| input metric | ``d_in`` | relation audited |
|---|---|---|
| ``SymmetricDistance`` (multisets) | 1 | ``add_remove`` |
| ``SymmetricDistance`` | 2 | ``replace_one`` (a replacement is one removal and one addition) |
| ``ChangeOneDistance`` (multisets) | 1 | ``replace_one`` |
| ``AbsoluteDistance`` (a scalar) | Δ > 0 | ``query_answers``: ``QueryAnswers(k=1, Δ)`` |
| ``L1Distance`` (a vector of k) | Δ > 0 | ``QueryAnswers(k, Δ, "l1")`` |
| ``L2Distance`` (a vector of k) | Δ > 0 | ``QueryAnswers(k, Δ, "l1")`` (k = 1: ``"linf"``, the same relation) |
| ``LInfDistance`` (not monotonic) | Δ > 0 | ``QueryAnswers(k, Δ, "linf")`` |
| ``HammingDistance``, ``InsertDeleteDistance`` (ordered), others | | refused |

Under ``L2Distance`` the auditor has no ℓ2 relation; the ℓ1 ball of radius Δ lies inside the ℓ2
ball, so every pair it searches is a neighbouring pair of the claim (a violation found is a real
one), and it holds the one-answer moves of Δ, where an isotropic Gaussian's loss is largest.
Ordered metrics are refused because the auditor's data sets of records are multisets (it sorts
them): a pair it forms need not be at Hamming or insert-delete distance 1; chain
``make_ordered_random`` before such a measurement to give it a multiset metric.

The adapter calls ``opendp.prelude.enable_features("contrib")`` itself (reading and rebuilding
measurements needs it). It does not enable ``"floating-point"`` or ``"honest-but-curious"``:
those lower OpenDP's own safety checks, and whoever builds the measurement decides on them (a
measurement built under them is read like any other).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpquant.audit.model.relations import QueryAnswers
from dpquant.audit.suites.adapters.base import require
from dpquant.audit.suites.adapters.libraries import CHECKED_VERSIONS, number_text
from dpquant.audit.suites.adapters.measurements import (
    MeasuredPeer,
    check_drawn,
    check_scale,
    scale_label,
)
from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, PrivacyClaim
from dpquant.reference.measures import AnyClaim, ProfileClaim, ZCDPClaim
from dpquant.reference.validation import check_delta, check_finite, check_positive

DEFAULT_PROFILE_EPSILONS: tuple[float, ...] = tuple(i / 8 for i in range(81))
"""The ε grid a ``SmoothedMaxDivergence`` profile is tabulated on: 0, 0.125, …, 10."""

MAX_CACHED_MEASUREMENTS = 64
"""Most OpenDP measurements kept, per process, by their serialised form."""

OPENDP_FEATURES = ("contrib",)
"""The OpenDP features :func:`opendp_measurement` enables."""

_FLOAT_ATOMS = ("f32", "f64")
_INT_ATOMS = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "isize", "usize")
_RECORD_METRICS = {
    "SymmetricDistance": {1: Adjacency.ADD_REMOVE, 2: Adjacency.REPLACE_ONE},
    "ChangeOneDistance": {1: Adjacency.REPLACE_ONE},
}
_QUERY_METRICS = {"AbsoluteDistance", "L1Distance", "L2Distance", "LInfDistance"}
_ORDERED_METRICS = {"HammingDistance", "InsertDeleteDistance"}
_MEASURES = (
    "MaxDivergence",
    "ZeroConcentratedDivergence",
    "SmoothedMaxDivergence",
    "Approximate(MaxDivergence)",
    "Approximate(ZeroConcentratedDivergence)",
    "Approximate(SmoothedMaxDivergence)",
)


# ----------------------------------------------------------------------------------------- OpenDP


def _opendp() -> Any:
    """``opendp.prelude`` with :data:`OPENDP_FEATURES` enabled."""
    import opendp.prelude as dp

    dp.enable_features(*OPENDP_FEATURES)
    return dp


_MEASUREMENTS: dict[str, Any] = {}


def _remember(text: str, measurement: Any) -> None:
    if text not in _MEASUREMENTS and len(_MEASUREMENTS) >= MAX_CACHED_MEASUREMENTS:
        _MEASUREMENTS.pop(next(iter(_MEASUREMENTS)))
    _MEASUREMENTS[text] = measurement


def rebuilt_measurement(spec: Any) -> Any:
    """The measurement of a spec: its serialised form (``opendp.prelude.serialize``), rebuilt
    once per process and kept, or the measurement itself.

    Args:
        spec: A JSON text from ``serialize``, or a measurement.

    Returns:
        The measurement.
    """
    if not isinstance(spec, str):
        return spec
    found = _MEASUREMENTS.get(spec)
    if found is None:
        found = _opendp().deserialize(spec)
        _remember(spec, found)
    return found


def _opendp_release(
    data: np.ndarray, rng: np.random.Generator, *, spec: Any, integer: bool, scalar: bool
) -> Any:
    """One invocation of the measurement on ``data`` (a scalar, or a list of numbers)."""
    del rng  # OpenDP draws from OpenSSL, seeded by the OS (seeding.py seeds it in subprocesses)
    measurement = rebuilt_measurement(spec)
    values = [int(v) for v in data] if integer else [float(v) for v in data]
    out = measurement(values[0] if scalar else values)
    if isinstance(out, list | tuple):
        return np.asarray(out, dtype=float)
    return out


def _name_of_measure(measure: Any) -> str:
    """``MaxDivergence``, ``Approximate(ZeroConcentratedDivergence)``, … (or the descriptor)."""
    inner = getattr(measure, "inner_measure", None)
    if inner is not None:
        return f"Approximate({_name_of_measure(inner)})"
    kind = str(getattr(measure, "type", ""))
    return kind if kind != "ExtrinsicDivergence" else f"ExtrinsicDivergence({measure!r})"


def _name_of_metric(metric: Any) -> str:
    """``SymmetricDistance``, ``L2Distance``, … (the type's name without parameters)."""
    kind = getattr(metric, "type", "")
    origin = getattr(kind, "origin", None)
    text = str(origin if origin is not None else kind)
    return text.split("<")[0].split("::")[-1]


def _check_measurement(measurement: Any) -> None:
    import opendp.mod

    if isinstance(measurement, type) or not isinstance(measurement, opendp.mod.Measurement):
        raise ParameterError(
            "measurement",
            "must be an OpenDP Measurement (e.g. opendp.prelude.m.make_gaussian"
            "(...)); a Transformation needs a measurement chained after it",
            type(measurement).__name__,
        )


def _input_shape(measurement: Any) -> tuple[str, bool, tuple[float, float], int | None]:
    """The element type (``f64``, ``i32``, …), whether the input is a scalar, the bounds of its
    values and its size (a sized vector domain), read from the input domain."""
    domain = measurement.input_domain
    element = getattr(domain, "element_domain", None)
    scalar = element is None
    atom = domain if scalar else element
    carrier = str(getattr(atom, "carrier_type", ""))
    if str(getattr(atom, "type", "")).split("<")[0] != "AtomDomain" or carrier not in (
        _FLOAT_ATOMS + _INT_ATOMS
    ):
        raise ParameterError(
            "measurement.input_domain",
            "must be an atom domain of numbers or a vector domain of them (the auditor's inputs "
            "are numbers)",
            repr(domain),
        )
    bounds = getattr(atom, "bounds", None)
    lo, hi = (-math.inf, math.inf) if bounds is None else (float(bounds[0]), float(bounds[1]))
    size = None if scalar else getattr(domain, "size", None)
    return carrier, scalar, (lo, hi), None if size is None else int(size)


def _check_d_in(d_in: Any, distance_type: str) -> float | int:
    """``d_in`` as the map takes it: an int for integer distances, a float otherwise."""
    value = check_positive(d_in, "d_in")
    if distance_type in _INT_ATOMS:
        if value != int(value):
            raise ParameterError(
                "d_in",
                f"must be a positive integer (the metric's distance type is {distance_type})",
                repr(d_in),
            )
        return int(value)
    return value


def _relation(
    metric_name: str,
    metric_text: str,
    d_in: float | int,
    scalar: bool,
    size: int | None,
    data: Any,
) -> tuple[Adjacency, QueryAnswers | None]:
    """The relation of the claim (module docstring's second table)."""
    if metric_name in _RECORD_METRICS:
        if scalar:
            raise ParameterError(
                "measurement.input_domain",
                f"must be a vector domain under {metric_name}",
                "an atom domain",
            )
        by_d_in = _RECORD_METRICS[metric_name]
        if d_in not in by_d_in:
            allowed = " or ".join(f"{d} ({a.value})" for d, a in by_d_in.items())
            raise ParameterError("d_in", f"must be {allowed} under {metric_name}", repr(d_in))
        adjacency = by_d_in[int(d_in)]
        if size is not None and adjacency == Adjacency.ADD_REMOVE:
            raise ParameterError(
                "measurement.input_domain",
                "must be unsized for add/remove of a record (a sized domain takes one size only)",
                f"size = {size}",
            )
        return adjacency, None
    if metric_name in _QUERY_METRICS:
        if "monotonic" in metric_text:
            raise ParameterError(
                "measurement.input_metric",
                "must not be monotonic (the auditor's query-answers pairs move answers both ways)",
                metric_text,
            )
        if scalar:
            k = 1
        elif size is not None:
            k = size
        elif data is not None:
            k = int(np.size(np.asarray(data, dtype=object)))
        else:
            raise ParameterError(
                "data",
                "must be given (an input vector) when the input domain "
                "has no size: the auditor needs the number of answers",
                "None",
            )
        norm = "l1" if metric_name in ("L1Distance", "L2Distance") and k > 1 else "linf"
        return Adjacency.QUERY_ANSWERS, QueryAnswers(k, float(d_in), norm)
    why = (
        "it is ordered, and the auditor's data sets of records are multisets (chain "
        "make_ordered_random first)"
        if metric_name in _ORDERED_METRICS
        else "it is not supported"
    )
    supported = sorted({*_RECORD_METRICS, *_QUERY_METRICS})
    raise ParameterError(
        "measurement.input_metric", f"must be one of {supported}: {why}", metric_text
    )


def _profile(
    curve: Any, epsilons: Sequence[float], adjacency: Adjacency, source: str
) -> ProfileClaim:
    """The table of ``curve.delta`` on ``epsilons`` (δ above 1 read as 1, which always holds)."""
    points = []
    for i, e in enumerate(epsilons):
        eps = check_finite(e, f"epsilons[{i}]")
        if eps < 0:
            raise ParameterError(f"epsilons[{i}]", "must be a finite number >= 0", repr(e))
        try:
            delta = float(curve.delta(eps))
        except Exception as exc:  # noqa: BLE001 -- OpenDP refuses this ε: say which
            raise ParameterError(
                f"epsilons[{i}]",
                f"must be an ε the profile answers (OpenDP: {' '.join(str(exc).split())[:200]})",
                repr(e),
            ) from None
        if not delta >= 0:  # NaN or negative: not a δ
            raise ValueError(f"OpenDP's profile gives δ = {delta!r} at ε = {eps!r}")
        points.append((eps, min(delta, 1.0)))
    return ProfileClaim(tuple(points), adjacency, source)


def claim_of_map(
    measure_name: str,
    distance: Any,
    adjacency: Adjacency,
    epsilons: Sequence[float] = DEFAULT_PROFILE_EPSILONS,
) -> AnyClaim:
    """The claim an OpenDP privacy map's value states (the module docstring's first table).

    Args:
        measure_name: The output measure's name, e.g. ``"Approximate(MaxDivergence)"``.
        distance: ``measurement.map(d_in)``.
        adjacency: The relation the claim names.
        epsilons: The ε grid of a profile.

    Returns:
        The claim.

    Raises:
        ValueError: An unknown measure (``measurement.output_measure``), an approximate zCDP
            or profile with δ > 0, or a value the claim refuses.
    """
    if measure_name.startswith("Approximate(") and measure_name in _MEASURES:
        inner = measure_name[len("Approximate(") : -1]
        value, delta = distance
        delta = float(delta)
        if inner == "MaxDivergence":
            return _claim(PrivacyClaim, float(value), check_delta(delta, "map(d_in)[1]"), adjacency)
        if delta != 0:
            raise ParameterError(
                "measurement.output_measure",
                f"must not be {measure_name} with δ > 0: no claim kind states a δ-approximate "
                f"{inner} (convert it first, e.g. dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP"
                "(m), delta), whose Approximate(MaxDivergence) is read as (ε, δ))",
                f"map(d_in) = ({value!r}, {delta!r})",
            )
        return claim_of_map(inner, value, adjacency, epsilons)
    if measure_name == "MaxDivergence":
        return _claim(PrivacyClaim, float(distance), 0.0, adjacency)
    if measure_name == "ZeroConcentratedDivergence":
        return _claim(ZCDPClaim, float(distance), 0.0, adjacency)
    if measure_name == "SmoothedMaxDivergence":
        return _profile(distance, epsilons, adjacency, "opendp SmoothedMaxDivergence")
    raise ParameterError(
        "measurement.output_measure", f"must be one of {list(_MEASURES)}", measure_name
    )


def _claim(kind: type, value: float, second: float, adjacency: Adjacency) -> AnyClaim:
    """``kind(value, second, adjacency)``; a refusal says the map gave it."""
    try:
        claim: AnyClaim = kind(value, second, adjacency)
    except ValueError as exc:
        raise ValueError(
            f"measurement.map(d_in) gives {value!r}, which a {kind.__name__} refuses: {exc}"
        ) from None
    return claim


def _noise_scales(node: Any) -> list[dict[str, Any]]:
    """The constructor calls of a serialised measurement that take a numeric ``scale``."""
    found = []
    if isinstance(node, dict):
        kwargs = node.get("__kwargs__")
        if isinstance(kwargs, dict) and isinstance(kwargs.get("scale"), int | float):
            found.append(kwargs)
        for value in node.values():
            found += _noise_scales(value)
    elif isinstance(node, list):
        for value in node:
            found += _noise_scales(value)
    return found


def _serialised(measurement: Any) -> str | None:
    try:
        text = _opendp().serialize(measurement)
    except Exception:  # noqa: BLE001 -- a user measurement (a Python closure) does not serialise
        return None
    return text if isinstance(text, str) else None


def _rescaled(text: str | None, factor: float) -> tuple[str | None, float | None, float | None]:
    """The spec drawn from (the serialised form with its one noise ``scale`` multiplied by
    ``factor``), the scale of the measurement as given and the scale drawn from (None when
    there is not exactly one)."""
    calls = _noise_scales(json.loads(text)) if text is not None else []
    claimed = float(calls[0]["scale"]) if len(calls) == 1 else None
    if factor == 1:
        return text, claimed, claimed
    if text is None or claimed is None:
        raise ParameterError(
            "scale",
            "must be 1 for this measurement: a broken configuration rebuilds the "
            "measurement from its serialised form with its one noise scale multiplied, and "
            + (
                "it does not serialise (a user measurement)"
                if text is None
                else f"it has {len(calls)} constructor calls with a scale"
            ),
            number_text(factor),
        )
    check_drawn(claimed, factor)
    tree = json.loads(text)
    call = _noise_scales(tree)[0]
    call["scale"] = claimed * factor
    rescaled = json.dumps(tree)
    try:
        rebuilt_measurement(rescaled)
    except Exception as exc:  # noqa: BLE001 -- OpenDP refuses the multiplied scale
        raise ParameterError(
            "scale",
            f"must give a scale OpenDP takes (OpenDP: {' '.join(str(exc).split())[:200]})",
            repr(factor),
        ) from None
    return rescaled, claimed, claimed * factor


def opendp_measurement(
    measurement: Any,
    d_in: float,
    *,
    data: Any = None,
    adjacency: str | None = None,
    epsilons: Sequence[float] = DEFAULT_PROFILE_EPSILONS,
    scale: float = 1.0,
) -> MeasuredPeer:
    """An OpenDP measurement as a mechanism carrying the guarantee its own privacy map states at
    ``d_in`` (the module docstring's tables): each draw is one invocation of the measurement.

    Args:
        measurement: An ``opendp.mod.Measurement`` whose input domain holds numbers (an atom
            domain, or a vector domain of them).
        d_in: The input distance: 1 (add/remove) or 2 (replace-one) under the symmetric
            distance, 1 under the change-one distance, the sensitivity Δ > 0 under an absolute,
            ℓ1, ℓ2 or ℓ∞ distance.
        data: An input the measurement takes (a data set, a scalar answer or a vector of
            answers): the measurement is invoked on it once now, and it gives the number of
            answers of an unsized vector domain. None: no trial.
        adjacency: None, or the relation the metric and ``d_in`` give (a check).
        epsilons: The ε grid of a ``SmoothedMaxDivergence`` profile (finite, >= 0, distinct).
        scale: The noise multiplier: the measurement is rebuilt (from ``opendp.prelude
            .serialize``) with its one noise ``scale`` argument multiplied by it, and the claim
            is the map of the measurement as given (``scale < 1``: a broken configuration).

    Returns:
        The mechanism: picklable when OpenDP serialises the measurement (every library
        constructor; not a ``make_user_measurement``), not seedable (OpenDP uses OpenSSL).

    Raises:
        PeerUnavailable: OpenDP is not installed.
        ValueError: A ``ParameterError`` naming the parameter: not a measurement, a measure or
            metric the adapter does not read, a ``d_in`` the metric does not take or the map
            refuses, a ``scale`` it cannot apply, ``data`` the measurement refuses.
    """
    version = require("opendp", "opendp.prelude")
    _opendp()
    _check_measurement(measurement)
    factor = check_scale(scale)
    measure_name = _name_of_measure(measurement.output_measure)
    if measure_name not in _MEASURES:
        raise ParameterError(
            "measurement.output_measure", f"must be one of {list(_MEASURES)}", measure_name
        )
    metric = measurement.input_metric
    metric_name, metric_text = _name_of_metric(metric), repr(metric)
    carrier, scalar, bounds, size = _input_shape(measurement)
    distance_in = _check_d_in(d_in, str(measurement.input_distance_type))
    relation_adjacency, relation = _relation(
        metric_name, metric_text, distance_in, scalar, size, data
    )
    if adjacency is not None and adjacency != relation_adjacency.value:
        raise ParameterError(
            "adjacency",
            f"must be None or {relation_adjacency.value!r} (what "
            f"{metric_name} at d_in = {distance_in} gives)",
            repr(adjacency),
        )
    try:
        distance = measurement.map(distance_in)
    except Exception as exc:  # noqa: BLE001 -- OpenDP's map refuses this d_in
        raise ParameterError(
            "d_in",
            f"must be a distance the measurement's map takes (OpenDP: "
            f"{' '.join(str(exc).split())[:200]})",
            repr(d_in),
        ) from None
    claim = claim_of_map(measure_name, distance, relation_adjacency, epsilons)
    text = _serialised(measurement)
    spec_text, claimed, drawn = _rescaled(text, factor)
    spec: Any = spec_text if spec_text is not None else measurement
    if spec_text is not None and factor == 1:
        _remember(spec_text, measurement)
    fn = functools.partial(_opendp_release, spec=spec, integer=carrier in _INT_ATOMS, scalar=scalar)
    top = json.loads(text)["__function__"] if text is not None else "user measurement"
    where = relation.name if relation is not None else relation_adjacency.value
    label = (
        f"{scale_label(factor)}{top}[{measure_name}, {metric_name}, "
        f"d_in={number_text(float(distance_in))}, {where}]"
    )
    mech = MeasuredPeer(
        fn,
        claim,
        bounds,
        f"opendp {label}",
        relation=relation,
        library="opendp",
        checked_version=CHECKED_VERSIONS["opendp"],
        version=version,
        call=f"measurement(x), claim from measurement.map({number_text(float(distance_in))})",
        seedable=False,
        noise_scale=drawn,
        claimed_scale=claimed,
        scale_factor=factor,
        sensitivity=None if relation is None else relation.sensitivity,
        integer_input=carrier in _INT_ATOMS,
        input_size=size if relation is None else None,
    )
    if data is not None:
        _trial(mech, data)
    return mech


def _trial(mech: MeasuredPeer, data: Any) -> None:
    """One draw on ``data``: a measurement that refuses it is refused now."""
    try:
        x = mech.check_input(np.atleast_1d(np.asarray(data, dtype=float)))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ParameterError) and exc.parameter == "data":
            raise
        raise ParameterError(
            "data",
            "must be numbers the measurement takes (a scalar, or a sequence of records or answers)",
            repr(data)[:80],
        ) from None
    if mech.relation is not None and x.size != mech.relation.k:
        raise ParameterError("data", f"must hold {mech.relation.k} answers", str(x.size))
    try:
        mech.fn(x, np.random.default_rng(0))
    except Exception as exc:  # noqa: BLE001 -- the library refuses the input: say how
        raise ParameterError(
            "data",
            f"must be an input the measurement takes (OpenDP: {' '.join(str(exc).split())[:200]})",
            repr(data)[:80],
        ) from None


__all__ = [
    "DEFAULT_PROFILE_EPSILONS",
    "MAX_CACHED_MEASUREMENTS",
    "OPENDP_FEATURES",
    "claim_of_map",
    "opendp_measurement",
    "rebuilt_measurement",
]
