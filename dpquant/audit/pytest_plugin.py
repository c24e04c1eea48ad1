"""pytest plugin: privacy audits in any project's test suite.

Installed with dpquant (entry point ``pytest11: dpquant_audit``; ``pip install 'dpquant[pytest]'``
brings pytest), so it loads by itself, in every test run of the environment: loading it imports
nothing heavy (the auditor, numpy and scipy load when ``dp_audit`` is first used). It adds

* the ``audit`` marker (select the audits with ``pytest -m audit``, skip them with
  ``-m "not audit"``);
* the options ``--audit-samples N`` (draws per data set; default: the auditor's),
  ``--audit-max-draws N`` (a total budget of draws for each audit, search included, in
  [10⁵, 10¹²]: :func:`dpquant.audit.audit_mechanism`'s ``max_draws``, in place of the samples;
  the one number a CI job needs to bound every audit of a suite), ``--audit-time-budget S``
  (about S seconds for each audit, in [1, 86400]: a pilot audit measures its rate and sizes the
  main audit before any draw is counted, each at ``alpha / 2``; :mod:`dpquant.audit.pipeline.time_budget`),
  ``--audit-seed S`` (default 0), ``--audit-timeout T`` (seconds per draw; default: no
  limit) and ``--audit-workers N`` (the worker processes that draw each audit's samples, in
  [1, 1024]: :func:`dpquant.audit.audit_mechanism`'s ``workers``; default: the usable cores,
  shared among pytest-xdist's test processes; 1 draws in the test's process), read from
  ``DPQUANT_AUDIT_SAMPLES`` / ``DPQUANT_AUDIT_MAX_DRAWS`` / ``DPQUANT_AUDIT_TIME_BUDGET`` /
  ``DPQUANT_AUDIT_SEED`` / ``DPQUANT_AUDIT_TIMEOUT`` / ``DPQUANT_AUDIT_WORKERS`` when not given
  on the command line (samples, a total budget and a time budget are three ways to size an
  audit: two on the command line, or two in the environment, is a usage error; one on the
  command line replaces the others of the environment);
* the fixture ``dp_audit``::

      @pytest.mark.audit
      def test_my_mechanism_is_private(dp_audit):
          dp_audit(my_mechanism).assert_private()

      def test_my_function_is_private(dp_audit):
          claim = PrivacyClaim(1.0, adjacency="local")
          dp_audit(my_fn, claim=claim, domain=(0, 1)).assert_private()

  ``dp_audit(mech_or_fn, *, claim=None, domain=None, vectorized=False, input_values=None,
  allow_inconclusive=False, **kwargs)`` runs
  :func:`dpquant.audit.audit_mechanism` with the samples (or total budget), seed and timeout of
  the options (``kwargs`` override them and pass any other of its keywords: ``pairs``,
  ``samples``, ``alpha``, ``seed``, ``mode``, ``executor``, ``workers``, ``max_draws``, and the
  fields of
  its ``options`` as keywords: ``name``, ``progress``, ``timeout``, ``tighten``,
  ``float_lattice``; a test's own ``samples`` or ``max_draws`` replaces the options' size,
  whichever it is; anything else is a ``ValueError``) and returns the
  :class:`dpquant.audit.AuditReport`. A plain function
  ``fn(data, rng) -> output`` needs ``claim=`` and is wrapped by :func:`dpquant.audit.from_callable`
  (``vectorized=True``: ``fn(data, size, rng)`` returns ``size`` outputs; ``input_values``: its
  finite input set). An audit that could not look (the verdict INCONCLUSIVE,
  :mod:`dpquant.audit.report.inconclusive`: the mechanism produced no output) fails the test at once, with its
  reason, even if the test only reads ``report.violation``; ``allow_inconclusive=True`` returns
  the report instead.

With ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` set, load it with ``-p dpquant_audit``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

import pytest

from dpquant.audit.model.limits import (
    MAX_MAX_DRAWS,
    MAX_TIME_BUDGET,
    MAX_WORKERS,
    MIN_MAX_DRAWS,
    MIN_TIME_BUDGET,
)

MARKER = "audit"
MARKER_LINE = f"{MARKER}: privacy audits (dpquant)"
ENV_SAMPLES = "DPQUANT_AUDIT_SAMPLES"
ENV_MAX_DRAWS = "DPQUANT_AUDIT_MAX_DRAWS"
ENV_TIME_BUDGET = "DPQUANT_AUDIT_TIME_BUDGET"
ENV_SEED = "DPQUANT_AUDIT_SEED"
ENV_TIMEOUT = "DPQUANT_AUDIT_TIMEOUT"
ENV_WORKERS = "DPQUANT_AUDIT_WORKERS"
AUDIT_OPTIONS = (
    "pairs",
    "samples",
    "alpha",
    "seed",
    "mode",
    "executor",
    "workers",
    "name",
    "progress",
    "timeout",
    "tighten",
    "float_lattice",
    "max_draws",
)
RUN_OPTIONS = ("name", "progress", "timeout", "tighten", "float_lattice")
"""The keywords of ``dp_audit`` that make the audit's
:class:`dpquant.audit.pipeline.options.AuditOptions`."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpquant-audit", "privacy audits (dpquant)")
    group.addoption(
        "--audit-samples",
        type=int,
        default=None,
        metavar="N",
        help=f"draws per data set for dp_audit (default: ${ENV_SAMPLES}, else the auditor's)",
    )
    group.addoption(
        "--audit-max-draws",
        type=int,
        default=None,
        metavar="N",
        help=(
            f"a total budget of draws for each dp_audit, search included, in [{MIN_MAX_DRAWS}, "
            f"{MAX_MAX_DRAWS}] (default: ${ENV_MAX_DRAWS}; not with --audit-samples)"
        ),
    )
    group.addoption(
        "--audit-time-budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help=(
            f"about this many seconds for each dp_audit, in [{MIN_TIME_BUDGET:g}, "
            f"{MAX_TIME_BUDGET:g}]: a pilot audit measures the rate and sizes the audit, each at "
            f"alpha/2 (default: ${ENV_TIME_BUDGET}; not with --audit-samples or --audit-max-draws)"
        ),
    )
    group.addoption(
        "--audit-seed",
        type=int,
        default=None,
        metavar="S",
        help=f"random seed for dp_audit (default: ${ENV_SEED}, else 0)",
    )
    group.addoption(
        "--audit-timeout",
        type=float,
        default=None,
        metavar="T",
        help=f"seconds per draw before dp_audit calls it a hang (default: ${ENV_TIMEOUT})",
    )
    group.addoption(
        "--audit-workers",
        type=int,
        default=None,
        metavar="N",
        help=(
            f"worker processes that draw each dp_audit's samples, in [1, {MAX_WORKERS}] "
            f"(default: ${ENV_WORKERS}, else the usable cores; 1: in the test's process)"
        ),
    )


