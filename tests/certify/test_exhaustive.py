"""Exhaustive verification of the implementations (issue 38, item 3): every registry mechanism's
small-domain table, the known-bad catalogue's certified violations and their checker
certificates, the docs page's table, and the refusals.

Run as a script (``python tests/certify/test_exhaustive.py``) to rewrite the catalogue's
certificates under ``proofs_checks/certificates/catalogue/``.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest

from dpquant.audit.suites.catalogue.entries import CATALOGUE, CONTROLS, CatalogueEntry
from dpquant.certify.certificates import CERTIFICATES, certificate_path, certify, dumps
from dpquant.certify.enclosures import (
    BUDGET,
    EXACT,
    LOG_ERROR_BUDGET,
    Enclosure,
    check_law,
    delta_enclosure,
    loss_enclosure,
)
from dpquant.certify.exhaustive import (
    SMALL_DOMAINS,
    UNDECIDED,
    VERIFIED,
    VERIFIED_IDENTITY,
    VIOLATION,
    ExhaustiveResult,
    check_neighbours,
    markdown_table,
    neighbouring_pairs,
    pair_count,
    pair_verdict,
    registry_results,
    verify_exhaustive,
)
from dpquant.certify.expressions import enclose
from dpquant.certify.specs import ClaimCertification
from dpquant.certify.tight import (
    CERTIFICATIONS as TIGHT_CERTIFICATIONS,
)
from dpquant.certify.tight import (
    GRID_LAPLACE,
    KEEP,
    OUE_Q,
    RANDOMIZED_RESPONSE,
    TIGHT_PROOFS,
    TightProof,
    law_matches,
    rr_log_law,
)
from dpquant.certify.violations import density_witness, log_density_text, violation_certification
from dpquant.reference import PrivacyClaim
from dpquant.reference.distributions import DiscreteLaw, PiecewiseLogLinear, ProductLaw
from dpquant.reference.exact import mp as mp_module
from dpquant.reference.primitives.randomized_response import RandomizedResponse
from dpquant.reference.registry import REGISTRY
from proofs_checks.certificate_checker import check_file

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "certified" / "exhaustive.md"

# Tight mechanisms: the loss of the exact law is exactly the claimed ε (randomized response and
# its uses, OUE, the grid Laplace report), so no enclosure of positive width decides "≤"; their
# exact route (dpquant.certify.tight) does.
TIGHT = {
    "randomized_response[eps=1]",
    "randomized_response[eps=0.1]",
    "aamand25_threshold_query[B=8,coin=4,eps=1]",
    "aamand25_hm_randomizer[B=4,b=2,oue,eps=1]",
    "fukuchi19_laplace_report[eps=1,grid=1/4]",
}


@cache
def results() -> dict[str, ExhaustiveResult]:
    return {r.name: r for r in registry_results()}


# -- the registry's tables -----------------------------------------------------------------------


def test_every_registry_entry_has_its_table() -> None:
    assert list(results()) == [e.name for e in REGISTRY]


@pytest.mark.parametrize("entry", REGISTRY, ids=[e.name for e in REGISTRY])
def test_registry_table(entry: Any) -> None:
    r = results()[entry.name]
    domain = SMALL_DOMAINS[entry.name]
    mech = entry.build()
    assert r.claim == mech.claim and r.relation == str(mech.claim.adjacency)
    if entry.pairs is not None:
        assert r.pairs == len(entry.pairs()) == 11
    else:
        assert r.pairs == pair_count(len(set(domain.grid)), domain.max_n, r.relation)
    assert r.largest_loss_lower <= r.largest_loss
    eps = mpmath.mpf(r.claim.epsilon)
    if entry.name in TIGHT:
        # the enclosure holds ε itself and decides neither way; the identities do
        assert r.verdict == VERIFIED_IDENTITY and r.passed and r.undecided_pairs == 0
        assert r.largest_loss_lower <= eps < r.largest_loss
        assert r.largest_loss - r.largest_loss_lower <= 5 * LOG_ERROR_BUDGET  # 2τ each way
    else:
        assert r.verdict == VERIFIED and r.passed and r.undecided_pairs == 0
        assert r.largest_loss <= eps


def test_the_tight_entries_are_exactly_those_with_an_exact_route() -> None:
    assert set(TIGHT_PROOFS) == TIGHT


def test_a_tight_mechanism_without_an_exact_route_stays_undecided() -> None:
    """No proof, a proof whose closed form is not the law, or a failed premise: undecided."""
    rr = RandomizedResponse(1.0)
    assert verify_exhaustive(rr, (0.0, 1.0), 1).verdict == UNDECIDED
    swapped = TightProof(RANDOMIZED_RESPONSE, lambda m, x: rr_log_law(m, 1 - x))
    assert verify_exhaustive(rr, (0.0, 1.0), 1, exact_proof=swapped).verdict == UNDECIDED
    refused = TightProof(RANDOMIZED_RESPONSE, rr_log_law, lambda m: False)
    assert verify_exhaustive(rr, (0.0, 1.0), 1, exact_proof=refused).verdict == UNDECIDED
    other_eps = RandomizedResponse(1.0 + 1e-12)  # a law 1e-12 away from the closed form at ε = 1
    assert not law_matches(TIGHT_PROOFS["randomized_response[eps=1]"], rr, 0.0,
                           other_eps.exact(np.array([0.0])))
    good = verify_exhaustive(rr, (0.0, 1.0), 1, exact_proof=TIGHT_PROOFS["randomized_response[eps=1]"])
    assert good.verdict == VERIFIED_IDENTITY and good.passed


def test_the_identity_texts_are_the_closed_forms() -> None:
    """The certificates' probabilities are the closed forms law_matches compares with: RR's keep,
    OUE's q (the implementation's ue_probabilities_mp), the grid report's atoms."""
    from dpquant.reference.distributed_quantiles.unary_encoding import ue_probabilities_mp
    from dpquant.reference.ldp_minimum import LaplaceReport
    from dpquant.reference.ldp_minimum.laplace_baseline import grid_noise_scale

    with mpmath.workdps(60):
        for eps in (1.0, 0.1):  # the float ε read exactly, as law_matches reads it
            point = {"eps": Fraction(eps)}
            keep = mpmath.mpf(enclose(KEEP, point, precision=256).mid().str(50, radius=False))
            assert abs(mpmath.log(keep) - rr_log_law(RandomizedResponse(eps), 1.0)[1]) < 1e-45
            q = mpmath.mpf(enclose(OUE_Q, point, precision=256).mid().str(50, radius=False))
            assert abs(q - ue_probabilities_mp(eps, "oue")[1]) < 1e-45
        report = LaplaceReport(1.0, grid=0.25)
        t = grid_noise_scale(1.0, 0.25)
        law = TIGHT_PROOFS["fukuchi19_laplace_report[eps=1,grid=1/4]"].log_law(report, 0.5)
        interior = "(1 - exp(-1/t))/(1 + exp(-1/t))*exp(-(k - i)/t)"
        end = "exp(-(M - i)/t)/(1 + exp(-1/t))"
        for text, k in ((interior, 7), (end, 164)):
            ball = enclose(text, {"t": t, "k": Fraction(k), "i": Fraction(2), "M": Fraction(164)},
                           precision=256)
            value = mpmath.mpf(ball.mid().str(50, radius=False))
            assert abs(mpmath.log(value) - law[k * 0.25]) < 1e-40
    assert GRID_LAPLACE.parts[1].goal.expression.startswith(interior)


