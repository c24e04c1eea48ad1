"""Contract specimens and fuzz entries of the primitives (``dpquant.reference.primitives``,
``dpquant.reference.inverse_cdf``, ``dpquant.reference.datasets``).

Every valid call is tiny (a few draws, a handful of atoms or candidates). Where an accepted
hostile value could give a silently wrong result the check verifies the result against its law:
draws of a discrete Laplace (or of continual counting) at a large scale are not all zero (the
saturation of numpy's geometric gave zero noise), truncated draws lie in [left, right], laws have
total mass 1, probabilities lie in [0, 1], log-probabilities of a selection rule sum to 1.
Entries whose check needs the call's parameters return ``(kwargs, result)``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from harness import Entry, Specimen, check_draws, check_law, check_sane

from dpquant.reference.datasets import load_adult
from dpquant.reference.inverse_cdf import (
    coarse_float_grid,
    exponential_offset_inverse,
    truncated_exponential_inverse,
)
from dpquant.reference.primitives import (
    candidate_quantile,
    continual_counting,
    discrete_gaussian,
    discrete_gaussian_sampler,
    discrete_laplace,
    exact_discrete_gaussian,
    exact_discrete_laplace,
    exponential_mechanism,
    laplace,
    noise_mechanisms,
    randomized_response,
    truncated,
)

C5 = (0.0, 0.25, 0.5, 0.75, 1.0)
DATA4 = [0.1, 0.4, 0.4, 0.9]
RNG = np.random.default_rng(0)
HUGE_RATIONALS = (
    Fraction(10**400),
    Fraction(1, 10**400),
    Fraction(3, 2),
    Fraction(2**4097),
    10**30,
    2**60,
    2.0**50,
    2.0**51,
    1e19,
    1e30,
)
CANDIDATE_SETS = (
    C5[::-1],
    (1.0,),
    (0.0, 1e308),
    (-1e308, 1e308),
    (0.0, 5e-324),
    (0.1, 0.1),
    tuple(range(30)),
)


def _scale_of(kwargs: dict[str, Any]) -> float:
    try:
        return float(kwargs["scale"])
    except (TypeError, ValueError, OverflowError):
        return 0.0


# -- checks ----------------------------------------------------------------------------------


def check_noise_draws(out: tuple[dict[str, Any], np.ndarray]) -> None:
    """Discrete Laplace draws: integers, and not all zero when the scale is large (P(X = 0) is
    about 1/(2t), so 8 zeros at t >= 100 have probability below 1e-18)."""
    kwargs, draws = out
    check_draws(draws)
    assert draws.dtype.kind in "iO", f"integer draws expected, got {draws.dtype}"
    if _scale_of(kwargs) >= 100 and draws.size >= 8:
        assert not (draws == 0).all(), f"zero noise at scale {kwargs['scale']!r}"


def check_in_interval(lo_name: str, hi_name: str):
    """Draws inside [kwargs[lo_name], kwargs[hi_name]] (ends broadcast against the draws)."""

    def check(out: tuple[dict[str, Any], np.ndarray]) -> None:
        kwargs, draws = out
        check_draws(draws)
        lo = np.asarray(kwargs[lo_name], dtype=object).astype(float)
        hi = np.asarray(kwargs[hi_name], dtype=object).astype(float)
        assert np.all(lo <= draws) and np.all(draws <= hi), f"draws outside [{lo}, {hi}]"

    return check


def check_bool(value: Any) -> None:
    assert isinstance(value, bool), f"a bool expected, got {value!r}"


def check_probability_value(value: Any) -> None:
    check_sane(value)
    with mpmath.workdps(60):
        v = mpmath.mpf(value)
        assert 0 <= v <= 1, f"probability {value} outside [0, 1]"


def check_log_probability(value: Any) -> None:
    check_sane(value)
    assert mpmath.mpf(value) <= 1e-40, f"log-probability {value} > 0"


def check_selection_logs(logs: Any) -> None:
    """Normalised log-probabilities of a selection rule: they sum to 1."""
    check_sane(logs)
    with mpmath.workdps(60):
        total = mpmath.fsum(mpmath.exp(v) for v in logs)
        assert abs(total - 1) < mpmath.mpf(10) ** -40, f"probabilities sum to {total}"


def check_cdf(values: Any) -> None:
    check_sane(values)
    arr = np.asarray(values, dtype=float)
    assert ((0 <= arr) & (arr <= 1)).all(), "CDF outside [0, 1]"


def check_law_images(out: tuple[Any, ...]) -> None:
    """The images of :func:`_law_images` are laws, and the mass is the sum of its atoms (compared
    in log space: at t = 1e-300 an atom is e^{-1e300}, resolved only to relative 1e-60 in log)."""
    law, truncated_law, clamped_law, mass = out
    check_law(truncated_law)
    check_law(clamped_law)
    with mpmath.workdps(60):
        atoms = mpmath.log(mpmath.fsum(law.pmf_mp(k) for k in range(-1, 6)))
        assert mass > 0 and abs(mpmath.log(mass) - atoms) <= 1e-40 * max(1, abs(atoms)), mass


def check_log_normalised_law(law: Any) -> None:
    """A piecewise log-linear law: :func:`check_law`, and its float log-normaliser finite and
    equal to the exact one (issue 34: −inf for a truncated Laplace far from its centre)."""
    check_law(law)
    assert math.isfinite(law.log_normalizer), f"log_normalizer {law.log_normalizer}"
    exact = float(law.log_normalizer_mp)
    assert abs(law.log_normalizer - exact) <= 1e-9 * max(1.0, abs(exact)), (law, exact)


def check_cc(out: tuple[continual_counting.ContinualCounting, np.ndarray, np.ndarray]) -> None:
    """A continual counter's noise and release: finite, int64 for discrete noise, and not all
    zero when the per-node scale is large."""
    cc, noise, released = out
    check_draws(noise)
    assert released.dtype == np.int64
    if cc.noise == "discrete":
        assert noise.dtype == np.int64
    if cc.node_scale >= 100:
        assert not (noise == 0).all(), f"zero noise at per-node scale {cc.node_scale}"


def check_bits(out: Any) -> None:
    check_draws(out)
    assert np.isin(out, (0, 1)).all()


def check_finite_float(value: Any) -> None:
    assert isinstance(value, float) and math.isfinite(value), f"not a finite float: {value!r}"


# -- calls returning their parameters --------------------------------------------------------


def _with_kwargs(fn):
    def call(**kwargs: Any) -> tuple[dict[str, Any], Any]:
        return kwargs, fn(**kwargs)

    return call


def _law_sample(scale: Any, size: Any, rng: Any) -> np.ndarray:
    return discrete_laplace.DiscreteLaplaceLaw(scale).sample(size, rng)


def _law_images(scale: Any) -> tuple[Any, ...]:
    """DiscreteLaplaceLaw(scale, 2), its finite images and a mass (issue 34: at t = 1e-300 the
    images hung in exact arithmetic, at t = 1e308 the mass lost every digit to cancellation)."""
    law = discrete_laplace.DiscreteLaplaceLaw(scale, 2)
    return law, law.truncated(3), law.clamped(-1, 5), law.mass(-1, 5)


def _gauss_images(sigma: Any, loc: Any) -> tuple[Any, ...]:
    """DiscreteGaussianLaw(sigma, loc), its two finite images and its variance."""
    law = discrete_gaussian.DiscreteGaussianLaw(sigma, loc)
    return law, law.truncated(3), law.clamped(law.loc - 1, law.loc + 5), law.variance_mp()


def check_gauss_images(out: tuple[Any, ...]) -> None:
    """The images of :func:`_gauss_images` are laws and the variance lies in (0, σ²]."""
    law, truncated_law, clamped_law, variance = out
    check_law(truncated_law)
    check_law(clamped_law)
    assert 0 <= variance <= mpmath.mpf(law.sigma2.numerator) / law.sigma2.denominator, variance


def check_integer_draws(draws: Any) -> None:
    check_draws(draws)
    assert draws.dtype.kind in "iO", f"integer draws expected, got {draws.dtype}"


def check_divergence(value: Any) -> None:
    check_sane(value)
    assert value >= 0, f"a negative divergence {value}"


def _use_cc(m: Any, epsilon: Any, noise: Any, scale: Any):
    cc = continual_counting.ContinualCounting(m, epsilon, noise, scale)
    rng = np.random.default_rng(1)
    return cc, cc.sample_noise(3, rng), cc.release(np.arange(cc.m), 3, rng)


def _discrete_laplace_noise(name: str, fn: Any, scale: Any) -> Entry:
    """An entry for a sampler ``fn(scale, size, rng)`` of discrete Laplace noise, hostile scales
    included (its check needs the scale, so the call returns its parameters)."""
    return Entry(
        name,
        _with_kwargs(fn),
        {"scale": scale, **DRAWS},
        {"scale": "real", **DRAW_KINDS},
        check=check_noise_draws,
        extra={"scale": HUGE_RATIONALS},
    )


def _truncated_family(
    sample: Any,
    law: Any,
    from_uniforms: Any,
    params: dict[str, Any],
    kinds: dict[str, str],
    uniforms: dict[str, Any],
) -> list[Entry]:
    """One truncated family of tzamos20 App. E.3 at its valid ``params``: the sampler (stable
    variant) and its inverse-CDF form on the given ``uniforms``, both inside [left, right], and
    its exact law."""
    inside = check_in_interval("left", "right")
    return [
        Entry(
            sample.__name__,
            _with_kwargs(sample),
            {**params, **DRAWS},
            {**kinds, **DRAW_KINDS},
            check=inside,
        ),
        Entry(law.__name__, law, params, kinds, check=check_log_normalised_law),
        Entry(
            from_uniforms.__name__,
            _with_kwargs(from_uniforms),
            {**uniforms, **params},
            {**dict.fromkeys(uniforms, "any"), **kinds},
            check=inside,
        ),
    ]


# the valid parameters (and their hostile pools) of the truncated samplers and laws, and of a draw
TRUNCATED_EXPONENTIAL = {"alpha": 1.0, "beta": 0.0, "left": 0.0, "right": 1.0}
TRUNCATED_EXPONENTIAL_KINDS = dict.fromkeys(TRUNCATED_EXPONENTIAL, "real")
TRUNCATED_LAPLACE = {"mu": 0.0, "sigma": 1.0, "left": -1.0, "right": 1.0}
TRUNCATED_LAPLACE_KINDS = dict.fromkeys(TRUNCATED_LAPLACE, "real")
DRAWS = {"size": 8, "rng": RNG}
DRAW_KINDS = {"size": "size", "rng": "rng"}
LAW = discrete_laplace.DiscreteLaplaceLaw(1.5, 2)
CC = continual_counting.ContinualCounting(4, 1.0)
CC_LAPLACE = continual_counting.ContinualCounting(1, 1.0, "laplace")
CQ = candidate_quantile.CandidateQuantile(C5, 0.5, 1.0)
LNM = candidate_quantile.LaplaceNoisyMaxQuantile(C5, 0.5, 1.0)


# -- mechanisms ------------------------------------------------------------------------------

SPECIMENS: list[Specimen] = [
    Specimen(
        "ExponentialQuantile",
        exponential_mechanism.ExponentialQuantile,
        {"quantile": 0.5, "epsilon": 1.0, "bounds": (0.0, 1.0), "adjacency": "replace_one"},
        {"quantile": "real", "epsilon": "real", "bounds": "pair", "adjacency": "choice"},
        [0.1, 0.4, 0.4, 0.9],
        extra={"adjacency": ("local", "add_remove")},
    ),
    Specimen(
        "GaussianCount",
        noise_mechanisms.GaussianCount,
        {"sigma": 1.0, "adjacency": "add_remove"},
        {"sigma": "real", "adjacency": "choice"},
        [1.0, 0.0, 1.0],
        extra={"adjacency": ("local", "replace_one")},
    ),
    Specimen(
        "LaplaceCount",
        noise_mechanisms.LaplaceCount,
        {"epsilon": 1.0, "adjacency": "add_remove"},
        {"epsilon": "real", "adjacency": "choice"},
        [1.0, 0.0, 1.0],
        extra={"adjacency": ("local", "replace_one")},
    ),
    Specimen(
        "DiscreteGaussianCount",
        noise_mechanisms.DiscreteGaussianCount,
        {"sigma": 1.0, "adjacency": "add_remove", "max_records": 4},
        {"sigma": "real", "adjacency": "choice", "max_records": "int"},
        [1.0, 0.0, 1.0],
        extra={"adjacency": ("local", "replace_one")},
    ),
    Specimen(
        "RandomizedResponse",
        randomized_response.RandomizedResponse,
        {"epsilon": 1.0},
        {"epsilon": "real"},
        1,
    ),
    Specimen(
        "CandidateQuantile",
        candidate_quantile.CandidateQuantile,
        {
            "candidates": C5,
            "quantile": 0.5,
            "epsilon": 1.0,
            "selection": "permute_and_flip",
            "adjacency": "add_remove",
        },
        {
            "candidates": "data",
            "quantile": "real",
            "epsilon": "real",
            "selection": "choice",
            "adjacency": "choice",
        },
        DATA4,
        extra={
            "candidates": CANDIDATE_SETS,
            "selection": ("exponential",),
            "adjacency": ("local", "replace_one"),
        },
    ),
    Specimen(
        "CandidateQuantile[exponential]",
        lambda **kw: candidate_quantile.CandidateQuantile(**kw, selection="exponential"),
        {"candidates": C5, "quantile": 0.3, "epsilon": 2.0, "adjacency": "replace_one"},
        {"candidates": "data", "quantile": "real", "epsilon": "real", "adjacency": "choice"},
        DATA4,
        extra={"candidates": CANDIDATE_SETS},
    ),
    Specimen(
        "LaplaceNoisyMaxQuantile",
        candidate_quantile.LaplaceNoisyMaxQuantile,
        {
            "candidates": C5,
            "quantile": 0.5,
            "epsilon": 1.0,
            "sensitivity": 1,
            "adjacency": "replace_one",
            "claim_rule": "correct",
        },
        {
            "candidates": "data",
            "quantile": "real",
            "epsilon": "real",
            "sensitivity": "int",
            "adjacency": "choice",
            "claim_rule": "choice",
        },
        DATA4,
        extra={
            "candidates": CANDIDATE_SETS,
            "adjacency": ("local", "add_remove"),
            "claim_rule": ("eeprivacy",),
        },
    ),
]


# -- functions and non-mechanism classes -----------------------------------------------------

ENTRIES: list[Entry] = [
    # Laplace and discrete Laplace (laplace_law is an entry of the distributions area)
    Entry(
        "sample_laplace",
        laplace.sample_laplace,
        {"loc": 0.0, "scale": 1.0, "size": 8, "rng": RNG},
        {"loc": "real", "scale": "real", "size": "size", "rng": "rng"},
        check=check_draws,
        extra={"scale": (1e-16, 1e-300)},
    ),
    Entry(
        "check_laplace_sampler_parameters",
        laplace.check_laplace_sampler_parameters,
        {"loc": 1.0, "scale": 1.0},
        {"loc": "real", "scale": "real"},
    ),
    _discrete_laplace_noise(
        "sample_discrete_laplace", discrete_laplace.sample_discrete_laplace, 1.5
    ),
    _discrete_laplace_noise(
        "sample_discrete_laplace_exact",
        exact_discrete_laplace.sample_discrete_laplace_exact,
        Fraction(3, 2),
    ),
    Entry(
        "bernoulli_exp_neg",
        exact_discrete_laplace.bernoulli_exp_neg,
        {"gamma": Fraction(1, 2), "rng": RNG},
        {"gamma": "real", "rng": "rng"},
        check=check_bool,
        extra={"gamma": HUGE_RATIONALS},
    ),
    Entry(
        "DiscreteLaplaceLaw()",
        discrete_laplace.DiscreteLaplaceLaw,
        {"scale": 1.5, "loc": 0},
        {"scale": "real", "loc": "int"},
        check=check_law,
        extra={"scale": HUGE_RATIONALS},
    ),
    _discrete_laplace_noise("DiscreteLaplaceLaw.sample", _law_sample, 1.5),
    Entry(
        "DiscreteLaplaceLaw.truncated",
        LAW.truncated,
        {"radius": 3},
        {"radius": "int"},
        check=check_law,
        extra={"radius": (10**7, 50_001)},
    ),
    Entry(
        "DiscreteLaplaceLaw.probabilities_within",
        LAW.probabilities_within,
        {"radius": 3},
        {"radius": "int"},
        extra={"radius": (10**7,)},
    ),
    Entry(
        "DiscreteLaplaceLaw.clamped",
        LAW.clamped,
        {"lo": -3, "hi": 3},
        {"lo": "int", "hi": "int"},
        check=check_law,
        extra={"lo": (-(10**7),), "hi": (10**7,)},
    ),
    Entry(
        "DiscreteLaplaceLaw.mass",
        LAW.mass,
        {"lo": -1.0, "hi": 3.0},
        {"lo": "real", "hi": "real"},
        check=check_probability_value,
    ),
    *(
        Entry(f"DiscreteLaplaceLaw.{fn.__name__}", fn, {"k": 1}, {"k": "int"}, check)
        for fn, check in (
            (LAW.pmf_mp, check_probability_value),
            (LAW.cdf_mp, check_probability_value),
            (LAW.sf_mp, check_probability_value),
            (LAW.tail_mass_mp, check_probability_value),
            (LAW.logpmf_mp, check_log_probability),
        )
    ),
    Entry("DiscreteLaplaceLaw.cdf", LAW.cdf, {"y": [0.5, 2.0]}, {"y": "any"}, check=check_cdf),
    Entry("DiscreteLaplaceLaw.logpmf", LAW.logpmf, {"k": [0.5, 2.0]}, {"k": "any"}),
    Entry(
        "DiscreteLaplaceLaw(scale) images",
        _law_images,
        {"scale": 1.5},
        {"scale": "real"},
        check=check_law_images,
        extra={"scale": (*HUGE_RATIONALS, 3 * 5e-324, 1e-8, 2.0**-60)},
    ),
    # the discrete Gaussian
    Entry(
        "DiscreteGaussianLaw(sigma, loc) images",
        _gauss_images,
        {"sigma": 1.5, "loc": 2},
        {"sigma": "real", "loc": "int"},
        check=check_gauss_images,
        extra={"sigma": (*HUGE_RATIONALS, 2.0**-500, 2.0**500, 1e-8, Fraction(1, 3))},
    ),
    Entry(
        "sample_discrete_gaussian",
        discrete_gaussian_sampler.sample_discrete_gaussian,
        {"sigma": 1.5, "loc": 0, **DRAWS},
        {"sigma": "real", "loc": "int", **DRAW_KINDS},
        check=check_integer_draws,
        extra={"sigma": (*HUGE_RATIONALS, 2.0**47, 2.0**-500)},
    ),
    Entry(
        "sample_discrete_gaussian_exact",
        exact_discrete_gaussian.sample_discrete_gaussian_exact,
        {"sigma2": Fraction(9, 4), "loc": 0, **DRAWS},
        {"sigma2": "real", "loc": "int", **DRAW_KINDS},
        check=check_integer_draws,
        extra={"sigma2": HUGE_RATIONALS},
    ),
    Entry(
        "discrete_gaussian_renyi",
        discrete_gaussian.discrete_gaussian_renyi,
        {"sigma": 1.5, "shift": 2, "alpha": 2.5},
        {"sigma": "real", "shift": "int", "alpha": "real"},
        check=check_divergence,
        extra={"alpha": (1, math.inf, 1 + 1e-12, Fraction(1, 10**6))},
    ),
    # continual counting
    Entry(
        "ContinualCounting()",
        _use_cc,
        {"m": 4, "epsilon": 1.0, "noise": "discrete", "scale": None},
        {"m": "int", "epsilon": "real", "noise": "choice", "scale": "real"},
        check=check_cc,
        extra={"m": (10**12, 2**63), "noise": ("laplace",), "scale": (None, 2.0**50, 1e19)},
    ),
    Entry(
        "ContinualCounting(laplace)",
        lambda m, epsilon, scale: _use_cc(m, epsilon, "laplace", scale),
        {"m": 4, "epsilon": 1.0, "scale": None},
        {"m": "int", "epsilon": "real", "scale": "real"},
        check=check_cc,
        extra={"scale": (None, 2.0**50, 1e19)},
    ),
    Entry(
        "ContinualCounting.sample_noise",
        CC.sample_noise,
        {"size": 3, "rng": RNG},
        {"size": "size", "rng": "rng"},
        check=check_draws,
    ),
    Entry(
        "ContinualCounting.release",
        CC.release,
        {"ranks": [1, 2, 3, 4], "size": 3, "rng": RNG},
        {"ranks": "data", "size": "size", "rng": "rng"},
        check=check_draws,
    ),
    Entry(
        "ContinualCounting.noise_logpmf_mp",
        CC.noise_logpmf_mp,
        {"v": [0, 1, 0, 2]},
        {"v": "any"},
        check=check_log_probability,
    ),
    *(
        Entry(f"ContinualCounting.{fn.__name__}", fn, {"v": [0, 1, 0, 2]}, {"v": "any"})
        for fn in (CC.noise_logpmf, CC.node_differences)
    ),
    Entry(
        "ContinualCounting.release_logpmf_mp",
        CC.release_logpmf_mp,
        {"ranks": [0, 1, 2, 3], "released": [0, 1, 2, 4]},
        {"ranks": "any", "released": "any"},
        check=check_log_probability,
    ),
    Entry(
        "ContinualCounting.noise_cell_probability_mp",
        CC_LAPLACE.noise_cell_probability_mp,
        {"v": [1]},
        {"v": "any"},
        check=check_probability_value,
    ),
    Entry("prefix_sums", continual_counting.prefix_sums, {"eta": [[1, 2, 3]]}, {"eta": "any"}),
    Entry("round_half_up", continual_counting.round_half_up, {"x": [0.5, 1.5]}, {"x": "any"}),
    Entry("tree_height", continual_counting.tree_height, {"m": 4}, {"m": "int"}),
    Entry("lowbit", continual_counting.lowbit, {"i": 6}, {"i": "int"}),
    Entry("fenwick_parents", continual_counting.fenwick_parents, {"m": 4}, {"m": "int"}),
    *(
        Entry(fn.__name__, fn, {"m": 7, "s": 3}, {"m": "int", "s": "int"})
        for fn in (continual_counting.shift_nodes, continual_counting.shift_node_count)
    ),
    Entry(
        "shift_privacy_loss",
        continual_counting.shift_privacy_loss,
        {"m": 7, "s": 3, "epsilon": 1.0},
        {"m": "int", "s": "int", "epsilon": "real"},
    ),
    # candidate quantiles: helpers and score/utility methods
    Entry(
        "opendp_scores",
        candidate_quantile.opendp_scores,
        {"data": DATA4, "candidates": C5, "alpha": 0.5},
        {"data": "data", "candidates": "data", "alpha": "real"},
        extra={"candidates": CANDIDATE_SETS},
    ),
    Entry(
        "below_equal_above",
        candidate_quantile.below_equal_above,
        {"data": DATA4, "candidates": C5},
        {"data": "data", "candidates": "data"},
        extra={"candidates": CANDIDATE_SETS},
    ),
    Entry(
        "check_candidates",
        candidate_quantile.check_candidates,
        {"candidates": C5},
        {"candidates": "data"},
        extra={"candidates": CANDIDATE_SETS},
    ),
    Entry("opendp_alpha", candidate_quantile.opendp_alpha, {"alpha": 0.3}, {"alpha": "real"}),
    *(
        Entry(
            fn.__name__,
            fn,
            {"scores": [4, 0, 4], "b": Fraction(5, 2)},
            {"scores": "data", "b": "real"},
            check=check,
            extra={"b": HUGE_RATIONALS},
        )
        for fn, check in (
            (candidate_quantile.permute_and_flip_log_probabilities, check_selection_logs),
            (candidate_quantile.exponential_log_probabilities, None),
        )
    ),
    Entry(
        "laplace_noisy_max_log_probabilities",
        candidate_quantile.laplace_noisy_max_log_probabilities,
        {"utilities": [-2, 0, -1], "scale": Fraction(3, 2)},
        {"utilities": "data", "scale": "real"},
        check=check_selection_logs,
        extra={"scale": HUGE_RATIONALS},
    ),
    Entry("CandidateQuantile.scores", CQ.scores, {"data": DATA4}, {"data": "data"}),
    Entry("LaplaceNoisyMaxQuantile.utilities", LNM.utilities, {"data": DATA4}, {"data": "data"}),
    # randomized response
    *(
        Entry(fn.__name__, fn, {"epsilon": 1.0}, {"epsilon": "real"}, check=check_probability_value)
        for fn in (randomized_response.keep_probability, randomized_response.keep_probability_mp)
    ),
    Entry("rr_channel", randomized_response.rr_channel, {"epsilon": 1.0}, {"epsilon": "real"}),
    Entry(
        "rr_law",
        randomized_response.rr_law,
        {"bit": 1, "epsilon": 1.0},
        {"bit": "any", "epsilon": "real"},
        check_law,
    ),
    Entry("check_bit", randomized_response.check_bit, {"bit": 1}, {"bit": "any"}),
    Entry(
        "randomize_bits",
        randomized_response.randomize_bits,
        {"bits": [0, 1, 1], "epsilon": 1.0, "rng": RNG},
        {"bits": "data", "epsilon": "real", "rng": "rng"},
        check=check_bits,
    ),
    Entry(
        "debias_mean",
        randomized_response.debias_mean,
        {"reports": [0, 1, 1], "epsilon": 1.0},
        {"reports": "data", "epsilon": "real"},
        check=check_finite_float,
    ),
    # truncated samplers and their laws (tzamos20 App. E.3)
    Entry(
        "sample_uniform",
        _with_kwargs(truncated.sample_uniform),
        {"a": 0.0, "b": 1.0, "size": 8, "rng": RNG},
        {"a": "real", "b": "real", "size": "size", "rng": "rng"},
        check=check_in_interval("a", "b"),
    ),
    Entry(
        "uniform_law",
        truncated.uniform_law,
        {"a": 0.0, "b": 1.0},
        {"a": "real", "b": "real"},
        check_law,
    ),
    *_truncated_family(
        truncated.sample_truncated_exponential,
        truncated.truncated_exponential_law,
        truncated.truncated_exponential_from_uniforms,
        TRUNCATED_EXPONENTIAL,
        TRUNCATED_EXPONENTIAL_KINDS,
        {"u": [0.0, 0.5, 0.99]},
    ),
    Entry(
        "sample_truncated_exponential[corrected]",
        _with_kwargs(
            lambda **kw: truncated.sample_truncated_exponential(
                **kw, size=8, rng=RNG, variant="corrected"
            )
        ),
        TRUNCATED_EXPONENTIAL,
        TRUNCATED_EXPONENTIAL_KINDS,
        check=check_in_interval("left", "right"),
    ),
    Entry(
        "sample_truncated_exponential(variant)",
        lambda variant: truncated.sample_truncated_exponential(
            1.0, 0.0, 0.0, 1.0, 8, RNG, variant=variant
        ),
        {"variant": "stable"},
        {"variant": "choice"},
        check=check_draws,
        extra={"variant": ("paper", "corrected")},
    ),
    *_truncated_family(
        truncated.sample_truncated_laplace,
        truncated.truncated_laplace_law,
        truncated.truncated_laplace_from_uniforms,
        TRUNCATED_LAPLACE,
        TRUNCATED_LAPLACE_KINDS,
        {"u_side": [0.0, 0.5, 0.99], "u": [0.1, 0.5, 0.9]},
    ),
    Entry(  # σ = 1e-300: a centre far outside [left, right] (μ = 1e308, issue 34)
        "truncated_laplace_law[sigma=1e-300]",
        truncated.truncated_laplace_law,
        {**TRUNCATED_LAPLACE, "sigma": 1e-300},
        TRUNCATED_LAPLACE_KINDS,
        check=check_log_normalised_law,
        extra={"mu": (1.5e308, -1.5e308, 2.0), "left": (-8e307,), "right": (8e307,)},
    ),
    Entry(
        "sample_truncated_laplace[paper]",
        lambda **kw: truncated.sample_truncated_laplace(**kw, size=8, rng=RNG, variant="paper"),
        TRUNCATED_LAPLACE,
        TRUNCATED_LAPLACE_KINDS,
        check=check_draws,
    ),
    Entry(
        "truncated_laplace_left_probability",
        truncated.truncated_laplace_left_probability,
        {**TRUNCATED_LAPLACE, "right": 2.0},
        TRUNCATED_LAPLACE_KINDS,
        check=check_probability_value,
    ),
    # inverse-CDF building blocks
    Entry(
        "exponential_offset_inverse",
        _with_kwargs(exponential_offset_inverse),
        {"u": [0.0, 0.5, 0.99], "a": -2.0, "width": 3.0},
        {"u": "any", "a": "any", "width": "any"},
        check=lambda out: check_draws(out[1]),
        extra={"width": (math.inf,)},
    ),
    Entry(
        "truncated_exponential_inverse",
        _with_kwargs(truncated_exponential_inverse),
        {"u": [0.0, 0.5, 0.99], "a": 2.0, "left": -1.0, "right": 3.0},
        {"u": "any", "a": "any", "left": "any", "right": "any"},
        check=check_in_interval("left", "right"),
        extra={"left": (-math.inf,), "right": (math.inf,)},
    ),
    Entry(
        "coarse_float_grid",
        coarse_float_grid,
        {"reach": 1.0, "scale": 1.0},
        {"reach": "real", "scale": "real"},
    ),
    # data shipped with the package
    Entry(
        "load_adult",
        load_adult,
        {"column": "age"},
        {"column": "choice"},
        check=check_draws,
        extra={"column": ("hours_per_week", "AGE", ["age"])},
    ),
]
