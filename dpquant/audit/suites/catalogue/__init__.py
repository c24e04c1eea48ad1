"""A catalogue of known-bad quantile mechanisms with exact answers: known-answer tests for the auditor.

Each entry is a small, picklable mechanism (it satisfies :class:`dpquant.reference.core.Mechanism`) whose
privacy claim is *false*, together with a neighbouring pair on which its exact privacy loss is
known (:class:`CatalogueEntry`). The auditor is never given these witnesses: it must find its own
pairs and events. The catalogue checks it in two ways:

* **power** -- run on a catalogue entry, the auditor should report a violation;
* **soundness** -- its lower bound must never exceed the entry's exact privacy loss
  ``epsilon_exact`` when it is audited on the entry's witness.

A few correct mechanisms (:data:`CONTROLS`) are listed beside them, with their exact loss on the
same witnesses: the auditor must *not* report a violation on those.

Where the output law has a closed form the mechanism offers ``exact(data)`` (a
:class:`~dpquant.reference.distributions.DiscreteLaw` or
:class:`~dpquant.reference.distributions.PiecewiseLogLinear` with exact parameters) and its vectorised
sampler is tested against it (``tests/audit/suites/test_catalogue.py``); the others are black-box entries.

Modules, one per family of bad mechanisms:

* :mod:`.em_weights` -- exponential mechanisms with wrong weights (B1, B3, linear-space underflow);
* :mod:`.em_support` -- exponential mechanisms whose output support depends on the data (B4, B5,
  the data points released);
* :mod:`.local_sensitivity` -- the median with Laplace noise scaled to the local sensitivity (B7);
* :mod:`.wrong_flip` -- randomized response with a mis-derived keep probability;
* :mod:`.composition` -- several quantiles, each with the full budget (B8);
* :mod:`.repeated_answers` -- aamand25's user answering more than one query at full ε (its local
  randomizer and DpNaiveNBS); imported from the module, audited by the aamand25 tests, not (yet)
  an entry of :data:`CATALOGUE`;
* :mod:`.base` -- the fields and exponential-mechanism arithmetic they share;
* :mod:`.entries` -- the entries (:data:`CATALOGUE`, :data:`CONTROLS`) and their exact values.

Sources of the bugs (the labels B1–B8 and the exact values are explained in ``notes/auditor.md``,
"Catalogue"):

* SmartNoise-SQL issue #572 and diffprivlib issue #107: linear-space exponential-mechanism
  weights underflow and the mechanism raises on some data sets and not on their neighbours;
* Nissim, Raskhodnikova and Smith, "Smooth sensitivity and sampling in private data analysis"
  (STOC 2007, NRS07): the median with Laplace noise scaled to the *local* sensitivity;
* Smith, "Privacy-preserving statistical estimation with optimal convergence rates" (STOC 2011):
  the exponential mechanism over the intervals between clamped data points (the correct version,
  :class:`dpquant.reference.primitives.exponential_mechanism.ExponentialQuantile`);
* the Google differential-privacy library's quantile tests (data at ±1000, far outside the
  bounds, "to check that bounding is applied correctly") and diffprivlib's ``PrivacyLeakWarning``
  when the bounds are computed from the data;
* Warner (1965) randomized response, with a mis-derived keep probability;
* sequential composition (Dwork and Roth 2014, Thm 3.16) for the multi-quantile release;
* Tzamos, Vlatakis-Gkaragkounis and Zadik (NeurIPS 2020), Algorithm 1 as printed: the restricted
  flattened Laplace on their typical set H is not ε/2-DP (Lemma 3.3 is false; ties at the median
  count on both sides of H's windows), so the shortcut "X ∈ H ⇒ sample Â(X)" loses (ε/4)·Lrn.
"""

from dpquant.audit.suites.catalogue.composition import (
    MAX_QUANTILES,
    MultiQuantileFullBudget,
    multi_quantile_exact_epsilon,
)
from dpquant.audit.suites.catalogue.em_support import EMDataBounds, EMNoClamp, EMOutputsDataValue
from dpquant.audit.suites.catalogue.em_weights import EMNoHalf, EMNoWidth, EMUnderflow
from dpquant.audit.suites.catalogue.entries import (
    CATALOGUE,
    CONTROLS,
    CatalogueEntry,
    catalogue_entry,
)
from dpquant.audit.suites.catalogue.local_sensitivity import MedianLocalSensitivityLaplace
from dpquant.audit.suites.catalogue.wrong_flip import RRWrongFlip, wrong_keep_probability_mp

__all__ = [
    "CATALOGUE",
    "CONTROLS",
    "CatalogueEntry",
    "EMDataBounds",
    "EMNoClamp",
    "EMNoHalf",
    "EMNoWidth",
    "EMOutputsDataValue",
    "EMUnderflow",
    "MAX_QUANTILES",
    "MedianLocalSensitivityLaplace",
    "MultiQuantileFullBudget",
    "RRWrongFlip",
    "catalogue_entry",
    "multi_quantile_exact_epsilon",
    "wrong_keep_probability_mp",
]
