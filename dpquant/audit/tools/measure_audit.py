"""``audit_claim``: audit a mechanism against a claim of any kind (issue 37, first step).

A claim may be pure or approximate (ε, δ)-DP, (ξ, ρ)-zCDP, Rényi DP at listed orders, μ-GDP or a
privacy profile (:mod:`dpquant.reference.measures`). The audit has two parts:

* **Exact, in the claim's own measure** (a mechanism with ``exact(data)``): on every searched
  neighbouring pair the measure of the two exact laws is computed and its supremum located
  (:mod:`dpquant.reference.measures.pair_measures`): ρ as the supremum over orders of D_α/α by
  branch and bound, D_α at each claimed order, the least μ of the pair (exact from the trade-off
  vertices between discrete laws), the δ excess at each point of a profile. A pair whose measure
  attains a value above the claim is a witnessed violation; otherwise the report gives the
  interval the search proved.
* **Black-box, through the profile the claim implies** (the idea of Delta-Siege: Lokna et al.,
  "Group and Attack: Auditing Differential Privacy", CCS 2023, which searches the (ε, δ) curve
  for the weakest point). Every claim implies (ε*, δ_c(ε*))-DP at each ε*
  (:meth:`~dpquant.reference.measures.MeasureClaim.delta_at`), so a sound (ε, δ) audit at such a
  point that finds a violation refutes the claim. The audit runs
  :func:`~dpquant.audit.audit_mechanism` at up to :data:`PROXY_DELTAS` points (the ε* where the
  claimed δ is 10⁻², 10⁻¹ and 10⁻³, in that order; for a table, the points nearest those δ).
  Every event those audits evaluate also gives a bound in the claim's own measure
  (:func:`measure_bounds`: Rényi, ρ, μ or the profile's excess, from the same Clopper–Pearson
  box), so the black-box part reports, and can be refuted by, the claim's own measure.
* **A partition stage, for Rényi and zCDP claims** (:mod:`.partition_stage`): after the first
  point, unless it already refuted the claim, the outputs are ordered by the score of its best
  event, cut into cells on fresh selection draws, and counted on fresh evaluation draws; the
  cells' masses bound D_a and ρ (:mod:`dpquant.audit.statistics.partition_bounds`), which binary
  events cannot do well at a fixed order (the Gaussian at 0.8 of its scale against D_2).

**α.** The k points and the partition stage (when it runs) each get α/(k + 1) (α/k without the
stage), so the verdict holds at confidence 1 − α over all of them (Bonferroni). The audit stops
at the first point or stage that establishes a violation: a refutation needs only one, and the
shares of the parts not run are simply unused.

Events are chosen for the (ε*, δ*) points, not ranked in the claim's measure; that is what
``notes/measures.md`` lists as left.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from concurrent.futures import Executor
from typing import Any

import mpmath
import numpy as np

from dpquant.audit.model.claimed import ClaimOverride
from dpquant.audit.model.limits import DEFAULT_SAMPLES, MAX_SAMPLES
from dpquant.audit.model.neighbours import (
    check_pairs,
    check_probe_domain,
    exhaustive_pairs,
    probe_values,
)
from dpquant.audit.model.relations import check_relation, check_relation_pairs
from dpquant.audit.pipeline.options import AuditOptions, check_options
from dpquant.audit.pipeline.runner import audit_mechanism
from dpquant.audit.pipeline.workers import DrawPool, resolve_workers
from dpquant.audit.report.findings import EvaluatedCandidate
from dpquant.audit.report.result import AuditReport
from dpquant.audit.statistics.exact_loss import check_exact_law, mechanism_name
from dpquant.audit.statistics.measure_bounds import (
    ApproximateDPMeasure,
    EventMeasure,
    GDPMeasure,
    ProfileMeasure,
    RenyiMeasure,
    ZCDPMeasure,
)
from dpquant.audit.tools.claim_report import (
    CURVE_ORDERS,
    CURVE_POINTS,
    EXACT_SLACK,
    ClaimAuditReport,
    ExactMeasureFinding,
    MeasureBound,
    PartitionFinding,
    ProxyAudit,
)
from dpquant.audit.tools.partition_stage import partition_stage
from dpquant.errors import ParameterError
from dpquant.reference.core import PrivacyClaim, has_exact
from dpquant.reference.distributions import hockey_stick
from dpquant.reference.exact.mp import workdps
from dpquant.reference.measures import (
    AnyClaim,
    GDPClaim,
    ProfileClaim,
    RenyiClaim,
    ZCDPClaim,
    check_any_claim,
    claim_delta_at,
    claim_measure,
    claim_renyi_at,
)
from dpquant.reference.measures.pair_measures import (
    Located,
    gdp_of_pair,
    profile_excess,
    renyi_of_pair,
    zcdp_of_pair,
)
from dpquant.reference.validation import (
    check_choice,
    check_executor,
    check_int,
    check_probability,
    read_attribute,
)

PROXY_DELTAS: tuple[float, ...] = (1e-2, 1e-1, 1e-3)
"""The claimed δ at which the black-box part audits the implied (ε*, δ) points, in the order they
are run (the audit stops at the first point or stage that establishes a violation)."""
PARTITION_SAMPLES_FACTOR = 2
"""The partition stage's evaluation draws per data set, as a multiple of ``samples`` (of
:data:`~dpquant.audit.model.limits.DEFAULT_SAMPLES` when it is None)."""
EXHAUSTIVE_SIZE = 2
"""The largest data sets of the exact part's own pairs (every neighbouring pair of data sets of
up to this many probe values)."""
MODES = ("auto", "exact", "blackbox")


# -- the exact part ---------------------------------------------------------------------------------


def _pair_measure(claim: AnyClaim, p: Any, q: Any) -> tuple[float, float, float, float, bool]:
    """(value, upper, argument, claimed, undecided) of one pair in the claim's measure."""
    if isinstance(claim, ZCDPClaim):
        found = zcdp_of_pair(p, q, claim.xi, threshold=_with_slack(claim.rho))
        return _from_located(found, claim.rho)
    if isinstance(claim, GDPClaim):
        found = gdp_of_pair(p, q, threshold=_with_slack(claim.mu))
        return _from_located(found, claim.mu)
    if isinstance(claim, RenyiClaim):
        worst: tuple[float, float, float, float, bool] | None = None
        for order, eps in claim.orders:
            d = float(renyi_of_pair(p, q, order))
            row = (d, d, order, eps, False)
            if worst is None or d - eps > worst[0] - worst[3]:
                worst = row
        assert worst is not None
        return worst
    if isinstance(claim, ProfileClaim):
        found = profile_excess(p, q, claim.delta_at, points=tuple(e for e, _ in claim.points))
        return _from_located(found, 0.0)
    assert isinstance(claim, PrivacyClaim)
    found = profile_excess(p, q, lambda e: claim_delta_at(claim, e), points=(claim.epsilon,))
    return _from_located(found, 0.0)