def test_the_tight_certificates_are_current_and_accepted() -> None:
    for spec in TIGHT_CERTIFICATIONS:
        path = certificate_path(spec.claim)
        assert path.parent == CERTIFICATES / "catalogue"
        assert json.loads(path.read_text(encoding="utf-8")) == json.loads(dumps(certify(spec).data))
        assert check_file(path).claim == spec.claim


def test_the_table_values() -> None:
    """The largest losses, against closed forms: Smith's EM at the medians' worst pair, the
    fukuchi19 tight ratio 9 = e^{2 ln 3} under the float claim 2 ln 3 (rounded up), SliceQuantiles
    far below its ε = 16 (δ is not needed)."""
    r = results()
    fukuchi = r["fukuchi19_ldp_minimum[exp_u=3,L=2,gamma=0.5]"]
    assert fukuchi.basis == EXACT
    assert fukuchi.largest_loss_lower <= mpmath.log(9) <= fukuchi.largest_loss
    assert fukuchi.largest_loss < mpmath.mpf(fukuchi.claim.epsilon)
    em = r["exponential_quantile[q=0.5,eps=1,replace_one]"]
    e = mpmath.e
    closed = mpmath.mpf(0.5) + mpmath.log((3 * mpmath.sqrt(e) + 1) / (mpmath.sqrt(e) + 3))
    assert em.largest_loss_lower <= closed <= em.largest_loss
    sq = r["imola25_slice_quantiles[m=2,h=1,eps1=8,eps2=4,add_remove]"]
    assert sq.basis == BUDGET and sq.largest_delta is None and sq.largest_loss < 5


