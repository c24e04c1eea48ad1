"""Libraries' noise mechanisms, each audited against the guarantee the library itself states
(issue 37): an OpenDP measurement against its own output measure and privacy map, and the
Gaussian mechanisms of diffprivlib and python-dp at their (ε, δ).

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

**diffprivlib** (:func:`diffprivlib_gaussian`): ``GaussianAnalytic`` / ``Gaussian`` /
``GaussianDiscrete(epsilon, delta, sensitivity)``, claimed (ε, δ)-DP on a scalar answer
(``QueryAnswers(k=1, Δ)``), seeded by the auditor's generator (``random_state``).
**python-dp** (:func:`pydp_gaussian`): ``GaussianMechanism(epsilon, delta, sensitivity)``,
claimed (ε, δ)-DP on the same relation (OpenSSL randomness: not seedable from Python).

**Broken configurations.** Every adapter takes ``scale``, a multiplier on the noise scale (1: the
library's own configuration). The claim stays the one of the correct configuration: OpenDP's
measurement is rebuilt with its noise ``scale`` argument multiplied (the claim is the map of the
measurement as given); diffprivlib's computed ``_scale`` is multiplied (the library has no
public way to set it); python-dp's mechanism is built by ``create_from_standard_deviation``
(multiplied standard deviation). A configuration with ``scale < 1`` is named ``BROKEN`` in its
name; :data:`BROKEN_SCALE` (0.8) is the one the tests use. Each adapter carries the noise scale
drawn from (``noise_scale``) and the one the claim is for (``claimed_scale``); for a continuous
Gaussian of scale σ and ℓ2 sensitivity Δ the exact guarantee is (Δ/σ)-GDP
(``gdp_mu`` = Δ/``claimed_scale``; Dong, Roth and Su 2022, Theorem 2.7).

``notes/peers.md`` ("Gaussian mechanisms at their own guarantees") records what each library
promises and what was measured.
"""

from __future__ import annotations

import functools
import json
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from dpquant.audit.model.relations import QueryAnswers
from dpquant.audit.suites.adapters.base import PeerMechanism, require
from dpquant.audit.suites.adapters.libraries import CHECKED_VERSIONS, SEED_BOUND, number_text
from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, PrivacyClaim
from dpquant.reference.measures import AnyClaim, ProfileClaim, ZCDPClaim
from dpquant.reference.validation import check_choice, check_delta, check_finite, check_positive

BROKEN_SCALE = 0.8
"""The noise multiplier of the tests' broken configurations (noise a little too small)."""

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


@dataclass(frozen=True)
class MeasuredPeer(PeerMechanism):
    """A library's noise mechanism as a mechanism carrying the library's own guarantee, of any
    kind (:mod:`dpquant.reference.measures`): built by :func:`opendp_measurement`,
    :func:`diffprivlib_gaussian` and :func:`pydp_gaussian`.

    Attributes (besides :class:`~dpquant.audit.suites.adapters.base.PeerMechanism`'s):
        privacy_claim: The claim: a ``PrivacyClaim``, ``ZCDPClaim`` or ``ProfileClaim``.
        noise_scale: The noise scale the draws come from (OpenDP's ``scale`` argument,
            diffprivlib's σ, python-dp's standard deviation), or None when it cannot be read.
        claimed_scale: The noise scale of the configuration the claim is for (None likewise).
        scale_factor: ``noise_scale / claimed_scale``: 1 for the library's configuration, < 1
            for a broken one.
        sensitivity: The Δ of a query-answers relation, or None for records.
        integer_input: The inputs must be integers (an integer carrier type).
        input_size: The number of records the measurement takes (a sized vector domain), or
            None.
        gdp_mu: Δ/``claimed_scale`` for a continuous Gaussian (its exact μ-GDP guarantee), else
            None.
    """

    privacy_claim: AnyClaim  # type: ignore[assignment]
    noise_scale: float | None = None
    claimed_scale: float | None = None
    scale_factor: float = 1.0
    sensitivity: float | None = None
    integer_input: bool = False
    input_size: int | None = None
    gdp_mu: float | None = None

    @property
    def claim(self) -> AnyClaim:  # type: ignore[override]
        return self.privacy_claim

    @property
    def broken(self) -> bool:
        """The noise is smaller than the claim's configuration (``scale_factor`` < 1)."""
        return self.scale_factor < 1

    def check_input(self, data: Any) -> np.ndarray:
        """Check an input: as :meth:`PeerMechanism.check_input`, then integers when the
        measurement takes integers, and ``input_size`` records when it takes a fixed number.

        Args:
            data: The data set or the vector of query answers.

        Returns:
            The input as an array.

        Raises:
            ValueError: The base's refusals; a non-integer value for an integer input; another
                number of records than ``input_size``.
        """
        x = super().check_input(data)
        if self.integer_input and x.size and not np.all(np.mod(x, 1) == 0):
            raise ParameterError("data", "must hold integers (the mechanism takes integers)",
                                 repr(x[np.mod(x, 1) != 0][:3].tolist()))
        if self.input_size is not None and self.relation is None and x.size != self.input_size:
            raise ParameterError("data", f"must hold {self.input_size} records (the "
                                 "measurement's input domain is sized)", str(x.size))
        return x


