"""ApproximateQuantiles' recursion and its privacy budget (Kaplan, Schnapp & Stemmer 2022, the
paper's [14] and its Sec. 6 baseline AQ; the constants as in the authors' fork of
github.com/ShacharSchnapp/DP_AQ, notes/imola25.md erratum 27).

* The recursion (:func:`aq_plan`, data independent): the middle quantile q* = Q[⌊|Q|/2⌋] first,
  then Q[:mid]/q* on the left and (Q[mid+1:] − q*)/(1 − q*) on the right, recursively.
* ``layers`` — how many EM calls one data point takes part in. The recursion on m quantiles has
  depth D(m) = ⌊log₂ m⌋ + 1 = m.bit_length(), and at each depth the subsets are disjoint up to a
  probability-zero tie with the released value, so a point meets at most D(m) calls
  (:func:`max_em_calls_per_point`). Rules: ``"authors"`` log₂m + 1 (real, the fork), ``"ceil"``
  ⌈log₂m⌉ + 1, ``"depth"`` D(m). All three are >= D(m), hence all valid; ``"depth"`` is the tight
  one, ``"authors"`` is conservative by (log₂m + 1)/D(m) (m = 200: 8.64 vs 8).
* ``comp`` = layers (add/remove) or 2·layers (replace-one = one removal + one addition).
* pure: ε' = ε/comp. zCDP: ε' = sqrt(8ρ/comp) (the EM is ε'²/8-zCDP, Sec. 6 citing [4, 7]); the
  original KSS code had sqrt(2ρ/comp) (the generic pure-DP bound ε'²/2), kept as
  ``kss_original_constant=True``; ρ from :func:`~dpquant.reference.slice_quantiles.zcdp.rho_from_epsilon`
  (ε, δ) ("cks" form).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpquant.reference.slice_quantiles.inputs import (
    MAX_QUANTILES,
    check_adjacency_central,
    check_quantiles,
)
from dpquant.reference.slice_quantiles.zcdp import check_zcdp_delta, rho_from_epsilon
from dpquant.reference.validation import (
    check_choice,
    check_epsilon,
    check_flag,
    check_int,
    check_positive,
    check_probability,
)

LAYER_RULES: tuple[str, ...] = ("authors", "ceil", "depth")
MODES: tuple[str, ...] = ("pure", "zcdp")


# ----------------------------------------------------------------------------- budget
def recursion_depth(m: int) -> int:
    """D(m) = ⌊log₂ m⌋ + 1: depth of AQ's recursion on m quantiles (D(1) = 1)."""
    return check_int(m, "m", minimum=1, maximum=MAX_QUANTILES).bit_length()


def layers_count(m: int, rule: str = "authors") -> float:
    """Number of EM calls charged to a data point: log₂m + 1 ("authors", real), ⌈log₂m⌉ + 1
    ("ceil") or ⌊log₂m⌋ + 1 ("depth", tight); module docstring."""
    rule = check_choice(rule, "rule (layers)", LAYER_RULES)
    depth = recursion_depth(m)
    if rule == "authors":
        return math.log2(m) + 1.0
    if rule == "ceil":
        return float(math.ceil(math.log2(m)) + 1)
    return float(depth)


def composition_count(m: int, adjacency: str, rule: str = "authors") -> float:
    """comp = layers (add/remove) or 2·layers (replace-one), as in the fork."""
    adjacency = check_adjacency_central(adjacency)
    layers = layers_count(m, rule)
    return 2.0 * layers if adjacency == "replace_one" else layers