def _with_slack(claimed: float) -> float:
    """The threshold a search decides: the claim plus the exact part's slack."""
    return claimed + EXACT_SLACK * max(1.0, abs(claimed))


def _from_located(found: Located, claimed: float) -> tuple[float, float, float, float, bool]:
    value, upper = float(found.value), float(found.upper)
    undecided = not found.value > _with_slack(claimed) and not found.upper <= _with_slack(claimed)
    return value, upper, float(found.argument), claimed, undecided


def _exact_pairs(
    mech: Any, claim: AnyClaim, pairs: Any, relation: Any, probe: tuple[float, float] | None
) -> list[Any]:
    domain = read_attribute(mech, "domain", "mech")
    if probe is not None:
        domain = check_probe_domain(probe)
        own = read_attribute(mech, "domain", "mech")
        if not (own[0] <= domain[0] and domain[1] <= own[1]):
            raise ParameterError("domain", f"must lie inside mech.domain {own}", repr(probe))
    chosen = relation if relation is not None else read_attribute(mech, "relation", "mech", None)
    if chosen is not None:
        chosen = check_relation(chosen, claim.adjacency, "relation")
        if pairs is None:
            return list(chosen.candidates(domain))
        return check_relation_pairs(chosen, pairs, domain)
    if pairs is not None:
        return check_pairs(pairs, claim.adjacency, domain)
    inputs = read_attribute(mech, "input_values", "mech", None)
    values = probe_values(domain, inputs)
    return [p.data for p in exhaustive_pairs(values, EXHAUSTIVE_SIZE, claim.adjacency)]


