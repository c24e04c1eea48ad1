"""Claims of every kind (issue 37): draws, seconds and verdicts of ``audit_claim`` on the
Gaussian, Laplace and discrete Gaussian counts, each at the configuration that meets the claim
exactly and at 0.8 of its noise scale.

The claim of each row is the *exact* one of the correct configuration: for the Gaussian the
closed forms (μ = 1/σ, ρ = 1/(2σ²), D_α = α/(2σ²), its GDP profile at four points); for the
Laplace count its exact measures computed from its exact laws
(:mod:`dpquant.reference.measures.pair_measures`: ρ and μ located, D_α at each order), rounded
up at the tenth digit; for the discrete Gaussian ρ = 1/(2σ²). The broken row keeps the claim and
draws with 0.8 of the scale.

Run: ``.venv/bin/python benchmarks/bench_measures.py [--seeds K] [--mode blackbox|auto]
[--only ROWS] [--samples N]``. "draws" counts every black-box draw: the points run (the audit
stops at the first that establishes a violation) and the partition stage of Rényi and zCDP
claims.
``--seeds K`` repeats the correct configurations over seeds 0..K−1 at the default α (1e-6),
printing each seed's verdict as it comes and then how many raised a false alarm (the issue asks
for none over 50 seeds). ``--only`` takes comma-separated row names or prefixes
(``--only gaussian/approx,aq/``).
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import numpy as np

from dpquant.audit import audit_claim
from dpquant.reference import PrivacyClaim
from dpquant.reference.distributions import hockey_stick
from dpquant.reference.measures import GDPClaim, ProfileClaim, RenyiClaim, ZCDPClaim
from dpquant.reference.measures.conversions import gdp_delta
from dpquant.reference.measures.pair_measures import gdp_of_pair, renyi_of_pair, zcdp_of_pair
from dpquant.reference.primitives import DiscreteGaussianCount, GaussianCount, LaplaceCount
from dpquant.reference.primitives.laplace import laplace_law

ADJ = "add_remove"
ORDERS = (2.0, 8.0)


def _up(x: Any) -> float:
    return float(x) * (1 + 1e-10)


def gaussian_rows() -> list[tuple[str, Any, Any, Any]]:
    sigma = 1.0
    profile = ProfileClaim(
        tuple((e, _up(gdp_delta(1 / sigma, e))) for e in (0.5, 1.0, 2.0, 3.0)), adjacency=ADJ
    )
    claims = {
        "gdp": GDPClaim(1 / sigma, adjacency=ADJ),
        "zcdp": ZCDPClaim(1 / (2 * sigma**2), adjacency=ADJ),
        "renyi": RenyiClaim({a: a / (2 * sigma**2) for a in ORDERS}, adjacency=ADJ),
        "profile": profile,
        "approx": PrivacyClaim(1.0, _up(gdp_delta(1 / sigma, 1.0)), ADJ),
    }
    return [
        (f"gaussian/{k}", GaussianCount(sigma, ADJ), GaussianCount(0.8 * sigma, ADJ), c)
        for k, c in claims.items()
    ]


def laplace_rows() -> list[tuple[str, Any, Any, Any]]:
    epsilon = 1.0  # scale b = 1/ε; the broken count has scale 0.8·b, i.e. ε = 1.25
    p, q = laplace_law(0.0, 1 / epsilon), laplace_law(1.0, 1 / epsilon)
    rho = _up(zcdp_of_pair(p, q).upper)
    mu = _up(gdp_of_pair(p, q).upper)
    renyi = {a: _up(renyi_of_pair(p, q, a)) for a in ORDERS}
    claims = {
        "pure": PrivacyClaim(epsilon, 0.0, ADJ),
        "zcdp": ZCDPClaim(rho, adjacency=ADJ),
        "gdp": GDPClaim(mu, adjacency=ADJ),
        "renyi": RenyiClaim(renyi, adjacency=ADJ),
        "profile": _exact_profile(p, q, (0.25, 0.5, 0.75)),
    }
    return [
        (f"laplace/{k}", LaplaceCount(epsilon, ADJ), LaplaceCount(epsilon / 0.8, ADJ), c)
        for k, c in claims.items()
    ]


def _exact_profile(p: Any, q: Any, epsilons: tuple[float, ...]) -> ProfileClaim:
    """The pair's exact profile (both directions) at ``epsilons``, rounded up."""
    points = tuple((e, _up(max(hockey_stick(p, q, e), hockey_stick(q, p, e)))) for e in epsilons)
    return ProfileClaim(points, adjacency=ADJ)