def pytest_configure(config: pytest.Config) -> None:
    # a project may already declare the marker in its own ini (dpquant does): keep one line
    declared = config.getini("markers")
    if not any(line.split(":", 1)[0].strip() == MARKER for line in declared):
        config.addinivalue_line("markers", MARKER_LINE)
    settings(config)  # bad values in the environment are a usage error at start-up


def _from_env(name: str, minimum: int, maximum: int | None = None) -> int | None:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise pytest.UsageError(f"{name} must be an integer, got {raw!r}") from None
    _in_range(value, name, minimum, maximum)
    return value


def _in_range(value: int, name: str, minimum: int, maximum: int | None) -> None:
    """A usage error naming ``name`` unless ``minimum <= value <= maximum``."""
    if value < minimum or (maximum is not None and value > maximum):
        allowed = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise pytest.UsageError(f"{name} must be {allowed}, got {value}")


def _max_draws(config: pytest.Config) -> int | None:
    """``--audit-max-draws``, else ``DPQUANT_AUDIT_MAX_DRAWS``, else None."""
    value = config.getoption("audit_max_draws", default=None)
    if value is None:
        return _from_env(ENV_MAX_DRAWS, MIN_MAX_DRAWS, MAX_MAX_DRAWS)
    _in_range(value, "--audit-max-draws", MIN_MAX_DRAWS, MAX_MAX_DRAWS)
    return int(value)


