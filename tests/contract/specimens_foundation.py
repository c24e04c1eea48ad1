"""Contract fuzz entries of the foundation: the validation helpers (the data policy), the core
contracts (``PrivacyClaim``, ``check_claim``, ``check_adjacency``) and the
exponential mechanism's public helpers (see :mod:`harness`).

The helpers' own bounds (``minimum``, ``maximum``, ``cap``, ``choices``, ``record_dim``) are
fuzzed too: a hostile bound is refused naming it, and a valid but tighter one refuses the value
checked (naming that value's parameter, the alias)."""

from __future__ import annotations

import numpy as np
from harness import Entry, Specimen

from dpquant.reference import validation as V
from dpquant.reference.core import PrivacyClaim, check_adjacency, check_claim
from dpquant.reference.primitives.exponential_mechanism import (
    check_bounds,
    smith_intervals,
    utility_sensitivity,
)

RNG = np.random.default_rng(0)

SPECIMENS: list[Specimen] = []


def _one(name: str, fn, value, kind: str, **aliases) -> Entry:
    return Entry(name, fn, {"x": value}, {"x": kind}, aliases=aliases)


ENTRIES: list[Entry] = [
    _one("check_real", lambda x: V.check_real(x, "x"), 1.0, "real"),
    _one("check_finite", lambda x: V.check_finite(x, "x"), 1.0, "real"),
    _one("check_positive", lambda x: V.check_positive(x, "x"), 1.0, "real"),
    _one("check_epsilon", lambda x: V.check_epsilon(x, "x"), 1.0, "real"),
    _one("check_delta", lambda x: V.check_delta(x, "x"), 0.0, "real"),
    _one("check_probability", lambda x: V.check_probability(x, "x"), 0.5, "real"),
    _one("check_fraction", lambda x: V.check_fraction(x, "x"), 0.5, "real"),
    _one("check_flag", lambda x: V.check_flag(x, "x"), True, "flag"),
    _one("check_rng", lambda x: V.check_rng(x, "x"), RNG, "rng"),
    _one("check_record", lambda x: V.check_record(x, "x"), 0.5, "data"),
    Entry(
        "check_int",
        lambda x, minimum, maximum: V.check_int(x, "x", minimum=minimum, maximum=maximum),
        {"x": 3, "minimum": 0, "maximum": 10},
        {"x": "int", "minimum": "int", "maximum": "int"},
        aliases={"minimum": ("x",), "maximum": ("x",)},
    ),
    Entry(
        "check_size",
        lambda size, minimum, cap: V.check_size(size, minimum=minimum, cap=cap),
        {"size": 3, "minimum": 0, "cap": 10},
        {"size": "size", "minimum": "int", "cap": "int"},
        aliases={"minimum": ("size",), "cap": ("size",)},
    ),
    Entry(
        "check_choice",
        lambda x, choices: V.check_choice(x, "x", choices),
        {"x": "a", "choices": ("a", "b")},
        {"x": "choice", "choices": "any"},
        aliases={"choices": ("x",)},
    ),
    Entry(
        "check_domain",
        lambda domain, finite: V.check_domain(domain, finite=finite),
        {"domain": (0.0, 1.0), "finite": True},
        {"domain": "pair", "finite": "flag"},
    ),
    Entry(
        "check_data",
        lambda data, domain, allow_empty, record_dim: V.check_data(
            data, domain=domain, allow_empty=allow_empty, record_dim=record_dim
        ),
        {"data": [0.1, 0.5], "domain": (0.0, 1.0), "allow_empty": False, "record_dim": None},
        {"data": "data", "domain": "pair", "allow_empty": "flag", "record_dim": "int"},
        aliases={"record_dim": ("data",), "domain": ("data",)},
    ),
    Entry(
        "check_real_array",
        lambda x, allow_inf: V.check_real_array(x, "x", allow_inf=allow_inf),
        {"x": [0.5, 1.5], "allow_inf": False},
        {"x": "data", "allow_inf": "flag"},
    ),
    _one("check_adjacency", lambda x: check_adjacency(x, "x"), "local", "choice"),
    _one("check_claim", lambda x: check_claim(x, "x"), PrivacyClaim(1.0), "any"),
    Entry(
        "PrivacyClaim",
        lambda epsilon, delta, adjacency: PrivacyClaim(epsilon, delta, adjacency),
        {"epsilon": 1.0, "delta": 0.0, "adjacency": "local"},
        {"epsilon": "real", "delta": "real", "adjacency": "choice"},
    ),
    Entry(
        "utility_sensitivity",
        utility_sensitivity,
        {"quantile": 0.5, "adjacency": "replace_one"},
        {"quantile": "real", "adjacency": "choice"},
    ),
    Entry(
        "smith_intervals",
        smith_intervals,
        {"data": [0.2, 0.7], "bounds": (0.0, 1.0)},
        {"data": "data", "bounds": "pair"},
    ),
    _one("check_bounds", lambda x: check_bounds(x, "x"), (0.0, 1.0), "pair"),
]
