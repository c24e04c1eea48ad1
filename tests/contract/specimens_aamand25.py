"""Contract specimens and fuzz entries of the aamand25 area (see :mod:`harness`):
``dpquant.reference.distributed_quantiles``, its known-bad variants of the auditor's catalogue
(``dpquant.audit.suites.catalogue.repeated_answers``) and the argument checks of
``dpquant.studies.aamand25`` and ``aamand25_data``.

Every valid call is tiny (a handful of users, B <= 16, 60-digit mpmath), so the sweep and the
hypothesis runs of the whole area take seconds. Checks verify what an accepted call returns: a
protocol's coin is an int in [1, B], an estimate or a bound is finite, a law has mass 1.

An entry is written as its valid call and the hostile pool of each fuzzed parameter, the latter as
one string ``"users:data B:int"`` (:func:`_kinds`); a parameter left out of it is not fuzzed.
"""

from __future__ import annotations

import atexit
import math
import os
import shutil
import tempfile
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
from harness import Entry, Specimen, check_law, check_sane

from dpquant.audit.suites.catalogue.repeated_answers import RepeatedThresholdQuery, two_answers_nbs
from dpquant.reference.distributed_quantiles import (
    amplification,
    bayess,
    channel,
    concentration,
    hierarchical,
    lower_bound,
    mechanisms,
    naive_nbs,
    padding,
    potential,
    threshold_query,
    unary_encoding,
    users,
    weight_tree,
)
from dpquant.reference.distributed_quantiles.bayes_learning import (
    Intervals,
    bayes_learn,
    learner_target,
)
from dpquant.reference.distributed_quantiles.hierarchical import HierarchicalRandomizer
from dpquant.reference.distributed_quantiles.mechanisms import ProtocolMechanism
from dpquant.reference.distributed_quantiles.population import CountStream, Population
from dpquant.reference.distributed_quantiles.private_bayess import (
    dp_bayess,
    dp_bayess_runs,
    endpoint_coins,
    reduction_to_gamma,
    sample_split,
    select_quantiles,
    update_parameter,
)
from dpquant.reference.distributed_quantiles.protocol_enumeration import protocol_law
from dpquant.reference.distributed_quantiles.shuffle_search import shuffle_nbs
from dpquant.reference.distributed_quantiles.threshold_query import ThresholdQuery
from dpquant.reference.distributed_quantiles.unary_encoding import UnaryEncoding
from dpquant.studies import aamand25 as experiments
from dpquant.studies.aamand25 import data as data_sets

RNG = np.random.default_rng(0)
N_TOO_SMALL = ("n too small",)  # a refusal that names the users' count a parameter demands


# -- checks of accepted results ----------------------------------------------------------------


def coin_in(B: int) -> Any:
    """An accepted protocol run: an int coin in [1, B] (B: the valid call's domain, or larger)."""

    def check(result: Any) -> None:
        assert isinstance(result, int) and not isinstance(result, bool), repr(result)
        assert 1 <= result <= max(B, 2**62), result

    return check


def finite(result: Any) -> None:
    """A finite real number (float or mpf), or a tuple/list/array of them."""
    values = result if isinstance(result, tuple | list | np.ndarray) else [result]
    for v in np.asarray(values, dtype=object).ravel():
        if isinstance(v, mpmath.mpf):
            assert mpmath.isfinite(v), v
        elif isinstance(v, Fraction | int | np.integer | bool | np.bool_):
            pass
        else:
            assert math.isfinite(float(v)), v


def probability(result: Any) -> None:
    """An exact probability in [0, 1] (Fraction or mpf)."""
    finite(result)
    assert 0 <= result <= 1, result


def ints_in(lo: int, hi: int) -> Any:
    def check(result: Any) -> None:
        arr = np.asarray(result)
        assert arr.dtype.kind in "iu", arr.dtype
        assert arr.size == 0 or (lo <= arr.min() and arr.max() <= hi), (arr.min(), arr.max())

    return check


# -- how an entry is written -------------------------------------------------------------------


def _kinds(spec: str) -> dict[str, str]:
    """``"users:data B:int"`` -> ``{"users": "data", "B": "int"}`` (the order is kept)."""
    pairs = [part.split(":") for part in spec.split()]
    assert all(len(p) == 2 for p in pairs), spec
    return {param: kind for param, kind in pairs}


def _entry(
    name: str,
    call: Any,
    kwargs: dict[str, Any],
    kinds: str,
    check: Any = None,
    aliases: dict[str, tuple[str, ...]] | None = None,
    extra: dict[str, tuple[Any, ...]] | None = None,
) -> Entry:
    """The entry ``name``: ``call(**kwargs)`` is valid; ``kinds`` as :func:`_kinds` reads it."""
    return Entry(name, call, kwargs, _kinds(kinds), check or check_sane, aliases or {}, extra or {})


def _fn(
    fn: Callable[..., Any], kwargs: dict[str, Any], kinds: str, *rest: Any, **named: Any
) -> Entry:
    """:func:`_entry` of a public function, named after it."""
    return _entry(fn.__name__, fn, kwargs, kinds, *rest, **named)


# -- specimens: the mechanism classes ----------------------------------------------------------

