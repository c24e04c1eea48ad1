"""Contract specimens and fuzz entries of the aamand25 area (see :mod:`harness`):
``reference.distributed_quantiles`` and the argument checks of ``reference.experiments.aamand25``
and ``aamand25_data``.

Every valid call is tiny (a handful of users, B <= 16, 60-digit mpmath), so the sweep and the
hypothesis runs of the whole area take seconds. Checks verify what an accepted call returns: a
protocol's coin is an int in [1, B], an estimate or a bound is finite, a law has mass 1.
"""

from __future__ import annotations

import atexit
import math
import os
import shutil
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
from harness import Entry, Specimen, check_law, check_sane

from reference.distributed_quantiles import (
    amplification,
    bayes_learn,
    bayess,
    channel,
    concentration,
    dp_bayess,
    hierarchical,
    mechanisms,
    naive_nbs,
    padding,
    potential,
    protocol_law,
    shuffle_nbs,
    threshold_query,
    unary_encoding,
    users,
    weight_tree,
)
from reference.distributed_quantiles.bayes_learn import Intervals
from reference.distributed_quantiles.hierarchical import HierarchicalRandomizer
from reference.distributed_quantiles.mechanisms import ProtocolMechanism
from reference.distributed_quantiles.threshold_query import ThresholdQuery
from reference.distributed_quantiles.unary_encoding import UnaryEncoding
from reference.experiments import aamand25 as experiments
from reference.experiments import aamand25_data as data_sets

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


def _entry(
    name: str,
    call: Any,
    kwargs: dict[str, Any],
    kinds: dict[str, str],
    check: Any = None,
    aliases: dict[str, tuple[str, ...]] | None = None,
    extra: dict[str, tuple[Any, ...]] | None = None,
) -> Entry:
    return Entry(name, call, kwargs, kinds, check or check_sane, aliases or {}, extra or {})


# -- specimens: the mechanism classes ----------------------------------------------------------