def check_scale(scale: Any) -> float:
    """The noise multiplier of an adapter.

    Args:
        scale: A finite number > 0 (1: the library's configuration).

    Returns:
        It, as a float.

    Raises:
        ValueError: ``scale`` out of range (named).
    """
    return check_positive(scale, "scale")


def _scale_label(factor: float) -> str:
    if factor == 1:
        return ""
    prefix = "BROKEN " if factor < 1 else ""
    return f"{prefix}noise×{number_text(factor)} "


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
            "measurement", "must be an OpenDP Measurement (e.g. opendp.prelude.m.make_gaussian"
            "(...)); a Transformation needs a measurement chained after it",
            type(measurement).__name__)


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
            "are numbers)", repr(domain))
    bounds = getattr(atom, "bounds", None)
    lo, hi = (-math.inf, math.inf) if bounds is None else (float(bounds[0]), float(bounds[1]))
    size = None if scalar else getattr(domain, "size", None)
    return carrier, scalar, (lo, hi), None if size is None else int(size)


def _check_d_in(d_in: Any, distance_type: str) -> float | int:
    """``d_in`` as the map takes it: an int for integer distances, a float otherwise."""
    value = check_positive(d_in, "d_in")
    if distance_type in _INT_ATOMS:
        if value != int(value):
            raise ParameterError("d_in", f"must be a positive integer (the metric's distance "
                                 f"type is {distance_type})", repr(d_in))
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
            raise ParameterError("measurement.input_domain", f"must be a vector domain under "
                                 f"{metric_name}", "an atom domain")
        by_d_in = _RECORD_METRICS[metric_name]
        if d_in not in by_d_in:
            allowed = " or ".join(f"{d} ({a.value})" for d, a in by_d_in.items())
            raise ParameterError("d_in", f"must be {allowed} under {metric_name}", repr(d_in))
        adjacency = by_d_in[int(d_in)]
        if size is not None and adjacency == Adjacency.ADD_REMOVE:
            raise ParameterError(
                "measurement.input_domain", "must be unsized for add/remove of a record "
                "(a sized domain takes one size only)", f"size = {size}")
        return adjacency, None
    if metric_name in _QUERY_METRICS:
        if "monotonic" in metric_text:
            raise ParameterError("measurement.input_metric", "must not be monotonic (the "
                                 "auditor's query-answers pairs move answers both ways)",
                                 metric_text)
        if scalar:
            k = 1
        elif size is not None:
            k = size
        elif data is not None:
            k = int(np.size(np.asarray(data, dtype=object)))
        else:
            raise ParameterError("data", "must be given (an input vector) when the input domain "
                                 "has no size: the auditor needs the number of answers", "None")
        norm = "l1" if metric_name in ("L1Distance", "L2Distance") and k > 1 else "linf"
        return Adjacency.QUERY_ANSWERS, QueryAnswers(k, float(d_in), norm)
    why = (
        "it is ordered, and the auditor's data sets of records are multisets (chain "
        "make_ordered_random first)" if metric_name in _ORDERED_METRICS else "it is not supported"
    )
    supported = sorted({*_RECORD_METRICS, *_QUERY_METRICS})
    raise ParameterError("measurement.input_metric", f"must be one of {supported}: {why}",
                         metric_text)


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
            raise ParameterError(f"epsilons[{i}]", f"must be an ε the profile answers "
                                 f"(OpenDP: {' '.join(str(exc).split())[:200]})", repr(e)) from None
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
        inner = measure_name[len("Approximate("):-1]
        value, delta = distance
        delta = float(delta)
        if inner == "MaxDivergence":
            return _claim(PrivacyClaim, float(value), check_delta(delta, "map(d_in)[1]"),
                          adjacency)
        if delta != 0:
            raise ParameterError(
                "measurement.output_measure",
                f"must not be {measure_name} with δ > 0: no claim kind states a δ-approximate "
                f"{inner} (convert it first, e.g. dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP"
                "(m), delta), whose Approximate(MaxDivergence) is read as (ε, δ))",
                f"map(d_in) = ({value!r}, {delta!r})")
        return claim_of_map(inner, value, adjacency, epsilons)
    if measure_name == "MaxDivergence":
        return _claim(PrivacyClaim, float(distance), 0.0, adjacency)
    if measure_name == "ZeroConcentratedDivergence":
        return _claim(ZCDPClaim, float(distance), 0.0, adjacency)
    if measure_name == "SmoothedMaxDivergence":
        return _profile(distance, epsilons, adjacency, "opendp SmoothedMaxDivergence")
    raise ParameterError("measurement.output_measure", f"must be one of {list(_MEASURES)}",
                         measure_name)


