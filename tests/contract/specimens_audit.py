"""Contract specimens and fuzz entries of the audit area (see :mod:`harness`).

The valid calls are tiny (randomized response at ε = 1, one given pair, few draws) so that the
sweep and hypothesis stay within the area's time budget; ``audit_mechanism`` is fuzzed twice:
in mode ``exact`` (no draws, so any accepted ``samples`` is cheap) over every keyword, in mode
``auto`` over every keyword that does not set the number of draws (the exact stage plans them,
so a time limit, which makes calls of few draws, stays cheap), and in mode ``blackbox`` (which
screens thousands of draws per side) over the pairs, the domain, α and the seed."""

from __future__ import annotations

import math
import tempfile
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
from harness import Entry, Specimen, check_sane

from dpquant.audit import AuditOptions, AuditReport, audit_mechanism, conformance, from_callable
from dpquant.audit.events.grids import lattice_exponent
from dpquant.audit.model import neighbours
from dpquant.audit.model.outputs import Outputs, normalise
from dpquant.audit.model.record_spaces import Box, Records
from dpquant.audit.model.relations import QueryAnswers
from dpquant.audit.model.wrap import CallableMechanism
from dpquant.audit.pipeline.time_budget import audit_within
from dpquant.audit.pytest_plugin import make_auditor
from dpquant.audit.statistics.batch_power import CdfTable, pair_powers
from dpquant.audit.statistics.exact_loss import analyse_pair, exact_sweep
from dpquant.audit.statistics.power import pair_power
from dpquant.audit.tools.equivalence import battery, two_sample_check, validate
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.laplace import laplace_law
from dpquant.reference.primitives.randomized_response import RandomizedResponse, rr_law

RR = RandomizedResponse(1.0)
RR_PAIRS = [([0.0], [1.0])]
LOCAL = PrivacyClaim(1.0, 0.0, "local")
REPLACE = PrivacyClaim(1.0, 0.0, "replace_one")
OUT = Path(tempfile.mkdtemp(prefix="dpquant-fuzz-audit-"))


def noisy_mean(data: np.ndarray, rng: np.random.Generator) -> float:
    """A correct ε = 1 replace-one mean of data in [0, 1] (Laplace, sensitivity 1/n; ½ plus
    Laplace(1) on the empty data set)."""
    if len(data) == 0:
        return float(0.5 + rng.laplace())
    return float(np.clip(data, 0.0, 1.0).mean() + rng.laplace(scale=1.0 / len(data)))


# -- checks of accepted calls ------------------------------------------------------------------


def check_report(r: Any) -> None:
    """An audit report with sane numbers; randomized response at ε = 1 audited at a confidence
    of at least 1 − 10⁻³ shows no violation (a false alarm has probability below α)."""
    assert isinstance(r, AuditReport), type(r)
    assert math.isfinite(r.epsilon_lower_bound) and r.epsilon_lower_bound >= 0
    assert r.epsilon_exact is None or not math.isnan(r.epsilon_exact)
    assert isinstance(r.violation, bool) and isinstance(r.verdict, str)
    check_sane(r.to_dict())
    if r.alpha <= 1e-3:
        assert not r.violation, r.summary()


def check_callable(m: Any) -> None:
    """A wrapped function: a sane claim, and ``size`` draws on a data set it accepts."""
    assert isinstance(m, CallableMechanism)
    assert math.isfinite(m.claim.epsilon) and 0 <= m.claim.delta < 1
    lo, hi = m.domain
    x = lo if math.isfinite(lo) else hi if math.isfinite(hi) else 0.0
    data = [m.input_values[0]] if m.input_values else [x]
    if m.relation is not None:
        data = m.relation.candidates(m.domain)[0][0]
    out = m.sample(data, 4, np.random.default_rng(0))
    assert len(out) == 4


