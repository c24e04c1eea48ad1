"""Fuzz entries of the classic benchmark (``dpquant.audit.suites.classic``; issue 34, item 3): ``entry``, each
entry's ``make``, ``sample`` and ``true_epsilon``, ``run_entry``, the samplers' constructors and
calls, and the public helpers of RAPPOR and GeoSample.

An accepted call must draw finite outputs (an SVT's object arrays included: every float in them
finite) or return a sane value; a refused one a ``ValueError`` naming the parameter. The extreme
claims (5e-324, 1e-300, 1e308, ...) are where PrefixSum and the Laplace releases drew inf and NaN.
``run_entry`` runs with a stand-in for the audit (its own checks come first; the audit itself is
the auditor's, fuzzed in :mod:`specimens_audit`).
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from harness import Entry, Specimen

from dpquant.audit.suites.classic import (
    SUITE,
    Concatenated,
    LaplaceParallel,
    LaplaceRelease,
    NoisyMax,
    NumericalSVT,
    PrefixSum,
    Rappor,
    SparseVector,
    TruncatedGeometric,
    entry,
    svt34_parallel,
)
from dpquant.audit.suites.classic import run as run_module
from dpquant.audit.suites.classic.geometric import geo_exponent, geo_pmf, geo_true_epsilon
from dpquant.audit.suites.classic.rappor import (
    bloom_bits,
    bloom_filter,
    flip_probability,
    rappor_epsilon,
)

SPECIMENS: list[Specimen] = []

EXTREME_EPSILONS = (5e-324, 1e-310, 1e-300, 2e-300, 1e-299, 1e300, 1e308, sys.float_info.max, 2.0)
NAMES = (
    "PrefixSum",
    "prefix_sum",
    "prefixsum",
    " PrefixSum",
    "PrefixSum ",
    "SVT7",
    "iSVT1",
    "Noisy Max (a)",
    "x" * 10_000,
    "\0",
)


# -- checks of accepted calls -----------------------------------------------------------------


def check_finite_outputs(out: Any) -> None:
    """Draws as an array with every float in it finite (an object array's floats included)."""
    assert isinstance(out, np.ndarray), f"draws must be an array, got {type(out)}"
    values = out.ravel().tolist() if out.dtype == object else out.ravel()
    bad = [v for v in values if isinstance(v, float | np.floating) and not math.isfinite(v)]
    assert not bad, f"non-finite draws {bad[:5]}"


def _is_true_epsilon(value: Any) -> None:
    assert value is None or (isinstance(value, float) and value >= 0), value  # inf: none holds


def _is_verdict(value: Any) -> None:
    assert value is None or isinstance(value, bool), value


def _is_bits(value: Any) -> None:
    assert isinstance(value, tuple) and all(isinstance(b, int) and b >= 0 for b in value)


def _is_finite_float(value: Any) -> None:
    assert isinstance(value, float) and math.isfinite(value), value


def _is_flip_probability(value: Any) -> None:
    assert isinstance(value, float) and 0 < value <= 1, value  # 1: ε rounds to 0 in e^{ε/2h}


def _is_law(value: Any) -> None:
    assert isinstance(value, tuple) and sum(value) == 1 and min(value) >= 0, value


def _is_run(value: Any) -> None:
    assert isinstance(value, run_module.SuiteRun) and value.status in run_module.STATUSES
    _is_true_epsilon(value.true_epsilon)


# -- callers -------------------------------------------------------------------------------------


def _answers(k: int) -> np.ndarray:
    """k query answers inside DP-Sniper's domain [-10, 10]."""
    return np.linspace(-1.0, 2.0, k)


def _draw(fn: Callable[..., np.ndarray], q: Any) -> np.ndarray:
    out = fn(q, 8, np.random.default_rng(0))
    check_finite_outputs(out)
    return out


def _build_and_draw(build: Callable[..., Any], k: Callable[[Any], int]) -> Callable[..., Any]:
    """A constructor's entry: build with the (hostile) keywords, then draw on ``k(fn)`` answers."""

    def call(**kwargs: Any) -> np.ndarray:
        fn = build(**kwargs)
        return _draw(fn, _answers(k(fn)))

    return call


def _make_and_sample(name: str) -> Callable[..., np.ndarray]:
    e = entry(name)
    pair = e.relation.candidates(e.domain)[0]

    def call(epsilon: Any) -> np.ndarray:
        mech = e.make(epsilon)
        out = np.asarray(mech.sample(pair[0], 8, np.random.default_rng(0)))
        check_finite_outputs(out)
        return np.asarray(mech.sample(pair[1], 8, np.random.default_rng(1)))

    return call


class _Report:
    violation, epsilon_lower_bound, samples_used, witness = False, 0.0, 10, None


@contextlib.contextmanager
def _no_audit() -> Iterator[None]:
    """``run_entry``'s audit replaced by a stand-in report (the mechanism built first)."""
    real = run_module.audit_mechanism

    def stand_in(mech: Any, **kwargs: Any) -> _Report:
        return _Report()

    run_module.audit_mechanism = stand_in
    try:
        yield
    finally:
        run_module.audit_mechanism = real


def _run_entry(**kwargs: Any) -> Any:
    with _no_audit():
        return run_module.run_entry(**kwargs)


# -- entries -------------------------------------------------------------------------------------


def _suite_entries(name: str) -> list[Entry]:
    e = entry(name)
    mech = e.make(0.5)
    pair = e.relation.candidates(e.domain)[0]
    extremes = {"epsilon": EXTREME_EPSILONS}
    return [
        Entry(f"classic {name}.make", _make_and_sample(name), {"epsilon": 0.5}, {"epsilon": "real"},
              check=check_finite_outputs, extra=extremes),
        Entry(f"classic {name}.true_epsilon", e.true_epsilon, {"epsilon": 0.5},
              {"epsilon": "real"}, check=_is_true_epsilon, extra=extremes),
        Entry(f"classic {name}.correct_at", e.correct_at, {"epsilon": 0.5}, {"epsilon": "real"},
              check=_is_verdict, extra=extremes),
        Entry(f"classic {name}.sample",
              lambda data, size, rng: np.asarray(mech.sample(data, size, rng)),
              {"data": pair[0], "size": 8, "rng": np.random.default_rng(0)},
              {"data": "data", "size": "size", "rng": "rng"}, check=check_finite_outputs,
              extra={"data": (np.full(e.relation.k, 1e308), np.full(e.relation.k, 11.0))}),
    ]  # fmt: skip


def _sampler_call(name: str, fn: Callable[..., np.ndarray], k: int) -> Entry:
    """A sampler called directly: ``fn(q, size, rng)``."""
    return Entry(
        f"classic {name}(q, size, rng)",
        lambda q, size, rng: fn(q, size, rng),
        {"q": _answers(k), "size": 8, "rng": np.random.default_rng(0)},
        {"q": "data", "size": "size", "rng": "rng"},
        check=check_finite_outputs,
        aliases={"q": ("data",)},
        extra={"q": (np.full(k, 1e308), np.full(k, -1e301), np.full(k + 1, 0.5))},
    )


def _integer_call(name: str, fn: Callable[..., np.ndarray]) -> Entry:
    return Entry(
        f"classic {name}(q, size, rng)",
        lambda q, size, rng: fn(q, size, rng),
        {"q": [2.0], "size": 8, "rng": np.random.default_rng(0)},
        {"q": "data", "size": "size", "rng": "rng"},
        check=check_finite_outputs,
        aliases={"q": ("data",)},
        extra={"q": ([2.5], [11.0], [-11.0], 2, np.array([2], dtype=np.int64))},
    )


_CONSTRUCTORS = [
    Entry("classic NoisyMax()", _build_and_draw(NoisyMax, lambda f: f.queries),
          {"epsilon": 0.5, "noise": "laplace", "release": "value", "queries": 5},
          {"epsilon": "real", "noise": "choice", "release": "choice", "queries": "int"},
          check=check_finite_outputs, extra={"epsilon": EXTREME_EPSILONS}),
    Entry("classic SparseVector()", _build_and_draw(SparseVector, lambda f: f.queries),
          {"variant": 3, "epsilon": 0.5, "cutoff": 2, "threshold": 1.0, "queries": 10},
          {"variant": "int", "epsilon": "real", "cutoff": "int", "threshold": "real",
           "queries": "int"},
          check=check_finite_outputs,
          extra={"epsilon": EXTREME_EPSILONS, "cutoff": (64, 65), "variant": (1, 2, 5, 6)}),
    Entry("classic NumericalSVT()", _build_and_draw(NumericalSVT, lambda f: f.queries),
          {"epsilon": 0.5, "cutoff": 2, "threshold": 1.0, "queries": 10},
          {"epsilon": "real", "cutoff": "int", "threshold": "real", "queries": "int"},
          check=check_finite_outputs, extra={"epsilon": EXTREME_EPSILONS, "cutoff": (64,)}),
    Entry("classic LaplaceRelease()", _build_and_draw(LaplaceRelease, lambda f: f.answers),
          {"epsilon": 0.5, "answers": 5, "wrong_scale": False},
          {"epsilon": "real", "answers": "int", "wrong_scale": "flag"},
          check=check_finite_outputs, extra={"epsilon": EXTREME_EPSILONS}),
    Entry("classic LaplaceRelease(wrong_scale)",
          _build_and_draw(LaplaceRelease, lambda f: f.answers),
          {"epsilon": 0.5, "answers": 5, "wrong_scale": True},
          {"epsilon": "real", "answers": "int"},
          check=check_finite_outputs, extra={"epsilon": EXTREME_EPSILONS}),
    Entry("classic PrefixSum()", _build_and_draw(PrefixSum, lambda f: f.answers),
          {"epsilon": 0.5, "answers": 10}, {"epsilon": "real", "answers": "int"},
          check=check_finite_outputs, extra={"epsilon": EXTREME_EPSILONS, "answers": (256, 257)}),
    Entry("classic LaplaceParallel()", _build_and_draw(LaplaceParallel, lambda f: 1),
          {"epsilon": 0.5, "copies": 20}, {"epsilon": "real", "copies": "int"},
          check=check_finite_outputs, extra={"epsilon": EXTREME_EPSILONS, "copies": (256, 257)}),
    Entry("classic TruncatedGeometric()",
          lambda **kw: _draw(TruncatedGeometric(**kw), [1.0]),
          {"epsilon": 0.5, "n": 5}, {"epsilon": "real", "n": "int"},
          check=check_finite_outputs, extra={"epsilon": EXTREME_EPSILONS, "n": (100, 101)}),
    Entry("classic Rappor()", lambda **kw: _draw(Rappor(**kw), [3.0]),
          {"epsilon": 0.5, "instantaneous": True, "p": 0.45, "q": 0.55, "hashes": 4, "bits": 20},
          {"epsilon": "real", "instantaneous": "flag", "p": "real", "q": "real", "hashes": "int",
           "bits": "int"},
          check=check_finite_outputs,
          extra={"epsilon": (*EXTREME_EPSILONS, 1000.0, 1000.5), "bits": (256, 257)}),
    Entry("classic svt34_parallel()", _build_and_draw(svt34_parallel, lambda f: 10),
          {"epsilon": 0.5, "cutoff": 2, "threshold": 1.0},
          {"epsilon": "real", "cutoff": "int", "threshold": "real"},
          check=check_finite_outputs, extra={"epsilon": EXTREME_EPSILONS}),
    Entry("classic Concatenated()", _build_and_draw(Concatenated, lambda f: 10),
          {"parts": (SparseVector(4, 0.5, 2), SparseVector(1, 0.5))}, {"parts": "any"},
          check=check_finite_outputs,
          extra={"parts": ((lambda q, s, r: 1.0,), (lambda q, s, r: np.zeros(s + 1),), [print])}),
]  # fmt: skip

_HELPERS = [
    Entry("classic entry", entry, {"name": "PrefixSum"}, {"name": "choice"},
          check=lambda e: None, extra={"name": NAMES}),
    Entry("classic run_entry", _run_entry,
          {"entry": "PrefixSum", "epsilon": 0.5, "samples": 10, "seed": 0, "alpha": 1e-6,
           "tighten": False},
          {"entry": "choice", "epsilon": "real", "samples": "size", "seed": "int",
           "alpha": "real", "tighten": "flag"},
          check=_is_run, extra={"entry": (*NAMES, entry("PrefixSum")), "epsilon": EXTREME_EPSILONS}),
    Entry("classic bloom_bits", bloom_bits, {"value": 3, "hashes": 4, "bits": 20},
          {"value": "int", "hashes": "int", "bits": "int"}, check=_is_bits),
    Entry("classic bloom_filter", bloom_filter, {"value": 3, "hashes": 4, "bits": 20},
          {"value": "int", "hashes": "int", "bits": "int"}, check=check_finite_outputs),
    Entry("classic rappor_epsilon", rappor_epsilon, {"f": 0.75, "hashes": 4},
          {"f": "real", "hashes": "int"}, check=_is_finite_float),
    Entry("classic flip_probability", flip_probability, {"epsilon": 0.5, "hashes": 4},
          {"epsilon": "real", "hashes": "int"}, check=_is_flip_probability,
          extra={"epsilon": EXTREME_EPSILONS}),
    Entry("classic geo_pmf", geo_pmf, {"epsilon": 0.5, "count": 2, "n": 5},
          {"epsilon": "real", "count": "int", "n": "int"}, check=_is_law,
          extra={"epsilon": EXTREME_EPSILONS, "n": (100, 101)}),
    Entry("classic geo_exponent", geo_exponent, {"epsilon": 0.5}, {"epsilon": "real"},
          check=lambda k: None, extra={"epsilon": EXTREME_EPSILONS}),
    Entry("classic geo_true_epsilon", geo_true_epsilon, {"epsilon": 0.5}, {"epsilon": "real"},
          check=_is_finite_float, extra={"epsilon": EXTREME_EPSILONS}),
]  # fmt: skip

ENTRIES: list[Entry] = [
    *_HELPERS,
    *_CONSTRUCTORS,
    *(e for suite_entry in SUITE for e in _suite_entries(suite_entry.name)),
    _sampler_call("NoisyMax", NoisyMax(0.5, release="value"), 5),
    _sampler_call("SparseVector", SparseVector(3, 0.5, 2), 10),
    _sampler_call("NumericalSVT", NumericalSVT(0.5), 10),
    _sampler_call("LaplaceRelease", LaplaceRelease(0.5), 5),
    _sampler_call("PrefixSum", PrefixSum(0.5), 10),
    _sampler_call("LaplaceParallel", LaplaceParallel(0.5), 1),
    _sampler_call("svt34_parallel", svt34_parallel(0.5), 10),
    _integer_call("TruncatedGeometric", TruncatedGeometric(0.5)),
    _integer_call("Rappor", Rappor(0.5)),
]