def exact_measure(
    mech: Any,
    claim: AnyClaim,
    pairs: Iterable[tuple[Any, Any]] | None = None,
    relation: Any = None,
    domain: tuple[float, float] | None = None,
) -> ExactMeasureFinding:
    """The claim's measure on every pair, from the mechanism's exact laws.

    Args:
        mech: A mechanism with ``exact(data)``.
        claim: A checked claim.
        pairs: Neighbouring pairs to use, or None for the auditor's (every pair of data sets of
            up to :data:`EXHAUSTIVE_SIZE` probe values, or the relation's candidates).
        relation: A relation object (as for :func:`~dpquant.audit.audit_mechanism`), or None.
        domain: The interval the auditor's pairs probe (inside ``mech.domain``), or None.

    Returns:
        The :class:`ExactMeasureFinding`.

    Raises:
        ValueError: The mechanism has no exact law, the pairs are not neighbours, or a law
            cannot be judged (named).
    """
    if not has_exact(mech):
        raise ParameterError("mech", "must provide exact(data) for the exact part", "no exact")
    name = mechanism_name(mech)
    checked = _exact_pairs(mech, claim, pairs, relation, domain)
    cache: dict[Any, Any] = {}

    def law(d: np.ndarray) -> Any:
        key = (d.shape, tuple(np.asarray(d).ravel().tolist()))
        if key not in cache:
            cache[key] = check_exact_law(
                mech.exact(np.array(d, copy=True)),
                f"the exact law of {name} on {np.asarray(d).tolist()}",
            )
        return cache[key]

    best: tuple[float, float, float, float, bool] | None = None
    witness = None
    upper, undecided = -math.inf, 0
    with workdps():
        for d0, d1 in checked:
            row = _pair_measure(claim, law(d0), law(d1))
            undecided += row[4]
            upper = max(upper, row[1])
            if best is None or row[0] - row[3] > best[0] - best[3]:
                best, witness = row, (np.asarray(d0).tolist(), np.asarray(d1).tolist())
    if best is not None and witness is not None:
        curves = _curves(claim, law(np.asarray(witness[0])), law(np.asarray(witness[1])), best)
    else:
        curves = ((), ())
    if best is None:
        return ExactMeasureFinding(
            claim_measure(claim), 0.0, -math.inf, math.inf, math.nan, None, 0, 0
        )
    return ExactMeasureFinding(
        claim_measure(claim),
        best[3],
        best[0],
        upper,
        best[2],
        witness,
        len(checked),
        undecided,
        *curves,
    )


def _curves(
    claim: AnyClaim, p: Any, q: Any, best: tuple[float, float, float, float, bool]
) -> tuple[tuple[tuple[float, float, float], ...], tuple[tuple[float, float, float], ...]]:
    """The worst pair's profile (ε from 0 to where the claim's δ reaches 1e-4, or to 4) and its
    Rényi curve at :data:`~dpquant.audit.tools.claim_report.CURVE_ORDERS`, each beside the
    claim's."""
    top = _epsilon_where(claim, 1e-4) or 4.0
    profile = []
    with workdps():
        for k in range(CURVE_POINTS):
            e = top * k / (CURVE_POINTS - 1)
            pair = max(hockey_stick(p, q, e), hockey_stick(q, p, e))
            profile.append((e, float(pair), float(claim_delta_at(claim, e))))
        renyi = []
        for a in CURVE_ORDERS:
            bound = claim_renyi_at(claim, a)
            renyi.append(
                (a, float(renyi_of_pair(p, q, a)), math.nan if bound is None else float(bound))
            )
    return tuple(profile), tuple(renyi)


# -- the black-box part ------------------------------------------------------------------------------