def _claim(kind: type, value: float, second: float, adjacency: Adjacency) -> AnyClaim:
    """``kind(value, second, adjacency)``; a refusal says the map gave it."""
    try:
        claim: AnyClaim = kind(value, second, adjacency)
    except ValueError as exc:
        raise ValueError(f"measurement.map(d_in) gives {value!r}, which a {kind.__name__} "
                         f"refuses: {exc}") from None
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
            "scale", "must be 1 for this measurement: a broken configuration rebuilds the "
            "measurement from its serialised form with its one noise scale multiplied, and "
            + ("it does not serialise (a user measurement)" if text is None else
               f"it has {len(calls)} constructor calls with a scale"), number_text(factor))
    _check_drawn(claimed, factor)
    tree = json.loads(text)
    call = _noise_scales(tree)[0]
    call["scale"] = claimed * factor
    rescaled = json.dumps(tree)
    try:
        rebuilt_measurement(rescaled)
    except Exception as exc:  # noqa: BLE001 -- OpenDP refuses the multiplied scale
        raise ParameterError("scale", f"must give a scale OpenDP takes (OpenDP: "
                             f"{' '.join(str(exc).split())[:200]})", repr(factor)) from None
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
        raise ParameterError("measurement.output_measure", f"must be one of {list(_MEASURES)}",
                             measure_name)
    metric = measurement.input_metric
    metric_name, metric_text = _name_of_metric(metric), repr(metric)
    carrier, scalar, bounds, size = _input_shape(measurement)
    distance_in = _check_d_in(d_in, str(measurement.input_distance_type))
    relation_adjacency, relation = _relation(metric_name, metric_text, distance_in, scalar, size,
                                             data)
    if adjacency is not None and adjacency != relation_adjacency.value:
        raise ParameterError("adjacency", f"must be None or {relation_adjacency.value!r} (what "
                             f"{metric_name} at d_in = {distance_in} gives)", repr(adjacency))
    try:
        distance = measurement.map(distance_in)
    except Exception as exc:  # noqa: BLE001 -- OpenDP's map refuses this d_in
        raise ParameterError("d_in", f"must be a distance the measurement's map takes (OpenDP: "
                             f"{' '.join(str(exc).split())[:200]})", repr(d_in)) from None
    claim = claim_of_map(measure_name, distance, relation_adjacency, epsilons)
    text = _serialised(measurement)
    spec_text, claimed, drawn = _rescaled(text, factor)
    spec: Any = spec_text if spec_text is not None else measurement
    if spec_text is not None and factor == 1:
        _remember(spec_text, measurement)
    fn = functools.partial(_opendp_release, spec=spec, integer=carrier in _INT_ATOMS,
                           scalar=scalar)
    top = json.loads(text)["__function__"] if text is not None else "user measurement"
    where = relation.name if relation is not None else relation_adjacency.value
    label = (f"{_scale_label(factor)}{top}[{measure_name}, {metric_name}, "
             f"d_in={number_text(float(distance_in))}, {where}]")
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
        raise ParameterError("data", "must be numbers the measurement takes (a scalar, or a "
                             "sequence of records or answers)", repr(data)[:80]) from None
    if mech.relation is not None and x.size != mech.relation.k:
        raise ParameterError("data", f"must hold {mech.relation.k} answers", str(x.size))
    try:
        mech.fn(x, np.random.default_rng(0))
    except Exception as exc:  # noqa: BLE001 -- the library refuses the input: say how
        raise ParameterError("data", f"must be an input the measurement takes (OpenDP: "
                             f"{' '.join(str(exc).split())[:200]})", repr(data)[:80]) from None