def test_the_budget_is_generous_at_120_digits() -> None:
    """The laws that trust LOG_ERROR_BUDGET, recomputed at 120 digits: their stored 60-digit
    log-probabilities agree to 1e-50, far inside the budget of 1e-30 (evidence, not proof)."""
    checked = 0
    for entry in REGISTRY:
        if entry.name not in TIGHT:
            continue
        mech = entry.build()
        for x in entry.grid[:3]:
            low = mech.exact(np.array([x]))
            saved, saved_dps = mp_module.DPS, mpmath.mp.dps
            mp_module.DPS, mpmath.mp.dps = 120, 120
            try:
                high = mech.exact(np.array([x]))
            finally:
                mp_module.DPS, mpmath.mp.dps = saved, saved_dps
            assert low.support == high.support
            for a, b in zip(low.logp, high.logp, strict=True):
                assert abs(a - b) < mpmath.mpf(10) ** -50
                checked += 1
    assert checked > 20


# -- the catalogue -------------------------------------------------------------------------------

EXACT_CATALOGUE = [e for e in CATALOGUE if hasattr(e.mechanism, "exact") and e.name != "em_underflow"]


def test_em_underflow_is_the_one_entry_without_an_exact_law() -> None:
    assert {e.name for e in CATALOGUE} - {e.name for e in EXACT_CATALOGUE} == {"em_underflow"}


def _witness(entry: CatalogueEntry) -> ExhaustiveResult:
    assert entry.witness is not None
    return verify_exhaustive(
        entry.mechanism, pairs=[entry.witness], name=entry.name, domain="its witness pair"
    )


@pytest.mark.parametrize("entry", EXACT_CATALOGUE, ids=[e.name for e in EXACT_CATALOGUE])
def test_catalogue_violation_is_certified(entry: CatalogueEntry) -> None:
    r = _witness(entry)
    assert r.verdict == VIOLATION and not r.passed
    assert r.largest_loss_lower > r.claim.epsilon
    assert entry.epsilon_exact is not None
    if math.isinf(entry.epsilon_exact):
        assert mpmath.isinf(r.largest_loss_lower)
    else:
        # the entry records its exact loss as a float: equal to the enclosure to the float's digits
        assert float(r.largest_loss_lower) == pytest.approx(entry.epsilon_exact, rel=1e-15)
        assert r.largest_loss - r.largest_loss_lower < 1e-25


@pytest.mark.parametrize("entry", CONTROLS, ids=[e.name for e in CONTROLS])
def test_catalogue_controls_are_not_violations(entry: CatalogueEntry) -> None:
    r = _witness(entry)
    assert r.verdict == (UNDECIDED if entry.name == "control_randomized_response" else VERIFIED)


def _rr_wrong_flip(entry: CatalogueEntry) -> ClaimCertification:
    """Its keep probability 1 − e^{−ε}/2, written from the mechanism's definition (the law's
    60-digit values carry no exact form), and checked against the implemented law."""
    eps = Fraction(entry.mechanism.epsilon)
    log_p, log_q = "log(1 - exp(-eps)/2)", "log(exp(-eps)/2)"
    p = entry.mechanism.exact(np.array([0.0]))
    q = entry.mechanism.exact(np.array([1.0]))
    for text, stored in ((log_p, p.logpmf_mp(0)), (log_q, q.logpmf_mp(0))):
        ball = enclose(text, {"eps": eps}, precision=256)
        lo = mpmath.mpf(ball.lower().str(70, radius=False)) - LOG_ERROR_BUDGET
        hi = mpmath.mpf(ball.upper().str(70, radius=False)) + LOG_ERROR_BUDGET
        assert lo <= stored <= hi
    return violation_certification(
        "catalogue/rr-wrong-flip",
        log_p,
        log_q,
        entry.mechanism.epsilon,
        {},
        statement="randomized response keeping the bit with probability 1 - e^-eps/2 is not "
        "eps-LDP: report 0 has likelihood ratio 2e^eps - 1 > e^eps between inputs 0 and 1",
        domain="inputs 0 and 1, report 0, eps = 1",
    )