def per_em_epsilon(
    m: int,
    adjacency: str,
    mode: str,
    *,
    epsilon: float | None = None,
    rho: float | None = None,
    layers: str = "authors",
    kss_original_constant: bool = False,
    composition: float | None = None,
) -> float:
    """ε' of each EM call: ε/comp (pure) or sqrt(8ρ/comp) (zCDP; sqrt(2ρ/comp) with
    ``kss_original_constant``; notes/imola25.md erratum 27 and "Reference values").
    ``composition`` overrides comp
    (deliberately broken variants for the auditor)."""
    mode = check_choice(mode, "mode", MODES)
    kss_original_constant = check_flag(kss_original_constant, "kss_original_constant")
    layers = check_choice(layers, "layers", LAYER_RULES)
    comp = composition_count(m, adjacency, layers) if composition is None else composition
    comp = check_positive(comp, "composition")
    if mode == "pure":
        if epsilon is None:
            raise ValueError("mode 'pure' needs epsilon")
        if kss_original_constant:  # issue 34: it had no effect here (notes/imola25.md)
            raise ValueError(
                "kss_original_constant=True chooses KSS's zCDP constant sqrt(2ρ/comp); mode "
                "'pure' has ε' = ε/comp: drop kss_original_constant, or pass mode='zcdp'"
            )
        value = check_epsilon(epsilon) / comp
    else:
        if rho is None:
            raise ValueError("mode 'zcdp' needs rho")
        rho = check_positive(rho, "rho")
        factor = 2.0 if kss_original_constant else 8.0
        value = math.sqrt(factor * rho / comp) if math.isfinite(factor * rho / comp) else math.inf
    if not (math.isfinite(value) and value > 0):
        raise ValueError(
            "the per-call epsilon (epsilon or rho over composition) must be a positive finite "
            f"float, got {value!r}"
        )
    return value


def em_sensitivity(q: float) -> float:
    """The add/remove utility sensitivity max(q, 1 − q) the authors use for every call."""
    q = check_probability(q, "q")
    return max(q, 1.0 - q)


def resolve_rho(epsilon: float, mode: str, delta: float | None, rho: float | None) -> float | None:
    """ρ for mode 'zcdp' (exactly one of ``delta`` — then ρ = rho_from_epsilon(ε, δ) — or
    ``rho``); None for mode 'pure' (where both must be None)."""
    mode = check_choice(mode, "mode", MODES)
    if mode == "pure":
        if delta is not None or rho is not None:
            raise ValueError("mode 'pure' takes neither delta nor rho")
        return None
    if (delta is None) == (rho is None):
        raise ValueError(
            "mode 'zcdp' needs exactly one of delta (then rho = rho(epsilon, delta)) or rho"
        )
    if rho is not None:
        return check_positive(rho, "rho")
    return rho_from_epsilon(epsilon, check_zcdp_delta(delta))


# ----------------------------------------------------------------------------- the recursion plan
@dataclass
class Node:
    """One EM call of AQ: output index, rescaled quantile, children, and depth (root = 1)."""

    index: int
    q: float
    depth: int
    left: Node | None = None
    right: Node | None = None


@dataclass
class Plan:
    """AQ's recursion tree in pre-order (parents before children)."""

    root: Node
    order: list[Node] = field(default_factory=list)


def _build(qs: np.ndarray, idx: np.ndarray, depth: int, order: list[Node]) -> Node | None:
    if qs.size == 0:
        return None
    mid = qs.size // 2
    q_star = float(qs[mid])
    node = Node(int(idx[mid]), q_star, depth)
    order.append(node)
    node.left = _build(qs[:mid] / q_star, idx[:mid], depth + 1, order)
    node.right = _build((qs[mid + 1 :] - q_star) / (1.0 - q_star), idx[mid + 1 :], depth + 1, order)
    return node


def aq_plan(quantiles: Any) -> Plan:
    """AQ's recursion (module docstring): middle q* = Q[⌊|Q|/2⌋], left part Q[:mid]/q*, right part
    (Q[mid+1:] − q*)/(1 − q*) (= the fork's array_split of Q without q*)."""
    q = check_quantiles(quantiles)
    order: list[Node] = []
    root = _build(q, np.arange(q.size), 1, order)
    assert root is not None
    return Plan(root, order)


def max_em_calls_per_point(quantiles: Any) -> int:
    """The largest number of EM calls whose data subset can contain one given point: the longest
    root-to-leaf path of the recursion (the subsets of one depth are disjoint a.s.)."""
    return max(node.depth for node in aq_plan(quantiles).order)