# ------------------------------------------------------------------------------------ diffprivlib


def _library_scale(
    compute: Callable[[], Any], library: str, epsilon: float, delta: float, sensitivity: float
) -> float:
    """The noise scale a library computes for (ε, δ, Δ); a ``ValueError`` naming the three when
    it fails or gives no finite scale > 0 (at extreme parameters its search overflows)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # overflow warnings of the library's search
        try:
            value = float(compute())
        except (ArithmeticError, RuntimeError, TypeError, ValueError) as exc:  # its refusals
            value, why = math.nan, f"it raises {type(exc).__name__}: {str(exc)[:120]}"
        else:
            why = f"it computes {value!r}"
    if not (math.isfinite(value) and value > 0):
        raise ValueError(
            f"epsilon = {epsilon!r}, delta = {delta!r} and sensitivity = {sensitivity!r} must "
            f"give {library} a finite noise scale > 0: {why}")
    return value


def _check_drawn(claimed: float, factor: float) -> None:
    """The scale drawn from, ``claimed × scale``, must be a finite number > 0."""
    drawn = claimed * factor
    if not (math.isfinite(drawn) and drawn > 0):
        raise ParameterError("scale", f"must keep the noise scale ({claimed!r} × scale) finite "
                             "and > 0", repr(factor))


GAUSSIAN_KINDS = {"analytic": "GaussianAnalytic", "classic": "Gaussian",
                  "discrete": "GaussianDiscrete"}
"""diffprivlib's Gaussian mechanism of each ``kind``."""


def _diffprivlib_mechanism(
    kind: str, epsilon: float, delta: float, sensitivity: float, factor: float, seed: int | None
) -> Any:
    """diffprivlib's mechanism, with its computed scale multiplied by ``factor`` when not 1."""
    from diffprivlib import mechanisms

    cls = getattr(mechanisms, GAUSSIAN_KINDS[kind])
    sens: float | int = int(sensitivity) if kind == "discrete" else sensitivity
    mech = cls(epsilon=epsilon, delta=delta, sensitivity=sens, random_state=seed)
    if factor != 1:
        mech._scale = mech._scale * factor  # noqa: SLF001 -- the library's only way to set σ
    return mech


def _diffprivlib_draws(
    data: np.ndarray,
    size: int,
    rng: np.random.Generator,
    *,
    kind: str,
    epsilon: float,
    delta: float,
    sensitivity: float,
    factor: float,
) -> np.ndarray:
    """``size`` draws of one mechanism seeded from ``rng`` (built once per chunk: its scale
    search costs about 2 ms)."""
    mech = _diffprivlib_mechanism(kind, epsilon, delta, sensitivity, factor,
                                  int(rng.integers(SEED_BOUND)))
    value: float | int = int(data[0]) if kind == "discrete" else float(data[0])
    return np.array([mech.randomise(value) for _ in range(size)], dtype=float)


