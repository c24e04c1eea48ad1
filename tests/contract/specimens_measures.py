"""Contract fuzz entries of the black-box bounds in every privacy measure
(:mod:`dpquant.audit.statistics.measure_bounds`, issue 37; see :mod:`harness`): the constructors
and the methods, each parameter replaced by the hostile pools."""

from __future__ import annotations

from typing import Any

import numpy as np
from harness import Entry, Specimen

from dpquant.audit.statistics.measure_bounds import (
    ApproximateDPMeasure,
    GDPMeasure,
    ProfileMeasure,
    RenyiMeasure,
    ZCDPMeasure,
)

SPECIMENS: list[Specimen] = []

COUNTS = {"k0": 8, "n0": 10, "k1": 1, "n1": 10, "alpha": 0.05}
COUNT_KINDS = {"k0": "any", "n0": "any", "k1": "any", "n1": "any", "alpha": "real"}
MASSES = {"p0": 0.5, "p1": 0.1}
MASS_KINDS = {"p0": "any", "p1": "any"}
PROFILE = [(0.0, 0.3), (1.0, 0.05)]


def check_bound(x: Any) -> None:
    """A bound: no NaN, never +inf from finite counts (the value at masses may be +inf)."""
    arr = np.asarray(x, dtype=float)
    assert not np.isnan(arr).any(), f"bound {arr}"


def check_with_argument(x: Any) -> None:
    """(bound, argument): the bound has no NaN (the argument is NaN where there is none)."""
    bound, argument = x
    check_bound(bound)
    assert np.shape(bound) == np.shape(argument), f"shapes {np.shape(bound)}, {np.shape(argument)}"


def check_samples(x: Any) -> None:
    assert x is None or (isinstance(x, int) and x >= 1), f"samples_needed {x!r}"


MEASURES = {
    "epsilon": ApproximateDPMeasure(1.0, 0.01),
    "renyi": RenyiMeasure(2.0, 0.5),
    "renyi_inf": RenyiMeasure(float("inf"), 0.5),
    "rho": ZCDPMeasure(0.1, xi=0.01),
    "mu": GDPMeasure(0.5),
    "profile": ProfileMeasure(PROFILE),
}


def _constructors() -> list[Entry]:
    return [
        Entry("ApproximateDPMeasure", ApproximateDPMeasure, {"epsilon": 1.0, "delta": 0.01},
              {"epsilon": "real", "delta": "real"}),
        Entry("RenyiMeasure", RenyiMeasure, {"order": 2.0, "claimed": 0.5},
              {"order": "real", "claimed": "real"}),
        Entry("ZCDPMeasure", ZCDPMeasure, {"rho": 0.1, "xi": 0.0}, {"rho": "real", "xi": "real"}),
        Entry("GDPMeasure", GDPMeasure, {"mu": 0.5}, {"mu": "real"}),
        Entry("ProfileMeasure", ProfileMeasure, {"points": PROFILE}, {"points": "any"}),
    ]


def _methods() -> list[Entry]:
    out = []
    for name, m in MEASURES.items():
        out += [
            Entry(f"{name}.value", m.value, MASSES, MASS_KINDS, check=check_bound),
            Entry(f"{name}.lower_bound", m.lower_bound, COUNTS, COUNT_KINDS, check=check_bound),
            Entry(f"{name}.lower_bound_with_argument", m.lower_bound_with_argument, COUNTS,
                  COUNT_KINDS, check=check_with_argument),
        ]
    rho = MEASURES["rho"]
    out += [
        Entry("rho.value_with_argument", rho.value_with_argument, MASSES, MASS_KINDS,
              check=check_with_argument),
        Entry("rho.expected_bound", rho.expected_bound, {**MASSES, "n": 100, "alpha": 0.05},
              {**MASS_KINDS, "n": "int", "alpha": "real"}, check=check_bound),
        Entry("rho.samples_needed", rho.samples_needed,
              {"p0": 0.5, "p1": 0.1, "alpha": 0.05, "limit": 10**6},
              {"p0": "real", "p1": "real", "alpha": "real", "limit": "int"}, check=check_samples),
        Entry("rho.selection_score", rho.selection_score,
              {"k0": [8, 2], "n0": 10, "k1": [1, 2], "n1": 10, "n_eval": 1000, "alpha": 1e-3,
               "z_selection": 2.0},
              {"k0": "any", "n0": "any", "k1": "any", "n1": "any", "n_eval": "int",
               "alpha": "real", "z_selection": "real"}, check=check_bound),
        Entry("rho.violated", rho.violated, {"bound": 0.2}, {"bound": "real"}),
    ]
    return out


ENTRIES: list[Entry] = _constructors() + _methods()