def _density(entry: CatalogueEntry) -> ClaimCertification | None:
    """The densities of both laws at a point where their log-ratio exceeds ε, from the laws'
    exact parameters (None when they are not exact rationals)."""
    assert entry.witness is not None
    p, q = (entry.mechanism.exact(np.array(d)) for d in entry.witness)
    comps = list(zip(p.components, q.components, strict=True)) if isinstance(p, ProductLaw) else [(p, q)]
    forward = [density_witness(a, b) for a, b in comps]
    backward = [density_witness(b, a) for a, b in comps]
    if sum(v for _, v in backward) > sum(v for _, v in forward):
        p, q, forward = q, p, backward
    at: Any = tuple(y for y, _ in forward) if isinstance(p, ProductLaw) else forward[0][0]
    log_p, log_q = log_density_text(p, at), log_density_text(q, at)
    if log_p is None or log_q is None:
        return None
    point = {f"y{i}": y for i, (y, _) in enumerate(forward)} if isinstance(p, ProductLaw) else {"y": at}
    return violation_certification(
        f"catalogue/{entry.name.replace('_', '-')}",
        log_p,
        log_q,
        entry.mechanism.claim.epsilon,
        point,
        statement=f"{entry.description}: the densities of its exact laws on the witness pair "
        "have a log-ratio above the claimed eps at an interior point of a cell of their merged "
        "breakpoints (so on a set of positive measure)",
        domain=f"the witness pair {[list(d) for d in entry.witness]}, the point given",
    )


NOT_WRITABLE = {
    "em_no_width": "its intercepts are 60-digit mpf logarithms, no exact expression",
    "em_no_clamp": "infinite loss: Q vanishes where P has mass, log(0) is not an expression",
    "em_data_bounds": "infinite loss: Q vanishes where P has mass",
    "em_outputs_data_value": "infinite loss: disjoint atoms",
    "median_local_sensitivity_laplace": "infinite loss: an atom against a density",
}


def catalogue_certifications() -> list[ClaimCertification]:
    out = []
    for entry in EXACT_CATALOGUE:
        if entry.name == "rr_wrong_flip":
            out.append(_rr_wrong_flip(entry))
        elif entry.name not in NOT_WRITABLE:
            spec = _density(entry)
            assert spec is not None, entry.name
            out.append(spec)
    return out


def test_the_catalogue_certificates_are_current_and_accepted() -> None:
    specs = catalogue_certifications()
    assert {s.claim for s in specs} == {
        "catalogue/rr-wrong-flip",
        "catalogue/em-no-half",
        "catalogue/tzamos20-paper-algorithm-1",
        "catalogue/multi-quantile-full-budget",
    }
    for spec in specs:
        path = certificate_path(spec.claim)
        assert path.parent == CERTIFICATES / "catalogue"
        assert json.loads(path.read_text(encoding="utf-8")) == json.loads(dumps(certify(spec).data))
        assert check_file(path).claim == spec.claim


def test_the_unwritable_violations_have_no_exact_expression() -> None:
    entry = next(e for e in CATALOGUE if e.name == "em_no_width")
    assert entry.witness is not None
    p = entry.mechanism.exact(np.array(entry.witness[0]))
    y, _ = density_witness(p, p)
    assert log_density_text(p, y) is None


# -- the docs page -----------------------------------------------------------------------------


def test_the_docs_page_shows_the_computed_table() -> None:
    text = PAGE.read_text(encoding="utf-8")
    start, end = "<!-- exhaustive-table -->", "<!-- /exhaustive-table -->"
    table = text.split(start)[1].split(end)[0].strip()
    assert table == markdown_table(list(results().values()))


# -- failures are never a pass, and refusals ------------------------------------------------------


class _Broken(RandomizedResponse):
    """A randomized response whose exact law fails in a given way."""

    def __init__(self, how: str):
        super().__init__(1.0)
        object.__setattr__(self, "how", how)

    def _law(self, data: int) -> Any:
        if self.how == "raises":
            raise RuntimeError("no law")
        if self.how == "nan":
            law = DiscreteLaw([0, 1], [0.0, 0.0])
            law.logp = (mpmath.mpf("nan"), mpmath.mpf(0))
            return law
        return "not a law"


@pytest.mark.parametrize("how", ["raises", "nan", "other"])
def test_a_law_that_cannot_be_judged_is_an_error(how: str) -> None:
    with pytest.raises(ValueError, match="Broken|law"):
        verify_exhaustive(_Broken(how), (0.0, 1.0), 1, name="Broken")


def test_a_nan_law_is_refused_by_check_law() -> None:
    law = DiscreteLaw([0, 1], [0.0, 0.0])
    law.logp = (mpmath.mpf("nan"), mpmath.mpf(0))
    with pytest.raises(ValueError, match="NaN"):
        check_law(law)
    with pytest.raises(ValueError, match="law"):
        check_law("x")


