"""The hang test: what an audit does when a draw overruns its time limit.

The first draw that overruns (:mod:`dpquant.audit.pipeline.draws`, "Time limit") stops the search and the stages;
the auditor then draws up to :data:`HANG_TEST_DRAWS` fresh single draws per data set on the pair
where it happened (at most about :data:`HANG_TEST_SECONDS` seconds of waiting per side, each draw
with the same limit) and bounds ε from the event "the draw timed out" at confidence 1 − α: a
mechanism that hangs on D and answers on D' leaks.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from dpquant.audit.events.families import Event
from dpquant.audit.model.outputs import TIMEOUT, Outputs
from dpquant.audit.pipeline.context import HANG, STAGE_NAMES, AuditContext, HungDraw
from dpquant.audit.pipeline.draws import DrawJob, draw_chunk
from dpquant.audit.report.findings import DataPair, HangTest, TimeoutFinding, Witness
from dpquant.audit.statistics.bounds import epsilon_lower_bound

HANG_TEST_DRAWS = 200
"""The most fresh single draws per data set of the hang test."""
HANG_TEST_SECONDS = 4.0
"""About the longest the hang test waits per data set, in seconds."""
HANG_TEST_OVERRUNS = 64
"""The most draws per data set the hang test lets overrun: each leaves its helper thread behind
until its call returns (a call blocked inside C code, ``time.sleep`` say, cannot be interrupted),
so a data set's draws stop at that many overruns. The Clopper–Pearson bounds stay valid for this
stopping rule: stopping at the r-th overrun is inverse binomial sampling, for which the binomial
lower bound on the overrun rate of D is exact (N ≤ n exactly when n draws hold r overruns) and
the binomial upper bound on that of D' conservative. With 64, a hang on D alone (64 overruns in
64 draws, none in 80 on D') still bounds ε above 1.5 at α = 10⁻⁶."""


def hang_test(ctx: AuditContext, hung: HungDraw) -> tuple[TimeoutFinding, float, Witness | None]:
    """Fresh single draws on the pair where a draw overran (:mod:`dpquant.audit.pipeline.runner`, "Time limit"):
    the bound of the event "timed out", D (where it happened) against D', at level α. The two
    data sets are drawn side by side (two threads, unless the audit has an executor), each draw
    with the time limit, so the test waits at most about :data:`HANG_TEST_SECONDS`; when that
    allows too few draws for any bound above the claim, it is skipped (no draws).

    Args:
        ctx: The audit.
        hung: The draw that overran, with its pair.

    Returns:
        The finding (the pair, the stage, the hang test), the bound (at least 0) and the
        ``"timeout"`` witness, or None when the test was skipped.
    """
    t = float(ctx.timeout or 0.0)
    m = max(1, min(HANG_TEST_DRAWS, int(HANG_TEST_SECONDS / t)))
    best = float(epsilon_lower_bound(m, m, 0, m, ctx.claim.delta, ctx.alpha))
    k0 = k1 = 0
    if best > ctx.claim.epsilon:
        ctx.progress(f"hang test: a {hung.stage} draw took longer than {t:g} s; {m} per side")
        key = ctx.next_key()
        jobs = [DrawJob(hung.data, m, (HANG, key, 0)), DrawJob(hung.partner, m, (HANG, key, 1))]
        a, b = _single_draws(ctx, jobs, t)
        n0, n1 = len(a), len(b)
        ctx.count(STAGE_NAMES[HANG], n0 + n1)
        k0 = int(np.count_nonzero(a.atoms == TIMEOUT))
        k1 = int(np.count_nonzero(b.atoms == TIMEOUT))
        bound = float(epsilon_lower_bound(k0, n0, k1, n1, ctx.claim.delta, ctx.alpha))
    else:
        m = n0 = n1 = 0
        bound = -math.inf
    pair = DataPair.of(hung.data, hung.partner)
    test = HangTest(m, n0, n1, k0, k1, max(0.0, bound), ctx.alpha)
    finding = TimeoutFinding(t, hung.stage, pair, test)
    ctx.notes.append(
        f"audit stopped early: a draw of the {hung.stage} stage took longer than the time limit "
        f"of {t:g} s; "
        + (
            f"hang test on that pair: {k0}/{n0} draws timed out on D, {k1}/{n1} on D'"
            if m
            else f"no hang test: within {HANG_TEST_SECONDS:g} s the limit allows too few draws "
            "to bound ε above the claim"
        )
    )
    if test.skipped:
        return finding, max(0.0, bound), None
    event = Event("atom", atom=TIMEOUT)
    witness = Witness.from_hang_test(pair, event, (k0, n0, k1, n1), max(0.0, bound))
    return finding, max(0.0, bound), witness


def _single_draws(ctx: AuditContext, jobs: list[DrawJob], seconds: float) -> list[Outputs]:
    """The jobs drawn one draw at a time, each with the time limit ``seconds``, side by side (on
    the audit's executor, else on two threads of their own), each side stopping at
    :data:`HANG_TEST_OVERRUNS` overruns (:func:`single_draws`)."""
    args = [(ctx.mech, job, ctx.seed, seconds) for job in jobs]
    if ctx.executor is not None:
        futures = [ctx.executor.submit(single_draws, *a) for a in args]
        return [f.result() for f in futures]
    with ThreadPoolExecutor(2, thread_name_prefix="dpquant-hang-test") as pool:
        futures = [pool.submit(single_draws, *a) for a in args]
        return [f.result() for f in futures]


def single_draws(mech: Any, job: DrawJob, seed: int, seconds: float) -> Outputs:
    """``job``'s draws one at a time (draw c seeded by the job's key and c, as
    :func:`dpquant.audit.pipeline.draws.draw` with chunks of one), each within ``seconds``, until
    :data:`HANG_TEST_OVERRUNS` of them overran: so many helper threads at most are left behind."""
    parts: list[Outputs] = []
    overran = 0
    for c in range(job.size):
        out = draw_chunk(mech, job.data, 1, seed, (*job.key, c), seconds, retry=False)
        parts.append(out)
        overran += int(out.atoms[0] == TIMEOUT)
        if overran >= HANG_TEST_OVERRUNS:
            break
    return Outputs.concat(parts) if parts else Outputs.empty()


__all__ = [
    "HANG_TEST_DRAWS",
    "HANG_TEST_OVERRUNS",
    "HANG_TEST_SECONDS",
    "hang_test",
    "single_draws",
]