SPECIMENS: list[Specimen] = [
    Specimen(
        "ThresholdQuery",
        ThresholdQuery,
        {"B": 8, "coin": 4, "epsilon": 1.0},
        _kinds("B:int coin:int epsilon:real"),
        3,
    ),
    Specimen(
        "RepeatedThresholdQuery[answers=2]",
        RepeatedThresholdQuery,
        {"B": 8, "coin": 4, "epsilon": 1.0, "answers": 2},
        _kinds("answers:int"),
        [5.0],
    ),
    Specimen(
        "UnaryEncoding",
        UnaryEncoding,
        {"d": 4, "epsilon": 1.0, "variant": "oue"},
        _kinds("d:int epsilon:real variant:choice"),
        2,
        extra={"variant": ("sue", "OUE")},
    ),
    Specimen(
        "HierarchicalRandomizer",
        HierarchicalRandomizer,
        {"B": 4, "epsilon": 1.0, "branching": 2, "oracle": "oue"},
        _kinds("B:int epsilon:real branching:int oracle:choice"),
        3,
        extra={"oracle": ("sue", "SUE")},
    ),
    Specimen(
        "ProtocolMechanism[DpNaiveNBS]",
        ProtocolMechanism,
        {
            "name": "DpNaiveNBS",
            "protocol": naive_nbs.dp_naive_nbs,
            "B": 4,
            "epsilon": 1.0,
            "n": 2,
            "options": {},
        },
        _kinds("name:any protocol:any B:int epsilon:real n:int options:any"),
        [1, 3],
        aliases={"B": N_TOO_SMALL, "options": ("tau",)},  # the option refused names itself
        extra={"options": ({"tau": 0.3}, {"tau": 2.0}, {"nope": 1}, {1: 2})},
    ),
]


# -- entries: the public functions -------------------------------------------------------------

U8 = [1, 2, 3, 4, 5, 6, 7, 8]
TINY_TREE = {"branching": 2, "oracle": "oue"}
P1 = [0.0, 0.2, 0.45, 0.55, 0.8, 1.0]  # coin probabilities p_0..p_B of B = 5 coins
W4 = [0.25, 0.25, 0.25, 0.25]  # weights over the B − 1 = 4 intervals
RUN = "users:data B:int epsilon:real rng:rng"  # a protocol's run: the kinds of its first four
TOO_FEW = {"B": N_TOO_SMALL + ("users",), "users": N_TOO_SMALL}  # a protocol's refusals


def _run(users_: Any, B: int, **options: Any) -> dict[str, Any]:
    """A protocol's valid call: ``users_`` on [B] at ε = 1 with the shared generator."""
    return {"users": users_, "B": B, "epsilon": 1.0, "rng": RNG, **options}


def _protocol_entries() -> list[Entry]:
    tree = f"{RUN} tau:real branching:int oracle:choice"
    bayess_kinds = f"{RUN} alpha:real steps:int rounding:choice"
    bayess_aliases = {**TOO_FEW, "steps": N_TOO_SMALL}
    return [
        _fn(
            naive_nbs.dp_naive_nbs,
            _run([1, 2, 1, 2], 4, tau=0.5, coins=None, faithful=False, sampler="per_user"),
            f"{RUN} tau:real coins:data faithful:flag sampler:choice",
            coin_in(4),
            aliases={"B": N_TOO_SMALL, "users": N_TOO_SMALL, "coins": N_TOO_SMALL},
            extra={"sampler": ("counts",)},
        ),
        _entry(
            "dp_naive_nbs(sampler='counts')",
            naive_nbs.dp_naive_nbs,
            _run([1, 2, 1, 2], 4, tau=0.5, coins=None, faithful=False, sampler="counts"),
            f"{RUN} tau:real coins:data faithful:flag",
            coin_in(4),
            aliases={"B": N_TOO_SMALL, "users": N_TOO_SMALL, "coins": N_TOO_SMALL},
        ),
        _entry(
            "Population.of",
            Population.of,
            {"users": [3, 1, 2, 2], "B": 4},
            "users:data B:int",
            aliases={"B": ("users",)},
        ),
        _entry(
            "CountStream.rr_ones",
            lambda k, coin, epsilon, rng: CountStream(Population.of(U8, 8), RNG).rr_ones(
                k, coin, epsilon, rng
            ),
            {"k": 3, "coin": 4, "epsilon": 1.0, "rng": RNG},
            "k:int coin:int epsilon:real rng:rng",
            aliases={"k": N_TOO_SMALL},
        ),
        _fn(
            shuffle_nbs,
            _run([1, 2] * 1000, 2, delta=0.1, tau=0.5, local_epsilon="inverted", coins=None)
            | {"faithful": False, "sampler": "per_user"},
            "users:data B:int epsilon:real delta:real rng:rng tau:real local_epsilon:choice "
            "coins:data faithful:flag sampler:choice",
            coin_in(2),
            aliases={
                "B": N_TOO_SMALL + ("local epsilon", "FMT"),
                "users": N_TOO_SMALL + ("local epsilon", "FMT", "n_batch"),
                "epsilon": ("eps_local",),
                "delta": ("n_batch",),
                "local_epsilon": ("rule", "FMT", "local epsilon"),
            },
            extra={"local_epsilon": ("lemma_g5", "paper", "authors"), "sampler": ("counts",)},
        ),
        _fn(
            dp_bayess,
            _run([1, 2, 3, 4, 5, 6], 6, c=0.1, rounding="paper", selection="paper")
            | {"faithful_search": False},
            f"{RUN} c:real rounding:choice selection:choice faithful_search:flag",
            coin_in(6),
            aliases=TOO_FEW,
            extra={"rounding": ("left",), "selection": ("numpy",)},
        ),
        _entry(
            "dp_bayess_runs",
            lambda users, B, epsilon, rng, **kw: dp_bayess_runs(
                users, B, epsilon, [rng, np.random.default_rng(1)], **kw
            ),
            _run([1, 2, 3, 4, 5, 6], 6, c=0.1, rounding="paper", selection="paper")
            | {"faithful_search": False},
            f"{RUN} c:real rounding:choice selection:choice faithful_search:flag",
            lambda coins: [coin_in(6)(int(c)) for c in coins],
            aliases=TOO_FEW,
            extra={"rounding": ("left",), "selection": ("numpy",)},
        ),
        _fn(
            bayess.bayess_theorem_1_1,
            _run(list(range(1, 9)) * 13, 8, alpha=0.2, steps=None, rounding="paper"),
            bayess_kinds,
            coin_in(8),
            aliases=bayess_aliases,
        ),
        _fn(
            bayess.bayess_statistical,
            _run(list(range(1, 9)) * 7, 8, alpha=0.2, steps=3, rounding="left"),
            bayess_kinds,
            coin_in(8),
            aliases=bayess_aliases,
        ),
        _fn(
            hierarchical.hierarchical_quantile,
            _run(U8, 8, tau=0.5, **TINY_TREE),
            tree,
            coin_in(8),
            aliases={"B": ("users",), "epsilon": ("p - q",)},
        ),
        _fn(
            hierarchical.hierarchical_median,
            _run(U8, 8, sampler="per_user", **TINY_TREE),
            "users:data epsilon:real branching:int oracle:choice sampler:choice",
            coin_in(8),
            extra={"sampler": ("counts",)},
        ),
        _entry(
            "hierarchical_median(sampler='counts')",
            hierarchical.hierarchical_median,
            _run(U8, 8, sampler="counts", **TINY_TREE),
            "users:data B:int epsilon:real branching:int oracle:choice",
            coin_in(8),
            aliases={"B": ("users",)},
        ),
        _fn(
            hierarchical.hierarchical_cdf,
            _run(U8, 8, **TINY_TREE),
            f"{RUN} branching:int",
            finite,
            aliases={"B": ("users",)},
        ),
        _fn(
            hierarchical.level_estimates,
            _run(U8, 8, levels=[1, 2, 3] * 2 + [1, 1], **TINY_TREE),
            "users:data levels:data epsilon:real oracle:choice",
            aliases={"users": ("levels",)},
        ),
        _fn(
            padding.quantile_via_median,
            {"median_protocol": naive_nbs.dp_naive_nbs, **_run([1, 2, 3, 4], 4, tau=0.25)},
            "median_protocol:any users:data B:int tau:real epsilon:real rng:rng",
            coin_in(4),
            aliases=TOO_FEW,
        ),
        _fn(two_answers_nbs, _run([1, 2, 3], 4), RUN, coin_in(4), aliases=TOO_FEW),
        _fn(
            protocol_law,
            {
                "run": lambda g: naive_nbs.dp_naive_nbs([1, 2], 2, 1.0, g),
                "epsilon": 1.0,
                "max_paths": 1000,
            },
            "run:any epsilon:real max_paths:int",
            check_law,
            aliases={"max_paths": ("paths",)},
        ),
    ]


