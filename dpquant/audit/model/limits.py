"""The ranges of the auditor's arguments, checked before anything is drawn (the ``audit_mechanism``
contract in ``docs/DESIGN.md``; :mod:`dpquant.audit.pipeline.runner`, "What it refuses")."""

from __future__ import annotations

DEFAULT_SAMPLES = 400_000
"""Draws per data set for each final candidate when ``samples`` is not given."""
MAX_SAMPLES = 10**10
"""The most draws per data set an audit may be asked for (``samples``; refused before anything is
drawn). Memory does not grow with it (selection and the tightening screen are capped, the
evaluation is counted block by block, :mod:`dpquant.audit.pipeline.stage3_evaluation`); time does: 10**10 draws of a
fast mechanism take hours."""
MIN_MAX_DRAWS = 100_000
"""The smallest total budget ``max_draws``: a search screens a few hundred candidates at least
16 draws a side, and what it leaves must still bound ε (:mod:`dpquant.audit.pipeline.budget`)."""
MAX_MAX_DRAWS = 10**12
"""The largest total budget ``max_draws``."""
MIN_ALPHA = 1e-100
"""The smallest confidence parameter α (smaller ones underflow in the Clopper–Pearson tails)."""
MAX_SEED = 2**128 - 1
"""Seeds are integers in [0, 2**128 − 1] (numpy's ``SeedSequence`` entropy)."""
MAX_TIMEOUT = 86_400.0
"""The largest per-draw time limit, in seconds (one day)."""
MIN_TIMEOUT = 0.001
"""The smallest per-draw time limit, in seconds (handing a call to the helper thread alone takes
tens of microseconds)."""
MIN_TIME_BUDGET = 1.0
"""The smallest time budget of an audit, in seconds (:mod:`dpquant.audit.pipeline.time_budget`)."""
MAX_TIME_BUDGET = 86_400.0
"""The largest time budget of an audit, in seconds (one day)."""
MAX_WORKERS = 1024
"""The most worker processes an audit may be asked to draw in (``workers``,
:mod:`dpquant.audit.pipeline.workers`)."""
MAX_NAME = 1000
"""The longest name of an audited mechanism (``name``), in characters."""
MODES = ("auto", "exact", "blackbox")
"""``mode``: exact laws where possible then black-box, exact laws only, samples only."""

__all__ = [
    "DEFAULT_SAMPLES",
    "MAX_MAX_DRAWS",
    "MAX_NAME",
    "MAX_SAMPLES",
    "MAX_SEED",
    "MAX_TIMEOUT",
    "MAX_TIME_BUDGET",
    "MAX_WORKERS",
    "MIN_ALPHA",
    "MIN_MAX_DRAWS",
    "MIN_TIMEOUT",
    "MIN_TIME_BUDGET",
    "MODES",
]