SPECIMENS: list[Specimen] = [
    Specimen(
        "ThresholdQuery",
        ThresholdQuery,
        {"B": 8, "coin": 4, "epsilon": 1.0, "answers": 1},
        {"B": "int", "coin": "int", "epsilon": "real", "answers": "int"},
        3,
    ),
    Specimen(
        "ThresholdQuery[answers=2]",
        ThresholdQuery,
        {"B": 8, "coin": 4, "epsilon": 1.0, "answers": 2},
        {"answers": "int"},
        [5.0],
    ),
    Specimen(
        "UnaryEncoding",
        UnaryEncoding,
        {"d": 4, "epsilon": 1.0, "variant": "oue"},
        {"d": "int", "epsilon": "real", "variant": "choice"},
        2,
        extra={"variant": ("sue", "OUE")},
    ),
    Specimen(
        "HierarchicalRandomizer",
        HierarchicalRandomizer,
        {"B": 4, "epsilon": 1.0, "branching": 2, "oracle": "oue"},
        {"B": "int", "epsilon": "real", "branching": "int", "oracle": "choice"},
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
        {
            "name": "any",
            "protocol": "any",
            "B": "int",
            "epsilon": "real",
            "n": "int",
            "options": "any",
        },
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


def _protocol_entries() -> list[Entry]:
    r = RNG
    return [
        _entry(
            "dp_naive_nbs",
            naive_nbs.dp_naive_nbs,
            {
                "users": [1, 2, 1, 2],
                "B": 4,
                "epsilon": 1.0,
                "rng": r,
                "tau": 0.5,
                "coins": None,
                "faithful": False,
            },
            {
                "users": "data",
                "B": "int",
                "epsilon": "real",
                "rng": "rng",
                "tau": "real",
                "coins": "data",
                "faithful": "flag",
            },
            coin_in(4),
            aliases={"B": N_TOO_SMALL, "users": N_TOO_SMALL, "coins": N_TOO_SMALL},
        ),
        _entry(
            "shuffle_nbs",
            shuffle_nbs.shuffle_nbs,
            {
                "users": [1, 2] * 1000,
                "B": 2,
                "epsilon": 1.0,
                "delta": 0.1,
                "rng": r,
                "tau": 0.5,
                "local_epsilon": "inverted",
                "coins": None,
                "faithful": False,
            },
            {
                "users": "data",
                "B": "int",
                "epsilon": "real",
                "delta": "real",
                "rng": "rng",
                "tau": "real",
                "local_epsilon": "choice",
                "coins": "data",
                "faithful": "flag",
            },
            coin_in(2),
            aliases={
                "B": N_TOO_SMALL + ("local epsilon", "FMT"),
                "users": N_TOO_SMALL + ("local epsilon", "FMT", "n_batch"),
                "epsilon": ("eps_local",),
                "delta": ("n_batch",),
                "local_epsilon": ("rule", "FMT", "local epsilon"),
            },
            extra={"local_epsilon": ("lemma_g5", "paper", "authors")},
        ),
        _entry(
            "dp_bayess",
            dp_bayess.dp_bayess,
            {
                "users": [1, 2, 3, 4, 5, 6],
                "B": 6,
                "epsilon": 1.0,
                "rng": r,
                "c": 0.1,
                "rounding": "paper",
                "selection": "paper",
                "faithful_search": False,
            },
            {
                "users": "data",
                "B": "int",
                "epsilon": "real",
                "rng": "rng",
                "c": "real",
                "rounding": "choice",
                "selection": "choice",
                "faithful_search": "flag",
            },
            coin_in(6),
            aliases={"B": N_TOO_SMALL + ("users",), "users": N_TOO_SMALL},
            extra={"rounding": ("left",), "selection": ("numpy",)},
        ),
        _entry(
            "bayess_theorem_1_1",
            bayess.bayess_theorem_1_1,
            {
                "users": list(range(1, 9)) * 13,
                "B": 8,
                "epsilon": 1.0,
                "rng": r,
                "alpha": 0.2,
                "steps": None,
                "rounding": "paper",
            },
            {
                "users": "data",
                "B": "int",
                "epsilon": "real",
                "rng": "rng",
                "alpha": "real",
                "steps": "int",
                "rounding": "choice",
            },
            coin_in(8),
            aliases={"B": N_TOO_SMALL + ("users",), "users": N_TOO_SMALL, "steps": N_TOO_SMALL},
        ),
        _entry(
            "bayess_statistical",
            bayess.bayess_statistical,
            {
                "users": list(range(1, 9)) * 7,
                "B": 8,
                "epsilon": 1.0,
                "rng": r,
                "alpha": 0.2,
                "steps": 3,
                "rounding": "left",
            },
            {
                "users": "data",
                "B": "int",
                "epsilon": "real",
                "rng": "rng",
                "alpha": "real",
                "steps": "int",
                "rounding": "choice",
            },
            coin_in(8),
            aliases={"B": N_TOO_SMALL + ("users",), "users": N_TOO_SMALL, "steps": N_TOO_SMALL},
        ),
        _entry(
            "hierarchical_quantile",
            hierarchical.hierarchical_quantile,
            {"users": U8, "B": 8, "epsilon": 1.0, "rng": r, "tau": 0.5, **TINY_TREE},
            {
                "users": "data",
                "B": "int",
                "epsilon": "real",
                "rng": "rng",
                "tau": "real",
                "branching": "int",
                "oracle": "choice",
            },
            coin_in(8),
            aliases={"B": ("users",), "epsilon": ("p - q",)},
        ),
        _entry(
            "hierarchical_median",
            hierarchical.hierarchical_median,
            {"users": U8, "B": 8, "epsilon": 1.0, "rng": r, **TINY_TREE},
            {"users": "data", "epsilon": "real", "branching": "int", "oracle": "choice"},
            coin_in(8),
        ),
        _entry(
            "hierarchical_cdf",
            hierarchical.hierarchical_cdf,
            {"users": U8, "B": 8, "epsilon": 1.0, "rng": r, **TINY_TREE},
            {"users": "data", "B": "int", "epsilon": "real", "rng": "rng", "branching": "int"},
            finite,
            aliases={"B": ("users",)},
        ),
        _entry(
            "level_estimates",
            hierarchical.level_estimates,
            {
                "users": U8,
                "B": 8,
                "epsilon": 1.0,
                "rng": r,
                "levels": [1, 2, 3] * 2 + [1, 1],
                **TINY_TREE,
            },
            {"users": "data", "levels": "data", "epsilon": "real", "oracle": "choice"},
            aliases={"users": ("levels",)},
        ),
        _entry(
            "quantile_via_median",
            padding.quantile_via_median,
            {
                "median_protocol": naive_nbs.dp_naive_nbs,
                "users": [1, 2, 3, 4],
                "B": 4,
                "tau": 0.25,
                "epsilon": 1.0,
                "rng": r,
            },
            {
                "median_protocol": "any",
                "users": "data",
                "B": "int",
                "tau": "real",
                "epsilon": "real",
                "rng": "rng",
            },
            coin_in(4),
            aliases={"B": N_TOO_SMALL + ("users",), "users": N_TOO_SMALL},
        ),
        _entry(
            "two_answers_nbs",
            mechanisms.two_answers_nbs,
            {"users": [1, 2, 3], "B": 4, "epsilon": 1.0, "rng": r},
            {"users": "data", "B": "int", "epsilon": "real", "rng": "rng"},
            coin_in(4),
            aliases={"B": N_TOO_SMALL + ("users",), "users": N_TOO_SMALL},
        ),
        _entry(
            "protocol_law",
            protocol_law.protocol_law,
            {
                "run": lambda g: naive_nbs.dp_naive_nbs([1, 2], 2, 1.0, g),
                "epsilon": 1.0,
                "max_paths": 1000,
            },
            {"run": "any", "epsilon": "real", "max_paths": "int"},
            check_law,
            aliases={"max_paths": ("paths",)},
        ),
    ]


def _user_entries() -> list[Entry]:
    return [
        _entry("check_domain_size", users.check_domain_size, {"B": 8}, {"B": "int"}),
        _entry(
            "check_integers",
            lambda values, minimum, maximum: users.check_integers(
                values, "values", minimum=minimum, maximum=maximum
            ),
            {"values": [0, 3], "minimum": 0, "maximum": 5},
            {"values": "data", "minimum": "int", "maximum": "int"},
            ints_in(-(2**63), 2**63),
            aliases={"minimum": ("values",), "maximum": ("values",)},
        ),
        _entry(
            "nbs_mechanism.local_randomizer",
            lambda B, epsilon, n, coin: mechanisms.nbs_mechanism(B, epsilon, n).local_randomizer(
                coin
            ),
            {"B": 8, "epsilon": 1.0, "n": 3, "coin": 4},
            {"B": "int", "epsilon": "real", "n": "int", "coin": "int"},
            aliases={"B": ("coin",)},
            extra={"coin": (None,)},
        ),
        _entry(
            "check_users",
            users.check_users,
            {"users": [1, 2, 8], "B": 8},
            {"users": "data", "B": "int"},
            ints_in(1, 2**62),
            aliases={"B": ("users",)},
        ),
        _entry(
            "check_user_value",
            users.check_user_value,
            {"data": 3, "B": 8},
            {"data": "any", "B": "int"},
            aliases={"B": ("data",)},
        ),
        _entry(
            "empirical_cdf",
            users.empirical_cdf,
            {"users": [1, 2, 2, 5], "points": [1, 2, 6]},
            {"users": "data", "points": "any"},
            finite,
        ),
        _entry(
            "is_approximate_quantile",
            users.is_approximate_quantile,
            {"users": [1, 2, 2, 5], "m": 2, "tau": 0.5, "alpha": 0.1},
            {"users": "data", "m": "int", "tau": "real", "alpha": "real"},
        ),
        _entry(
            "quantile_error",
            users.quantile_error,
            {"users": [1, 2, 2, 5], "m": 2, "tau": 0.5},
            {"users": "data", "m": "int", "tau": "real"},
            finite,
        ),
        _entry(
            "UserStream.take",
            lambda users_, rng, k: users.UserStream(users_, rng).take(k),
            {"users_": np.array([1, 2, 3]), "rng": RNG, "k": 2},
            {"users_": "data", "rng": "rng", "k": "int"},
            aliases={"users_": ("users",), "k": N_TOO_SMALL},
        ),
        _entry(
            "threshold_rr",
            threshold_query.threshold_rr,
            {"values": [1, 2, 3], "coin": 2, "epsilon": 1.0, "rng": RNG},
            {"values": "data", "coin": "int", "epsilon": "real", "rng": "rng"},
            ints_in(0, 1),
        ),
        _entry(
            "threshold_bits",
            threshold_query.threshold_bits,
            {"values": [1, 2, 3], "coin": 2},
            {"values": "data", "coin": "int"},
            ints_in(0, 1),
        ),
    ]


def _search_entries() -> list[Entry]:
    return [
        _entry("search_rounds", naive_nbs.search_rounds, {"K": 9}, {"K": "int"}),
        _entry(
            "batch_schedule",
            naive_nbs.batch_schedule,
            {"n": 10, "K": 9, "stage": "DpNaiveNBS"},
            {"n": "int", "K": "int", "stage": "any"},
            aliases={"n": N_TOO_SMALL, "K": N_TOO_SMALL},
        ),
        _entry(
            "debiased_estimate",
            naive_nbs.debiased_estimate,
            {"ones": 3, "size": 10, "epsilon": 1.0},
            {"ones": "int", "size": "int", "epsilon": "real"},
            finite,
            aliases={"size": ("ones",)},
        ),
        _entry("rr_tanh", naive_nbs.rr_tanh, {"epsilon": 1.0}, {"epsilon": "real"}, finite),
        _entry("rounds", amplification.rounds, {"K": 9}, {"K": "int"}),
        _entry(
            "fmt_epsilon",
            amplification.fmt_epsilon,
            {"eps_local": 1.0, "n": 1000, "delta": 1e-6},
            {"eps_local": "real", "n": "int", "delta": "real"},
            finite,
        ),
        _entry(
            "fmt_epsilon_mp",
            amplification.fmt_epsilon_mp,
            {"eps_local": 1.0, "n": 1000, "delta": 1e-6},
            {"eps_local": "real", "n": "int", "delta": "real"},
            finite,
        ),
        _entry(
            "fmt_precondition_bound",
            amplification.fmt_precondition_bound,
            {"n": 1000, "delta": 1e-6},
            {"n": "int", "delta": "real"},
            finite,
        ),
        _entry(
            "fmt_precondition",
            amplification.fmt_precondition,
            {"eps_local": 1.0, "n": 1000, "delta": 1e-6},
            {"eps_local": "real", "n": "int", "delta": "real"},
        ),
        _entry(
            "local_epsilon_paper",
            amplification.local_epsilon_paper,
            {"epsilon": 1.0, "n": 10**6, "B": 16, "delta": 1e-6, "require_precondition": True},
            {
                "epsilon": "real",
                "n": "int",
                "B": "int",
                "delta": "real",
                "require_precondition": "flag",
            },
            finite,
            aliases={"n": ("local epsilon",), "B": ("local epsilon",), "delta": ("local epsilon",)},
        ),
        _entry(
            "local_epsilon_authors",
            amplification.local_epsilon_authors,
            {"epsilon": 1.0, "n": 10**6, "K": 16, "delta": 1e-6, "require_precondition": False},
            {
                "epsilon": "real",
                "n": "int",
                "K": "int",
                "delta": "real",
                "require_precondition": "flag",
            },
            finite,
            aliases={"n": ("local epsilon",), "K": ("local epsilon",), "delta": ("local epsilon",)},
        ),
        _entry(
            "local_epsilon_lemma_g5",
            amplification.local_epsilon_lemma_g5,
            {"epsilon": 1.0, "n_batch": 10**5, "delta": 1e-6},
            {"epsilon": "real", "n_batch": "int", "delta": "real"},
            finite,
            aliases={"delta": ("local epsilon",)},
        ),
        _entry(
            "local_epsilon_inverted",
            amplification.local_epsilon_inverted,
            {"epsilon": 1.0, "n_batch": 10**4, "delta": 1e-6},
            {"epsilon": "real", "n_batch": "int", "delta": "real"},
            finite,
        ),
        _entry(
            "shuffle_local_epsilon",
            amplification.shuffle_local_epsilon,
            {"epsilon": 1.0, "delta": 1e-6, "n": 10**5, "B": 16, "rule": "lemma_g5"},
            {"epsilon": "real", "delta": "real", "n": "int", "B": "int", "rule": "choice"},
            finite,
            aliases={
                "n": ("local epsilon", "FMT"),
                "B": ("local epsilon", "FMT"),
                "delta": ("local epsilon", "FMT"),
                "rule": ("FMT", "local epsilon"),
            },
            extra={"rule": ("paper", "authors", "inverted")},
        ),
        _entry(
            "notebook_min_users",
            amplification.notebook_min_users,
            {"epsilon": 1.0, "B": 16, "delta": 1e-6},
            {"epsilon": "real", "B": "int", "delta": "real"},
            finite,
        ),
    ]


def _learner_entries() -> list[Entry]:
    return [
        _entry(
            "bayes_learn",
            bayes_learn.bayes_learn,
            {
                "users": [1, 5, 9, 2],
                "intervals": Intervals.full(16),
                "alpha": 0.05,
                "rng": RNG,
                "tau": 0.5,
                "epsilon": 1.0,
                "rounding": "paper",
            },
            {
                "users": "data",
                "intervals": "any",
                "alpha": "real",
                "rng": "rng",
                "tau": "real",
                "epsilon": "real",
                "rounding": "choice",
            },
            ints_in(1, 15),
            aliases={"tau": ("alpha",), "epsilon": ("alpha",)},
            extra={"epsilon": (None,)},
        ),
        _entry(
            "Intervals.from_coins",
            Intervals.from_coins,
            {"lefts": [1, 3], "rights": [2, 5]},
            {"lefts": "data", "rights": "data"},
            aliases={"lefts": ("rights", "intervals"), "rights": ("lefts", "intervals")},
        ),
        _entry(
            "Intervals.left",
            lambda count, j: Intervals(count).left(j),
            {"count": 5, "j": 2},
            {"count": "int", "j": "int"},
            aliases={"count": ("j",)},
        ),
        _entry(
            "learner_target",
            bayes_learn.learner_target,
            {"tau": 0.3, "epsilon": 1.0},
            {"tau": "real", "epsilon": "real"},
            finite,
            extra={"epsilon": (None,)},
        ),
        _entry(
            "select_quantiles",
            dp_bayess.select_quantiles,
            {"L": np.array([1, 3, 3, 7, 2]), "gamma": 0.25, "selection": "paper"},
            {"L": "data", "gamma": "real", "selection": "choice"},
            ints_in(1, 2**62),
            extra={"selection": ("numpy",)},
        ),
        _entry(
            "sample_split",
            dp_bayess.sample_split,
            {"n": 100, "B": 64},
            {"n": "int", "B": "int"},
        ),
        _entry(
            "update_parameter",
            dp_bayess.update_parameter,
            {"n": 100, "B": 64, "c": 0.6},
            {"n": "int", "B": "int", "c": "real"},
            finite,
        ),
        _entry(
            "reduction_to_gamma",
            dp_bayess.reduction_to_gamma,
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
            {
                "users": "data",
                "intervals": "any",
                "alpha": "real",
                "epsilon": "real",
                "gamma": "real",
                "rng": "rng",
                "rounding": "choice",
                "selection": "choice",
            },
            aliases={"epsilon": ("alpha",)},
        ),
        _entry(
            "endpoint_coins",
            dp_bayess.endpoint_coins,
            {"intervals": Intervals.from_coins([1, 3], [2, 5])},
            {"intervals": "any"},
            ints_in(1, 2**62),
        ),
        _entry(
            "select_by_test_coins",
            lambda users_, count, epsilon, rng: bayess.select_by_test_coins(
                users.UserStream(np.asarray(users_), RNG), Intervals.full(4), count, epsilon, rng
            ),
            {"users_": [1, 2, 3, 4] * 3, "count": 12, "epsilon": 1.0, "rng": RNG},
            {"count": "int", "epsilon": "real", "rng": "rng"},
            coin_in(4),
            aliases={"count": N_TOO_SMALL},
        ),
        _entry(
            "LogWeightTree",
            lambda N, q: weight_tree.LogWeightTree(N).locate(q),
            {"N": 10, "q": 0.5},
            {"N": "int", "q": "real"},
        ),
        _entry(
            "LogWeightTree.log_weight",
            lambda N, i: weight_tree.LogWeightTree(N).log_weight(i),
            {"N": 10, "i": 3},
            {"N": "int", "i": "int"},
            finite,
            aliases={"N": ("i",)},
        ),
        _entry(
            "ChannelDerivation.proof",
            lambda name: channel.derive_channel().proof(name),
            {"name": "capacity"},
            {"name": "choice"},
        ),
        _entry(
            "LogWeightTree.update",
            _tree_update,
            {"log_left": -0.1, "log_right": 0.1, "log_cell": 0.0},
            {"log_left": "real", "log_right": "real", "log_cell": "real"},
            finite,
        ),
        _entry(
            "ArrayWeights",
            lambda N, q, exact: weight_tree.ArrayWeights(N, exact=exact).locate(q),
            {"N": 10, "q": 0.5, "exact": True},
            {"N": "int", "q": "real", "exact": "flag"},
        ),
    ]


def _tree_update(log_left: Any, log_right: Any, log_cell: Any) -> float:
    tree = weight_tree.LogWeightTree(8)
    tree.locate(0.5)
    tree.update(log_left, log_right, log_cell)
    return tree.log_weight(1)


def _tree_entries() -> list[Entry]:
    return [
        _entry(
            "check_branching", hierarchical.check_branching, {"branching": 4}, {"branching": "int"}
        ),
        _entry(
            "tree_depth",
            hierarchical.tree_depth,
            {"B": 100, "branching": 4},
            {"B": "int", "branching": "int"},
        ),
        _entry(
            "node_index",
            hierarchical.node_index,
            {"values": [1, 7, 16], "level": 1, "k": 2, "branching": 4},
            {"values": "data", "level": "int", "k": "int", "branching": "int"},
            ints_in(0, 2**62),
            aliases={"k": ("level",)},
        ),
        _entry(
            "true_level_counts",
            hierarchical.true_level_counts,
            {"users": U8, "B": 8, "branching": 2},
            {"users": "data", "B": "int", "branching": "int"},
            aliases={"B": ("users",)},
        ),
        _entry(
            "prefix_nodes",
            hierarchical.prefix_nodes,
            {"x": 5, "B": 8, "branching": 2},
            {"x": "int", "B": "int", "branching": "int"},
            aliases={"B": ("x",)},
        ),
        _entry(
            "prefix_cdf",
            hierarchical.prefix_cdf,
            {"level_values": [[0.5, 0.5], [0.25] * 4], "B": 4, "branching": 2},
            {"level_values": "any", "B": "int", "branching": "int"},
            finite,
            aliases={"B": ("level_values",), "branching": ("level_values",)},
        ),
        _entry(
            "closest_coin",
            hierarchical.closest_coin,
            {"cdf": [0.1, 0.4, 0.7, 1.0], "tau": 0.5},
            {"cdf": "data", "tau": "real"},
        ),
        _entry(
            "HierarchicalRandomizer.decode",
            lambda code: HierarchicalRandomizer(4, 1.0, branching=2).decode(code),
            {"code": 5},
            {"code": "int"},
        ),
        _entry(
            "check_variant", unary_encoding.check_variant, {"variant": "sue"}, {"variant": "choice"}
        ),
        _entry(
            "ue_probabilities",
            unary_encoding.ue_probabilities,
            {"epsilon": 1.0, "variant": "oue"},
            {"epsilon": "real", "variant": "choice"},
            finite,
        ),
        _entry(
            "ue_probabilities_mp",
            unary_encoding.ue_probabilities_mp,
            {"epsilon": 1.0, "variant": "sue"},
            {"epsilon": "real", "variant": "choice"},
            finite,
        ),
        _entry(
            "ue_reports",
            unary_encoding.ue_reports,
            {"items": [1, 3], "d": 3, "epsilon": 1.0, "rng": RNG, "variant": "oue"},
            {"items": "data", "d": "int", "epsilon": "real", "rng": "rng", "variant": "choice"},
            ints_in(0, 1),
            aliases={"d": ("items",)},
        ),
        _entry(
            "ue_counts",
            unary_encoding.ue_counts,
            {"item_counts": [2, 0, 1], "epsilon": 1.0, "rng": RNG, "variant": "oue"},
            {"item_counts": "data", "epsilon": "real", "rng": "rng", "variant": "choice"},
            ints_in(0, 2**62),
        ),
        _entry(
            "iid_binomial",
            unary_encoding.iid_binomial,
            {"trials": 5, "prob": 0.3, "size": 4, "rng": RNG},
            {"trials": "int", "prob": "real", "size": "size", "rng": "rng"},
            ints_in(0, 10**7),
        ),
        _entry(
            "ue_estimate",
            unary_encoding.ue_estimate,
            {"report_counts": [3, 1], "n": 4, "epsilon": 1.0, "variant": "oue"},
            {"report_counts": "data", "n": "int", "epsilon": "real", "variant": "choice"},
            finite,
            aliases={"n": ("report_counts",)},
        ),
        _entry(
            "ue_count_law",
            unary_encoding.ue_count_law,
            {"item_count": 1, "n": 3, "epsilon": 1.0, "variant": "oue"},
            {"item_count": "int", "n": "int", "epsilon": "real", "variant": "choice"},
            check_law,
            aliases={"n": ("item_count",)},
        ),
        _entry(
            "ue_bit_law",
            unary_encoding.ue_bit_law,
            {"is_item": True, "epsilon": 1.0, "variant": "sue"},
            {"is_item": "flag", "epsilon": "real", "variant": "choice"},
            check_law,
        ),
    ]


def _channel_entries() -> list[Entry]:
    ta = {"tau": 0.5, "alpha": 0.1}
    kinds = {"tau": "real", "alpha": "real"}
    alias = {"tau": ("alpha",)}
    out = [
        _entry(
            "check_channel_parameters", channel.check_channel_parameters, ta, kinds, aliases=alias
        ),
        _entry(
            "optimal_query_point", channel.optimal_query_point, ta, kinds, finite, aliases=alias
        ),
        _entry("capacity", channel.capacity, ta, kinds, finite, aliases=alias),
        _entry(
            "bayes_weights",
            channel.bayes_weights,
            {**ta, "q": 0.4},
            {**kinds, "q": "real"},
            aliases=alias,
            extra={"q": (None,)},
        ),
        _entry(
            "mutual_information",
            channel.mutual_information,
            {"x": 0.3, **ta},
            {"x": "real", **kinds},
            finite,
            aliases=alias,
        ),
        _entry(
            "rr_domain_target",
            channel.rr_domain_target,
            {"tau": 0.3, "epsilon": 1.0},
            {"tau": "real", "epsilon": "real"},
            finite,
        ),
        _entry(
            "rr_domain_alpha",
            channel.rr_domain_alpha,
            {"alpha": 0.3, "epsilon": 1.0},
            {"alpha": "real", "epsilon": "real"},
            finite,
        ),
        _entry(
            "BayesWeights.d",
            lambda flip, side: channel.bayes_weights(0.5, 0.1).d(flip, side),
            {"flip": 1, "side": 0},
            {"flip": "int", "side": "int"},
            finite,
        ),
    ]
    for fn in (channel.optimal_query_point_mp, channel.capacity_mp, channel.numeric_argmax_mp):
        out.append(
            _entry(
                fn.__name__, fn, {**ta, "dps": 50}, {**kinds, "dps": "int"}, finite, aliases=alias
            )
        )
    out.append(
        _entry(
            "mutual_information_mp",
            channel.mutual_information_mp,
            {"x": 0.3, **ta, "dps": 50},
            {"x": "real", **kinds, "dps": "int"},
            finite,
            aliases=alias,
        )
    )
    out.append(
        _entry(
            "bayes_weights_mp",
            channel.bayes_weights_mp,
            {**ta, "q": 0.4, "dps": 50},
            {**kinds, "q": "real", "dps": "int"},
            aliases=alias,
            extra={"q": (None,)},
        )
    )
    return out


def _potential_entries() -> list[Entry]:
    step = {
        "w": W4,
        "p1": P1,
        "tau": 0.5,
        "alpha": 0.05,
        "c": 1.0,
        "gamma": Fraction(1, 13),
        "good_count": 0,
        "size": 0,
        "rounding": "paper",
        "dps": 50,
    }
    step_kinds = {
        "w": "data",
        "p1": "data",
        "tau": "real",
        "alpha": "real",
        "c": "real",
        "gamma": "real",
        "good_count": "int",
        "size": "int",
        "rounding": "choice",
        "dps": "int",
    }
    step_alias = {
        "tau": ("alpha", "p1"),
        "alpha": ("pt",),
        "c": ("pt",),
        "w": ("p1",),
        "good_count": ("size",),
        "size": ("good_count",),
    }
    return [
        _entry("uniform_weights", potential.uniform_weights, {"B": 5}, {"B": "int"}, finite),
        _entry(
            "query_interval",
            potential.query_interval,
            {"w": W4, "q": 0.5},
            {"w": "data", "q": "real"},
        ),
        _entry(
            "round_interval_to_coin",
            potential.round_interval_to_coin,
            {"j": 2, "w": W4, "q": 0.5, "rounding": "paper"},
            {"j": "int", "w": "data", "q": "real", "rounding": "choice"},
            finite,
            aliases={"w": ("j",)},
        ),
        _entry(
            "bayes_update",
            potential.bayes_update,
            {"w": W4, "j": 2, "q": 0.5, "flip": 1, "d": channel.bayes_weights(0.5, 0.05)},
            {"w": "data", "j": "int", "q": "real", "flip": "int", "d": "any"},
            finite,
            aliases={"w": ("j",)},
        ),
        _entry(
            "target_interval",
            potential.target_interval,
            {"p1": P1, "tau": 0.5},
            {"p1": "data", "tau": "real"},
        ),
        _entry(
            "good_intervals",
            potential.good_intervals,
            {"p1": P1, "tau": 0.5, "alpha_good": 0.1},
            {"p1": "data", "tau": "real", "alpha_good": "real"},
            aliases={"tau": ("p1",)},
        ),
        _entry(
            "adversarial_probabilities",
            potential.adversarial_probabilities,
            {"p1": P1, "alpha": 0.05, "c": 1.0, "direction": 1},
            {"p1": "data", "alpha": "real", "c": "real", "direction": "int"},
            finite,
        ),
        _entry(
            "potential",
            potential.potential,
            {
                "w": W4,
                "good_count": 1,
                "size": 2,
                "p1": P1,
                "tau": 0.5,
                "capacity": 0.01,
                "gamma": Fraction(1, 13),
            },
            {
                "w": "data",
                "good_count": "int",
                "size": "int",
                "p1": "data",
                "tau": "real",
                "capacity": "real",
                "gamma": "real",
            },
            finite,
            aliases={
                "w": ("p1",),
                "tau": ("p1",),
                "good_count": ("size",),
                "size": ("good_count",),
            },
        ),
        _entry(
            "lemma_e3_bound",
            potential.lemma_e3_bound,
            {"tau": 0.5, "alpha": 0.1, "gamma": Fraction(1, 13), "dps": 50},
            {"tau": "real", "alpha": "real", "gamma": "real", "dps": "int"},
            finite,
            aliases={"tau": ("alpha",)},
        ),
        _entry(
            "worst_case_drift",
            lambda **kw: potential.worst_case_drift(**kw).drift,
            step,
            step_kinds,
            finite,
            aliases=step_alias,
        ),
    ]


def _concentration_entries() -> list[Entry]:
    c = concentration
    urn = {"total": 6, "zeros": 3}
    urn_kinds = {"total": "int", "zeros": "int"}
    urn_alias = {"total": ("zeros", "steps", "t")}
    g = {"alpha": 0.1, "epsilon": 1.0}
    g_kinds = {"alpha": "real", "epsilon": "real"}
    return [
        _entry(
            "remaining_zeros_law",
            c.remaining_zeros_law,
            {**urn, "t": 2},
            {**urn_kinds, "t": "int"},
            aliases=urn_alias,
        ),
        _entry(
            "deviation_probability",
            c.deviation_probability,
            {**urn, "t": 2, "alpha": 0.2},
            {**urn_kinds, "t": "int", "alpha": "real"},
            probability,
            aliases=urn_alias,
        ),
        _entry(
            "max_deviation_tail",
            c.max_deviation_tail,
            {**urn, "steps": 3, "threshold": 0.2},
            {**urn_kinds, "steps": "int", "threshold": "real"},
            probability,
            aliases=urn_alias,
        ),
        _entry(
            "max_deviation_tail_by_enumeration",
            c.max_deviation_tail_by_enumeration,
            {**urn, "steps": 3, "threshold": 0.2},
            {**urn_kinds, "steps": "int", "threshold": "real"},
            probability,
            aliases=urn_alias,
        ),
        _entry(
            "lemma_4_1_x",
            c.lemma_4_1_x,
            {"n": 3, "k": 2, "i": 1, "y": 2},
            {"n": "int", "k": "int", "i": "int", "y": "int"},
            aliases={"n": ("zeros", "i", "y"), "k": ("zeros", "y")},
        ),
        _entry(
            "lemma_4_1_next_values",
            c.lemma_4_1_next_values,
            {"n": 3, "k": 2, "i": 1, "y": 2},
            {"n": "int", "k": "int", "i": "int", "y": "int"},
            aliases={"n": ("zeros", "i", "y"), "k": ("zeros", "y")},
        ),
        _entry(
            "lemma_4_1_exact_tail",
            c.lemma_4_1_exact_tail,
            {"n": 3, "k": 2, "t": 0.3},
            {"n": "int", "k": "int", "t": "real"},
            probability,
            aliases={"n": ("zeros", "total"), "k": ("zeros",), "t": ("threshold",)},
        ),
        _entry(
            "lemma_4_1_bound",
            c.lemma_4_1_bound,
            {"n": 3, "t": 0.3},
            {"n": "int", "t": "real"},
            finite,
        ),
        _entry(
            "lemma_3_1_exact_tail",
            c.lemma_3_1_exact_tail,
            {"n": 6, "ones": 2, "alpha": 0.2},
            {"n": "int", "ones": "int", "alpha": "real"},
            probability,
            aliases={"alpha": ("threshold",)},
        ),
        _entry(
            "lemma_3_1_bound_printed",
            c.lemma_3_1_bound_printed,
            {"n": 6, "alpha": 0.2},
            {"n": "int", "alpha": "real"},
            finite,
            aliases={"alpha": ("t ",)},
        ),
        _entry(
            "lemma_3_1_bound_proof",
            c.lemma_3_1_bound_proof,
            {"n": 6, "alpha": 0.2},
            {"n": "int", "alpha": "real"},
            finite,
        ),
        _entry("azuma_bound", c.azuma_bound, {"n": 6, "t": 2}, {"n": "int", "t": "real"}, finite),
        _entry(
            "random_walk_max_tail",
            c.random_walk_max_tail,
            {"n": 6, "t": 2},
            {"n": "int", "t": "real"},
            probability,
        ),
        _entry(
            "random_walk_one_sided_max_tail",
            c.random_walk_one_sided_max_tail,
            {"n": 6, "a": 2},
            {"n": "int", "a": "int"},
            probability,
        ),
        _entry(
            "bernstein_as_stated",
            c.bernstein_as_stated,
            {"n": 10, "alpha": 0.1, "sigma2": 0.25},
            {"n": "int", "alpha": "real", "sigma2": "real"},
            finite,
        ),
        _entry(
            "bernstein_two_sided",
            c.bernstein_two_sided,
            {"n": 10, "alpha": 0.1, "sigma2": 0.25},
            {"n": "int", "alpha": "real", "sigma2": "real"},
            finite,
        ),
        _entry(
            "binomial_mean_deviation_tail",
            c.binomial_mean_deviation_tail,
            {"n": 5, "p": 0.3, "alpha": 0.1, "strict": True},
            {"n": "int", "p": "real", "alpha": "real", "strict": "flag"},
            probability,
        ),
        _entry(
            "rademacher_mean_deviation_tail",
            c.rademacher_mean_deviation_tail,
            {"n": 5, "alpha": 0.1, "strict": False},
            {"n": "int", "alpha": "real", "strict": "flag"},
            probability,
        ),
        _entry("lemma_g2_bracket", c.lemma_g2_bracket, g, g_kinds, finite),
        _entry(
            "lemma_g1_bracket",
            c.lemma_g1_bracket,
            {"p": 0.3, **g},
            {"p": "real", **g_kinds},
            finite,
        ),
        _entry(
            "lemma_g1_bracket_as_printed",
            c.lemma_g1_bracket_as_printed,
            {"p": 0.3, **g},
            {"p": "real", **g_kinds},
            finite,
        ),
        _entry(
            "bernstein_bracket",
            c.bernstein_bracket,
            {"sigma2": 0.25, "t": 0.1},
            {"sigma2": "real", "t": "real"},
            finite,
        ),
        _entry(
            "lemma_g1_sample_size",
            c.lemma_g1_sample_size,
            {"p": 0.3, **g, "beta": 0.05},
            {"p": "real", **g_kinds, "beta": "real"},
            finite,
        ),
        _entry(
            "lemma_g2_sample_size",
            c.lemma_g2_sample_size,
            {**g, "beta": 0.05},
            {**g_kinds, "beta": "real"},
            finite,
        ),
        _entry(
            "theorem_g3_sample_size",
            c.theorem_g3_sample_size,
            {**g, "beta": 0.05, "B": 16},
            {**g_kinds, "beta": "real", "B": "int"},
            finite,
        ),
        _entry(
            "rr_report_probability",
            c.rr_report_probability,
            {"p": 0.3, "epsilon": 1.0},
            {"p": "real", "epsilon": "real"},
            probability,
        ),
        _entry(
            "lemma_g1_exact_tail",
            c.lemma_g1_exact_tail,
            {"n": 20, "p": 0.3, **g},
            {"n": "int", "p": "real", **g_kinds},
            probability,
        ),
        _entry(
            "lemma_g2_exact_tail",
            c.lemma_g2_exact_tail,
            {"n": 20, "ones": 5, **g},
            {"n": "int", "ones": "int", **g_kinds},
            finite,
            aliases={"n": ("ones",)},
        ),
        _entry(
            "lower_bound_family",
            c.lower_bound_family,
            {"B": 8, "q": 0.5, "alpha": 0.1, "beta": 3, "base": 0},
            {"B": "int", "q": "real", "alpha": "real", "beta": "int", "base": "int"},
            aliases={"alpha": ("q",), "B": ("beta",)},
        ),
        _entry(
            "total_variation",
            c.total_variation,
            {"p": {0: Fraction(1, 2), 1: Fraction(1, 2)}, "q": {0: Fraction(1)}},
            {"p": "any", "q": "any"},
            probability,
        ),
        _entry(
            "approximate_quantile_set",
            c.approximate_quantile_set,
            {
                "pmf": {0: Fraction(1, 2), 3: Fraction(1, 2)},
                "domain": range(0, 4),
                "q": 0.5,
                "alpha": 0.1,
            },
            {"pmf": "any", "domain": "any", "q": "real", "alpha": "real"},
        ),
        _entry(
            "fano_lower_bound",
            c.fano_lower_bound,
            {"B": 16, "entropy": "printed"},
            {"B": "int", "entropy": "choice"},
            finite,
            extra={"entropy": ("uniform",)},
        ),
        _entry(
            "fano_step_holds",
            c.fano_step_holds,
            {"B": 16, "entropy": "uniform"},
            {"B": "int", "entropy": "choice"},
        ),
    ]


def _padding_entries() -> list[Entry]:
    return [
        _entry("check_tau", padding.check_tau, {"tau": 0.3}, {"tau": "real"}),
        _entry("check_alpha", padding.check_alpha, {"alpha": 0.3}, {"alpha": "real"}),
        _entry(
            "padding_counts",
            padding.padding_counts,
            {"n": 7, "tau": 0.3},
            {"n": "int", "tau": "real"},
        ),
        _entry(
            "effective_tau",
            padding.effective_tau,
            {"n": 7, "tau": 0.3},
            {"n": "int", "tau": "real"},
            probability,
        ),
        _entry(
            "padded_quantile_guarantee",
            padding.padded_quantile_guarantee,
            {"n": 7, "tau": 0.3, "alpha": 0.1},
            {"n": "int", "tau": "real", "alpha": "real"},
        ),
        _entry(
            "pad_users",
            padding.pad_users,
            {"users": [1, 2, 3], "B": 4, "tau": 0.3},
            {"users": "data", "B": "int", "tau": "real"},
            ints_in(1, 2**62),
            aliases={"B": ("users",)},
        ),
        _entry(
            "exact_cdf",
            padding.exact_cdf,
            {"users": [1, 2, 3], "y": 2},
            {"users": "data", "y": "real"},
            probability,
        ),
        _entry(
            "is_exact_approximate_quantile",
            padding.is_exact_approximate_quantile,
            {"users": [1, 2, 3], "m": 2, "tau": 0.5, "alpha": 0.1},
            {"users": "data", "m": "int", "tau": "real", "alpha": "real"},
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
    return [
        _entry(
            "resolve_series",
            e.resolve_series,
            {"name": "HM", "overrides": None},
            {"name": "choice", "overrides": "any"},
            aliases={"name": ("mechanism",)},
        ),
        _entry(
            "success_indicators",
            e.success_indicators,
            {"users": users8, "coins": [2, 5], "alpha_tests": [0.1], "tau": 0.5},
            {"users": "data", "coins": "data", "alpha_tests": "data", "tau": "real"},
        ),
        _entry(
            "absolute_quantile_errors",
            e.absolute_quantile_errors,
            {"users": users8, "coins": [2, 5], "reference": 2},
            {"users": "data", "coins": "data", "reference": "int"},
            finite,
        ),
        _entry(
            "true_median",
            e.true_median,
            {"users": users8, "dataset": "pareto"},
            {"users": "data", "dataset": "choice"},
            extra={"dataset": ("uniform",)},
        ),
        _entry(
            "binomial_stderr",
            e.binomial_stderr,
            {"p": 0.3, "runs": 10},
            {"p": "real", "runs": "int"},
            finite,
        ),
        _entry(
            "build_figure",
            lambda name, quick: len(e.build_figure(name, quick).cells),
            {"name": "fig2", "quick": True},
            {"name": "choice", "quick": "flag"},
            aliases={"name": ("figure",)},
            extra={"name": ("fig1a", "fig5")},
        ),
        _entry(
            "run_seed",
            lambda seed, run: e.run_seed(seed, _CELL, run).entropy,
            {"seed": 0, "run": 3},
            {"seed": "int", "run": "int"},
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
            # tests/test_aamand25_bad_input.py
            {
                "name": "choice",
                "runs": "int",
                "seed": "int",
                "out": "any",
                "quick": "flag",
                "estimators": "any",
                "progress": "any",
                "plot": "flag",
            },
            aliases={"name": ("figure",), "estimators": ("mechanism",)},
        ),
        _entry("check_seed", d.check_seed, {"seed": 42}, {"seed": "int"}),
        _entry("check_n", d.check_n, {"n": 42}, {"n": "int"}),
        _entry(
            "pareto_values",
            d.pareto_values,
            {"n": 10, "B": 64, "seed": 1, "shape": 1.5, "scale": 2000.0},
            {"n": "int", "B": "int", "seed": "int", "shape": "real", "scale": "real"},
            ints_in(0, 2**62),
        ),
        _entry(
            "skewed_uniform_sample",
            d.skewed_uniform_sample,
            {"n": 10, "B": 64, "seed": 1},
            {"n": "int", "B": "int", "seed": "int"},
        ),
        _entry("to_coins", d.to_coins, {"values": [0, 3]}, {"values": "data"}, ints_in(1, 2**62)),
        _entry(
            "dataset_users",
            d.dataset_users,
            {"kind": "uniform", "n": 10, "B": 64, "seed": 1},
            {"kind": "choice", "n": "int", "B": "int", "seed": "int"},
            ints_in(1, 2**62),
            extra={"kind": ("pareto",)},
        ),
        _entry(
            "lomax_cdf",
            d.lomax_cdf,
            {"x": 10.0, "shape": 1.5, "scale": 2000.0},
            {"x": "real", "shape": "real", "scale": "real"},
            probability,
        ),
        _entry(
            "lomax_quantile",
            d.lomax_quantile,
            {"u": 0.5, "shape": 1.5, "scale": 2000.0},
            {"u": "real", "shape": "real", "scale": "real"},
            finite,
        ),
        _entry(
            "lomax_median",
            d.lomax_median,
            {"shape": 1.5, "scale": 2000.0},
            {"shape": "real", "scale": "real"},
            finite,
        ),
        _entry(
            "pareto_data_cdf",
            d.pareto_data_cdf,
            {"v": 100, "B": 4096, "shape": 1.5, "scale": 2000.0},
            {"v": "real", "B": "int", "shape": "real", "scale": "real"},
            probability,
        ),
        _entry(
            "pareto_clip_probability",
            d.pareto_clip_probability,
            {"B": 4096, "shape": 1.5, "scale": 2000.0},
            {"B": "int", "shape": "real", "scale": "real"},
            probability,
        ),
        _entry(
            "uniform_data_cdf",
            d.uniform_data_cdf,
            {"v": 5, "left": 2, "right": 9},
            {"v": "real", "left": "int", "right": "int"},
            probability,
            aliases={"left": ("right",), "right": ("left",)},
        ),
        _entry(
            "authors_true_median",
            d.authors_true_median,
            {"users": users8, "inclusive": True},
            {"users": "data", "inclusive": "flag"},
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
    + _padding_entries()
    + _experiment_entries()
)