def _user_entries() -> list[Entry]:
    cdf_users = [1, 2, 2, 5]
    tq = threshold_query
    return [
        _fn(users.check_domain_size, {"B": 8}, "B:int"),
        _entry(
            "check_integers",
            lambda values, minimum, maximum: users.check_integers(
                values, "values", minimum=minimum, maximum=maximum
            ),
            {"values": [0, 3], "minimum": 0, "maximum": 5},
            "values:data minimum:int maximum:int",
            ints_in(-(2**63), 2**63),
            aliases={"minimum": ("values",), "maximum": ("values",)},
        ),
        _entry(
            "nbs_mechanism.local_randomizer",
            lambda B, epsilon, n, coin: mechanisms.nbs_mechanism(B, epsilon, n).local_randomizer(
                coin
            ),
            {"B": 8, "epsilon": 1.0, "n": 3, "coin": 4},
            "B:int epsilon:real n:int coin:int",
            aliases={"B": ("coin",)},
            extra={"coin": (None,)},
        ),
        _fn(
            users.check_users,
            {"users": [1, 2, 8], "B": 8},
            "users:data B:int",
            ints_in(1, 2**62),
            aliases={"B": ("users",)},
        ),
        _fn(
            users.check_user_value, {"data": 3, "B": 8}, "data:any B:int", aliases={"B": ("data",)}
        ),
        _fn(
            users.empirical_cdf,
            {"users": cdf_users, "points": [1, 2, 6]},
            "users:data points:any",
            finite,
        ),
        _fn(
            users.is_approximate_quantile,
            {"users": cdf_users, "m": 2, "tau": 0.5, "alpha": 0.1},
            "users:data m:int tau:real alpha:real",
        ),
        _fn(
            users.quantile_error,
            {"users": cdf_users, "m": 2, "tau": 0.5},
            "users:data m:int tau:real",
            finite,
        ),
        _entry(
            "UserStream.take",
            lambda users_, rng, k: users.UserStream(users_, rng).take(k),
            {"users_": np.array([1, 2, 3]), "rng": RNG, "k": 2},
            "users_:data rng:rng k:int",
            aliases={"users_": ("users",), "k": N_TOO_SMALL},
        ),
        _fn(
            tq.threshold_rr,
            {"values": [1, 2, 3], "coin": 2, "epsilon": 1.0, "rng": RNG},
            "values:data coin:int epsilon:real rng:rng",
            ints_in(0, 1),
        ),
        _fn(
            tq.threshold_bits,
            {"values": [1, 2, 3], "coin": 2},
            "values:data coin:int",
            ints_in(0, 1),
        ),
    ]