def _time_budget(config: pytest.Config) -> float | None:
    """``--audit-time-budget``, else ``DPQUANT_AUDIT_TIME_BUDGET``, else None (seconds)."""
    value = config.getoption("audit_time_budget", default=None)
    where = "--audit-time-budget"
    if value is None:
        raw = os.environ.get(ENV_TIME_BUDGET, "").strip()
        if not raw:
            return None
        where = ENV_TIME_BUDGET
        try:
            value = float(raw)
        except ValueError:
            raise pytest.UsageError(f"{where} must be a number of seconds, got {raw!r}") from None
    if not MIN_TIME_BUDGET <= value <= MAX_TIME_BUDGET:  # NaN fails too
        raise pytest.UsageError(
            f"{where} must lie in [{MIN_TIME_BUDGET:g}, {MAX_TIME_BUDGET:g}] seconds, got {value}"
        )
    return float(value)


SIZES = {
    "samples": ("--audit-samples", ENV_SAMPLES),
    "max_draws": ("--audit-max-draws", ENV_MAX_DRAWS),
    "time_budget": ("--audit-time-budget", ENV_TIME_BUDGET),
}
"""The three ways to size an audit: draws per data set, a total budget of draws, a time budget."""


def _one_size(config: pytest.Config, sizes: dict[str, Any]) -> dict[str, Any]:
    """At most one of ``sizes`` (:data:`SIZES`): two on the command line, or two in the
    environment, are a usage error; one on the command line replaces those of the
    environment."""
    given = [k for k, v in sizes.items() if v is not None]
    on_line = [k for k in given if config.getoption(f"audit_{k}", default=None) is not None]
    clash = on_line or given  # the command line's, else the environment's
    if len(clash) > 1:
        names = " and ".join(f"{SIZES[k][0]} ({SIZES[k][1]})" for k in clash)
        raise pytest.UsageError(
            f"{names} are ways to size an audit: give one (draws per data set, a total budget "
            "of draws, or a time budget)"
        )
    return {k: (v if not on_line or k in on_line else None) for k, v in sizes.items()}


class AuditSettings(TypedDict):
    """``dp_audit``'s defaults for :func:`dpquant.audit.audit_mechanism` (:func:`settings`): at
    most one of the three sizes (:data:`SIZES`) is not None."""

    samples: int | None
    max_draws: int | None
    time_budget: float | None
    seed: int
    timeout: float | None
    workers: int | None


def _workers(config: pytest.Config) -> int | None:
    """``--audit-workers``, else ``DPQUANT_AUDIT_WORKERS``, else None (the auditor's default)."""
    value = config.getoption("audit_workers", default=None)
    if value is None:
        return _from_env(ENV_WORKERS, 1, MAX_WORKERS)
    _in_range(value, "--audit-workers", 1, MAX_WORKERS)
    return int(value)


def settings(config: pytest.Config) -> AuditSettings:
    """``samples`` (or ``max_draws``, or ``time_budget``), ``seed`` and ``timeout`` for
    ``dp_audit``: the command-line options, else the environment variables, else the auditor's
    default samples (None), seed 0 and no time limit. Two sizes from the same source are a usage
    error; from both, the command line's wins (:func:`_one_size`)."""
    samples = config.getoption("audit_samples", default=None)
    if samples is None:
        samples = _from_env(ENV_SAMPLES, 1)
    elif samples < 1:
        raise pytest.UsageError(f"--audit-samples must be >= 1, got {samples}")
    seed = config.getoption("audit_seed", default=None)
    if seed is None:
        seed = _from_env(ENV_SEED, 0)
    elif seed < 0:
        raise pytest.UsageError(f"--audit-seed must be >= 0, got {seed}")
    timeout = config.getoption("audit_timeout", default=None)
    where = "--audit-timeout"
    if timeout is None:
        raw = os.environ.get(ENV_TIMEOUT, "").strip()
        where = ENV_TIMEOUT
        try:
            timeout = float(raw) if raw else None
        except ValueError:
            raise pytest.UsageError(
                f"{ENV_TIMEOUT} must be a number of seconds, got {raw!r}"
            ) from None
    if timeout is not None and not 0 < timeout < float("inf"):
        raise pytest.UsageError(f"{where} must be a positive number of seconds, got {timeout}")
    sizes = {"samples": samples, "max_draws": _max_draws(config), "time_budget": _time_budget(config)}
    size = _one_size(config, sizes)
    return AuditSettings(
        samples=size["samples"],
        max_draws=size["max_draws"],
        time_budget=size["time_budget"],
        seed=0 if seed is None else seed,
        timeout=timeout,
        workers=_workers(config),
    )