def test_an_undecided_pair_is_never_a_pass() -> None:
    claim = PrivacyClaim(1.0, 0.0, "local")
    tight = Enclosure(mpmath.mpf("0.999"), mpmath.mpf("1.001"), EXACT)
    assert pair_verdict(tight, None, claim) == UNDECIDED
    assert pair_verdict(tight, None, PrivacyClaim(1.0, 1e-6, "local")) == UNDECIDED
    wide = Enclosure(mpmath.mpf(0), mpmath.mpf(1e-7), EXACT)
    assert pair_verdict(tight, wide, PrivacyClaim(1.0, 1e-6, "local")) == VERIFIED
    assert pair_verdict(tight, Enclosure(mpmath.mpf(1e-5), mpmath.mpf(2e-5), EXACT),
                        PrivacyClaim(1.0, 1e-6, "local")) == VIOLATION
    assert pair_verdict(Enclosure(mpmath.mpf("1.01"), mpmath.mpf("1.02"), EXACT), None, claim) == VIOLATION


def test_enclosures_of_simple_laws() -> None:
    p = DiscreteLaw.from_probabilities([0, 1], [Fraction(3, 4), Fraction(1, 4)])
    q = DiscreteLaw.from_probabilities([0, 1], [Fraction(1, 4), Fraction(3, 4)])
    loss = loss_enclosure(p, q)
    assert loss.basis == EXACT and loss.lo <= mpmath.log(3) <= loss.hi and loss.hi - loss.lo < 1e-50
    delta = delta_enclosure(p, q, 0.5)
    assert delta is not None
    exact = mpmath.mpf(3) / 4 - mpmath.exp(0.5) / 4
    assert delta.lo <= exact <= delta.hi
    density = PiecewiseLogLinear([0.0, 1.0], [0.0], [0.0])
    singular = loss_enclosure(p, density)
    assert mpmath.isinf(singular.lo)
    one = delta_enclosure(p, density, 1.0)
    assert one is not None and one.lo == one.hi == 1
    assert delta_enclosure(density, density, 1.0) is None


def test_pair_counts_and_neighbours() -> None:
    grid = (0.0, 1.0, 2.0)
    for relation in ("local", "add_remove", "replace_one"):
        for n in (1, 2, 3):
            pairs = neighbouring_pairs(grid, n, relation)
            assert len(pairs) == pair_count(3, n, relation) == len(set(pairs))
            for d0, d1 in pairs:
                check_neighbours(d0, d1, relation)
    assert pair_count(9, 4, "replace_one") == 7920 and pair_count(9, 4, "add_remove") == 1980
    with pytest.raises(ValueError, match="pairs"):
        check_neighbours((0.0, 1.0), (2.0, 3.0), "replace_one")
    with pytest.raises(ValueError, match="pairs"):
        check_neighbours((0.0,), (0.0, 1.0, 2.0), "add_remove")


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: neighbouring_pairs((), 1, "local"), "grid"),
        (lambda: neighbouring_pairs((0.0, float("nan")), 1, "local"), "grid"),
        (lambda: neighbouring_pairs((0.0, 1.0), 0, "replace_one"), "max_n"),
        (lambda: neighbouring_pairs((0.0, 1.0), 1, "custom"), "relation"),
        (lambda: neighbouring_pairs(tuple(range(60)), 6, "replace_one"), "max_n"),
        (lambda: pair_count(0, 1, "local"), "values"),
        (lambda: verify_exhaustive(object(), (0.0,), 1), "mechanism"),
        (lambda: verify_exhaustive(RandomizedResponse(1.0)), "grid"),
        (lambda: verify_exhaustive(RandomizedResponse(1.0), (0.0, 1.0), 1, name=""), "name"),
        (lambda: verify_exhaustive(RandomizedResponse(1.0), pairs=[]), "pairs"),
        (lambda: verify_exhaustive(RandomizedResponse(1.0), pairs=[((0.0,), (0.0,))]), "pairs"),
        (lambda: pair_verdict("x", None, PrivacyClaim(1.0)), "loss"),  # type: ignore[arg-type]
        (lambda: delta_enclosure(DiscreteLaw([0], [0]), DiscreteLaw([0], [0]), float("inf")), "epsilon"),
        (lambda: markdown_table(["x"]), "results"),  # type: ignore[list-item]
        (lambda: violation_certification("x/y", "1", "0", 1.0, {}, statement="", domain=""), "claim"),
        (lambda: log_density_text(DiscreteLaw([0], [0]), 5), "at"),
    ],
)
def test_bad_input_is_refused_by_name(call: Any, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()


def write_catalogue_certificates() -> None:
    """Rewrite the catalogue's certificates (run this file as a script)."""
    for spec in [*catalogue_certifications(), *TIGHT_CERTIFICATIONS]:
        certified = certify(spec)
        path = certificate_path(spec.claim)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps(certified.data), encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)} ({certified.seconds:.2f} s)")


if __name__ == "__main__":
    write_catalogue_certificates()
    sys.exit(0)