def _search_entries() -> list[Entry]:
    a = amplification
    fmt = {"eps_local": 1.0, "n": 1000, "delta": 1e-6}
    fmt_kinds = "eps_local:real n:int delta:real"
    precondition = "require_precondition:flag"
    no_local = ("local epsilon",)
    return [
        _fn(naive_nbs.search_rounds, {"K": 9}, "K:int"),
        _fn(
            naive_nbs.batch_schedule,
            {"n": 10, "K": 9, "stage": "DpNaiveNBS"},
            "n:int K:int stage:any",
            aliases={"n": N_TOO_SMALL, "K": N_TOO_SMALL},
        ),
        _fn(
            naive_nbs.debiased_estimate,
            {"ones": 3, "size": 10, "epsilon": 1.0},
            "ones:int size:int epsilon:real",
            finite,
            aliases={"size": ("ones",)},
        ),
        _fn(naive_nbs.rr_tanh, {"epsilon": 1.0}, "epsilon:real", finite),
        _fn(a.rounds, {"K": 9}, "K:int"),
        _fn(a.fmt_epsilon, fmt, fmt_kinds, finite),
        _fn(a.fmt_epsilon_mp, fmt, fmt_kinds, finite),
        _fn(a.fmt_precondition_bound, {"n": 1000, "delta": 1e-6}, "n:int delta:real", finite),
        _fn(a.fmt_precondition, fmt, fmt_kinds),
        # the local ε of Fig. 4 from n users, as printed (B) and as the authors' code has it (K)
        *(
            _fn(
                fn,
                {
                    "epsilon": 1.0,
                    "n": 10**6,
                    width: 16,
                    "delta": 1e-6,
                    "require_precondition": flag,
                },
                f"epsilon:real n:int {width}:int delta:real {precondition}",
                finite,
                aliases={"n": no_local, width: no_local, "delta": no_local},
            )
            for fn, width, flag in (
                (a.local_epsilon_paper, "B", True),
                (a.local_epsilon_authors, "K", False),
            )
        ),
        # the local ε from one batch of n_batch users (Lemma G.5 and its inversion)
        *(
            _fn(
                fn,
                {"epsilon": 1.0, "n_batch": n_batch, "delta": 1e-6},
                "epsilon:real n_batch:int delta:real",
                finite,
                aliases=aliases,
            )
            for fn, n_batch, aliases in (
                (a.local_epsilon_lemma_g5, 10**5, {"delta": no_local}),
                (a.local_epsilon_inverted, 10**4, None),
            )
        ),
        _fn(
            a.shuffle_local_epsilon,
            {"epsilon": 1.0, "delta": 1e-6, "n": 10**5, "B": 16, "rule": "lemma_g5"},
            "epsilon:real delta:real n:int B:int rule:choice",
            finite,
            aliases={
                "n": no_local + ("FMT",),
                "B": no_local + ("FMT",),
                "delta": no_local + ("FMT",),
                "rule": ("FMT",) + no_local,
            },
            extra={"rule": ("paper", "authors", "inverted")},
        ),
        _fn(
            a.notebook_min_users,
            {"epsilon": 1.0, "B": 16, "delta": 1e-6},
            "epsilon:real B:int delta:real",
            finite,
        ),
    ]


def _learner_entries() -> list[Entry]:
    wt = weight_tree
    return [
        _fn(
            bayes_learn,
            {
                "users": [1, 5, 9, 2],
                "intervals": Intervals.full(16),
                "alpha": 0.05,
                "rng": RNG,
                "tau": 0.5,
                "epsilon": 1.0,
                "rounding": "paper",
            },
            "users:data intervals:any alpha:real rng:rng tau:real epsilon:real rounding:choice",
            ints_in(1, 15),
            aliases={"tau": ("alpha",), "epsilon": ("alpha",)},
            extra={"epsilon": (None,)},
        ),
        _entry(
            "Intervals.from_coins",
            Intervals.from_coins,
            {"lefts": [1, 3], "rights": [2, 5]},
            "lefts:data rights:data",
            aliases={"lefts": ("rights", "intervals"), "rights": ("lefts", "intervals")},
        ),
        _entry(
            "Intervals.left",
            lambda count, j: Intervals(count).left(j),
            {"count": 5, "j": 2},
            "count:int j:int",
            aliases={"count": ("j",)},
        ),
        _fn(
            learner_target,
            {"tau": 0.3, "epsilon": 1.0},
            "tau:real epsilon:real",
            finite,
            extra={"epsilon": (None,)},
        ),
        _fn(
            select_quantiles,
            {"L": np.array([1, 3, 3, 7, 2]), "gamma": 0.25, "selection": "paper"},
            "L:data gamma:real selection:choice",
            ints_in(1, 2**62),
            extra={"selection": ("numpy",)},
        ),
        _fn(sample_split, {"n": 100, "B": 64}, "n:int B:int"),
        _fn(update_parameter, {"n": 100, "B": 64, "c": 0.6}, "n:int B:int c:real", finite),
        _fn(
            reduction_to_gamma,
            {
                "users": [1, 3, 5, 7],
                "intervals": Intervals.full(8),
                "alpha": 0.1,
                "epsilon": 1.0,
                "gamma": 0.25,
                "rng": RNG,
                "rounding": "paper",
                "selection": "paper",
            },
            "users:data intervals:any alpha:real epsilon:real gamma:real rng:rng "
            "rounding:choice selection:choice",
            aliases={"epsilon": ("alpha",)},
        ),
        _fn(
            endpoint_coins,
            {"intervals": Intervals.from_coins([1, 3], [2, 5])},
            "intervals:any",
            ints_in(1, 2**62),
        ),
        _entry(
            "select_by_test_coins",
            lambda users_, count, epsilon, rng: bayess.select_by_test_coins(
                users.UserStream(np.asarray(users_), RNG), Intervals.full(4), count, epsilon, rng
            ),
            {"users_": [1, 2, 3, 4] * 3, "count": 12, "epsilon": 1.0, "rng": RNG},
            "count:int epsilon:real rng:rng",
            coin_in(4),
            aliases={"count": N_TOO_SMALL},
        ),
        _entry(
            "LogWeightTree",
            lambda N, q: wt.LogWeightTree(N).locate(q),
            {"N": 10, "q": 0.5},
            "N:int q:real",
        ),
        _entry(
            "LogWeightTree.log_weight",
            lambda N, i: wt.LogWeightTree(N).log_weight(i),
            {"N": 10, "i": 3},
            "N:int i:int",
            finite,
            aliases={"N": ("i",)},
        ),
        _entry(
            "ChannelDerivation.proof",
            lambda name: channel.derive_channel().proof(name),
            {"name": "capacity"},
            "name:choice",
        ),
        _entry(
            "LogWeightTree.update",
            _tree_update,
            {"log_left": -0.1, "log_right": 0.1, "log_cell": 0.0},
            "log_left:real log_right:real log_cell:real",
            finite,
        ),
        _entry(
            "ArrayWeights",
            lambda N, q, exact: wt.ArrayWeights(N, exact=exact).locate(q),
            {"N": 10, "q": 0.5, "exact": True},
            "N:int q:real exact:flag",
        ),
    ]