def pytest_report_header(config: pytest.Config) -> str | None:
    s = settings(config)
    explicit = (
        config.getoption("audit_samples", default=None) is not None
        or config.getoption("audit_max_draws", default=None) is not None
        or os.environ.get(ENV_MAX_DRAWS)
        or config.getoption("audit_time_budget", default=None) is not None
        or os.environ.get(ENV_TIME_BUDGET)
        or config.getoption("audit_seed", default=None) is not None
        or config.getoption("audit_timeout", default=None) is not None
        or config.getoption("audit_workers", default=None) is not None
        or os.environ.get(ENV_WORKERS)
        or os.environ.get(ENV_SAMPLES)
        or os.environ.get(ENV_SEED)
        or os.environ.get(ENV_TIMEOUT)
    )
    if not explicit:
        return None
    samples = "auditor default" if s["samples"] is None else s["samples"]
    size = (
        f"max_draws={s['max_draws']}"
        if s["max_draws"] is not None
        else f"time budget {s['time_budget']:g} s"
        if s["time_budget"] is not None
        else f"samples={samples}"
    )
    limit = "" if s["timeout"] is None else f", timeout={s['timeout']:g} s"
    workers = "" if s["workers"] is None else f", workers={s['workers']}"
    return f"dpquant audit: {size}, seed={s['seed']}{limit}{workers}"


def _is_mechanism(obj: Any) -> bool:
    if isinstance(obj, type) or not callable(getattr(obj, "sample", None)):
        return False
    try:
        return getattr(obj, "claim", None) is not None
    except Exception:  # noqa: BLE001 -- a claim that cannot be read: the auditor says why
        return True


def _states_epsilon_delta(mech: Any) -> bool:
    """Whether the mechanism's claim is an (ε, δ) one (or cannot be read: the auditor then says
    why); a claim of another measure goes to :func:`dpquant.audit.audit_claim`."""
    from dpquant.reference.core import PrivacyClaim

    try:
        claim = mech.claim
    except Exception:  # noqa: BLE001 -- a claim that cannot be read: audit_mechanism says why
        return True
    from dpquant.reference.measures import MeasureClaim

    return isinstance(claim, PrivacyClaim) or not isinstance(claim, MeasureClaim)


