"""The auditor on tzamos20's PRIVATEMEDIAN (issue 7 item 4; erratum E1 of ``notes/tzamos20.md``).

* ``mode="paper"`` (Algorithm 1 as printed) is reported as a violation by ``audit_mechanism``
  with its OWN neighbour search — no pair is given. Its split-at-the-median pattern (two clusters,
  one record moved across) gives neighbours that both lie in the typical set H with medians far
  apart; the exact loss exceeds ε and the black-box bound certifies it.
* ``mode="extension"`` (the default) and ``mode="fixed"`` pass: the exact loss on every searched
  pair is <= ε, the black-box bound stays below ε and the sampler conforms to the exact law.
* ``output="continuous"`` (the sampler's raw doubles) is caught although its exact law is private:
  neighbours put their float outputs on different lattices of doubles (Mironov 2012), which the
  likelihood-ratio event exposes; the default grid output closes it.

"No violation" audits run at α = 1e-9 for the black-box bound and each conformance test; with
the four such audits here a correct mechanism fails this module with probability < 1e-8.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from dpquant.audit import AuditOptions, audit_mechanism
from dpquant.reference.distributions import certified_privacy_loss
from dpquant.reference.private_median.mechanism import PrivateMedian
from dpquant.reference.private_median.typical_set import in_typical_set

pytestmark = pytest.mark.audit

FP_ALPHA = 1e-9
SAMPLES = 100_000
FIX = dict(L=F(1, 2), r=F(1), R=F(5), C=F(1))


def test_auditor_finds_the_paper_modes_violation_without_a_given_pair() -> None:
    """Algorithm 1 as printed, ε = 1: the auditor's own search finds neighbours, both in H, whose
    exact loss exceeds ε; the witness is re-checked independently (certified interval)."""
    mech = PrivateMedian(epsilon=1, mode="paper", **FIX)
    r = audit_mechanism(mech, seed=0, samples=SAMPLES)
    assert r.violation, r.summary()
    assert r.epsilon_exact is not None and r.epsilon_exact > 1
    assert r.epsilon_lower_bound > 1  # the black-box bound alone certifies it (1 − 1e-6)
    d0, d1 = r.witness.data, r.witness.data_prime
    params = mech.parameters(len(d0))
    assert in_typical_set(d0, params) and in_typical_set(d1, params)
    loss = certified_privacy_loss(mech.exact(d0), mech.exact(d1))
    assert mpmath.mpf(loss.a) > 1
    extension = PrivateMedian(epsilon=1, **FIX)
    assert mpmath.mpf(certified_privacy_loss(extension.exact(d0), extension.exact(d1)).b) <= 1


@pytest.mark.parametrize(
    "mech", [PrivateMedian(F(2, 5), 1, 2, F(5, 4), F(1, 2))], ids=["extension-study-constants"]
)
def test_extension_and_fixed_modes_pass_their_audit(mech) -> None:
    """Prop. A.5(a) (and its H_fix variant) on the searched family: exact loss <= ε, black-box
    bound <= ε, sampler conformant on the witness. The extension and the fixed mode at the
    constants of ``FIX`` (L = 1/2, r = 1, R = 5, C = 1, ε = 1) are the registry's
    ``tzamos20_private_median[extension,…]`` and ``[fixed,…]``, whose default audits (more draws
    than ``SAMPLES``, at FP_ALPHA = 1e-9) tests/audit/test_audit_acceptance.py checks for the same
    four properties; here the study's constants (L = 2/5, r = 1, R = 2, C = 5/4, ε = 1/2)."""
    r = audit_mechanism(mech, seed=0, alpha=FP_ALPHA, samples=SAMPLES)
    assert not r.violation, r.summary()
    assert r.epsilon_exact is not None and r.epsilon_exact <= float(mech.epsilon) + 1e-12
    assert r.epsilon_lower_bound <= float(mech.epsilon)
    assert r.sampler_conforms, r.conformance


def test_float_output_is_caught_by_the_auditor_although_its_law_is_private() -> None:
    """output="continuous": the exact loss on the searched pairs is <= ε, yet the black-box bound
    exceeds ε with confidence 1 − 1e-6 — a leak of the float realisation, not of the law. The
    float-lattice events find it by design: the neighbours' draws sit on different lattices of
    doubles (``test_float_output_puts_neighbours_on_different_lattices_of_doubles``)."""
    mech = PrivateMedian(epsilon=1, output="continuous", **FIX)
    r = audit_mechanism(mech, seed=0, samples=SAMPLES, options=AuditOptions(float_lattice=True))
    assert r.violation, r.summary()
    assert r.epsilon_exact is not None and r.epsilon_exact <= 1
    assert r.epsilon_lower_bound > 1 and r.witness.source == "blackbox"
    assert r.witness.event.lattice is not None  # found by the float-lattice events, by design


def test_grid_output_passes_the_audit_with_the_float_lattice_events() -> None:
    """The default grid output (every input has the same possible outputs, the multiples of Λ)
    stays private under the float-lattice events that catch the continuous output."""
    mech = PrivateMedian(epsilon=1, **FIX)
    r = audit_mechanism(mech, seed=0, alpha=FP_ALPHA, samples=SAMPLES, options=AuditOptions(float_lattice=True))
    assert not r.violation, r.summary()