def _tree_update(log_left: Any, log_right: Any, log_cell: Any) -> float:
    tree = weight_tree.LogWeightTree(8)
    tree.locate(0.5)
    tree.update(log_left, log_right, log_cell)
    return tree.log_weight(1)


def _tree_entries() -> list[Entry]:
    h, ue = hierarchical, unary_encoding
    return [
        _fn(h.check_branching, {"branching": 4}, "branching:int"),
        _fn(h.tree_depth, {"B": 100, "branching": 4}, "B:int branching:int"),
        _fn(
            h.node_index,
            {"values": [1, 7, 16], "level": 1, "k": 2, "branching": 4},
            "values:data level:int k:int branching:int",
            ints_in(0, 2**62),
            aliases={"k": ("level",)},
        ),
        _fn(
            h.true_level_counts,
            {"users": U8, "B": 8, "branching": 2},
            "users:data B:int branching:int",
            aliases={"B": ("users",)},
        ),
        _fn(
            h.prefix_nodes,
            {"x": 5, "B": 8, "branching": 2},
            "x:int B:int branching:int",
            aliases={"B": ("x",)},
        ),
        _fn(
            h.prefix_cdf,
            {"level_values": [[0.5, 0.5], [0.25] * 4], "B": 4, "branching": 2},
            "level_values:any B:int branching:int",
            finite,
            aliases={"B": ("level_values",), "branching": ("level_values",)},
        ),
        _fn(h.closest_coin, {"cdf": [0.1, 0.4, 0.7, 1.0], "tau": 0.5}, "cdf:data tau:real"),
        _entry(
            "HierarchicalRandomizer.decode",
            lambda code: HierarchicalRandomizer(4, 1.0, branching=2).decode(code),
            {"code": 5},
            "code:int",
        ),
        _fn(ue.check_variant, {"variant": "sue"}, "variant:choice"),
        _fn(
            ue.ue_probabilities,
            {"epsilon": 1.0, "variant": "oue"},
            "epsilon:real variant:choice",
            finite,
        ),
        _fn(
            ue.ue_probabilities_mp,
            {"epsilon": 1.0, "variant": "sue"},
            "epsilon:real variant:choice",
            finite,
        ),
        _fn(
            ue.ue_reports,
            {"items": [1, 3], "d": 3, "epsilon": 1.0, "rng": RNG, "variant": "oue"},
            "items:data d:int epsilon:real rng:rng variant:choice",
            ints_in(0, 1),
            aliases={"d": ("items",)},
        ),
        _fn(
            ue.ue_counts,
            {"item_counts": [2, 0, 1], "epsilon": 1.0, "rng": RNG, "variant": "oue"},
            "item_counts:data epsilon:real rng:rng variant:choice",
            ints_in(0, 2**62),
        ),
        _fn(
            ue.iid_binomial,
            {"trials": 5, "prob": 0.3, "size": 4, "rng": RNG},
            "trials:int prob:real size:size rng:rng",
            ints_in(0, 10**7),
        ),
        _fn(
            ue.ue_estimate,
            {"report_counts": [3, 1], "n": 4, "epsilon": 1.0, "variant": "oue"},
            "report_counts:data n:int epsilon:real variant:choice",
            finite,
            aliases={"n": ("report_counts",)},
        ),
        _fn(
            ue.ue_count_law,
            {"item_count": 1, "n": 3, "epsilon": 1.0, "variant": "oue"},
            "item_count:int n:int epsilon:real variant:choice",
            check_law,
            aliases={"n": ("item_count",)},
        ),
        _fn(
            ue.ue_bit_law,
            {"is_item": True, "epsilon": 1.0, "variant": "sue"},
            "is_item:flag epsilon:real variant:choice",
            check_law,
        ),
    ]