def diffprivlib_gaussian(
    epsilon: float = 1.0,
    delta: float = 1e-5,
    sensitivity: float = 1.0,
    kind: Literal["analytic", "classic", "discrete"] = "analytic",
    *,
    scale: float = 1.0,
) -> MeasuredPeer:
    """IBM diffprivlib's Gaussian mechanism ``randomise(x)`` on a scalar answer, claimed
    (ε, δ)-DP under ``QueryAnswers(k=1, Δ)``.

    ``kind="analytic"``: ``GaussianAnalytic`` (Balle and Wang 2018's calibration, any ε > 0);
    ``"classic"``: ``Gaussian``, σ = √(2 ln(1.25/δ))·Δ/ε (Dwork and Roth 2014, Theorem A.1; ε
    <= 1); ``"discrete"``: ``GaussianDiscrete`` on integers (Canonne, Kamath and Steinke 2020),
    integer Δ.

    Args:
        epsilon: ε > 0 (at most 1 for ``"classic"``).
        delta: δ in (0, 1).
        sensitivity: Δ > 0 (an integer for ``"discrete"``).
        kind: The mechanism.
        scale: The multiplier on the library's computed scale (< 1: a broken configuration).

    Returns:
        The mechanism, seeded by the auditor's generator; ``noise_scale`` is the σ drawn from,
        ``claimed_scale`` diffprivlib's own σ, ``gdp_mu`` = Δ/σ for the continuous kinds.

    Raises:
        PeerUnavailable: diffprivlib is not installed.
        ValueError: A parameter out of range (named).
    """
    version = require("diffprivlib", "diffprivlib.mechanisms")
    which = check_choice(kind, "kind", tuple(GAUSSIAN_KINDS))
    eps = check_positive(epsilon, "epsilon")
    if which == "classic" and eps > 1:
        raise ParameterError("epsilon", "must lie in (0, 1] for kind='classic' (diffprivlib's "
                             "Gaussian; kind='analytic' takes any ε)", repr(epsilon))
    dlt = check_delta(delta)
    if dlt == 0:
        raise ParameterError("delta", "must lie in (0, 1)", repr(delta))
    sens = check_positive(sensitivity, "sensitivity")
    if which == "discrete" and sens != int(sens):
        raise ParameterError("sensitivity", "must be a positive integer for kind='discrete'",
                             repr(sensitivity))
    factor = check_scale(scale)
    claimed = _library_scale(
        lambda: _diffprivlib_mechanism(which, eps, dlt, sens, 1.0, 0)._scale,  # noqa: SLF001
        "diffprivlib", eps, dlt, sens)
    _check_drawn(claimed, factor)
    fn = functools.partial(_diffprivlib_draws, kind=which, epsilon=eps, delta=dlt,
                           sensitivity=sens, factor=factor)
    et, dt, st = (number_text(v) for v in (eps, dlt, sens))
    cls = GAUSSIAN_KINDS[which]
    relation = QueryAnswers(1, sens)
    label = f"{_scale_label(factor)}{cls}[eps={et},delta={dt},sensitivity={st}]"
    return MeasuredPeer(
        fn,
        PrivacyClaim(eps, dlt, Adjacency.QUERY_ANSWERS),
        name=f"diffprivlib {label}",
        vectorized=True,
        relation=relation,
        library="diffprivlib",
        checked_version=CHECKED_VERSIONS["diffprivlib"],
        version=version,
        call=(f"diffprivlib.mechanisms.{cls}(epsilon={et}, delta={dt}, sensitivity={st}, "
              "random_state=seed).randomise(x)"),
        seedable=True,
        noise_scale=claimed * factor,
        claimed_scale=claimed,
        scale_factor=factor,
        sensitivity=sens,
        integer_input=which == "discrete",
        gdp_mu=None if which == "discrete" else sens / claimed,
    )


# -------------------------------------------------------------------------------------- python-dp


PYDP_STD_RANGE = (1e-300, 1e300)
"""The standard deviations :func:`pydp_gaussian` asks python-dp for: at sensitivity 1e308 or
5e-324 (ε = 1, δ = 1e-5) its search for the standard deviation never returns (measured with
python-dp 1.1.5; 1e300 and 1e-300 return at once)."""


def _pydp_mechanism(epsilon: float, delta: float, sensitivity: float, factor: float) -> Any:
    from pydp.algorithms.numerical_mechanisms import GaussianMechanism

    mech = GaussianMechanism(epsilon, delta, sensitivity)
    if factor != 1:
        mech = GaussianMechanism.create_from_standard_deviation(mech.std * factor)
    return mech


def _pydp_draws(
    data: np.ndarray,
    size: int,
    rng: np.random.Generator,
    *,
    epsilon: float,
    delta: float,
    sensitivity: float,
    factor: float,
) -> np.ndarray:
    """``size`` draws of one mechanism (python-dp's objects do not pickle: built per chunk)."""
    del rng  # python-dp draws from OpenSSL's RAND_bytes (seeding.py seeds it in subprocesses)
    mech = _pydp_mechanism(epsilon, delta, sensitivity, factor)
    value = float(data[0])
    return np.array([mech.add_noise(value) for _ in range(size)], dtype=float)


