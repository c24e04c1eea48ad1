"""``validate``: is a candidate implementation the same mechanism as a reference one? (issue 8)

Given a reference mechanism (ours) and a candidate (a mechanism, or a function
``fn(data, rng) -> output`` given the reference's claim), :func:`validate`

1. draws a **battery of data sets** over the reference's domain (:func:`battery`: one value, a few
   values spread out, all tied, two clusters split at the median, an outlier at each end, sizes
   1 to 200) — or the caller's;
2. on each data set tests **distributional equivalence**: against the reference's exact law where
   it has one (DKW band for densities, per-atom Clopper–Pearson for discrete laws:
   :func:`dpquant.reference.conformance.check_sampler`), otherwise by a distribution-free two-sample test
   against the reference's own draws (the DKW bound on each side, α/2 each); every test at level
   α/(number of tests), so the whole battery falsely rejects a correct candidate with probability
   at most α;
3. reports the **power** of each test: the smallest deviation (sup-distance between CDFs, or
   between one atom's probabilities) that the budget detects with probability at least 1 − β;
4. **audits** the candidate with :func:`dpquant.audit.audit_mechanism` under the reference's claim.

The power statement: with N draws, a one-sample DKW test at level a rejects whenever the empirical
CDF leaves the band t_a = sqrt(ln(2/a)/(2N)); if the candidate's CDF is at distance d from the
reference's somewhere, the empirical CDF is within sqrt(ln(2/β)/(2N)) of the candidate's there
with probability >= 1 − β (DKW), so every d >= t_a + sqrt(ln(2/β)/(2N)) is detected. For atoms
the Clopper–Pearson interval lies inside Hoeffding's, so the same form holds with a/K. For the
two-sample test add the second sample's terms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import islice
from typing import Any

import numpy as np

from dpquant.audit.model.limits import MAX_NAME, MAX_SAMPLES, MAX_SEED, MIN_ALPHA
from dpquant.audit.model.neighbours import (
    MAX_SIZE,
    MAX_SIZES,
    check_probe_domain,
    check_values,
    len_or_none,
    probe_values,
)
from dpquant.audit.model.outputs import Outputs, normalise
from dpquant.audit.model.sampling_contract import MalformedOutput
from dpquant.audit.model.wrap import from_callable
from dpquant.audit.pipeline.options import AuditOptions
from dpquant.audit.pipeline.runner import audit_mechanism
from dpquant.audit.report.render import short
from dpquant.audit.statistics.exact_loss import check_exact_law
from dpquant.audit.tools.validation_report import EquivalenceCheck, ValidationReport
from dpquant.reference.conformance import check_sampler, dkw_threshold
from dpquant.reference.core import check_adjacency, check_claim, has_exact
from dpquant.reference.distributions import DiscreteLaw, GridLaw, ProductLaw
from dpquant.reference.validation import (
    MAX_DRAWS,
    check_data,
    check_finite,
    check_flag,
    check_int,
    check_probability,
    read_attribute,
)

DEFAULT_SAMPLES = 20_000
DEFAULT_ALPHA = 1e-6
DEFAULT_BETA = 0.05
BATTERY_SIZES = (1, 2, 5, 9, 33, 200)
MAX_DATASETS = 1000


# --------------------------------------------------------------------------------------------
# the battery of data sets
# --------------------------------------------------------------------------------------------


def battery(
    domain: tuple[float, float],
    adjacency: str,
    sizes: Sequence[int] = BATTERY_SIZES,
    inputs: Sequence[float] | None = None,
) -> list[np.ndarray]:
    """Data sets that exercise a quantile mechanism.

    For local DP each probe value alone; otherwise, for each size, values spread over the probe
    values, all tied at the middle value, two clusters split at the median, and the middle value
    with one outlier at each end. The probe values are those of
    :func:`dpquant.audit.model.neighbours.probe_values`.

    Args:
        domain: The mechanism's domain.
        adjacency: Its claim's relation (``"local"``: one record each).
        sizes: The sizes, integers in [1, :data:`dpquant.audit.model.neighbours.MAX_SIZE`].
        inputs: The mechanism's finite input set, or None.

    Returns:
        The data sets.
    """
    adjacency = check_adjacency(adjacency)
    values = sorted(probe_values(domain, inputs))
    if isinstance(sizes, str | bytes) or len_or_none(sizes) is None:
        raise ValueError(f"sizes must be a sequence of integers in [1, {MAX_SIZE}]")
    if len(sizes) > MAX_SIZES:
        raise ValueError(f"sizes must hold at most {MAX_SIZES} sizes, got {len(sizes)}")
    sizes = [check_int(n, f"sizes[{i}]", minimum=1, maximum=MAX_SIZE) for i, n in enumerate(sizes)]
    if adjacency == "local":
        return [np.array([v]) for v in values]
    lo, hi = values[0], values[-1]
    inner_lo, inner_hi = values[min(1, len(values) - 1)], values[max(len(values) - 2, 0)]
    mid = values[len(values) // 2]
    out: list[tuple[float, ...]] = []
    for n in sizes:
        out.append(tuple(values[(k * len(values)) // n] for k in range(n)))
        out.append((mid,) * n)
        out.append((inner_lo,) * (n // 2) + (inner_hi,) * (n - n // 2))
        if n >= 2:
            out.append((mid,) * (n - 1) + (lo,))
            out.append((mid,) * (n - 1) + (hi,))
    unique = list(dict.fromkeys(tuple(sorted(d)) for d in out))
    return [np.array(d, dtype=float) for d in unique]


# --------------------------------------------------------------------------------------------
# equivalence tests
# --------------------------------------------------------------------------------------------


def detectable_deviation(threshold: float, samples: int, beta: float) -> float:
    """The power of a DKW-type test (module docstring).

    Args:
        threshold: The test's band t at its level.
        samples: The draws N.
        beta: The miss probability β.

    Returns:
        t + sqrt(ln(2/β)/(2N)): a true deviation this large is detected w.p. >= 1 − β.
    """
    threshold = check_finite(threshold, "threshold")
    if threshold < 0:
        raise ValueError(f"threshold must be >= 0, got {threshold!r}")
    samples = check_int(samples, "samples", minimum=1)
    beta = check_probability(beta, "beta", open_left=True, open_right=True)
    return threshold + math.sqrt(math.log(2.0 / beta) / (2.0 * samples))


def _numeric(out: Outputs) -> np.ndarray | None:
    """The draws as a float array ((n,) or (n, k)), or None when some draw is not a finite
    number (an exception, NaN, ±inf, any other object: see :mod:`dpquant.audit.model.outputs`)."""
    if not out.numeric.all() or not np.all(np.isfinite(out.values)):
        return None
    return out.values[:, 0] if out.width == 1 else out.values


def _non_numeric_detail(out: Outputs) -> str:
    kinds = out.atom_counts()
    numeric = out.values[out.numeric]
    infinite = int(np.count_nonzero(~np.isfinite(numeric).all(axis=1))) if numeric.size else 0
    if infinite:
        kinds["inf"] = infinite
    return "non-numeric outputs: " + ", ".join(f"{k} ×{v}" for k, v in sorted(kinds.items()))


def _exact_check(law: Any, draws: np.ndarray, alpha: float, beta: float) -> tuple:
    result = check_sampler(law, draws, alpha)
    categories = 1
    if isinstance(law, DiscreteLaw):
        categories = len(law.support) + 1
    elif isinstance(law, ProductLaw | GridLaw):
        categories = len(law)
    n = result.samples
    # atoms and marginals: the Hoeffding band at alpha/K contains the Clopper–Pearson interval
    band = dkw_threshold(n, alpha / categories) if categories > 1 else result.threshold
    return (
        result.test,
        result.passed,
        result.statistic,
        result.threshold,
        detectable_deviation(band, n, beta),
        result.detail,
    )


def two_sample_check(
    a: np.ndarray, b: np.ndarray, alpha: float, beta: float
) -> tuple[str, bool, float, float, float, str]:
    """Distribution-free two-sample test: sup|F̂_a − F̂_b| against the sum of the two DKW bands at
    α/2 each (per coordinate, Bonferroni, for vector outputs).

    Args:
        a: A non-empty array of finite draws, (n,) or (n, k).
        b: Another, with the same k.
        alpha: The test's level.
        beta: The power's miss probability.

    Returns:
        The test's name, whether it passed, the statistic, the threshold, the detectable
            deviation and one sentence (the fields of :class:`EquivalenceCheck`).

    Raises:
        ValueError: The draws are refused, or of different widths.
    """
    a2, b2 = _draws(a, "a"), _draws(b, "b")
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    beta = check_probability(beta, "beta", open_left=True, open_right=True)
    if a2.shape[1] != b2.shape[1]:
        raise ValueError(f"a and b must have the same width, got {a2.shape[1]} and {b2.shape[1]}")
    k = a2.shape[1]
    worst = (0.0, 0)
    for j in range(k):
        x, y = np.sort(a2[:, j]), np.sort(b2[:, j])
        grid = np.concatenate([x, y])
        gap = np.max(
            np.abs(
                np.searchsorted(x, grid, side="right") / len(x)
                - np.searchsorted(y, grid, side="right") / len(y)
            )
        )
        worst = max(worst, (float(gap), j))
    t = dkw_threshold(len(a2), alpha / (2 * k)) + dkw_threshold(len(b2), alpha / (2 * k))
    power = t + math.sqrt(math.log(4.0 / beta) / (2.0 * len(a2)))
    power += math.sqrt(math.log(4.0 / beta) / (2.0 * len(b2)))
    return "two-sample", worst[0] <= t, worst[0], t, power, f"largest gap in coordinate {worst[1]}"


def _draws(x: Any, name: str) -> np.ndarray:
    """Draws for the two-sample test: (n,) or (n, k) finite reals, as an (n, k) float array."""
    if isinstance(x, np.ndarray) and x.ndim == 2:
        return check_data(x, name, record_dim=x.shape[1])
    return check_data(x, name).reshape(-1, 1)


def as_mechanism(candidate: Any, reference: Any, name: str | None = None) -> Any:
    """The candidate as a mechanism.

    Args:
        candidate: A mechanism (it has ``sample``), or a function ``fn(data, rng)``.
        reference: The reference mechanism.
        name: The candidate's name, or None.

    Returns:
        The candidate itself, or the function wrapped (:func:`dpquant.audit.from_callable`)
            with the reference's claim, domain and finite input set (``input_values``, when it
            has one: the wrapper's trial calls the function on those values only).

    Raises:
        ValueError: The candidate is neither, or the wrapper refuses it.
    """
    if callable(getattr(candidate, "sample", None)) and not isinstance(candidate, type):
        return candidate
    if callable(candidate) and not isinstance(candidate, type):
        claim = check_claim(read_attribute(reference, "claim", "reference"), "reference.claim")
        domain = check_probe_domain(
            read_attribute(reference, "domain", "reference"), "reference.domain"
        )
        inputs = getattr(reference, "input_values", None)
        inputs = None if inputs is None else check_values(inputs, "reference.input_values")
        return from_callable(candidate, claim, domain, name=name, input_values=inputs)
    raise ValueError(
        f"candidate must be a mechanism (with sample()) or a function fn(data, rng) -> output, "
        f"got {type(candidate).__name__}"
    )


def validate(
    reference: Any,
    candidate: Any,
    *,
    datasets: Iterable[Any] | None = None,
    samples: int = DEFAULT_SAMPLES,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    seed: int = 0,
    audit: bool = True,
    audit_samples: int | None = None,
    reference_name: str | None = None,
    candidate_name: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> ValidationReport:
    """Test that ``candidate`` draws from the same law as ``reference`` on a battery of data sets
    (module docstring) and audit it under the reference's claim.

    Arguments are checked first. A candidate whose ``sample`` raises, or whose draws are not
    finite numbers, fails that data set's check.

    Args:
        reference: The reference: a mechanism with a valid claim and domain.
        candidate: A mechanism, or a function ``fn(data, rng)`` (:func:`as_mechanism`).
        datasets: At most :data:`MAX_DATASETS` data sets of finite values inside the
            reference's domain (and among its ``input_values`` when it has them), at most
            :data:`dpquant.audit.model.neighbours.MAX_SIZE` records each; None: :func:`battery`.
        samples: Draws per data set, 100 to ``MAX_DRAWS``.
        alpha: The battery's level, in [:data:`dpquant.audit.model.limits.MIN_ALPHA`, 1): a correct
            candidate fails with probability at most α.
        beta: The power's miss probability, in (0, 1).
        seed: Fixes every draw of our own code (a candidate that ignores the generator it is
            given is not reproducible), 0 to :data:`dpquant.audit.model.limits.MAX_SEED`.
        audit: Audit the candidate under the reference's claim.
        audit_samples: The audit's ``samples`` (10 to
            :data:`dpquant.audit.model.limits.MAX_SAMPLES`), or None for its default.
        reference_name: The reference's name in the report, or None for its own.
        candidate_name: The candidate's name in the report, or None for its own.
        progress: None, or a callable receiving a line as each data set's check starts, then
            the audit's progress lines.

    Returns:
        The report: one check per data set, and the audit.

    Raises:
        ValueError: An argument is refused (named in the message).
    """
    if not callable(getattr(reference, "sample", None)) or isinstance(reference, type):
        raise ValueError("reference must be a mechanism with sample() and claim")
    claim = check_claim(read_attribute(reference, "claim", "reference"), "reference.claim")
    ref_domain = check_probe_domain(
        read_attribute(reference, "domain", "reference"), "reference.domain"
    )
    inputs = getattr(reference, "input_values", None)
    inputs = None if inputs is None else check_values(inputs, "reference.input_values")
    samples = check_int(samples, "samples", minimum=100, maximum=MAX_DRAWS)
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    if alpha < MIN_ALPHA:
        raise ValueError(f"alpha must lie in [{MIN_ALPHA:g}, 1), got {alpha!r}")
    beta = check_probability(beta, "beta", open_left=True, open_right=True)
    seed = check_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    audit = check_flag(audit, "audit")
    if progress is not None and not callable(progress):
        raise ValueError(
            f"progress must be callable (one line at a time) or None, got {progress!r:.80}"
        )
    say = progress or (lambda line: None)
    if audit_samples is not None:
        audit_samples = check_int(audit_samples, "audit_samples", minimum=10, maximum=MAX_SAMPLES)
    for label, value in (("reference_name", reference_name), ("candidate_name", candidate_name)):
        if value is not None and (not isinstance(value, str) or len(value) > MAX_NAME):
            raise ValueError(f"{label} must be a string (at most {MAX_NAME} characters) or None")
    ref_name = reference_name or getattr(reference, "name", None) or type(reference).__name__
    cand = as_mechanism(candidate, reference, candidate_name)
    cand_name = candidate_name or getattr(cand, "name", None) or type(cand).__name__
    if datasets is None:
        datasets = battery(ref_domain, claim.adjacency, inputs=inputs)
    else:
        datasets = _check_datasets(datasets, ref_domain, inputs)
    per_test = alpha / len(datasets)
    rng = np.random.default_rng(seed)
    report = ValidationReport(
        str(ref_name)[:MAX_NAME], str(cand_name)[:MAX_NAME], claim, alpha, beta
    )
    for i, data in enumerate(datasets):
        say(f"validate: data set {i + 1}/{len(datasets)} {short(data)}: {samples:,} draws")
        try:
            draws = cand.sample(data, samples, rng)
        except Exception as exc:  # noqa: BLE001 -- a candidate that raises fails the check
            draws = None
            detail = f"sample raised {type(exc).__name__}: {str(exc)[:200]}"
        try:
            out = None if draws is None else normalise(draws, samples)
        except MalformedOutput as exc:  # a candidate that breaks the sampling contract fails
            out, detail = None, f"the candidate's sample {exc.what}"
        values = None if out is None else _numeric(out)
        if values is None:
            if out is not None:
                detail = _non_numeric_detail(out)
            test = ("outputs", False, math.inf, 0.0, math.inf, detail)
        elif has_exact(reference):
            law = _reference_call(reference.exact, (data,), i)
            law = check_exact_law(law, f"the reference's exact law on datasets[{i}]")
            width = len(law) if isinstance(law, ProductLaw | GridLaw) else 1
            got = 1 if np.ndim(values) == 1 else np.shape(values)[1]
            if got != width:
                detail = f"the candidate's draws have {got} coordinates, the law {width}"
                test = ("outputs", False, math.inf, 0.0, math.inf, detail)
            else:
                test = _exact_check(law, values, per_test, beta)
        else:
            mine = _reference_call(reference.sample, (data, samples, rng), i)
            try:
                mine_out = normalise(mine, samples)
            except MalformedOutput as exc:
                raise ValueError(f"reference: its sample on datasets[{i}] {exc.what}") from None
            theirs = _numeric(mine_out)
            if theirs is None:
                raise ValueError(
                    f"reference: its draws on datasets[{i}] are not finite numbers "
                    f"({_non_numeric_detail(mine_out)})"
                )
            if np.ndim(theirs) != np.ndim(values) or np.shape(theirs)[1:] != np.shape(values)[1:]:
                test = (
                    "outputs",
                    False,
                    math.inf,
                    0.0,
                    math.inf,
                    f"the candidate's draws have shape {np.shape(values)[1:]}, the reference's "
                    f"{np.shape(theirs)[1:]}",
                )
            else:
                test = two_sample_check(values, theirs, per_test, beta)
        name, passed, statistic, threshold, detectable, detail = test
        report.checks.append(
            EquivalenceCheck(
                tuple(float(v) for v in data),
                name,
                bool(passed),
                float(statistic),
                float(threshold),
                float(detectable),
                samples,
                detail,
            )
        )
    if audit:
        say(f"validate: auditing {str(cand_name)[:80]} under the reference's claim")
        report.audit = audit_mechanism(
            cand,
            seed=seed,
            alpha=alpha,
            samples=audit_samples,
            options=AuditOptions(name=str(cand_name)[:MAX_NAME], progress=progress),
        )
    return report


def _reference_call(method: Any, args: tuple[Any, ...], i: int) -> Any:
    """A call of the reference on ``datasets[i]``; its ``ValueError`` names the data set."""
    try:
        return method(*args)
    except ValueError as exc:
        raise ValueError(f"datasets[{i}] is refused by the reference: {exc}") from None


def _check_datasets(
    datasets: Any, domain: tuple[float, float], inputs: tuple[float, ...] | None
) -> list[np.ndarray]:
    if isinstance(datasets, str | bytes | Mapping) or not isinstance(datasets, Iterable):
        raise ValueError(
            f"datasets must be an iterable of data sets, got {type(datasets).__name__}"
        )
    out = []
    allowed = None if inputs is None else set(inputs)
    for i, d in enumerate(islice(datasets, MAX_DATASETS + 1)):
        if i >= MAX_DATASETS:
            raise ValueError(f"datasets must hold at most {MAX_DATASETS} data sets")
        name = f"datasets[{i}]"
        if isinstance(d, int | float | np.integer | np.floating) and not isinstance(
            d, bool | np.bool_
        ):
            d = [d]  # a number is the data set of one record
        size = len_or_none(d)
        if size is not None and size > MAX_SIZE:
            raise ValueError(f"{name} must hold at most {MAX_SIZE} records, got {size}")
        arr = np.sort(check_data(d, name, domain=domain))
        if allowed is not None and not set(arr.tolist()) <= allowed:
            raise ValueError(
                f"{name} must hold values among the reference's inputs {sorted(allowed)[:20]}"
            )
        out.append(arr)
    if not out:
        raise ValueError("datasets must contain at least one data set")
    return out


__all__ = [
    "BATTERY_SIZES",
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DEFAULT_SAMPLES",
    "EquivalenceCheck",
    "ValidationReport",
    "as_mechanism",
    "battery",
    "detectable_deviation",
    "two_sample_check",
    "validate",
]