def _channel_entries() -> list[Entry]:
    ch = channel
    ta = {"tau": 0.5, "alpha": 0.1}
    kinds = "tau:real alpha:real"
    alias = {"tau": ("alpha",)}
    weights = {**ta, "q": 0.4}
    no_q = {"q": (None,)}
    return [
        _fn(ch.check_channel_parameters, ta, kinds, aliases=alias),
        _fn(ch.optimal_query_point, ta, kinds, finite, aliases=alias),
        _fn(ch.capacity, ta, kinds, finite, aliases=alias),
        _fn(ch.bayes_weights, weights, f"{kinds} q:real", aliases=alias, extra=no_q),
        _fn(ch.mutual_information, {"x": 0.3, **ta}, f"x:real {kinds}", finite, aliases=alias),
        _fn(ch.rr_domain_target, {"tau": 0.3, "epsilon": 1.0}, "tau:real epsilon:real", finite),
        _fn(ch.rr_domain_alpha, {"alpha": 0.3, "epsilon": 1.0}, "alpha:real epsilon:real", finite),
        _entry(
            "BayesWeights.d",
            lambda flip, side: ch.bayes_weights(0.5, 0.1).d(flip, side),
            {"flip": 1, "side": 0},
            "flip:int side:int",
            finite,
        ),
        *(
            _fn(fn, {**ta, "dps": 50}, f"{kinds} dps:int", finite, aliases=alias)
            for fn in (ch.optimal_query_point_mp, ch.capacity_mp, ch.numeric_argmax_mp)
        ),
        _fn(
            ch.mutual_information_mp,
            {"x": 0.3, **ta, "dps": 50},
            f"x:real {kinds} dps:int",
            finite,
            aliases=alias,
        ),
        _fn(
            ch.bayes_weights_mp,
            {**weights, "dps": 50},
            f"{kinds} q:real dps:int",
            aliases=alias,
            extra=no_q,
        ),
    ]


def _potential_entries() -> list[Entry]:
    pt = potential
    gamma = Fraction(1, 13)
    step = {
        "w": W4,
        "p1": P1,
        "tau": 0.5,
        "alpha": 0.05,
        "c": 1.0,
        "gamma": gamma,
        "good_count": 0,
        "size": 0,
        "rounding": "paper",
        "dps": 50,
    }
    counts_alias = {"good_count": ("size",), "size": ("good_count",)}
    step_alias = {
        "tau": ("alpha", "p1"),
        "alpha": ("pt",),
        "c": ("pt",),
        "w": ("p1",),
        **counts_alias,
    }
    return [
        _fn(pt.uniform_weights, {"B": 5}, "B:int", finite),
        _fn(pt.query_interval, {"w": W4, "q": 0.5}, "w:data q:real"),
        _fn(
            pt.round_interval_to_coin,
            {"j": 2, "w": W4, "q": 0.5, "rounding": "paper"},
            "j:int w:data q:real rounding:choice",
            finite,
            aliases={"w": ("j",)},
        ),
        _fn(
            pt.bayes_update,
            {"w": W4, "j": 2, "q": 0.5, "flip": 1, "d": channel.bayes_weights(0.5, 0.05)},
            "w:data j:int q:real flip:int d:any",
            finite,
            aliases={"w": ("j",)},
        ),
        _fn(pt.target_interval, {"p1": P1, "tau": 0.5}, "p1:data tau:real"),
        _fn(
            pt.good_intervals,
            {"p1": P1, "tau": 0.5, "alpha_good": 0.1},
            "p1:data tau:real alpha_good:real",
            aliases={"tau": ("p1",)},
        ),
        _fn(
            pt.adversarial_probabilities,
            {"p1": P1, "alpha": 0.05, "c": 1.0, "direction": 1},
            "p1:data alpha:real c:real direction:int",
            finite,
        ),
        _fn(
            pt.potential,
            {
                "w": W4,
                "good_count": 1,
                "size": 2,
                "p1": P1,
                "tau": 0.5,
                "capacity": 0.01,
                "gamma": gamma,
            },
            "w:data good_count:int size:int p1:data tau:real capacity:real gamma:real",
            finite,
            aliases={"w": ("p1",), "tau": ("p1",), **counts_alias},
        ),
        _fn(
            pt.lemma_e3_bound,
            {"tau": 0.5, "alpha": 0.1, "gamma": gamma, "dps": 50},
            "tau:real alpha:real gamma:real dps:int",
            finite,
            aliases={"tau": ("alpha",)},
        ),
        _entry(
            "worst_case_drift",
            lambda **kw: pt.worst_case_drift(**kw).drift,
            step,
            "w:data p1:data tau:real alpha:real c:real gamma:real good_count:int size:int "
            "rounding:choice dps:int",
            finite,
            aliases=step_alias,
        ),
    ]