def make_auditor(
    defaults: Mapping[str, Any], record: Callable[[Any], None] | None = None
) -> Callable[..., Any]:
    """The ``dp_audit`` callable, with ``defaults`` (samples, seed) for ``audit_mechanism``.

    Args:
        defaults: Keyword arguments of :func:`dpquant.audit.audit_mechanism` (or
            ``time_budget``), read, not kept: :func:`settings`, or any mapping of them; None
            values are left out.
        record: Called with each report, or None.

    Returns:
        ``dp_audit(mech_or_fn, *, claim=None, domain=None, **kwargs)``.
    """

    def dp_audit(
        mech_or_fn: Any,
        *,
        claim: Any = None,
        domain: tuple[float, float] | None = None,
        vectorized: bool = False,
        input_values: Any = None,
        allow_inconclusive: bool = False,
        **kwargs: Any,
    ) -> Any:
        import dpquant.audit.pipeline.runner
        from dpquant.audit.model.wrap import from_callable
        from dpquant.audit.pipeline.options import AuditOptions
        from dpquant.reference.validation import check_flag

        unknown = sorted(set(kwargs) - set(AUDIT_OPTIONS))
        if unknown:
            raise ValueError(
                f"dp_audit got unknown keyword(s) {unknown}: it takes mech_or_fn, claim, domain "
                f"and audit_mechanism's {', '.join(AUDIT_OPTIONS)}"
            )
        options = {k: v for k, v in defaults.items() if v is not None}
        if any(kwargs.get(k) is not None for k in ("samples", "max_draws")):
            for k in SIZES:  # a test that sizes its own audit keeps its size
                options.pop(k, None)
        if kwargs.get("executor") is not None and "workers" not in kwargs:
            options.pop("workers", None)  # a test's executor draws: the option's workers do not
        options.update(kwargs)
        time_budget = options.pop("time_budget", None)
        if _is_mechanism(mech_or_fn):
            if claim is not None:
                raise ValueError(
                    "claim= is for plain functions: a mechanism is audited against its own claim"
                )
            if vectorized or input_values is not None:
                raise ValueError(
                    "vectorized= and input_values= describe a plain function: a mechanism's "
                    "sample() and input_values say how it is called"
                )
            mech = mech_or_fn
            if domain is not None:
                options["domain"] = domain
        elif callable(mech_or_fn) and not isinstance(mech_or_fn, type):
            if claim is None:
                raise ValueError(
                    "mech_or_fn is a plain function fn(data, rng), which carries no privacy "
                    "claim: pass claim=PrivacyClaim(epsilon, delta, adjacency) or a claim of "
                    "dpquant.reference.measures (and "
                    "domain=(lo, hi))"
                )
            name = options.get("name")
            how = {"vectorized": vectorized, "input_values": input_values}
            if domain is None:
                mech = from_callable(mech_or_fn, claim, name=name, **how)
            else:
                mech = from_callable(mech_or_fn, claim, domain, name=name, **how)
            options["name"] = mech.name
        else:
            raise ValueError(
                "mech_or_fn must be a mechanism (with sample() and claim) or a function "
                f"fn(data, rng) -> output, got {mech_or_fn!r:.80}"
            )
        allow = check_flag(allow_inconclusive, "allow_inconclusive")
        run = {k: options.pop(k) for k in RUN_OPTIONS if k in options}
        if run:
            options["options"] = AuditOptions(**run)
        report: Any
        if not _states_epsilon_delta(mech):  # zCDP, Rényi, GDP or a profile: audit_claim
            if time_budget is not None or options.get("max_draws") is not None:
                raise ValueError(
                    "max_draws and time_budget go with an (ε, δ) claim only: under a claim of "
                    "another measure the audit draws samples per data set at each point "
                    "(pass samples=, or run without --audit-max-draws/--audit-time-budget)"
                )
            options.pop("max_draws", None)
            from dpquant.audit.tools.measure_audit import audit_claim

            report = audit_claim(mech, **options)
        elif time_budget is None:
            report = dpquant.audit.pipeline.runner.audit_mechanism(mech, **options)
        else:
            from dpquant.audit.pipeline.time_budget import audit_within

            report = audit_within(mech, time_budget, **options)
        if record is not None:
            record(report)
        if report.inconclusive is not None and not report.violation and not allow:
            pytest.fail(f"dp_audit: {report.explanation()}", pytrace=False)
        return report

    return dp_audit


@pytest.fixture
def dp_audit(request: pytest.FixtureRequest) -> Callable[..., Any]:
    """``dp_audit(mech_or_fn, *, claim=None, domain=None, **kwargs) -> AuditReport``.

    Runs :func:`dpquant.audit.audit_mechanism` with ``--audit-samples``, ``--audit-max-draws``
    or ``--audit-time-budget`` (:func:`dpquant.audit.pipeline.time_budget.audit_within`), ``--audit-seed``
    and ``--audit-timeout`` (``kwargs`` override them). Each report's summary is added to the
    test's ``user_properties`` (and so to JUnit XML), e.g.
    ``dp_audit(my_mechanism).assert_private()``.
    """

    def record(report: Any) -> None:
        request.node.user_properties.append(("dp_audit", report.summary()))

    return make_auditor(settings(request.config), record)
