"""``audit_mechanism``: search neighbours, compute exact losses, bound ε from samples.

The pipeline (spec auditor.md §6; DESIGN.md contract):

1. **Candidates.** The caller's pairs, or the auditor's own: every neighbouring pair of small data
   sets over the probe values (:mod:`audit.search`), quantile patterns at larger sizes, and, for
   black-box mechanisms, a *crash scan* that bisects on the size of tied data for the size where the
   mechanism starts raising (SmartNoise #572, diffprivlib #107 fail only beyond some n).
2. **Exact stage** (mechanisms with ``exact``): every candidate is screened in floats for its loss
   and its detection power (:mod:`audit.power`); local search climbs the power; the exact loss, the
   hockey-stick curve and Rényi divergences are computed in mpmath for the worst pairs.
3. **Black-box stage.** The finalists (by exact power, or by successive-halving screening runs)
   get fresh *selection* draws (30 %), on which the best event and direction are chosen; the best
   ``CARRIED`` of them get fresh *evaluation* draws (70 %), and ε_lb = ln((p0_L − δ)/p1_U) with
   Clopper–Pearson bounds at α/(2·CARRIED·ROUNDS) each; first on an eighth of the planned budget,
   then, unless that already shows a violation, on all of it. Everything before the evaluation
   draws, however adaptive, only chooses what to test; the bound holds with confidence 1 − α.
4. **Conformance** of the sampler to the exact law on the witness (both data sets, each test at
   level α), so that the exact stage audits the code and not only the formula.

**What it refuses** (``ValueError`` naming the argument, before any draw or allocation): a claim
whose fields are not valid *now* (``mech.claim.epsilon`` NaN, ∞ or ≤ 0, ``mech.claim.delta``
outside [0, 1), whatever the object's fields were set to after construction), ``samples`` outside
[10, :data:`MAX_SAMPLES`], ``alpha`` outside [:data:`MIN_ALPHA`, 1), ``seed`` outside
[0, :data:`MAX_SEED`], a ``mode`` that is not one of :data:`MODES`, an ``executor`` that is not a
``concurrent.futures.Executor``, a ``progress`` that is not callable, a ``name`` that is not a
string, a ``timeout`` outside [:data:`MIN_TIMEOUT`, :data:`MAX_TIMEOUT`], a ``domain`` that is
not inside ``mech.domain``, and ``pairs`` that are not neighbouring pairs of finite data inside
the domain (:func:`audit.search.check_pairs`). An exact law that yields NaN, or an ``exact()``
that returns something other than an exact law, is a ``ValueError`` naming the mechanism in every
mode that uses the law; an ``exact()`` that *raises* is a note, and ``auto`` falls back to
black-box.

**Time limit** (``timeout`` seconds per draw, :mod:`audit.sampling`): the first draw that
overruns stops the search and the stages; the auditor then runs a *hang test* on the pair where
it happened (up to :data:`HANG_TEST_DRAWS` fresh single draws per data set, at most about
:data:`HANG_TEST_SECONDS` seconds of waiting per side, each draw with the same limit), and
bounds ε from the event "the draw timed out" at confidence 1 − α (a mechanism that hangs on D
and answers on D' leaks). The report then has ``timed_out`` set and, unless that bound (or the
exact stage) shows a violation, the verdict "INCOMPLETE"; ``assert_private`` fails either way.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np

from audit.events import Event, Scored, best_event
from audit.exact import analyse_pair, check_exact_law, exact_sweep, mechanism_name
from audit.outputs import TIMEOUT, Outputs
from audit.power import PairPower, pair_power
from audit.result import AuditReport
from audit.sampling import DrawJob, DrawTimedOut, draw
from audit.search import (
    Pair,
    check_neighbours,
    check_pairs,
    check_probe_domain,
    check_values,
    exhaustive_pairs,
    hill_climb,
    pattern_pairs,
    probe_values,
    refine_values,
    tie_family,
)
from audit.statistics import (
    epsilon_lower_bound,
    event_ratio_interval,
    expected_bound,
    samples_needed,
    wilson_bound,
)
from reference.conformance import check_sampler
from reference.core import PrivacyClaim, check_claim, has_exact
from reference.distributions import DiscreteLaw, GridLaw, PiecewiseLogLinear, ProductLaw
from reference.validation import (
    check_choice,
    check_flag,
    check_int,
    check_positive,
    check_probability,
    read_attribute,
)

DEFAULT_SAMPLES = 400_000
MAX_SAMPLES = 10**8
"""The most draws per data set an audit may be asked for (``samples``): at 10**8 the evaluation
alone holds a few GB of draws and runs for hours; refused before anything is drawn."""
MIN_ALPHA = 1e-100
"""The smallest confidence parameter α (smaller ones underflow in the Clopper–Pearson tails)."""
MAX_SEED = 2**128 - 1
"""Seeds are integers in [0, 2**128 − 1] (numpy's ``SeedSequence`` entropy)."""
MAX_TIMEOUT = 86_400.0
"""The largest per-draw time limit, in seconds (one day)."""
MIN_TIMEOUT = 0.001
"""The smallest per-draw time limit, in seconds (handing a call to the helper thread alone takes
tens of microseconds)."""
MAX_NAME = 1000
HANG_TEST_DRAWS = 200
HANG_TEST_SECONDS = 4.0
SELECTION_FRACTION = 0.3
SCREEN_SAMPLES = 250
MIDSCREEN_SAMPLES = 2_000
MIDSCREEN_TOP = 32
RESCREEN_SAMPLES = 10_000
RESCREEN_TOP = 8
CLIMB_SAMPLES = 4_000  # at the default budget; scaled with `samples` (see _climb)
CLIMB_MAX_SIZE = 12
MIN_BUDGET = 4_000
BUDGET_SAFETY = 4
FINALISTS = 4
CARRIED = 2
ROUNDS = 2
EXACT_MAX_N = 4
BLACKBOX_MAX_N = 2
CLIMB_STARTS = 3
BLACKBOX_CLIMB_STARTS = 2
CLIMB_STEPS = 12
CRASH_MAX_SIZE = 4096
CRASH_DRAWS = 4
MODES = ("auto", "exact", "blackbox")

_SCREEN, _SELECT, _EVAL, _CRASH, _CLIMB, _HANG = 1, 2, 3, 4, 5, 6
_STAGE_NAMES = {
    _SCREEN: "screening",
    _SELECT: "selection",
    _EVAL: "evaluation",
    _CRASH: "crash scan",
    _CLIMB: "local search",
    _HANG: "hang test",
}


class _Hung(Exception):  # noqa: N818 -- control flow: a draw overran the time limit
    def __init__(self, stage: str, data: np.ndarray, partner: np.ndarray):
        super().__init__(stage)
        self.stage, self.data, self.partner = stage, data, partner


@dataclass
class Candidate:
    """A neighbouring pair under test (``pair`` is its search form when the auditor made it)."""

    d0: np.ndarray
    d1: np.ndarray
    pair: Pair | None = None
    prior: tuple[float, float] | None = None  # masses of its best event, from the search
    planned: PairPower | None = None  # its best likelihood-ratio set, from the exact laws

    @property
    def key(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        return tuple(self.d0.tolist()), tuple(self.d1.tolist())

    def describe(self) -> dict[str, Any]:
        return {"data": self.d0.tolist(), "data_prime": self.d1.tolist()}


@dataclass
class _Context:
    mech: Any
    claim: PrivacyClaim
    values: tuple[float, ...]
    samples: int
    alpha: float
    seed: int
    executor: Executor | None
    search: bool
    progress: Callable[[str], None]
    name: str = ""
    timeout: float | None = None
    float_lattice: bool = False
    used: int = 0
    used_by_stage: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    laws: dict[tuple[float, ...], Any] = field(default_factory=dict)
    counter: int = 0

    @property
    def n_select(self) -> int:
        return max(1, int(round(self.samples * SELECTION_FRACTION)))

    @property
    def n_eval(self) -> int:
        return max(1, self.samples - self.n_select)

    @property
    def alpha_eval(self) -> float:
        """α per evaluated candidate: Bonferroni over CARRIED candidates and ROUNDS rounds."""
        return self.alpha / (CARRIED * ROUNDS)

    def draw(self, jobs: list[tuple[np.ndarray, int, tuple[int, ...]]]) -> list[Outputs]:
        """Draw the jobs, which come in pairs (D, D'); a draw that overruns the time limit
        raises :class:`_Hung` with its pair."""
        n = sum(n for _, n, _ in jobs)
        self.used += n
        stage = _STAGE_NAMES[jobs[0][2][0]] if jobs else ""
        if jobs:
            self.used_by_stage[stage] = self.used_by_stage.get(stage, 0) + n
        try:
            return draw(
                self.mech,
                [DrawJob(d, n, k) for d, n, k in jobs],
                self.seed,
                self.executor,
                timeout=self.timeout,
            )
        except DrawTimedOut as exc:
            j = exc.job
            raise _Hung(stage, jobs[j][0], jobs[j ^ 1][0]) from None

    def next_key(self) -> int:
        self.counter += 1
        return self.counter

    def law(self, data: np.ndarray) -> Any:
        """The exact law on ``data`` (None when ``exact`` raises: a note); a law that yields NaN
        or is not an exact law is a ``ValueError`` naming the mechanism."""
        key = tuple(data.tolist())
        if key not in self.laws:
            try:
                got = self.mech.exact(np.asarray(data, dtype=float))
            except Exception as exc:  # noqa: BLE001 -- no exact law here: black-box only
                self.laws[key] = None
                if len(self.notes) < 20:
                    self.notes.append(f"exact() raised {type(exc).__name__} on {list(key)}: {exc}")
            else:
                where = list(key) if len(key) <= 20 else f"{len(key)} records"
                self.laws[key] = check_exact_law(
                    got, f"mechanism {self.name!r}: exact(data) on data = {where}"
                )
        return self.laws[key]


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


def audit_mechanism(
    mech: Any,
    *,
    pairs: Iterable[tuple[Any, Any]] | None = None,
    domain: tuple[float, float] | None = None,
    samples: int | None = None,
    alpha: float = 1e-6,
    seed: int = 0,
    mode: str = "auto",
    executor: Executor | None = None,
    name: str | None = None,
    progress: Callable[[str], None] | None = None,
    timeout: float | None = None,
    float_lattice: bool = False,
) -> AuditReport:
    """Audit ``mech`` against its ``claim``; see the module docstring and ``DESIGN.md``.

    ``samples`` is the number of draws per data set for each final candidate (30 % selection, 70 %
    evaluation; default :data:`DEFAULT_SAMPLES`, at most :data:`MAX_SAMPLES`); the search draws
    extra screening samples, counted in ``samples_used``. ``progress`` receives one line per
    stage. ``timeout`` (seconds, None for no limit) bounds each draw (module docstring).
    ``float_lattice`` adds the float-lattice events (:mod:`audit.events`): a float sampler whose
    draws sit on different lattices of doubles on two neighbours leaks (Mironov 2012), and with
    them the auditor finds it; most mechanisms with continuous float outputs (Laplace noise, the
    EM's uniform draws) leak that way, so they are an option. Every argument is checked before
    anything is drawn (module docstring, "What it refuses").
    """
    start = time.perf_counter()
    claim = check_claim(_read(mech, "claim"), "mech.claim")
    if not callable(_read(mech, "sample", None)):
        raise ValueError("mech must have a sample(data, size, rng) method")
    mode = check_choice(mode, "mode", MODES)
    if mode == "exact" and not has_exact(mech):
        raise ValueError("mode='exact' needs a mechanism with an exact(data) law")
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    if alpha < MIN_ALPHA:
        raise ValueError(f"alpha must lie in [{MIN_ALPHA:g}, 1), got {alpha!r}")
    seed = check_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    if samples is None:
        samples = DEFAULT_SAMPLES
    else:
        samples = check_int(samples, "samples", minimum=10, maximum=MAX_SAMPLES)
    if executor is not None and not isinstance(executor, Executor):
        raise ValueError(
            "executor must be a concurrent.futures.Executor (a thread or process pool, a dask "
            f"client's get_executor()) or None, got {type(executor).__name__}"
        )
    if progress is not None and not callable(progress):
        raise ValueError(
            f"progress must be callable (one line per stage) or None, got {progress!r:.80}"
        )
    if name is not None:
        if not isinstance(name, str):
            raise ValueError(f"name must be a string or None, got {type(name).__name__}")
        if len(name) > MAX_NAME:
            raise ValueError(f"name must have at most {MAX_NAME} characters, got {len(name)}")
    float_lattice = check_flag(float_lattice, "float_lattice")
    if timeout is not None:
        timeout = check_positive(timeout, "timeout")
        if not MIN_TIMEOUT <= timeout <= MAX_TIMEOUT:
            raise ValueError(
                f"timeout must lie in [{MIN_TIMEOUT:g}, {MAX_TIMEOUT:g}] seconds (or be None), "
                f"got {timeout!r}"
            )
    dom = _audit_domain(mech, domain)
    inputs = _read(mech, "input_values", None)
    if inputs is not None:
        inputs = check_values(inputs, "mech.input_values")
    values = tuple(v for v in probe_values(dom, inputs) if dom[0] <= v <= dom[1])
    checked = None if pairs is None else check_pairs(pairs, claim.adjacency, dom, inputs)
    if checked is None and len(values) < 2 and claim.adjacency != "add_remove":
        raise ValueError(
            f"domain {dom} gives a single value to probe ({values}); a {claim.adjacency} audit "
            "needs two: widen the domain or give pairs"
        )
    label = name or mechanism_name(mech)
    ctx = _Context(
        mech,
        claim,
        values,
        samples,
        alpha,
        seed,
        executor,
        pairs is None,
        progress or (lambda s: None),
        label,
        timeout,
        float_lattice,
    )
    candidates = [Candidate(d0, d1) for d0, d1 in checked] if checked else []

    exact_info: dict[str, Any] | None = None
    finalists: list[Candidate] = []
    use_exact = mode in ("exact", "auto") and has_exact(mech)
    if use_exact:
        source = f"{len(candidates)} given pairs" if candidates else "the auditor's own search"
        ctx.progress(f"exact stage: {source}")
        exact_info, finalists = _exact_stage(ctx, candidates)
        if exact_info is None and mode == "exact":
            raise ValueError("mech.exact(data) raised on every candidate data set")
    blackbox_info: dict[str, Any] | None = None
    conformance: list[dict[str, Any]] = []
    witness: dict[str, Any] | None = None
    timed_out: dict[str, Any] | None = None
    lower = 0.0
    if mode != "exact":
        try:
            if not finalists:
                finalists = _screening_stage(ctx, candidates)
            ctx.progress(
                f"black-box stage: {len(finalists)} finalists, {samples} draws per data set"
            )
            blackbox_info, witness, lower, eval_draws = _blackbox_stage(ctx, finalists, use_exact)
            if use_exact and eval_draws is not None:
                conformance = _conformance(ctx, *eval_draws)
        except _Hung as hung:
            blackbox_info, witness, conformance = None, None, []
            timed_out, lower, witness = _hang_test(ctx, hung)
    exact_eps = None
    violation = False
    if exact_info is not None:
        exact_eps = exact_info["epsilon_exact"]
        violation = exact_info["violation"]
        if mode == "exact":
            lower = exact_eps
            witness = {**exact_info["worst_pair"], "source": "exact"}
    if timed_out is not None:
        violation = violation or lower > claim.epsilon
        if exact_info is not None and (witness is None or not lower > claim.epsilon):
            witness = {**exact_info["worst_pair"], "source": "exact"}
    if blackbox_info is not None:
        if exact_info is not None and (
            witness is None or (exact_info["violation"] and not blackbox_info["violation"])
        ):  # the exact worst pair is the better witness (the black-box one stays in `blackbox`)
            witness = {**exact_info["worst_pair"], "source": "exact"}
        violation = violation or blackbox_info["violation"]
    return AuditReport(
        mechanism=label,
        claim=claim,
        mode=mode if mode != "auto" else ("exact+blackbox" if exact_info else "blackbox"),
        epsilon_lower_bound=max(0.0, float(lower)),
        epsilon_exact=exact_eps,
        violation=bool(violation),
        witness=witness,
        alpha=alpha,
        seed=seed,
        samples_used=ctx.used,
        samples_by_stage=dict(ctx.used_by_stage),
        seconds=time.perf_counter() - start,
        exact=exact_info,
        blackbox=blackbox_info,
        conformance=conformance,
        notes=ctx.notes,
        timed_out=timed_out,
    )


def _read(mech: Any, attribute: str, *default: Any) -> Any:
    """``mech.<attribute>`` (or the ``default`` given, when it has none); a missing one says
    what a mechanism must have."""
    try:
        return read_attribute(mech, attribute, "mech", *default)
    except ValueError as exc:
        if "is missing" not in str(exc):
            raise
        raise ValueError(
            f"mech.{attribute} is missing: mech must be a mechanism (a reference.PrivacyClaim "
            "as claim, sample(data, size, rng), domain)"
        ) from None


def _audit_domain(mech: Any, domain: Any) -> tuple[float, float]:
    """The values data are drawn from: ``domain`` (inside ``mech.domain``) or ``mech.domain``."""
    own = _read(mech, "domain", None)
    if domain is None:
        if own is None:
            raise ValueError("mech.domain is missing: give domain=(lo, hi)")
        return check_probe_domain(own, "mech.domain")
    dom = check_probe_domain(domain, "domain")
    if own is not None:
        lo, hi = check_probe_domain(own, "mech.domain")
        if not (lo <= dom[0] and dom[1] <= hi):
            raise ValueError(
                f"domain must lie inside mech.domain ({lo!r}, {hi!r}), got {dom}: data outside "
                "it are refused by the mechanism, which is not a leak"
            )
    return dom


def _hang_test(ctx: _Context, hung: _Hung) -> tuple[dict[str, Any], float, dict[str, Any] | None]:
    """Fresh single draws on the pair where a draw overran (module docstring, "Time limit"):
    the bound of the event "timed out", D (where it happened) against D', at level α. The two
    data sets are drawn side by side (two threads, unless the audit has an executor), each draw
    with the time limit, so the test waits at most about :data:`HANG_TEST_SECONDS`; when that
    allows too few draws for any bound above the claim, it is skipped (no draws)."""
    t = float(ctx.timeout or 0.0)
    m = max(1, min(HANG_TEST_DRAWS, int(HANG_TEST_SECONDS / t)))
    best = float(epsilon_lower_bound(m, m, 0, m, ctx.claim.delta, ctx.alpha))
    k0 = k1 = 0
    if best > ctx.claim.epsilon:
        ctx.progress(f"hang test: a {hung.stage} draw took longer than {t:g} s; {m} per side")
        key = ctx.next_key()
        jobs = [DrawJob(hung.data, m, (_HANG, key, 0)), DrawJob(hung.partner, m, (_HANG, key, 1))]
        options = {"chunk": 1, "timeout": t, "stop_on_timeout": False}
        if ctx.executor is not None:
            a, b = draw(ctx.mech, jobs, ctx.seed, ctx.executor, **options)
        else:
            with ThreadPoolExecutor(2, thread_name_prefix="dpquant-hang-test") as pool:
                futures = [
                    pool.submit(draw, ctx.mech, [job], ctx.seed, None, **options) for job in jobs
                ]
                (a,), (b,) = (f.result() for f in futures)
        ctx.used += 2 * m
        ctx.used_by_stage["hang test"] = ctx.used_by_stage.get("hang test", 0) + 2 * m
        k0 = int(np.count_nonzero(a.atoms == TIMEOUT))
        k1 = int(np.count_nonzero(b.atoms == TIMEOUT))
        bound = float(epsilon_lower_bound(k0, m, k1, m, ctx.claim.delta, ctx.alpha))
    else:
        m, bound = 0, -math.inf
    info = {
        "limit_seconds": t,
        "stage": hung.stage,
        "data": hung.data.tolist(),
        "data_prime": hung.partner.tolist(),
        "hang_test": {
            "draws_per_side": m,
            "timeouts_on_data": k0,
            "timeouts_on_data_prime": k1,
            "epsilon_lower_bound": max(0.0, bound),
            "alpha": ctx.alpha,
            "skipped": m == 0,
        },
    }
    ctx.notes.append(
        f"audit stopped early: a draw of the {hung.stage} stage took longer than the time limit "
        f"of {t:g} s; "
        + (
            f"hang test on that pair: {k0}/{m} draws timed out on D, {k1}/{m} on D'"
            if m
            else f"no hang test: within {HANG_TEST_SECONDS:g} s the limit allows too few draws "
            "to bound ε above the claim"
        )
    )
    event = Event("atom", atom=TIMEOUT)
    witness = {
        "data": hung.data.tolist(),
        "data_prime": hung.partner.tolist(),
        "event": event.to_dict(),
        "k0": k0,
        "n0": m,
        "k1": k1,
        "n1": m,
        "epsilon_lower_bound": max(0.0, bound),
        "source": "timeout",
    }
    return info, max(0.0, bound), witness if m else None


# --------------------------------------------------------------------------------------------
# candidates
# --------------------------------------------------------------------------------------------


def _family(ctx: _Context, max_n: int) -> list[Candidate]:
    adjacency = ctx.claim.adjacency
    found = list(exhaustive_pairs(ctx.values, max_n, adjacency))
    found += pattern_pairs(ctx.values, adjacency)
    return [Candidate(*p.data, pair=p) for p in dict.fromkeys(found)]


# --------------------------------------------------------------------------------------------
# exact stage
# --------------------------------------------------------------------------------------------


def _power(ctx: _Context, c: Candidate) -> PairPower | None:
    p, q = ctx.law(c.d0), ctx.law(c.d1)
    if p is None or q is None:
        return None
    try:
        return pair_power(p, q, ctx.n_eval, ctx.claim.delta, ctx.alpha_eval)
    except ValueError as exc:
        raise ValueError(
            f"mechanism {ctx.name!r}: the exact laws on {c.d0.tolist()} and {c.d1.tolist()} "
            f"cannot be judged: {exc}"
        ) from None


_EXACT_MEMO: dict[Any, tuple[dict[str, Any] | None, list[Candidate], list[str]]] = {}


def _exact_stage(
    ctx: _Context, given: list[Candidate]
) -> tuple[dict[str, Any] | None, list[Candidate]]:
    """The exact stage depends on no seed: it is memoised per (mechanism, search setting), so
    re-auditing the same hashable mechanism with other seeds only redraws the samples."""
    try:
        key = (
            ctx.mech,
            ctx.claim,
            ctx.values,
            ctx.samples,
            ctx.alpha,
            tuple(c.key for c in given),
        )
        hash(key)
    except TypeError:
        return _exact_stage_uncached(ctx, given)
    if key not in _EXACT_MEMO:
        notes_before = len(ctx.notes)
        info, finalists = _exact_stage_uncached(ctx, given)
        if len(_EXACT_MEMO) > 64:
            _EXACT_MEMO.clear()
        _EXACT_MEMO[key] = (info, finalists, ctx.notes[notes_before:])
        return info, finalists
    info, finalists, notes = _EXACT_MEMO[key]
    ctx.notes.extend(notes)
    for c in finalists:  # the black-box stage asks for these laws again
        ctx.law(c.d0), ctx.law(c.d1)
    return info, finalists


def _exact_stage_uncached(
    ctx: _Context, given: list[Candidate]
) -> tuple[dict[str, Any] | None, list[Candidate]]:
    candidates = given or _family(ctx, EXACT_MAX_N)
    screened = [(c, pw) for c in candidates if (pw := _power(ctx, c)) is not None]
    if not screened:
        return None, []
    climbed = 0
    if ctx.search:
        starts = sorted(screened, key=lambda t: -t[1].expected)[:CLIMB_STARTS]
        starts += sorted(screened, key=lambda t: -t[1].loss)[:CLIMB_STARTS]
        seen = {c.key for c, _ in screened}

        def objective(p: Pair) -> float:
            pw = _power(ctx, Candidate(*p.data, pair=p))
            return -math.inf if pw is None else pw.expected

        discrete = getattr(ctx.mech, "input_values", None) is not None
        for c, _ in starts:
            values = ctx.values
            best = c.pair
            for _ in range(2):  # climb, refine the grid around the optimum, climb again
                if not discrete:
                    values = refine_values(
                        (*values, *best.shared, best.y, *([best.x] if best.x is not None else []))
                    )
                best, _, k = hill_climb(best, objective, values, ctx.claim.adjacency, CLIMB_STEPS)
                climbed += k
            cand = Candidate(*best.data, pair=best)
            if cand.key not in seen and (pw := _power(ctx, cand)) is not None:
                seen.add(cand.key)
                screened.append((cand, pw))
    ctx.progress(f"exact stage: {len(screened)} pairs screened, {climbed} visited by local search")
    # exact (mpmath) losses for the worst pairs by the float screen, and for the most detectable
    by_loss = sorted(screened, key=lambda t: -t[1].loss)
    top_loss = by_loss[0][1].loss
    chosen = [t for t in by_loss if t[1].loss >= min(top_loss, ctx.claim.epsilon) - 1e-6][:20]
    chosen += sorted(screened, key=lambda t: -t[1].expected)[:FINALISTS]
    unique = list({c.key: c for c, _ in chosen}.values())
    sweep = exact_sweep(ctx.mech, [(c.d0, c.d1) for c in unique], laws=ctx.law)
    loss, delta_max, violation = sweep.max_loss, sweep.max_delta_at_claim, sweep.violation
    worst_d0, worst_d1 = sweep.witness
    try:
        analysis = analyse_pair(
            ctx.law(worst_d0), ctx.law(worst_d1), (worst_d0, worst_d1), ctx.claim
        )
    except ValueError as exc:
        raise ValueError(
            f"mechanism {ctx.name!r}: the exact laws on {worst_d0.tolist()} and "
            f"{worst_d1.tolist()} cannot be judged: {exc}"
        ) from None
    finalists = []
    for c, pw in sorted(screened, key=lambda t: -t[1].expected):
        if all(f.key != c.key for f in finalists):
            c.prior = (pw.p0, pw.p1)
            c.planned = pw
            finalists.append(c)
        if len(finalists) == FINALISTS:
            break
    best_power = max(screened, key=lambda t: t[1].expected)[1]
    info = {
        "pairs_screened": len(screened),
        "pairs_exact": sweep.pairs,
        "max_n": EXACT_MAX_N if not given else None,
        "epsilon_exact": float(loss),
        "epsilon_exact_digits": mpmath.nstr(loss, 30),
        "delta_at_claimed_epsilon": float(delta_max),
        "violation": violation,
        "worst_pair": {"data": worst_d0.tolist(), "data_prime": worst_d1.tolist()},
        "worst_pair_analysis": analysis.to_dict(),
        "planning": {
            "best_expected_bound": best_power.expected,
            "event_masses": [best_power.p0, best_power.p1],
            "samples_needed_to_exceed_claim": best_power.samples_needed(
                ctx.claim.epsilon, ctx.claim.delta, ctx.alpha_eval
            ),
        },
        "note": "proof by computation on the searched family only, not for all data sets",
    }
    return info, finalists


# --------------------------------------------------------------------------------------------
# screening (black-box search)
# --------------------------------------------------------------------------------------------


def _screen(
    ctx: _Context, candidates: list[Candidate], size: int = SCREEN_SAMPLES, stage: int = _SCREEN
) -> list[Scored]:
    jobs = []
    for c in candidates:
        key = ctx.next_key()
        jobs += [(c.d0, size, (stage, key, 0)), (c.d1, size, (stage, key, 1))]
    outs = ctx.draw(jobs)
    return [
        best_event(
            outs[2 * i],
            outs[2 * i + 1],
            ctx.n_eval,
            ctx.claim.delta,
            ctx.alpha_eval,
            (c.d0, c.d1),
            lattice=ctx.float_lattice,
        )
        for i, c in enumerate(candidates)
    ]


def _screening_stage(ctx: _Context, given: list[Candidate]) -> list[Candidate]:
    """Black-box search: the crash scan's pairs go first (and may end the search at once);
    then the exhaustive family and the quantile patterns are screened by successive halving (250
    draws per side for all, 2 000 for the best 32, 10 000 for the best 8). Unless one of them
    already shows a clear violation (its planned budget is at most half the full one), local
    search climbs from the best two, refining the grid around its optimum once."""
    rescreened: dict[Any, tuple[Candidate, Scored]] = {}
    candidates = list(given)
    if not given:
        crashes = _crash_scan(ctx) if ctx.claim.adjacency != "local" else []
        if crashes:  # pairs where the atoms change with n: often a clear violation on their own
            for c, sc in zip(crashes, _screen(ctx, crashes, MIDSCREEN_SAMPLES), strict=True):
                rescreened[c.key] = (c, _with_prior(c, sc, MIDSCREEN_SAMPLES))
            if _clear_violation(ctx, rescreened):
                ctx.notes.append("search stopped early: the crash scan found a clear violation")
                return _finalists(rescreened)
        candidates = crashes + _family(ctx, BLACKBOX_MAX_N)
    candidates = list({c.key: c for c in candidates}.values())
    ctx.progress(f"screening: {len(candidates)} candidate pairs")
    ranked = sorted(
        zip(candidates, _screen(ctx, candidates), strict=True), key=lambda t: -t[1].expected
    )
    mid = [c for c, _ in ranked[:MIDSCREEN_TOP]]
    ranked = sorted(
        zip(mid, _screen(ctx, mid, MIDSCREEN_SAMPLES), strict=True), key=lambda t: -t[1].expected
    )
    top = [c for c, _ in ranked[:RESCREEN_TOP]]
    for c, sc in zip(top, _screen(ctx, top, RESCREEN_SAMPLES), strict=True):
        rescreened[c.key] = (c, _with_prior(c, sc))
    if given:
        return _finalists(rescreened)
    if _clear_violation(ctx, rescreened):
        ctx.notes.append("search stopped early: a clear violation was found")
    else:
        _climb(ctx, rescreened)
    return _finalists(rescreened)


def _climb(ctx: _Context, rescreened: dict[Any, tuple[Candidate, Scored]]) -> None:
    # the local search's screens scale with the budget: 4 000 draws per side at the default
    # 400 000, fewer for a small budget (a slow mechanism audited with few draws stays cheap)
    size = max(500, min(CLIMB_SAMPLES, ctx.samples // 100))

    def objective(p: Pair) -> float:
        return _screen(ctx, [Candidate(*p.data, pair=p)], size, _CLIMB)[0].expected

    starts = sorted(rescreened.values(), key=lambda t: -t[1].expected)[:BLACKBOX_CLIMB_STARTS]
    for c, _ in starts:
        if c.pair is None:
            continue
        best, values = c.pair, ctx.values
        for _ in range(2):  # climb, refine the grid around the optimum, climb again
            if getattr(ctx.mech, "input_values", None) is None:
                values = refine_values(
                    (*values, *best.shared, best.y, *([best.x] if best.x is not None else []))
                )
            best, _, _ = hill_climb(
                best, objective, values, ctx.claim.adjacency, steps=3, max_size=CLIMB_MAX_SIZE
            )
        cand = Candidate(*best.data, pair=best)
        if cand.key not in rescreened:
            sc = _screen(ctx, [cand], RESCREEN_SAMPLES)[0]
            rescreened[cand.key] = (cand, _with_prior(cand, sc))


def _with_prior(c: Candidate, sc: Scored, n: int = RESCREEN_SAMPLES) -> Scored:
    """Record the pessimistic masses of the candidate's best event (Wilson, z = 2, at the
    screening size ``n``) for budget planning."""
    p0 = float(wilson_bound(np.asarray(sc.p0), n, 2.0, upper=False))
    p1 = float(wilson_bound(np.asarray(sc.p1), n, 2.0, upper=True))
    c.prior = (p0, p1)
    return sc


def _finalists(rescreened: dict[Any, tuple[Candidate, Scored]]) -> list[Candidate]:
    ranked = sorted(rescreened.values(), key=lambda t: -t[1].expected)
    return [c for c, _ in ranked[:FINALISTS]]


def _clear_violation(ctx: _Context, rescreened: dict[Any, tuple[Candidate, Scored]]) -> bool:
    """Some candidate's planned budget is at most half the full one (see :func:`_budget`)."""
    return any(_budget(ctx, c) <= ctx.samples // 2 for c, _ in rescreened.values())


def _atoms_seen(out: Outputs) -> frozenset[str]:
    return frozenset(out.atom_counts())


def _crash_scan(ctx: _Context) -> list[Candidate]:
    """Pairs where the atoms (exceptions, NaN) that the mechanism produces change with the size
    of tied data: sizes 1, 2, 4, ... up to :data:`CRASH_MAX_SIZE`, then bisection on the size."""
    values = ctx.values
    sizes = [2**k for k in range(int(math.log2(CRASH_MAX_SIZE)) + 1)]
    found: list[Candidate] = []
    ends = sorted({values[0], values[len(values) // 2], values[-1]})

    def status(p: Pair) -> tuple[frozenset[str], frozenset[str]]:
        key = ctx.next_key()
        a, b = ctx.draw(
            [(p.data[0], CRASH_DRAWS, (_CRASH, key, 0)), (p.data[1], CRASH_DRAWS, (_CRASH, key, 1))]
        )
        return _atoms_seen(a), _atoms_seen(b)

    for v in ends:
        for w in values:
            if w == v:
                continue
            family = tie_family(v, w, ctx.claim.adjacency)
            states = [status(family(n)) for n in sizes]
            for n, st in zip(sizes, states, strict=True):
                if st[0] != st[1]:
                    p = family(n)
                    found.append(Candidate(*p.data, pair=p))
            for k in range(len(sizes) - 1):
                if states[k][0] != states[k + 1][0]:
                    lo, hi = sizes[k], sizes[k + 1]
                    while hi - lo > 1:
                        mid = (lo + hi) // 2
                        if status(family(mid))[0] == states[k][0]:
                            lo = mid
                        else:
                            hi = mid
                    for n in (lo, hi):
                        p = family(n)
                        found.append(Candidate(*p.data, pair=p))
    if found:
        ctx.notes.append(f"crash scan: {len(found)} pairs where the atoms produced change with n")
    return found[:16]


# --------------------------------------------------------------------------------------------
# black-box stage
# --------------------------------------------------------------------------------------------


def _llr(p: Any, q: Any) -> Callable[[np.ndarray], np.ndarray] | None:
    if isinstance(p, PiecewiseLogLinear) and isinstance(q, PiecewiseLogLinear):
        return lambda y: _diff(p.logpdf(y[:, 0]), q.logpdf(y[:, 0]))
    if isinstance(p, DiscreteLaw) and isinstance(q, DiscreteLaw) and p.numeric and q.numeric:
        return lambda y: _diff(p.logpmf(y[:, 0]), q.logpmf(y[:, 0]))
    if isinstance(p, GridLaw) and isinstance(q, GridLaw) and len(p) == len(q):
        return lambda y: _diff(p.logpdf(y), q.logpdf(y))
    if isinstance(p, ProductLaw) and isinstance(q, ProductLaw) and len(p) == len(q):
        parts = [_llr(a, b) for a, b in zip(p.components, q.components, strict=True)]
        if all(f is not None for f in parts):
            return lambda y: sum(f(y[:, [i]]) for i, f in enumerate(parts))
    return None


def _law_width(law: Any) -> int:
    return len(law) if isinstance(law, ProductLaw | GridLaw) else 1


def _diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        out = a - b
    return np.where(np.isneginf(a) & np.isneginf(b), 0.0, out)


def _blackbox_stage(
    ctx: _Context, finalists: list[Candidate], use_exact: bool
) -> tuple[dict[str, Any], dict[str, Any] | None, float, tuple | None]:
    """Selection and evaluation in up to :data:`ROUNDS` rounds of growing budget (an eighth of
    the planned draws, then all of them), each with fresh draws and α/ROUNDS: a clear leak is
    established cheaply in the first round, a subtle one (or a correct mechanism) gets the full
    budget. The reported bound is the largest of all rounds' bounds (union bound over rounds)."""
    budgets = [_budget(ctx, c) for c in finalists]
    if min(budgets) < ctx.samples:  # a clear violation: the others need not be tighter than it
        budgets = [min(budgets)] * len(budgets)
    plan = [budgets]
    if max(budgets) >= 8 * MIN_BUDGET:
        plan.insert(0, [max(MIN_BUDGET, b // 8) for b in budgets])
    results: list[dict[str, Any]] = []
    best: tuple[float, Any, Any] = (-math.inf, None, None)
    for r, round_budgets in enumerate(plan):
        entries, round_best = _final_round(ctx, finalists, round_budgets, use_exact, r)
        results += entries
        if round_best[0] > best[0]:
            best = round_best
        if best[0] > ctx.claim.epsilon:
            break
    bound, witness, draws = best
    info = {
        "finalists": [c.describe() for c in finalists],
        "budgets_per_side": budgets,
        "rounds": [list(b) for b in plan[: r + 1]],
        "selection_fraction": SELECTION_FRACTION,
        "carried": CARRIED,
        "alpha_per_candidate": ctx.alpha_eval,
        "evaluated": results,
        "epsilon_lower_bound": max(0.0, bound),
        "violation": bool(bound > ctx.claim.epsilon),
    }
    return info, {**witness, "source": "blackbox"} if witness else None, bound, draws


def _planned_event(
    ctx: _Context,
    pw: PairPower,
    llr: Callable[[np.ndarray], np.ndarray],
    n_eval: int,
    width: int = 0,
) -> Scored:
    """The likelihood-ratio set planned from the exact laws (no draws were used to choose it),
    with the bound its exact masses promise at ``n_eval`` draws. The 1e-9 slack keeps the whole
    tie group at the threshold despite float rounding of the log-densities."""
    if pw.forward:
        event = Event("likelihood_ratio", lo=pw.threshold - 1e-9, llr=llr, width=width)
    else:
        event = Event("likelihood_ratio_reverse", lo=-pw.threshold - 1e-9, llr=llr, width=width)
    value = float(expected_bound(pw.p0, pw.p1, n_eval, ctx.claim.delta, ctx.alpha_eval))
    return Scored(event, pw.forward, value, pw.p0, pw.p1)


def _final_round(
    ctx: _Context, finalists: list[Candidate], budgets: list[int], use_exact: bool, r: int
) -> tuple[list[dict[str, Any]], tuple[float, Any, Any]]:
    """One round: selection draws for every finalist, then evaluation of the best CARRIED."""
    jobs = []
    for i, (c, n) in enumerate(zip(finalists, budgets, strict=True)):
        n_sel = max(1, int(round(n * SELECTION_FRACTION)))
        jobs += [(c.d0, n_sel, (_SELECT, r, i, 0)), (c.d1, n_sel, (_SELECT, r, i, 1))]
    sel = ctx.draw(jobs)
    chosen: list[tuple[Candidate, Scored, int]] = []
    for i, (c, n) in enumerate(zip(finalists, budgets, strict=True)):
        llr = None
        width = sel[2 * i].width
        if use_exact:
            p, q = ctx.law(c.d0), ctx.law(c.d1)
            if p is not None and q is not None and _law_width(p) == _law_width(q) == width:
                llr = _llr(p, q)  # on outputs of the laws' width only (a broken sampler may differ)
        n_eval = n - len(sel[2 * i])
        s = best_event(
            sel[2 * i],
            sel[2 * i + 1],
            n_eval,
            ctx.claim.delta,
            ctx.alpha_eval,
            (c.d0, c.d1),
            llr,
            lattice=ctx.float_lattice,
        )
        if llr is not None and c.planned is not None and math.isfinite(c.planned.threshold):
            planned = _planned_event(ctx, c.planned, llr, n_eval, width)
            if planned.expected >= s.expected:
                s = planned
        chosen.append((c, s, n_eval))
    carried = sorted(range(len(chosen)), key=lambda i: -chosen[i][1].expected)[:CARRIED]
    jobs = []
    for i in carried:
        c, _, n_eval = chosen[i]
        jobs += [(c.d0, n_eval, (_EVAL, r, i, 0)), (c.d1, n_eval, (_EVAL, r, i, 1))]
    ev = ctx.draw(jobs)
    results = []
    best: tuple[float, Any, Any] = (-math.inf, None, None)
    for j, i in enumerate(carried):
        c, s, n = chosen[i]
        a, b = ev[2 * j], ev[2 * j + 1]
        k0 = int(np.count_nonzero(s.event.indicator(a if s.forward else b)))
        k1 = int(np.count_nonzero(s.event.indicator(b if s.forward else a)))
        bound = float(epsilon_lower_bound(k0, n, k1, n, ctx.claim.delta, ctx.alpha_eval))
        d_first, d_second = (c.d0, c.d1) if s.forward else (c.d1, c.d0)
        lo, hi = event_ratio_interval(k0, n, k1, n, ctx.alpha_eval)
        entry = {
            "round": r,
            "data": d_first.tolist(),
            "data_prime": d_second.tolist(),
            "event": s.event.to_dict(),
            "k0": k0,
            "n0": n,
            "k1": k1,
            "n1": n,
            "p0_hat": k0 / n,
            "p1_hat": k1 / n,
            "epsilon_lower_bound": bound,
            "event_log_ratio_ci": [lo, hi],
            "selection_expected_bound": s.expected,
        }
        results.append(entry)
        if bound > best[0]:
            best = (bound, entry, (c, a, b))
    return results, best


def _budget(ctx: _Context, c: Candidate) -> int:
    """Draws per side for a finalist: the full ``samples``, or, when the search already shows a
    clear violation, ``BUDGET_SAFETY`` times the draws its event needs to exceed the claim (at
    least ``MIN_BUDGET``). Chosen before any selection or evaluation draw is made."""
    if c.prior is None:
        return ctx.samples
    needed = samples_needed(
        *c.prior, ctx.claim.epsilon, ctx.claim.delta, ctx.alpha_eval, limit=ctx.samples
    )
    if needed is None:
        return ctx.samples
    return int(min(ctx.samples, max(MIN_BUDGET, BUDGET_SAFETY * needed)))


def _conformance(ctx: _Context, c: Candidate, a: Outputs, b: Outputs) -> list[dict[str, Any]]:
    results = []
    for data, out in ((c.d0, a), (c.d1, b)):
        law = ctx.law(data)
        if law is None:
            continue
        width = _law_width(law)
        if not out.numeric.all() or out.width != width:
            results.append(
                {
                    "data": data.tolist(),
                    "test": "atoms",
                    "passed": False,
                    "statistic": math.inf,
                    "threshold": 0.0,
                    "detail": f"non-numeric outputs {out.atom_counts()}",
                }
            )
            continue
        r = check_sampler(law, out.values if width > 1 else out.values[:, 0], alpha=ctx.alpha)
        results.append(
            {
                "data": data.tolist(),
                "test": r.test,
                "passed": r.passed,
                "statistic": r.statistic,
                "threshold": r.threshold,
                "alpha": r.alpha,
                "samples": r.samples,
            }
        )
    return results


__all__ = ["DEFAULT_SAMPLES", "Candidate", "audit_mechanism", "check_neighbours"]