def _concentration_entries() -> list[Entry]:
    c = concentration
    urn = {"total": 6, "zeros": 3}
    urn_kinds = "total:int zeros:int"
    urn_alias = {"total": ("zeros", "steps", "t")}
    walk = {"n": 3, "k": 2, "i": 1, "y": 2}
    walk_alias = {"n": ("zeros", "i", "y"), "k": ("zeros", "y")}
    g = {"alpha": 0.1, "epsilon": 1.0}
    g_kinds = "alpha:real epsilon:real"
    bernstein = {"n": 10, "alpha": 0.1, "sigma2": 0.25}
    return [
        _fn(c.remaining_zeros_law, {**urn, "t": 2}, f"{urn_kinds} t:int", aliases=urn_alias),
        _fn(
            c.deviation_probability,
            {**urn, "t": 2, "alpha": 0.2},
            f"{urn_kinds} t:int alpha:real",
            probability,
            aliases=urn_alias,
        ),
        *(
            _fn(
                fn,
                {**urn, "steps": 3, "threshold": 0.2},
                f"{urn_kinds} steps:int threshold:real",
                probability,
                aliases=urn_alias,
            )
            for fn in (c.max_deviation_tail, c.max_deviation_tail_by_enumeration)
        ),
        _fn(c.lemma_4_1_x, walk, "n:int k:int i:int y:int", aliases=walk_alias),
        _fn(c.lemma_4_1_next_values, walk, "n:int k:int i:int y:int", aliases=walk_alias),
        _fn(
            c.lemma_4_1_exact_tail,
            {"n": 3, "k": 2, "t": 0.3},
            "n:int k:int t:real",
            probability,
            aliases={"n": ("zeros", "total"), "k": ("zeros",), "t": ("threshold",)},
        ),
        _fn(c.lemma_4_1_bound, {"n": 3, "t": 0.3}, "n:int t:real", finite),
        _fn(
            c.lemma_3_1_exact_tail,
            {"n": 6, "ones": 2, "alpha": 0.2},
            "n:int ones:int alpha:real",
            probability,
            aliases={"alpha": ("threshold",)},
        ),
        _fn(
            c.lemma_3_1_bound_printed,
            {"n": 6, "alpha": 0.2},
            "n:int alpha:real",
            finite,
            aliases={"alpha": ("t ",)},
        ),
        _fn(c.lemma_3_1_bound_proof, {"n": 6, "alpha": 0.2}, "n:int alpha:real", finite),
        _fn(c.azuma_bound, {"n": 6, "t": 2}, "n:int t:real", finite),
        _fn(c.random_walk_max_tail, {"n": 6, "t": 2}, "n:int t:real", probability),
        _fn(c.random_walk_one_sided_max_tail, {"n": 6, "a": 2}, "n:int a:int", probability),
        _fn(c.bernstein_as_stated, bernstein, "n:int alpha:real sigma2:real", finite),
        _fn(c.bernstein_two_sided, bernstein, "n:int alpha:real sigma2:real", finite),
        _fn(
            c.binomial_mean_deviation_tail,
            {"n": 5, "p": 0.3, "alpha": 0.1, "strict": True},
            "n:int p:real alpha:real strict:flag",
            probability,
        ),
        _fn(
            c.rademacher_mean_deviation_tail,
            {"n": 5, "alpha": 0.1, "strict": False},
            "n:int alpha:real strict:flag",
            probability,
        ),
        _fn(c.lemma_g2_bracket, g, g_kinds, finite),
        _fn(c.lemma_g1_bracket, {"p": 0.3, **g}, f"p:real {g_kinds}", finite),
        _fn(c.lemma_g1_bracket_as_printed, {"p": 0.3, **g}, f"p:real {g_kinds}", finite),
        _fn(c.bernstein_bracket, {"sigma2": 0.25, "t": 0.1}, "sigma2:real t:real", finite),
        _fn(
            c.lemma_g1_sample_size,
            {"p": 0.3, **g, "beta": 0.05},
            f"p:real {g_kinds} beta:real",
            finite,
        ),
        _fn(c.lemma_g2_sample_size, {**g, "beta": 0.05}, f"{g_kinds} beta:real", finite),
        _fn(
            c.theorem_g3_sample_size,
            {**g, "beta": 0.05, "B": 16},
            f"{g_kinds} beta:real B:int",
            finite,
        ),
        _fn(
            c.rr_report_probability, {"p": 0.3, "epsilon": 1.0}, "p:real epsilon:real", probability
        ),
        _fn(
            c.lemma_g1_exact_tail,
            {"n": 20, "p": 0.3, **g},
            f"n:int p:real {g_kinds}",
            probability,
        ),
        _fn(
            c.lemma_g2_exact_tail,
            {"n": 20, "ones": 5, **g},
            f"n:int ones:int {g_kinds}",
            finite,
            aliases={"n": ("ones",)},
        ),
    ]


def _lower_bound_entries() -> list[Entry]:
    lb = lower_bound
    half = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    return [
        _fn(
            lb.lower_bound_family,
            {"B": 8, "q": 0.5, "alpha": 0.1, "beta": 3, "base": 0},
            "B:int q:real alpha:real beta:int base:int",
            aliases={"alpha": ("q",), "B": ("beta",)},
        ),
        _fn(lb.total_variation, {"p": half, "q": {0: Fraction(1)}}, "p:any q:any", probability),
        _fn(
            lb.approximate_quantile_set,
            {
                "pmf": {0: Fraction(1, 2), 3: Fraction(1, 2)},
                "domain": range(0, 4),
                "q": 0.5,
                "alpha": 0.1,
            },
            "pmf:any domain:any q:real alpha:real",
        ),
        _fn(
            lb.fano_lower_bound,
            {"B": 16, "entropy": "printed"},
            "B:int entropy:choice",
            finite,
            extra={"entropy": ("uniform",)},
        ),
        _fn(lb.fano_step_holds, {"B": 16, "entropy": "uniform"}, "B:int entropy:choice"),
    ]


def _padding_entries() -> list[Entry]:
    p = padding
    n_tau = {"n": 7, "tau": 0.3}
    return [
        _fn(p.check_tau, {"tau": 0.3}, "tau:real"),
        _fn(p.check_alpha, {"alpha": 0.3}, "alpha:real"),
        _fn(p.padding_counts, n_tau, "n:int tau:real"),
        _fn(p.effective_tau, n_tau, "n:int tau:real", probability),
        _fn(p.padded_quantile_guarantee, {**n_tau, "alpha": 0.1}, "n:int tau:real alpha:real"),
        _fn(
            p.pad_users,
            {"users": [1, 2, 3], "B": 4, "tau": 0.3},
            "users:data B:int tau:real",
            ints_in(1, 2**62),
            aliases={"B": ("users",)},
        ),
        _fn(p.exact_cdf, {"users": [1, 2, 3], "y": 2}, "users:data y:real", probability),
        _fn(
            p.is_exact_approximate_quantile,
            {"users": [1, 2, 3], "m": 2, "tau": 0.5, "alpha": 0.1},
            "users:data m:int tau:real alpha:real",
        ),
    ]


