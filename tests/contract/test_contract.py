"""One contract for every mechanism (issue 18): every public mechanism class, every registry
entry and every catalogue entry derives from :class:`dpquant.reference.core.MechanismBase`, refuses bad
size, rng and data with a ``ValueError`` naming the parameter, draws finite outputs inside its
declared range, and, where it has an exact law, that law has total mass 1 and its sampler
conforms to it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from harness import check_law, check_mechanism_output
from specimens import ALL_SPECIMENS, REGISTERED

from dpquant.reference.conformance import check_sampler
from dpquant.reference.core import Adjacency, MechanismBase

CASES = [(s.name, s.mechanism, s.data, s.draws) for s in ALL_SPECIMENS] + REGISTERED
IDS = [c[0] for c in CASES]

BAD_SIZES = [0, -1, 2.5, 3.0, True, None, "8", 10**12, 2**64]
BAD_RNGS = [None, 0, "seed", np.random.RandomState(0), np.random.SeedSequence(1)]
BAD_DATA = [
    [math.nan],
    ["0.5", "0.9"],
    [True, 0.5],
    [[0.1, 0.2], [0.3, 0.4]],
    np.array(["2020-01-01"], dtype="datetime64[D]"),
    [10**400],
    np.array([0.5 + 1j]),
    [None],
    "0.5",
]


@pytest.mark.parametrize("name, build, data, draws", CASES, ids=IDS)
def test_mechanism_derives_from_the_base(name, build, data, draws) -> None:
    assert isinstance(build(), MechanismBase)


@pytest.mark.parametrize("name, build, data, draws", CASES, ids=IDS)
def test_mechanism_states_its_relation_as_an_adjacency(name, build, data, draws) -> None:
    mech = build()
    assert type(mech.adjacency) is Adjacency and mech.claim.adjacency is mech.adjacency


@pytest.mark.parametrize("name, build, data, draws", CASES, ids=IDS)
def test_bad_size_rng_and_data_are_refused_naming_the_parameter(name, build, data, draws):
    mech = build()
    rng = np.random.default_rng(0)
    for size in BAD_SIZES:
        with pytest.raises(ValueError, match="size"):
            mech.sample(data, size, rng)
    for bad in BAD_RNGS:
        with pytest.raises(ValueError, match="rng"):
            mech.sample(data, 4, bad)
    for bad in BAD_DATA:
        with pytest.raises(ValueError, match="data"):
            mech.sample(bad, 4, rng)
        if callable(getattr(mech, "exact", None)):
            with pytest.raises(ValueError, match="data"):
                mech.exact(bad)


@pytest.mark.parametrize("name, build, data, draws", CASES, ids=IDS)
def test_outputs_are_finite_and_in_the_declared_range(name, build, data, draws) -> None:
    mech = build()
    out = mech.sample(data, 64, np.random.default_rng(1))
    assert len(out) == 64
    check_mechanism_output(mech, out)


@pytest.mark.parametrize("name, build, data, draws", CASES, ids=IDS)
def test_exact_law_has_mass_one_and_the_sampler_conforms(name, build, data, draws) -> None:
    mech = build()
    if not callable(getattr(mech, "exact", None)):
        pytest.skip(f"{name} has no exact law")
    law = mech.exact(data)
    check_law(law)
    if draws:
        out = mech.sample(data, draws, np.random.default_rng(2))
        check_sampler(law, out).assert_ok()