def noisy_means(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """:func:`noisy_mean`, vectorised."""
    centre = float(np.clip(data, 0.0, 1.0).mean()) if len(data) else 0.5
    return centre + rng.laplace(scale=1.0 / max(1, len(data)), size=size)


def _broken(kind: str) -> Any:
    """A function that breaks its contract in the way ``kind`` says (for ``from_callable``'s
    signature check and trial: each is refused naming ``fn``)."""

    def one_argument(data: Any) -> float:
        return 0.5

    def raises(data: Any, rng: Any) -> float:
        raise RuntimeError("broken")

    def recurses(data: Any, rng: Any) -> float:
        return recurses(data, rng)

    def generator(data: Any, rng: Any) -> Any:
        return (x for x in data)

    def matrix(data: Any, rng: Any) -> Any:
        return np.zeros((2, 2))

    return {
        "one_argument": one_argument,
        "raises": raises,
        "recurses": recurses,
        "generator": generator,
        "matrix": matrix,
    }[kind]


def check_outputs(out: Any) -> None:
    assert isinstance(out, Outputs)
    numeric = out.values[out.numeric]
    assert not np.isnan(numeric).any(), "a NaN passed as a number"


# -- prebuilt objects --------------------------------------------------------------------------

P, Q = rr_law(0, 1.0), rr_law(1, 1.0)
LAPLACE0, LAPLACE1 = laplace_law(0.0, 1.0), laplace_law(1.0, 1.0)
REPORT = audit_mechanism(RR, pairs=RR_PAIRS, samples=100, mode="exact", options=AuditOptions(name="rr"))

PAIR_EXTRAS: tuple[Any, ...] = (
    [([0.0], [1.0, 1.0])],
    [([0.5], [1.0])],
    [([math.nan], [1.0])],
    [([0.0], [2.0])],
    [[0.0, 1.0]],
    [([0.0], [1.0], [0.0])],
    [(["0"], ["1"])],
    [([[0.0]], [[1.0]])],
    [(0.0, 1.0)],
    (p for p in RR_PAIRS),
    RR_PAIRS * 10_001,
    [(np.zeros(200_000), np.ones(200_000))],
)
MECH_EXTRAS: tuple[Any, ...] = (RandomizedResponse, from_callable, object(), [RR])
EXECUTOR_EXTRAS: tuple[Any, ...] = (map, ThreadPoolExecutor, print, "pool")
NAME_EXTRAS: tuple[Any, ...] = ("x" * 5000, b"rr", "ε-mechanism")
TIMEOUT_EXTRAS: tuple[Any, ...] = (1e-4, 86_400.0, 86_401.0, 0.001)


def _audit(**kwargs: Any) -> AuditReport:
    """``audit_mechanism``, its options fuzzed field by field (each made into the options)."""
    run = {k: kwargs.pop(k) for k in ("name", "progress", "timeout", "tighten", "float_lattice") if k in kwargs}
    return audit_mechanism(**kwargs, options=AuditOptions(**run))


def _exhaustive(values: Any, max_n: Any, adjacency: Any) -> list[Any]:
    return list(islice(neighbours.exhaustive_pairs(values, max_n, adjacency), 50))


def _tie(v: Any, w: Any, adjacency: Any, n: Any) -> Any:
    return neighbours.tie_family(v, w, adjacency)(n)


def _plot(path: Any) -> Any:
    written = REPORT.plot(path)
    return None if written is None else str(written)


def _powers(**kwargs: Any) -> list[tuple[float, ...]]:
    return [(pw.loss, pw.expected, pw.p0, pw.p1) for pw in pair_powers(**kwargs)]


def _hill_batched(
    start: Any, objectives: Any, values: Any, adjacency: Any, steps: Any, max_size: Any
):
    best, value, evaluated = neighbours.hill_climb_batched(
        start, objectives, values, adjacency, steps, max_size
    )
    return best.data, value, evaluated


def _hill(start: Any, objective: Any, values: Any, adjacency: Any, steps: Any, max_size: Any):
    best, value, evaluated = neighbours.hill_climb(
        start, objective, values, adjacency, steps, max_size
    )
    return best.data, value, evaluated


def _dp_audit(**kwargs: Any) -> AuditReport:
    return make_auditor({"samples": 100, "seed": 0})(**kwargs)


def _analyse(**kwargs: Any) -> dict[str, Any]:
    return analyse_pair(**kwargs).to_dict()


def _sweep(**kwargs: Any) -> dict[str, Any]:
    return exact_sweep(**kwargs).to_dict()


def _validate(**kwargs: Any) -> dict[str, Any]:
    return validate(**kwargs).to_dict()


def _conformance(**kwargs: Any) -> dict[str, Any]:
    return conformance(**kwargs).to_dict()


def _pair_power(**kwargs: Any) -> tuple[float, ...]:
    pw = pair_power(**kwargs)
    return pw.loss, pw.expected, pw.p0, pw.p1


AUDIT_KINDS = {
    "mech": "any",
    "pairs": "any",
    "domain": "pair",
    "alpha": "real",
    "seed": "int",
    "executor": "any",
    "name": "any",
    "progress": "any",
    "timeout": "real",
}
AUDIT_EXTRAS = {
    "mech": MECH_EXTRAS,
    "pairs": PAIR_EXTRAS,
    "executor": EXECUTOR_EXTRAS,
    "name": NAME_EXTRAS,
    "timeout": TIMEOUT_EXTRAS,
}

SPECIMENS: list[Specimen] = [
    Specimen(
        "CallableMechanism",
        from_callable,
        {"fn": noisy_mean, "claim": REPLACE, "domain": (0.0, 1.0), "name": "noisy mean"},
        {"fn": "any", "claim": "any", "domain": "pair", "name": "any"},
        [0.2, 0.7],
        extra={"claim": (LOCAL, PrivacyClaim(0.5, 0.1)), "name": NAME_EXTRAS},
    ),
]

ENTRIES: list[Entry] = [
    # one entry per mode, each over the keywords that keep its calls cheap (see the module's note)
    *(
        Entry(
            f"audit_mechanism(mode={mode})",
            _audit,
            {"mech": RR, "pairs": RR_PAIRS, "samples": samples, "mode": mode},
            kinds,
            check=check_report,
            extra=AUDIT_EXTRAS,
        )
        for mode, samples, kinds in (
            ("exact", 100, {**AUDIT_KINDS, "samples": "size", "mode": "choice"}),
            ("auto", 40, AUDIT_KINDS),
            (
                "blackbox",
                40,
                {
                    "pairs": "any",
                    "domain": "pair",
                    "alpha": "real",
                    "seed": "int",
                    "tighten": "flag",
                    "float_lattice": "flag",
                    "relation": "any",
                },
            ),
        )
    ),
    # a total budget instead of samples: mode exact makes no draws, so any accepted budget is cheap
    Entry(
        "audit_mechanism(max_draws)",
        _audit,
        {"mech": RR, "pairs": RR_PAIRS, "max_draws": 100_000, "mode": "exact"},
        {"max_draws": "size", "mode": "choice"},
        check=check_report,
    ),
    # a time budget (mode exact: the pilot and the main audit make no draws, whatever they grant)
    Entry(
        "audit_within",
        audit_within,
        {"mech": RR, "seconds": 1.0, "pairs": RR_PAIRS, "mode": "exact", "alpha": 1e-3},
        {"seconds": "real", "alpha": "real"},
        check=check_report,
    ),
    Entry(
        "from_callable",
        from_callable,
        {"fn": noisy_mean, "claim": LOCAL, "domain": (0.0, 1.0), "name": None},
        {"fn": "any", "claim": "any", "domain": "pair", "name": "any"},
        check=check_callable,
        extra={
            "name": NAME_EXTRAS,
            "fn": (
                RandomizedResponse,
                print,
                noisy_means,
                *(_broken(k) for k in ("one_argument", "raises", "recurses", "generator")),
                _broken("matrix"),
            ),
        },
    ),
    # the keywords that say how the function is called: vectorised, a finite input set, a
    # relation object (each refused naming it, or a function that draws)
    Entry(
        "from_callable(vectorized, input_values, relation)",
        from_callable,
        {
            "fn": noisy_means,
            "claim": REPLACE,
            "domain": (0.0, 1.0),
            "vectorized": True,
            "input_values": None,
            "relation": None,
        },
        {"vectorized": "flag", "input_values": "any", "relation": "any"},
        check=check_callable,
        extra={
            "vectorized": (False, True),
            "input_values": ((0.0, 0.5, 1.0), [0.5], (2.0,), (0.5, math.nan), range(10**6)),
            "relation": (QueryAnswers(3), QueryAnswers, Records(Box(1, 0.0, 1.0), "replace_one")),
        },
    ),
    Entry(
        "validate",
        _validate,
        {
            "reference": RR,
            "candidate": RR,
            "datasets": [[0.0], [1.0]],
            "samples": 200,
            "alpha": 1e-6,
            "beta": 0.05,
            "seed": 0,
            "audit": False,
            "audit_samples": 40,
            "reference_name": None,
            "candidate_name": None,
        },
        {
            "reference": "any",
            "candidate": "any",
            "datasets": "any",
            "samples": "size",
            "alpha": "real",
            "beta": "real",
            "seed": "int",
            "audit": "flag",
            "audit_samples": "size",
            "reference_name": "any",
            "candidate_name": "any",
        },
        extra={"datasets": ([[0.5]], [[0.0]] * 1001, [[2.0]], [np.zeros(10**6)])},
    ),
    Entry(
        "conformance",
        _conformance,
        {"mech": RR, "data": [1.0], "samples": 200, "seed": 0, "alpha": 1e-6},
        {"mech": "any", "data": "data", "samples": "size", "seed": "int", "alpha": "real"},
    ),
    Entry(
        "exact_sweep",
        _sweep,
        {"mechanism": RR, "pairs": RR_PAIRS},
        {"mechanism": "any", "pairs": "any"},
        extra={"pairs": PAIR_EXTRAS, "mechanism": MECH_EXTRAS},
    ),
    Entry(
        "analyse_pair",
        _analyse,
        {
            "p": P,
            "q": Q,
            "data": (np.array([0.0]), np.array([1.0])),
            "claim": LOCAL,
            "curve": True,
        },
        {"p": "any", "q": "any", "data": "any", "claim": "any", "curve": "flag"},
        extra={"p": (Q, P), "q": (P,)},
    ),
    Entry(
        "pair_power",
        _pair_power,
        {"p": P, "q": Q, "n_eval": 100, "delta": 0.0, "alpha": 1e-6},
        {"p": "any", "q": "any", "n_eval": "size", "delta": "real", "alpha": "real"},
    ),
    Entry(
        "pair_powers",
        _powers,
        {
            "pairs": [(P, Q), (Q, P), (P, rr_law(0, 2.0)), (LAPLACE0, LAPLACE1), (LAPLACE1, P)],
            "n_eval": 100,
            "delta": 0.0,
            "alpha": 1e-6,
            "table": CdfTable(),
        },
        {"pairs": "any", "n_eval": "size", "delta": "real", "alpha": "real", "table": "any"},
        extra={
            "pairs": ([(P,)], [(P, Q, P)], [P], ((P, Q), None), [[P, 0.5]]),
            "table": (CdfTable, {}, "table"),
        },
    ),
    Entry(
        "AuditReport.plot",
        _plot,
        {"path": OUT / "report.png"},
        {"path": "any"},
        extra={
            "path": (
                str(OUT),
                OUT / "r.xyz",
                OUT / "noext",
                OUT / "report.png" / "r.png",
                "",
                "\x00.png",
                str(OUT / "r.svg"),
            )
        },
    ),
    Entry(
        "normalise",
        normalise,
        {"raw": np.array([0.5, 1.0]), "size": 2},
        {"raw": "any", "size": "int"},
        check=check_outputs,
        aliases={"raw": ("draw", "returned")},
        extra={
            "raw": (
                np.array([1 + 2j, 0j]),
                [1 + 2j, 0.5],
                np.zeros((2, 2, 2)),
                np.zeros((2, 0)),
                [{"a": 1.0}, 0.5],
                [(x for x in ()), 0.5],
                [object(), 0.5],
                [[0.5, [1.0]], [0.5, 1.0]],
                [np.zeros((2, 2)), np.zeros((2, 2))],
                np.array([[True, False], [False, False]]),
                [b"x", np.bytes_(b"y")],
                np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"),
                np.zeros(3),
                [0.5],
                None,
            )
        },
    ),
    Entry(
        "dp_audit",
        _dp_audit,
        {
            "mech_or_fn": RR,
            "claim": None,
            "domain": None,
            "pairs": RR_PAIRS,
            "mode": "exact",
            "allow_inconclusive": False,
        },
        {
            "mech_or_fn": "any",
            "claim": "any",
            "domain": "pair",
            "pairs": "any",
            "allow_inconclusive": "flag",
        },
        check=check_report,
        extra={
            "mech_or_fn": (noisy_mean,),
            "claim": (LOCAL,),
            "pairs": PAIR_EXTRAS,
            "allow_inconclusive": (True, False),
        },
    ),
    Entry(
        "check_pairs",
        neighbours.check_pairs,
        {"pairs": [([0.1, 0.5], [0.1, 0.9])], "adjacency": "replace_one", "domain": (0.0, 1.0)},
        {"pairs": "any", "adjacency": "choice", "domain": "pair"},
        extra={"pairs": PAIR_EXTRAS},
    ),
    Entry(
        "probe_values",
        neighbours.probe_values,
        {"domain": (0.0, 1.0), "inputs": None},
        {"domain": "pair", "inputs": "any"},
    ),
    Entry(
        "exhaustive_pairs",
        _exhaustive,
        {"values": [0.0, 0.5, 1.0], "max_n": 2, "adjacency": "replace_one"},
        {"values": "data", "max_n": "int", "adjacency": "choice"},
    ),
    Entry(
        "pattern_pairs",
        neighbours.pattern_pairs,
        {"values": [0.0, 0.5, 1.0], "adjacency": "add_remove", "sizes": (6, 9)},
        {"values": "data", "adjacency": "choice", "sizes": "any"},
    ),
    Entry(
        "split_pairs",
        neighbours.split_pairs,
        {"values": [0.0, 0.5, 1.0], "adjacency": "replace_one", "sizes": (6, 9)},
        {"values": "data", "adjacency": "choice", "sizes": "any"},
    ),
    Entry(
        "refine_values",
        neighbours.refine_values,
        {"values": [0.0, 1.0]},
        {"values": "data"},
    ),
    Entry(
        "make_pair",
        lambda shared, x, y: neighbours.make_pair(shared, x, y).data,
        {"shared": [0.5], "x": 0.0, "y": 1.0},
        {"shared": "data", "x": "real", "y": "real"},
    ),
    Entry(
        "neighbours_of",
        lambda pair, values, adjacency: [
            p.data for p in neighbours.neighbours_of(pair, values, adjacency)
        ],
        {
            "pair": neighbours.make_pair([0.5], 0.0, 1.0),
            "values": [0.0, 1.0],
            "adjacency": "replace_one",
        },
        {"pair": "any", "values": "data", "adjacency": "choice"},
    ),
    Entry(
        "hill_climb",
        _hill,
        {
            "start": neighbours.make_pair([0.5], 0.0, 1.0),
            "objective": lambda p: -float(p.size),
            "values": [0.0, 1.0],
            "adjacency": "replace_one",
            "steps": 2,
            "max_size": 4,
        },
        {
            "start": "any",
            "objective": "any",
            "values": "data",
            "adjacency": "choice",
            "steps": "int",
            "max_size": "int",
        },
    ),
    Entry(
        "hill_climb_batched",
        _hill_batched,
        {
            "start": neighbours.make_pair([0.5], 0.0, 1.0),
            "objectives": lambda pairs: [-float(p.size) for p in pairs],
            "values": [0.0, 1.0],
            "adjacency": "replace_one",
            "steps": 2,
            "max_size": 4,
        },
        {
            "start": "any",
            "objectives": "any",
            "values": "data",
            "adjacency": "choice",
            "steps": "int",
            "max_size": "int",
        },
        extra={
            "objectives": (
                lambda pairs: 1.0,
                lambda pairs: [],
                lambda pairs: [1.0] * (len(pairs) + 1),
                lambda pairs: ["x"] * len(pairs),
                lambda pairs: [math.nan] * len(pairs),
                len,
            )
        },
    ),
    Entry(
        "tie_family",
        _tie,
        {"v": 0.0, "w": 1.0, "adjacency": "add_remove", "n": 3},
        {"v": "real", "w": "real", "adjacency": "choice", "n": "size"},
    ),
    Entry(
        "battery",
        battery,
        {"domain": (0.0, 1.0), "adjacency": "replace_one", "sizes": (1, 5), "inputs": None},
        {"domain": "pair", "adjacency": "choice", "sizes": "any", "inputs": "any"},
    ),
    Entry(
        "two_sample_check",
        two_sample_check,
        {"a": np.linspace(0, 1, 50), "b": np.linspace(0, 1, 60), "alpha": 1e-3, "beta": 0.05},
        {"a": "data", "b": "data", "alpha": "real", "beta": "real"},
    ),
]


def _peer_draws(mech: Any) -> None:
    """An accepted peer configuration draws finite numbers."""
    out = mech.sample([0.25, 0.5, 0.75], 4, np.random.default_rng(0))
    assert np.isfinite(np.asarray(out, dtype=float)).all(), out


def _peer_entries() -> list[Entry]:
    """The peer adapters' constructors, where the library is installed (the ``peers`` extra)."""
    from dpquant.audit.suites.adapters import base, libraries

    out = []
    for name in (
        "diffprivlib_quantile",
        "opendp_quantile",
        "eeprivacy_quantile",
        "pydp_percentile",
    ):
        build = getattr(libraries, name)
        try:
            build()
        except base.PeerUnavailable:
            continue
        out.append(
            Entry(
                name,
                lambda quantile, epsilon, build=build: build(quantile, epsilon),
                {"quantile": 0.5, "epsilon": 1.0},
                {"quantile": "real", "epsilon": "real"},
                check=_peer_draws,
                aliases={"quantile": ("percentile",)},
            )
        )
    return out


ENTRIES += [
    Entry(
        "check_neighbours",
        neighbours.check_neighbours,
        {"d0": [0.0], "d1": [1.0], "adjacency": "local"},
        {"d0": "data", "d1": "data", "adjacency": "choice"},
        aliases={"d0": ("pairs",), "d1": ("pairs",)},
    ),
    Entry("lattice_exponent", lattice_exponent, {"z": [0.5, 1.5]}, {"z": "data"}),
    *_peer_entries(),
]