# -- experiments: argument checks only (valid calls are cheap) -------------------------------

_OUT = Path(tempfile.mkdtemp(prefix="dpquant-aamand25-fuzz-"))
atexit.register(shutil.rmtree, _OUT, ignore_errors=True)


def _stub(users_: Any, B: int, *args: Any, **kwargs: Any) -> int:
    return 1


def _run_figure_in_tmp(**kwargs: Any) -> Any:
    """``run_figure`` with the working directory in a temporary folder: a hostile ``out`` such
    as ``"1"`` is a valid relative path, and its files must not land in the checkout."""
    here = os.getcwd()
    os.chdir(_OUT)
    try:
        return experiments.run_figure(**kwargs)
    finally:
        os.chdir(here)


_STUBS = {name: _stub for name in experiments.SERIES}


def _experiment_entries() -> list[Entry]:
    e, d = experiments, data_sets
    users8 = np.array([1, 2, 2, 5, 8])
    lomax = {"shape": 1.5, "scale": 2000.0}
    lomax_kinds = "shape:real scale:real"
    return [
        _fn(
            e.resolve_series,
            {"name": "HM", "overrides": None},
            "name:choice overrides:any",
            aliases={"name": ("mechanism",)},
        ),
        _fn(
            e.success_indicators,
            {"users": users8, "coins": [2, 5], "alpha_tests": [0.1], "tau": 0.5},
            "users:data coins:data alpha_tests:data tau:real",
        ),
        _fn(
            e.absolute_quantile_errors,
            {"users": users8, "coins": [2, 5], "reference": 2},
            "users:data coins:data reference:int",
            finite,
        ),
        _fn(
            e.true_median,
            {"users": users8, "dataset": "pareto"},
            "users:data dataset:choice",
            extra={"dataset": ("uniform",)},
        ),
        _fn(e.binomial_stderr, {"p": 0.3, "runs": 10}, "p:real runs:int", finite),
        _entry(
            "build_figure",
            lambda name, quick: len(e.build_figure(name, quick).cells),
            {"name": "fig2", "quick": True},
            "name:choice quick:flag",
            aliases={"name": ("figure",)},
            extra={"name": ("fig1a", "fig5")},
        ),
        _entry(
            "run_seed",
            lambda seed, run: e.run_seed(seed, _CELL, run).entropy,
            {"seed": 0, "run": 3},
            "seed:int run:int",
        ),
        _entry(
            "run_figure",
            _run_figure_in_tmp,
            {
                "name": "fig1b",
                "runs": 1,
                "seed": 0,
                "workers": 1,
                "out": _OUT,
                "quick": True,
                "estimators": _STUBS,
                "progress": None,
                "plot": False,
            },
            # workers is not fuzzed (a pool of processes per accepted value): see
            # tests/reference/distributed_quantiles/test_aamand25_bad_input.py
            "name:choice runs:int seed:int out:any quick:flag estimators:any progress:any "
            "plot:flag",
            aliases={"name": ("figure",), "estimators": ("mechanism",)},
        ),
        _fn(d.check_seed, {"seed": 42}, "seed:int"),
        _fn(d.check_n, {"n": 42}, "n:int"),
        _fn(
            d.pareto_values,
            {"n": 10, "B": 64, "seed": 1, **lomax},
            f"n:int B:int seed:int {lomax_kinds}",
            ints_in(0, 2**62),
        ),
        _fn(d.skewed_uniform_sample, {"n": 10, "B": 64, "seed": 1}, "n:int B:int seed:int"),
        _fn(d.to_coins, {"values": [0, 3]}, "values:data", ints_in(1, 2**62)),
        _fn(
            d.dataset_users,
            {"kind": "uniform", "n": 10, "B": 64, "seed": 1},
            "kind:choice n:int B:int seed:int",
            ints_in(1, 2**62),
            extra={"kind": ("pareto",)},
        ),
        _fn(d.lomax_cdf, {"x": 10.0, **lomax}, f"x:real {lomax_kinds}", probability),
        _fn(d.lomax_quantile, {"u": 0.5, **lomax}, f"u:real {lomax_kinds}", finite),
        _fn(d.lomax_median, lomax, lomax_kinds, finite),
        _fn(
            d.pareto_data_cdf,
            {"v": 100, "B": 4096, **lomax},
            f"v:real B:int {lomax_kinds}",
            probability,
        ),
        _fn(d.pareto_clip_probability, {"B": 4096, **lomax}, f"B:int {lomax_kinds}", probability),
        _fn(
            d.uniform_data_cdf,
            {"v": 5, "left": 2, "right": 9},
            "v:real left:int right:int",
            probability,
            aliases={"left": ("right",), "right": ("left",)},
        ),
        _fn(
            d.authors_true_median,
            {"users": users8, "inclusive": True},
            "users:data inclusive:flag",
        ),
    ]


_CELL = experiments.Cell("fig2", "panel", "pareto", 10, 64, "HM", 1.0)

ENTRIES: list[Entry] = (
    _protocol_entries()
    + _user_entries()
    + _search_entries()
    + _learner_entries()
    + _tree_entries()
    + _channel_entries()
    + _potential_entries()
    + _concentration_entries()
    + _lower_bound_entries()
    + _padding_entries()
    + _experiment_entries()
)
