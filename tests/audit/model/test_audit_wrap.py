"""``from_callable`` (dpquant/audit/model/wrap.py): vectorised functions and finite input sets (issue 20)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpquant.audit import audit_mechanism, from_callable
from dpquant.audit.model.wrap import TRIAL_SIZE
from dpquant.audit.pipeline.draws import DrawJob, chunk_rng, draw
from dpquant.audit.pytest_plugin import make_auditor
from dpquant.reference.core import PrivacyClaim

LOCAL = PrivacyClaim(1.0, 0.0, "local")
COUNT = PrivacyClaim(1.0, 0.0, "replace_one")


def laplace_count(data, size, rng):
    """Σ data + Laplace(1): 1-DP under replace-one on [0, 1], vectorised."""
    return np.sum(data) + rng.laplace(scale=1.0, size=size)


def test_a_vectorised_function_is_called_once_for_all_draws() -> None:
    calls = []

    def fn(data, size, rng):
        calls.append(size)
        return laplace_count(data, size, rng)

    mech = from_callable(fn, COUNT, (0.0, 1.0), vectorized=True)
    assert calls == [TRIAL_SIZE]  # the wrapper's trial: one call, which returned
    out = mech.sample(np.array([1.0, 0.0]), 5_000, np.random.default_rng(0))
    assert calls == [TRIAL_SIZE, 5_000] and out.shape == (5_000,)
    same = mech.sample(np.array([1.0, 0.0]), 5_000, np.random.default_rng(0))
    assert np.array_equal(out, same)


def test_vectorised_audits_keep_their_verdicts() -> None:
    """Correct: no violation, bound below the claim; scale 1/2 claimed as 1-DP (true ε = 2):
    flagged. The auditor's own search, no pairs given."""
    ok = from_callable(laplace_count, COUNT, (0.0, 1.0), vectorized=True)
    r = audit_mechanism(ok, seed=0, samples=100_000)
    assert not r.violation and r.epsilon_lower_bound <= 1.0, r.summary()

    def half(data, size, rng):
        return np.sum(data) + rng.laplace(scale=0.5, size=size)

    bad = from_callable(half, COUNT, (0.0, 1.0), vectorized=True)
    r = audit_mechanism(bad, seed=0, samples=100_000)
    assert r.violation and 1.0 < r.epsilon_lower_bound <= 2.0, r.summary()


def test_a_vectorised_call_that_raises_is_redone_one_draw_at_a_time() -> None:
    """A call raises with probability 0.3 whatever its size: the call raises from ``sample``, and
    the auditor's draws make each draw of that chunk its own call, so about 30 % of the draws
    (not 0 % or 100 %) are the atom raised:RuntimeError. With 4 000 draws the fraction lies
    within 0.3 ± 0.05 except with probability 2·exp(−2·4000·0.05²) ≈ 4e-9 (Hoeffding); the test
    is seeded."""

    def flaky(data, size, rng):
        if rng.random() < 0.3:
            raise RuntimeError("flaky")
        return np.zeros(size)

    mech = from_callable(flaky, COUNT, (0.0, 1.0), vectorized=True)
    with pytest.raises(RuntimeError):  # a seed whose whole-chunk call raises
        mech.sample(np.array([0.0]), 4_000, chunk_rng(0, (3, 0)))
    (out,) = draw(mech, [DrawJob(np.array([0.0]), 4_000, (3,))], seed=0)
    raised = np.mean(out.atoms == "raised:RuntimeError")
    assert abs(raised - 0.3) < 0.05


def test_a_vectorised_function_may_return_objects() -> None:
    """SVT-like outputs (tuples of symbols and numbers) come back one object per draw."""

    def fn(data, size, rng):
        return [("⊥", float(v)) for v in rng.normal(size=size)]

    mech = from_callable(fn, COUNT, (0.0, 1.0), vectorized=True)
    out = mech.sample(np.array([0.0]), 3, np.random.default_rng(0))
    assert len(out) == 3 and out[0][0] == "⊥"


def test_input_values_are_what_the_auditor_searches_and_all_the_function_accepts() -> None:
    seen: set[float] = set()

    def fn(data, rng):
        seen.update(data.tolist())
        keep = rng.random() < math.e / (1 + math.e)
        return float(data[0]) if keep else 1.0 - float(data[0])

    mech = from_callable(fn, LOCAL, (0.0, 1.0), input_values=[1, 0, 1])
    assert mech.input_values == (0.0, 1.0)
    r = audit_mechanism(mech, seed=0, samples=20_000)
    assert not r.violation and seen == {0.0, 1.0}, r.summary()
    with pytest.raises(ValueError, match="input_values"):
        mech.sample(np.array([0.5]), 1, np.random.default_rng(0))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"vectorized": "yes"}, "vectorized"),
        ({"vectorized": 1}, "vectorized"),
        ({"input_values": []}, "input_values"),
        ({"input_values": [0.0, math.nan]}, "input_values"),
        ({"input_values": [0.0, math.inf]}, "input_values"),
        ({"input_values": "01"}, "input_values"),
        ({"input_values": [0.0, 2.0]}, "inside domain"),
        ({"input_values": range(20_000)}, "input_values"),
    ],
)
def test_from_callable_refuses_bad_vectorized_or_input_values(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        from_callable(laplace_count, COUNT, (0.0, 1.0), **kwargs)


def test_dp_audit_fixture_passes_vectorized_and_input_values_through() -> None:
    dp_audit = make_auditor({"samples": 20_000, "seed": 0})

    def rr(data, size, rng):
        keep = rng.random(size) < math.e / (1 + math.e)
        return np.where(keep, data[0], 1 - data[0])

    r = dp_audit(rr, claim=LOCAL, domain=(0, 1), vectorized=True, input_values=(0, 1))
    assert not r.violation and r.epsilon_lower_bound <= 1.0, r.summary()
    with pytest.raises(ValueError, match="plain function"):
        dp_audit(from_callable(laplace_count, COUNT, (0.0, 1.0), vectorized=True), vectorized=True)