def pydp_gaussian(
    epsilon: float = 1.0,
    delta: float = 1e-5,
    sensitivity: float = 1.0,
    *,
    scale: float = 1.0,
) -> MeasuredPeer:
    """Google's python-dp ``GaussianMechanism(epsilon, delta, sensitivity).add_noise(x)`` on a
    scalar answer (``sensitivity`` is the ℓ2 sensitivity), claimed (ε, δ)-DP under
    ``QueryAnswers(k=1, Δ)``.

    Args:
        epsilon: ε > 0.
        delta: δ in (0, 1).
        sensitivity: Δ > 0.
        scale: The multiplier on the library's standard deviation (< 1: a broken configuration,
            built by ``GaussianMechanism.create_from_standard_deviation``).

    Returns:
        The mechanism (not seedable: OpenSSL randomness); ``claimed_scale`` is the library's
        ``std``, ``gdp_mu`` = Δ/``std``.

    Raises:
        PeerUnavailable: python-dp is not installed.
        ValueError: A parameter out of range (named).
    """
    version = require("python-dp", "pydp.algorithms.numerical_mechanisms")
    eps = check_positive(epsilon, "epsilon")
    dlt = check_delta(delta)
    if dlt == 0:
        raise ParameterError("delta", "must lie in (0, 1)", repr(delta))
    sens = check_positive(sensitivity, "sensitivity")
    factor = check_scale(scale)
    unit = _library_scale(lambda: _pydp_mechanism(eps, dlt, 1.0, 1.0).std, "python-dp", eps,
                          dlt, 1.0)
    if not PYDP_STD_RANGE[0] <= unit * sens <= PYDP_STD_RANGE[1]:
        raise ValueError(
            f"epsilon = {eps!r}, delta = {dlt!r} and sensitivity = {sens!r} must keep python-dp's "
            f"standard deviation ({unit!r} × sensitivity) in [{PYDP_STD_RANGE[0]:g}, "
            f"{PYDP_STD_RANGE[1]:g}]: its search for it does not return near the float range")
    claimed = _library_scale(lambda: _pydp_mechanism(eps, dlt, sens, 1.0).std, "python-dp", eps,
                             dlt, sens)
    if not PYDP_STD_RANGE[0] <= claimed * factor <= PYDP_STD_RANGE[1]:
        raise ParameterError("scale", f"must keep the standard deviation ({claimed!r} × scale) "
                             f"in [{PYDP_STD_RANGE[0]:g}, {PYDP_STD_RANGE[1]:g}]", repr(factor))
    fn = functools.partial(_pydp_draws, epsilon=eps, delta=dlt, sensitivity=sens, factor=factor)
    et, dt, st = (number_text(v) for v in (eps, dlt, sens))
    label = f"{_scale_label(factor)}GaussianMechanism[eps={et},delta={dt},sensitivity={st}]"
    return MeasuredPeer(
        fn,
        PrivacyClaim(eps, dlt, Adjacency.QUERY_ANSWERS),
        name=f"python-dp {label}",
        vectorized=True,
        relation=QueryAnswers(1, sens),
        library="python-dp",
        checked_version=CHECKED_VERSIONS["python-dp"],
        version=version,
        call=(f"pydp.algorithms.numerical_mechanisms.GaussianMechanism({et}, {dt}, {st})"
              ".add_noise(x)"),
        seedable=False,
        noise_scale=claimed * factor,
        claimed_scale=claimed,
        scale_factor=factor,
        sensitivity=sens,
        gdp_mu=sens / claimed,
    )


__all__ = [
    "BROKEN_SCALE",
    "DEFAULT_PROFILE_EPSILONS",
    "GAUSSIAN_KINDS",
    "MAX_CACHED_MEASUREMENTS",
    "OPENDP_FEATURES",
    "PYDP_STD_RANGE",
    "MeasuredPeer",
    "check_scale",
    "claim_of_map",
    "diffprivlib_gaussian",
    "opendp_measurement",
    "pydp_gaussian",
    "rebuilt_measurement",
]
