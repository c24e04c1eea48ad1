"""The hang test: what an audit does when a draw overruns its time limit.

The first draw that overruns (:mod:`audit.draws`, "Time limit") stops the search and the stages;
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

from audit.context import HANG, STAGE_NAMES, AuditContext, HungDraw
from audit.draws import DrawJob, draw
from audit.events import Event
from audit.outputs import TIMEOUT, Outputs
from audit.statistics import epsilon_lower_bound

HANG_TEST_DRAWS = 200
"""The most fresh single draws per data set of the hang test."""
HANG_TEST_SECONDS = 4.0
"""About the longest the hang test waits per data set, in seconds."""


def hang_test(
    ctx: AuditContext, hung: HungDraw
) -> tuple[dict[str, Any], float, dict[str, Any] | None]:
    """Fresh single draws on the pair where a draw overran (:mod:`audit.runner`, "Time limit"):
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
        jobs = [DrawJob(hung.data, m, (HANG, key, 0)), DrawJob(hung.partner, m, (HANG, key, 1))]
        a, b = _single_draws(ctx, jobs, t)
        ctx.count(STAGE_NAMES[HANG], 2 * m)
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


def _single_draws(ctx: AuditContext, jobs: list[DrawJob], seconds: float) -> list[Outputs]:
    """The jobs drawn one draw at a time, each with the time limit ``seconds``, side by side
    (on the audit's executor, else on two threads of their own)."""
    if ctx.executor is not None:
        return draw(
            ctx.mech, jobs, ctx.seed, ctx.executor, chunk=1, timeout=seconds, stop_on_timeout=False
        )
    with ThreadPoolExecutor(2, thread_name_prefix="dpquant-hang-test") as pool:
        futures = [
            pool.submit(draw, ctx.mech, [job], ctx.seed, None, 1, seconds, False) for job in jobs
        ]
        return [f.result()[0] for f in futures]


__all__ = ["HANG_TEST_DRAWS", "HANG_TEST_SECONDS", "hang_test"]
