"""Libraries' noise mechanisms, each audited against the guarantee the library itself states
(issue 37): an OpenDP measurement against its own output measure and privacy map, and the
Gaussian mechanisms of diffprivlib and python-dp at their (ε, δ).

**OpenDP** (:func:`~dpquant.audit.suites.adapters.opendp_measurements.opendp_measurement`, in
:mod:`dpquant.audit.suites.adapters.opendp_measurements`, with its tables of measures and metrics).

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
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from dpquant.audit.model.relations import QueryAnswers
from dpquant.audit.suites.adapters.base import PeerMechanism, require
from dpquant.audit.suites.adapters.libraries import CHECKED_VERSIONS, SEED_BOUND, number_text
from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, PrivacyClaim
from dpquant.reference.measures import AnyClaim
from dpquant.reference.validation import check_choice, check_delta, check_positive

BROKEN_SCALE = 0.8
"""The noise multiplier of the tests' broken configurations (noise a little too small)."""


@dataclass(frozen=True)
class MeasuredPeer(PeerMechanism):
    """A library's noise mechanism as a mechanism carrying the library's own guarantee, of any
    kind (:mod:`dpquant.reference.measures`): built by :func:`~dpquant.audit.suites.adapters.opendp_measurements.opendp_measurement`,
    :func:`diffprivlib_gaussian` and :func:`pydp_gaussian`.

    Attributes:
        fn: The release, one library call per draw.
        privacy_claim: The claim: a ``PrivacyClaim``, ``ZCDPClaim`` or ``ProfileClaim``.
        input_domain: The interval the data lie in.
        name: Its name in reports (``BROKEN noise×0.8`` for a broken configuration).
        vectorized: Always False: one call per draw.
        input_values: The finite input set, or None.
        relation: The neighbour relation object (query answers), or None (the claim's adjacency).
        library: The PyPI distribution.
        checked_version: The version these adapters were checked against.
        version: The version installed when the adapter was built.
        call: The library call, as a user would write it.
        seedable: Whether the draws are a function of the generator passed to ``sample``.
        chunk_guard: A context manager entered around each chunk of draws, or None.
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

    privacy_claim: AnyClaim
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
            raise ParameterError(
                "data",
                "must hold integers (the mechanism takes integers)",
                repr(x[np.mod(x, 1) != 0][:3].tolist()),
            )
        if self.input_size is not None and self.relation is None and x.size != self.input_size:
            raise ParameterError(
                "data",
                f"must hold {self.input_size} records (the measurement's input domain is sized)",
                str(x.size),
            )
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


def scale_label(factor: float) -> str:
    if factor == 1:
        return ""
    prefix = "BROKEN " if factor < 1 else ""
    return f"{prefix}noise×{number_text(factor)} "


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
            f"give {library} a finite noise scale > 0: {why}"
        )
    return value


def check_drawn(claimed: float, factor: float) -> None:
    """The scale drawn from, ``claimed × scale``, must be a finite number > 0.

    Args:
        claimed: The noise scale of the correct configuration.
        factor: The checked ``scale`` multiplier.

    Raises:
        ValueError: The product is not a finite number > 0 (named ``scale``).
    """
    drawn = claimed * factor
    if not (math.isfinite(drawn) and drawn > 0):
        raise ParameterError(
            "scale", f"must keep the noise scale ({claimed!r} × scale) finite and > 0", repr(factor)
        )


GAUSSIAN_KINDS = {
    "analytic": "GaussianAnalytic",
    "classic": "Gaussian",
    "discrete": "GaussianDiscrete",
}
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
    mech = _diffprivlib_mechanism(
        kind, epsilon, delta, sensitivity, factor, int(rng.integers(SEED_BOUND))
    )
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
        raise ParameterError(
            "epsilon",
            "must lie in (0, 1] for kind='classic' (diffprivlib's "
            "Gaussian; kind='analytic' takes any ε)",
            repr(epsilon),
        )
    dlt = check_delta(delta)
    if dlt == 0:
        raise ParameterError("delta", "must lie in (0, 1)", repr(delta))
    sens = check_positive(sensitivity, "sensitivity")
    if which == "discrete" and sens != int(sens):
        raise ParameterError(
            "sensitivity", "must be a positive integer for kind='discrete'", repr(sensitivity)
        )
    factor = check_scale(scale)
    claimed = _library_scale(
        lambda: _diffprivlib_mechanism(which, eps, dlt, sens, 1.0, 0)._scale,  # noqa: SLF001
        "diffprivlib",
        eps,
        dlt,
        sens,
    )
    check_drawn(claimed, factor)
    fn = functools.partial(
        _diffprivlib_draws, kind=which, epsilon=eps, delta=dlt, sensitivity=sens, factor=factor
    )
    et, dt, st = (number_text(v) for v in (eps, dlt, sens))
    cls = GAUSSIAN_KINDS[which]
    relation = QueryAnswers(1, sens)
    label = f"{scale_label(factor)}{cls}[eps={et},delta={dt},sensitivity={st}]"
    return MeasuredPeer(
        fn,
        PrivacyClaim(eps, dlt, Adjacency.QUERY_ANSWERS),
        name=f"diffprivlib {label}",
        vectorized=True,
        relation=relation,
        library="diffprivlib",
        checked_version=CHECKED_VERSIONS["diffprivlib"],
        version=version,
        call=(
            f"diffprivlib.mechanisms.{cls}(epsilon={et}, delta={dt}, sensitivity={st}, "
            "random_state=seed).randomise(x)"
        ),
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
    unit = _library_scale(
        lambda: _pydp_mechanism(eps, dlt, 1.0, 1.0).std, "python-dp", eps, dlt, 1.0
    )
    if not PYDP_STD_RANGE[0] <= unit * sens <= PYDP_STD_RANGE[1]:
        raise ValueError(
            f"epsilon = {eps!r}, delta = {dlt!r} and sensitivity = {sens!r} must keep python-dp's "
            f"standard deviation ({unit!r} × sensitivity) in [{PYDP_STD_RANGE[0]:g}, "
            f"{PYDP_STD_RANGE[1]:g}]: its search for it does not return near the float range"
        )
    claimed = _library_scale(
        lambda: _pydp_mechanism(eps, dlt, sens, 1.0).std, "python-dp", eps, dlt, sens
    )
    if not PYDP_STD_RANGE[0] <= claimed * factor <= PYDP_STD_RANGE[1]:
        raise ParameterError(
            "scale",
            f"must keep the standard deviation ({claimed!r} × scale) "
            f"in [{PYDP_STD_RANGE[0]:g}, {PYDP_STD_RANGE[1]:g}]",
            repr(factor),
        )
    fn = functools.partial(_pydp_draws, epsilon=eps, delta=dlt, sensitivity=sens, factor=factor)
    et, dt, st = (number_text(v) for v in (eps, dlt, sens))
    label = f"{scale_label(factor)}GaussianMechanism[eps={et},delta={dt},sensitivity={st}]"
    return MeasuredPeer(
        fn,
        PrivacyClaim(eps, dlt, Adjacency.QUERY_ANSWERS),
        name=f"python-dp {label}",
        vectorized=True,
        relation=QueryAnswers(1, sens),
        library="python-dp",
        checked_version=CHECKED_VERSIONS["python-dp"],
        version=version,
        call=(
            f"pydp.algorithms.numerical_mechanisms.GaussianMechanism({et}, {dt}, {st}).add_noise(x)"
        ),
        seedable=False,
        noise_scale=claimed * factor,
        claimed_scale=claimed,
        scale_factor=factor,
        sensitivity=sens,
        gdp_mu=sens / claimed,
    )


__all__ = [
    "BROKEN_SCALE",
    "GAUSSIAN_KINDS",
    "PYDP_STD_RANGE",
    "MeasuredPeer",
    "check_drawn",
    "check_scale",
    "diffprivlib_gaussian",
    "pydp_gaussian",
    "scale_label",
]