def _epsilon_where(claim: AnyClaim, delta: float) -> float | None:
    """:func:`_least_epsilon`, memoised per (hashable claim, δ, working precision): a function of
    these alone that costs about 60 evaluations of the claim's profile (issue 39)."""
    try:
        return _least_epsilon(claim, delta, mpmath.mp.prec)
    except TypeError:  # an unhashable claim: computed, not memoised
        return _least_epsilon.__wrapped__(claim, delta, mpmath.mp.prec)


@functools.lru_cache(maxsize=256)
def _least_epsilon(claim: AnyClaim, delta: float, precision: int) -> float | None:
    """The least ε with δ_c(ε) <= δ (bisection on the nonincreasing profile), or None when
    δ_c(0) <= δ already (no ε > 0 is needed) or δ_c never comes down to δ below ε = 2^20.
    ``precision`` (mpmath's, in bits) is part of the memo's key only."""
    if claim_delta_at(claim, 0.0) <= delta:
        return None
    lo, hi = 0.0, 1.0
    while claim_delta_at(claim, hi) > delta:
        lo, hi = hi, hi * 2
        if hi > 2**20:
            return None
    for _ in range(60):
        mid = (lo + hi) / 2
        if claim_delta_at(claim, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def proxy_points(claim: AnyClaim) -> list[tuple[float, float]]:
    """The (ε*, δ*) points the black-box part audits: for a :class:`PrivacyClaim`, the claim
    itself; for a table, the points with δ in (0, 1) nearest (in log δ) each of
    :data:`PROXY_DELTAS`; otherwise the least ε* with δ_c(ε*) <= each δ of :data:`PROXY_DELTAS`,
    with δ* = δ_c(ε*) rounded up to a float.

    Args:
        claim: A checked claim.

    Returns:
        Distinct (ε*, δ*) points with ε* > 0 and δ* in [0, 1).
    """
    if isinstance(claim, PrivacyClaim):
        return [(claim.epsilon, claim.delta)]
    points: list[tuple[float, float]] = []
    if isinstance(claim, ProfileClaim):
        usable = [(e, d) for e, d in claim.points if e > 0 and 0 < d < 1]
        for target in PROXY_DELTAS:
            if usable:
                best = min(usable, key=lambda p: abs(math.log(p[1]) - math.log(target)))
                if best not in points:
                    points.append(best)
        return points
    for target in PROXY_DELTAS:
        eps = _epsilon_where(claim, target)
        if eps is None or eps <= 0:
            continue
        with workdps():
            delta = float(mpmath.nstr(claim_delta_at(claim, eps), 20))
        delta = math.nextafter(delta, 1.0)  # rounded up: the point is implied
        if delta < 1.0 and (eps, delta) not in points:
            points.append((eps, delta))
    return points


def claim_event_measures(claim: AnyClaim) -> list[EventMeasure]:
    """The black-box measures of a claim (:mod:`dpquant.audit.statistics.measure_bounds`): one
    for an (ε, δ), zCDP, GDP or profile claim, one per order for a Rényi claim.

    Args:
        claim: A checked claim.

    Returns:
        The measures.
    """
    if isinstance(claim, ZCDPClaim):
        return [ZCDPMeasure(claim.rho, claim.xi)]
    if isinstance(claim, GDPClaim):
        return [GDPMeasure(claim.mu)]
    if isinstance(claim, RenyiClaim):
        return [RenyiMeasure(order, eps) for order, eps in claim.orders]
    if isinstance(claim, ProfileClaim):
        return [ProfileMeasure(claim.points)]
    return [ApproximateDPMeasure(claim.epsilon, claim.delta)]


def measure_bounds(claim: AnyClaim, proxies: Iterable[ProxyAudit]) -> tuple[MeasureBound, ...]:
    """The best bound in each of the claim's measures over every event the black-box points
    evaluated.

    Each evaluated event's counts give, at the level its point's audit gave that event
    (``alpha_per_candidate``: its share of α/k), a Clopper–Pearson box that holds except with
    that probability; every measure's bound is a function of the same box
    (:mod:`dpquant.audit.statistics.measure_bounds`), so all of them hold together, over all
    events and points, except with probability at most α (Bonferroni, as the points' own
    bounds). The events were chosen on selection draws, never on the evaluation counts.

    Args:
        claim: A checked claim.
        proxies: The black-box points' audits.

    Returns:
        One :class:`MeasureBound` per measure of :func:`claim_event_measures`.
    """
    measures = claim_event_measures(claim)
    best = [
        MeasureBound(m.name, m.unit_label, m.claimed, -math.inf, math.nan, -1, (0, 0, 0, 0))
        for m in measures
    ]
    for index, proxy in enumerate(proxies):
        found = proxy.report.blackbox
        if found is None:
            continue
        for e in found.evaluated:
            for i, m in enumerate(measures):
                value, arg = m.lower_bound_with_argument(
                    e.k0, e.n0, e.k1, e.n1, found.alpha_per_candidate
                )
                bound = float(value)
                if bound > best[i].bound:
                    best[i] = MeasureBound(
                        m.name,
                        m.unit_label,
                        m.claimed,
                        bound,
                        float(arg),
                        index,
                        (e.k0, e.n0, e.k1, e.n1),
                    )
    return tuple(best)


def audit_claim(
    mech: Any,
    claim: Any = None,
    *,
    pairs: Iterable[tuple[Any, Any]] | None = None,
    domain: tuple[float, float] | None = None,
    samples: int | None = None,
    alpha: float = 1e-6,
    seed: int = 0,
    mode: str = "auto",
    relation: Any = None,
    executor: Executor | None = None,
    workers: int | None = None,
    options: AuditOptions | None = None,
) -> ClaimAuditReport:
    """Audit ``mech`` against a claim of any kind (module docstring).

    Args:
        mech: The mechanism (as for :func:`~dpquant.audit.audit_mechanism`); its ``claim`` may
            be of any kind.
        claim: The claim to audit (:class:`~dpquant.reference.PrivacyClaim`,
            :class:`~dpquant.reference.measures.ZCDPClaim`, ``RenyiClaim``, ``GDPClaim`` or
            ``ProfileClaim``), or None for ``mech.claim``.
        pairs: Neighbouring pairs for both parts, or None for the auditor's search.
        domain: The interval the search probes, inside ``mech.domain`` (as for
            ``audit_mechanism``); None: the mechanism's domain.
        samples: Draws per data set of each black-box point (as for ``audit_mechanism``).
        alpha: The confidence parameter of the black-box part, shared by its points.
        seed: The seed (point k uses seed + k).
        mode: ``"auto"`` (the exact part where the law is known, and the black-box part),
            ``"exact"`` or ``"blackbox"``.
        relation: A relation object (as for ``audit_mechanism``), or None.
        executor: A ``concurrent.futures.Executor`` that draws the black-box points' samples
            (as for ``audit_mechanism``), or None.
        workers: The worker processes that draw them when there is no ``executor`` (as for
            ``audit_mechanism``; None: the usable cores).
        options: :class:`~dpquant.audit.pipeline.options.AuditOptions` for the black-box points.

    Returns:
        The :class:`ClaimAuditReport`.

    Raises:
        ValueError: An argument out of range or a claim of no known kind (named), or as
            ``audit_mechanism`` raises.
    """
    chosen = check_any_claim(
        read_attribute(mech, "claim", "mech") if claim is None else claim,
        "mech.claim" if claim is None else "claim",
    )
    mode = check_choice(mode, "mode", MODES)
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    seed = check_int(seed, "seed", minimum=0, maximum=2**32 - 1 - len(PROXY_DELTAS))
    # checked now, whatever the mode: an argument a part would not use is still refused
    if samples is not None:
        samples = check_int(samples, "samples", minimum=10, maximum=MAX_SAMPLES)
    check_executor(executor)
    workers = resolve_workers(workers, executor)
    options = check_options(options)
    if mode == "exact" and not has_exact(mech):
        raise ParameterError(
            "mode", "may be 'exact' only for a mechanism with exact(data)", repr(mode)
        )
    notes: list[str] = []
    exact = None
    if mode != "blackbox" and has_exact(mech):
        exact = exact_measure(mech, chosen, pairs, relation, domain)
        if exact.undecided:
            notes.append(
                f"exact: {exact.undecided} of {exact.pairs} pairs ended with the claim inside "
                "the interval their search proved (a measure flat at the claim)"
            )
    proxies: list[ProxyAudit] = []
    partition: PartitionFinding | None = None
    if mode != "exact":
        points = proxy_points(chosen)
        if not points:
            notes.append("black-box: the claim implies no (ε, δ) point with ε > 0 and δ < 1")
        staged = isinstance(chosen, RenyiClaim | ZCDPClaim) and bool(points)
        share = alpha / (len(points) + staged)  # Bonferroni over the points and the stage
        for k, (eps, delta) in enumerate(points):
            proxy = PrivacyClaim(eps, delta, chosen.adjacency)
            report = audit_mechanism(
                ClaimOverride(mech, proxy),
                pairs=pairs,
                domain=domain,
                samples=samples,
                alpha=share,
                seed=seed + k,
                mode="blackbox",
                relation=relation,
                executor=executor,
                workers=None if executor is not None else workers,
                options=options,
            )
            proxies.append(ProxyAudit(eps, delta, report))
            done = _established(chosen, proxies)
            if k == 0 and not done and isinstance(chosen, RenyiClaim | ZCDPClaim):
                with DrawPool(mech, workers, notes) as pool:
                    partition = _partition(
                        chosen, mech, report, samples, share, seed, executor, options, pool
                    )
                done = partition is not None and partition.violation
            if done and k + 1 < len(points):
                notes.append(
                    f"black-box: stopped after {k + 1} of {len(points)} points, a violation "
                    "being established (the points not run keep their share of α unused)"
                )
                break
    bounds = measure_bounds(chosen, proxies) if proxies else ()
    return ClaimAuditReport(
        mechanism_name(mech), chosen, alpha, exact, tuple(proxies), bounds, tuple(notes), partition
    )


def _established(claim: AnyClaim, proxies: list[ProxyAudit]) -> bool:
    """Whether the points run so far refute the claim (an ε bound or a bound in its measure)."""
    if any(p.report.violation for p in proxies):
        return True
    return any(b.violation for b in measure_bounds(claim, proxies))


def best_candidate(claim: AnyClaim, report: AuditReport) -> EvaluatedCandidate | None:
    """The evaluated event of a black-box point with the largest bound in the claim's measures,
    relative to the claimed value (the excess where the claim is 0).

    Args:
        claim: A checked claim.
        report: A black-box point's report.

    Returns:
        The candidate, or None when the point evaluated none.
    """
    found = report.blackbox
    if found is None or not found.evaluated:
        return None
    measures = claim_event_measures(claim)

    def merit(e: EvaluatedCandidate) -> float:
        values = []
        for m in measures:
            b = float(m.lower_bound(e.k0, e.n0, e.k1, e.n1, found.alpha_per_candidate))
            values.append(b / m.claimed if m.claimed > 0 else b - m.claimed)
        return max(values)

    return max(found.evaluated, key=merit)


def _partition(
    claim: RenyiClaim | ZCDPClaim,
    mech: Any,
    report: AuditReport,
    samples: int | None,
    alpha: float,
    seed: int,
    executor: Executor | None,
    options: AuditOptions,
    pool: DrawPool,
) -> PartitionFinding | None:
    """The partition stage on the first point's best event (its seed: ``seed`` + the number of
    points, which no point uses), drawn by ``executor``, else by ``pool``."""
    candidate = best_candidate(claim, report)
    if candidate is None:
        return None
    return partition_stage(
        mech,
        claim,
        candidate,
        n_eval=PARTITION_SAMPLES_FACTOR * (DEFAULT_SAMPLES if samples is None else samples),
        alpha=alpha,
        seed=seed + len(PROXY_DELTAS),
        executor=executor,
        timeout=options.timeout,
        pool=None if executor is not None else pool,
    )


__all__ = [
    "EXHAUSTIVE_SIZE",
    "PARTITION_SAMPLES_FACTOR",
    "PROXY_DELTAS",
    "audit_claim",
    "best_candidate",
    "claim_event_measures",
    "exact_measure",
    "measure_bounds",
    "proxy_points",
]