def discrete_gaussian_rows() -> list[tuple[str, Any, Any, Any]]:
    """ρ = 1/(2σ²) and D_α = α/(2σ²) (Canonne, Kamath and Steinke 2020, Theorem 4); μ and the
    profile are the exact ones of the pair {1} against {} (the count's worst pair: the law is
    shift-invariant on its window), rounded up."""
    sigma = 2.0
    good = DiscreteGaussianCount(sigma, ADJ)
    p, q = good.exact(np.array([1.0])), good.exact(np.array([]))
    claims = {
        "zcdp": ZCDPClaim(1 / (2 * sigma**2), adjacency=ADJ),
        "renyi": RenyiClaim({a: a / (2 * sigma**2) for a in ORDERS}, adjacency=ADJ),
        "gdp": GDPClaim(_up(gdp_of_pair(p, q).upper), adjacency=ADJ),
        "profile": _exact_profile(p, q, (0.25, 0.5, 1.0)),
    }
    return [
        (f"discrete_gaussian/{k}", good, DiscreteGaussianCount(0.8 * sigma, ADJ), c)
        for k, c in claims.items()
    ]


def baseline_rows() -> list[tuple[str, Any, Any, Any]]:
    """imola25's AQ (zCDP mode, one quantile) at its ρ and JointExp at ε²/8, under add/remove;
    broken: AQ with 0.64 of its composition (ε' × 1.25), JointExp with 0.8 of its sensitivity
    (its weight × 1.25): the noise scales × 0.8."""
    from dpquant.reference.slice_quantiles.aq_mechanism import ApproximateQuantilesMechanism
    from dpquant.reference.slice_quantiles.joint_exp_mechanism import JointExpMechanism

    aq = ApproximateQuantilesMechanism(
        (0.5,), 1.0, (0.0, 1.0), adjacency=ADJ, mode="zcdp", delta=1e-6
    )
    aq_bad = ApproximateQuantilesMechanism(
        (0.5,),
        1.0,
        (0.0, 1.0),
        adjacency=ADJ,
        mode="zcdp",
        delta=1e-6,
        composition=0.64 * 8 * aq.rho / aq.epsilon_per_call**2,  # ε' = sqrt(8ρ/comp): × 1.25
    )
    joint = JointExpMechanism((0.5,), 1.0, (0.0, 1.0), adjacency=ADJ)
    joint_bad = JointExpMechanism(
        (0.5,), 1.0, (0.0, 1.0), adjacency=ADJ, sensitivity=0.8 * joint.delta_u
    )
    rows = []
    for name, good, bad in (("aq", aq, aq_bad), ("joint_exp", joint, joint_bad)):
        rho = good.zcdp_claim.rho
        rows.append((f"{name}/zcdp", good, bad, good.zcdp_claim))
        # ρ-zCDP is D_α <= αρ at every order: the Rényi claim it implies at two orders
        renyi = RenyiClaim({a: a * rho for a in ORDERS}, adjacency=ADJ)
        rows.append((f"{name}/renyi", good, bad, renyi))
    return rows


def run(
    mech: Any, claim: Any, seed: int, mode: str, samples: int | None = None
) -> tuple[Any, float, int]:
    start = time.perf_counter()
    report = audit_claim(mech, claim, seed=seed, mode=mode, samples=samples)
    draws = report.draws
    return report, time.perf_counter() - start, draws


def describe(report: Any) -> str:
    parts = [f"{b.label} >= {b.bound:.4g}" for b in report.bounds if math.isfinite(b.bound)]
    if report.partition is not None:
        cells = len(report.partition.counts0)
        parts += [
            f"partition ({cells} cells) {b.label} >= {b.bound:.4g}" for b in report.partition.bounds
        ]
    parts.append(f"{len(report.proxies)} point(s)")
    if report.exact is not None:
        parts.append(f"exact {report.exact.value:.5g} (claimed {report.exact.claimed:.5g})")
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=0)
    parser.add_argument("--mode", default="blackbox", choices=("blackbox", "auto"))
    parser.add_argument(
        "--only",
        default="",
        help="only the rows named: comma-separated names (gaussian/gdp) or prefixes (laplace/)",
    )
    parser.add_argument("--no-table", action="store_true", help="only the seed study")
    parser.add_argument("--samples", type=int, default=None, help="samples per final candidate")
    args = parser.parse_args()
    rows = gaussian_rows() + laplace_rows() + discrete_gaussian_rows() + baseline_rows()
    wanted = [w for w in args.only.split(",") if w]
    rows = [r for r in rows if not wanted or any(r[0].startswith(w) for w in wanted)]
    print(f"{'row':<26} {'config':<8} {'verdict':<20} {'draws':>10} {'seconds':>8}  bounds")
    for name, good, bad, claim in [] if args.no_table else rows:
        for label, mech in (("correct", good), ("0.8x", bad)):
            report, seconds, draws = run(mech, claim, 0, args.mode, args.samples)
            print(
                f"{name:<26} {label:<8} {report.verdict:<20} {draws:>10} {seconds:8.1f}  "
                f"{describe(report)}"
            )
    for name, good, _, claim in rows if args.seeds else []:
        alarms = 0
        for seed in range(args.seeds):  # each seed's line as it comes: a long study's progress
            report, seconds, draws = run(good, claim, seed, "blackbox", args.samples)
            alarms += report.violation
            print(f"{name} seed {seed}: {report.verdict}, {draws} draws, {seconds:.1f} s", flush=True)
        print(f"false alarms over {args.seeds} seeds, {name}: {alarms}", flush=True)


if __name__ == "__main__":
    main()
