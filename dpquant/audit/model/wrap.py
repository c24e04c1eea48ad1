"""``from_callable``: audit any function ``fn(data, rng) -> one output`` (or, vectorised,
``fn(data, size, rng) -> size outputs``).

The wrapper turns the function into a mechanism on :class:`dpquant.reference.core.MechanismBase`:
``sample`` checks ``size``, ``rng`` and the data once (the base's data policy, on ``domain``, and
among ``input_values`` when the function declares a finite input set; the empty data set is
allowed, as add/remove audits need it), then calls the function once per draw with the same
generator, each time on a fresh copy of the data; a vectorised function is called once for all
the draws. An exception raised by a call of a per-draw function becomes that draw's output (the
atom ``raised:<ExceptionType>``, see :mod:`dpquant.audit.model.outputs`), so a function that crashes on one
data set and not on its neighbour is found to leak. A vectorised call that raises raises from
``sample``, like any mechanism's; the auditor then draws that chunk again one draw at a time
(:func:`dpquant.audit.pipeline.draws.draw_chunk`), so each draw's atom comes from a call of its own and the draws
stay independent. (A vectorised function promises ``size`` independent draws per call; one that
raises *because of* some of its random draws breaks that promise, as the calls that do not raise
are then conditioned on their draws: such a function should return its exceptions per draw, or
not be vectorised.) The outputs are returned as they are; the auditor reads them under the
sampling contract of :mod:`dpquant.audit.model.outputs`.

**Checked before any draw** (:func:`from_callable`), so that a broken function is refused rather
than audited into "no violation found":

* its signature against the form it is declared in: ``fn(data, rng)``, or ``fn(data, size, rng)``
  with ``vectorized=True`` (a function whose signature cannot be read is left to the trial);
* a trial: :data:`TRIAL_CALLS` calls (seeded) on each of a few data sets of the domain
  (:func:`trial_data`: data sets of the probe values, of the declared input values, or the
  relation's own data sets), until one returns. Its result must keep the sampling contract (one
  output, or ``size`` outputs). A function that raises on every trial call, or returns something
  that is not an output, is refused with a ``ValueError`` naming ``fn``, what was expected and
  what happened. A function that raises on *some* data sets is audited: its exceptions are
  outputs. A call that takes longer than :data:`TRIAL_SECONDS` ends the trial undecided (a hang is
  for the audit's ``timeout`` to judge).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np

from dpquant.audit.model.calls import call_with_deadline, shown_data
from dpquant.audit.model.claimed import ClaimedMechanism
from dpquant.audit.model.limits import MAX_NAME
from dpquant.audit.model.neighbours import check_probe_domain, check_values, probe_values
from dpquant.audit.model.outputs import Raised, normalise
from dpquant.audit.model.record_spaces import Records
from dpquant.audit.model.relation_inputs import as_input
from dpquant.audit.model.relations import check_relation
from dpquant.audit.model.sampling_contract import MalformedOutput, kind_of
from dpquant.errors import ParameterError
from dpquant.reference.core import OBJECT_RELATIONS
from dpquant.reference.measures import AnyClaim, check_any_claim
from dpquant.reference.validation import check_flag

TRIAL_CALLS = 2
"""Seeded trial calls of the function on each trial data set (:func:`from_callable`)."""
TRIAL_SIZE = 4
"""Draws a vectorised function is asked for in a trial call."""
TRIAL_SECONDS = 2.0
"""The longest the trial waits for a call, in seconds: a call that takes longer ends the trial
undecided (a slow function is not refused; hangs are the audit's ``timeout``'s to judge)."""
TRIAL_RELATION_SETS = 4
"""The most data sets of a relation object tried by the trial."""


@dataclass(frozen=True)
class CallableMechanism(ClaimedMechanism):
    """A function ``fn(data, rng) -> output`` with the claim it is audited against.

    Build it with :func:`from_callable`, which checks every argument; the fields are that
    function's arguments as it stored them. The claim and the domain are read as :attr:`claim`
    and :attr:`domain` (the base, :class:`dpquant.audit.model.claimed.ClaimedMechanism`, derives
    ``domain`` as a property).

    Attributes:
        fn: The function.
        privacy_claim: The claim it is audited against.
        input_domain: The interval its data lie in.
        name: Its name in reports.
        vectorized: ``fn(data, size, rng)`` returns ``size`` draws.
        input_values: Its finite input set, sorted, or None.
        relation: The neighbour relation object of the claim, or None.
    """

    fn: Callable[..., Any]
    privacy_claim: AnyClaim
    input_domain: tuple[float, float] = (-math.inf, math.inf)
    name: str = ""
    vectorized: bool = False
    input_values: tuple[float, ...] | None = None
    relation: Any = None

    allow_empty: ClassVar[bool] = True

    @property
    def domain(self) -> tuple[float, float]:
        return self.input_domain

    @property
    def output_range(self) -> None:
        return None

    def check_input(self, data: Any) -> np.ndarray:
        """Check a data set the function is to be called on.

        The base's data policy, and values among :attr:`input_values` when declared; under a
        relation of records (:class:`dpquant.audit.model.record_spaces.Records`), an (n, dim) array
        of records in its space inside the domain; under another relation object
        (:mod:`dpquant.audit.model.relations`), a numeric array of any shape inside the domain.

        Args:
            data: The data set.

        Returns:
            The data as an array, order kept.

        Raises:
            ValueError: The data break the policy, naming ``data``.
        """
        if isinstance(self.relation, Records):
            return self.relation.check_data(data, "data", self.input_domain)
        if self.relation is not None:
            return as_input(data, "data", self.input_domain)
        x: np.ndarray = super().check_input(data)
        if self.input_values is not None and x.size:
            outside = np.setdiff1d(x, np.asarray(self.input_values))
            if outside.size:
                raise ValueError(
                    f"data must hold values among input_values {list(self.input_values)[:20]}, "
                    f"got {outside[:5].tolist()}"
                )
        return x

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> Any:
        """``size`` outputs: one call of a vectorised ``fn`` (its result as it is), else ``size``
        calls; numeric results of single calls give a float array of shape (size,) or (size, k),
        anything else (exceptions included) an object array."""
        if self.vectorized:
            return self.fn(data.copy(), size, rng)
        outs: list[Any] = []
        for _ in range(size):
            try:
                outs.append(self.fn(data.copy(), rng))
            except Exception as exc:  # noqa: BLE001 -- an exception is an output
                outs.append(Raised.of(exc))
        if all(_is_real(o) or _is_real_row(o) for o in outs):
            try:
                arr = np.asarray(outs, dtype=float)
                if arr.ndim in (1, 2) and len(arr) == size:
                    return arr
            except (TypeError, ValueError, OverflowError):
                pass
        obj = np.empty(size, dtype=object)
        for i, o in enumerate(outs):
            obj[i] = o  # one object per draw (never broadcast into the array)
        return obj

    def _checked_output(self, out: Any, size: int) -> np.ndarray:
        return cast(np.ndarray, out)  # a function's outputs are audited as they are, never checked


def _is_real(x: Any) -> bool:
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(
        x, bool | np.bool_
    )


def _is_real_row(x: Any) -> bool:
    """A flat numpy array of reals (other sequences go through the auditor's atom rules)."""
    return isinstance(x, np.ndarray) and x.ndim == 1 and x.dtype.kind in "iuf"


def from_callable(
    fn: Callable[..., Any],
    claim: AnyClaim,
    domain: tuple[float, float] = (-math.inf, math.inf),
    name: str | None = None,
    *,
    vectorized: bool = False,
    input_values: Any = None,
    relation: Any = None,
) -> CallableMechanism:
    """Wrap ``fn(data, rng) -> one output`` as a mechanism claiming ``claim`` on ``domain``.

    Every argument is checked now, then the function is tried on a few small data sets
    (:func:`trial_data`), so that a function that cannot be called so, or that breaks the
    sampling contract, is refused before an audit starts.

    Args:
        fn: The function: ``fn(data, rng)`` returns one output (``fn(data, size, rng)`` with
            ``vectorized``).
        claim: The privacy claim (:class:`dpquant.reference.PrivacyClaim` or a claim of
            another measure, :mod:`dpquant.reference.measures`; its fields are
            checked now).
        domain: A pair lo < hi: the interval the data lie in (infinite ends allowed; finite
            ends whose width fits a float64).
        name: The name in reports; None: the function's qualified name.
        vectorized: ``fn(data, size, rng)`` returns ``size`` independent outputs (an array with
            one row per draw, or a sequence of ``size`` objects).
        input_values: The function's finite input set (finite reals inside ``domain``, at most
            :data:`dpquant.audit.model.neighbours.MAX_VALUES`), which the auditor then searches
            instead of probe values; data outside it are refused.
        relation: The neighbour relation object (:mod:`dpquant.audit.model.relations`) of a claim
            that names ``"query_answers"`` or ``"custom"`` (required for those claims; the
            function then takes numeric arrays of any shape, in the order given), or, for a
            claim naming ``"add_remove"`` or ``"replace_one"``, a relation of records from a
            record space (:class:`dpquant.audit.model.record_spaces.Records`; the function then takes
            (n, dim) arrays of records in the space). Other relations are refused for record
            claims, and ``input_values`` with any relation.

    Returns:
        The mechanism, ready for :func:`dpquant.audit.audit_mechanism`.

    Raises:
        ValueError: An argument is refused (named in the message); ``fn`` cannot be called in
            its form (the message names the other form when it fits that one); or every trial
            call raised, or a result breaks the sampling contract.
    """
    if not callable(fn):
        raise ValueError(f"fn must be callable, got {type(fn).__name__}")
    claim = check_any_claim(claim, "claim")
    domain = check_probe_domain(domain, "domain")
    if name is not None and not isinstance(name, str):
        raise ValueError(f"name must be a string or None, got {type(name).__name__}")
    if name is not None and len(name) > MAX_NAME:
        raise ValueError(f"name must have at most {MAX_NAME} characters, got {len(name)}")
    vectorized = check_flag(vectorized, "vectorized")
    values = None
    if input_values is not None:
        values = tuple(sorted(set(check_values(input_values, "input_values"))))
        lo, hi = domain
        if values[0] < lo or values[-1] > hi:
            raise ParameterError(
                "input_values",
                f"must lie inside domain [{lo}, {hi}]",
                f"values in [{values[0]}, {values[-1]}]",
            )
    if claim.adjacency in OBJECT_RELATIONS or relation is not None:
        if relation is None:
            raise ValueError(
                f"a {claim.adjacency!r} claim needs relation= (dpquant.audit.model.relations.QueryAnswers or "
                "CustomRelation)"
            )
        relation = check_relation(relation, claim.adjacency)
        if values is not None:
            raise ValueError(
                "input_values are values of records; a relation object's inputs "
                "are whole arrays (give their values through pairs or seeds)"
            )
    label = name or getattr(fn, "__qualname__", None) or repr(fn)
    mech = CallableMechanism(fn, claim, domain, str(label)[:MAX_NAME], vectorized, values, relation)
    _check_signature(fn, vectorized, mech.name)
    _trial(mech)
    return mech


def _forms(vectorized: bool) -> tuple[str, str]:
    """The call form a function is declared in, and the other one."""
    per_draw, block = "fn(data, rng)", "fn(data, size, rng)"
    return (block, per_draw) if vectorized else (per_draw, block)


def _check_signature(fn: Callable[..., Any], vectorized: bool, label: str) -> None:
    """``fn`` must accept the call of its form (``(data, rng)``, or ``(data, size, rng)`` when
    vectorised); a signature that cannot be read is left to the trial.

    Raises:
        ValueError: naming ``fn``, the form expected, its signature, and the other form when it
            fits that one (the ``vectorized`` flag is then wrong).
    """
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin or an object whose signature Python cannot read
        return
    expected, other = _forms(vectorized)
    args = ("data", "size", "rng") if vectorized else ("data", "rng")
    try:
        sig.bind(*args)
    except TypeError:
        pass
    else:
        return
    hint = ""
    try:
        sig.bind(*(("data", "rng") if vectorized else ("data", "size", "rng")))
        hint = (
            f"; it fits {other}: "
            + ("drop vectorized=True" if vectorized else "pass vectorized=True")
            + " (CLI: --vectorized)"
        )
    except TypeError:
        pass
    raise ValueError(
        f"fn {label!r} must be callable as {expected}, but its signature is {label}{sig}{hint}"
    )


def trial_data(mech: CallableMechanism) -> list[np.ndarray]:
    """The data sets of the trial (:func:`from_callable`), in the order tried.

    Under a relation object, its first :data:`TRIAL_RELATION_SETS` data sets with at least one
    record; else, over the probe values of the domain (or the declared input values), three
    records around the middle value, twenty spanning them, then one record of each value (under
    local DP only those), then the three lowest and the three highest: a function that raises on
    a value, or below some size, answers on another of them.

    Args:
        mech: The wrapped function.

    Returns:
        The data sets, each checked by the wrapper.
    """
    if mech.relation is not None:
        found: list[np.ndarray] = []
        for d0, d1 in mech.relation.candidates(mech.input_domain):
            for d in (d0, d1):
                if len(d) and not any(np.array_equal(d, f) for f in found):
                    found.append(d)
            if len(found) >= TRIAL_RELATION_SETS:
                break
        return [mech.check_input(d) for d in found[:TRIAL_RELATION_SETS]]
    values = list(probe_values(mech.input_domain, mech.input_values))
    singles = [[v] for v in values]
    if mech.claim.adjacency == "local":
        return [mech.check_input(d) for d in singles]
    mid = min(max(0, len(values) // 2 - 1), max(0, len(values) - 3))
    spanning = [values[i] for i in np.linspace(0, len(values) - 1, 20).round().astype(int)]
    sets = [values[mid : mid + 3], spanning, *singles, values[:3], values[-3:]]
    return [mech.check_input(d) for d in sets]


def _trial(mech: CallableMechanism) -> None:
    """The trial of :func:`from_callable`: :data:`TRIAL_CALLS` seeded calls on each data set of
    :func:`trial_data` until one returns; its result must keep the sampling contract. A call
    that overruns :data:`TRIAL_SECONDS` ends the trial undecided. An exception that is not an
    ``Exception`` (``SystemExit``, ``KeyboardInterrupt``) propagates.

    Raises:
        ValueError: naming ``fn``: every trial call raised (the last exception named), or a
            result breaks the sampling contract.
    """
    call, _ = _forms(mech.vectorized)
    last: BaseException | None = None
    tried = ""
    datasets = trial_data(mech)
    if not datasets:  # a relation with no data set in the domain: the audit refuses it
        return
    for data in datasets:
        for seed in range(TRIAL_CALLS):
            rng = np.random.default_rng(seed)
            args = (data.copy(), TRIAL_SIZE, rng) if mech.vectorized else (data.copy(), rng)
            tried = shown_data(data)
            status, result = call_with_deadline(mech.fn, args, TRIAL_SECONDS)
            if status == "timeout":  # slow, or hangs: the audit's time limit judges that
                return
            if status == "raised":
                last = result
                continue
            _check_trial_result(mech, result, call, tried)
            return
    assert last is not None
    raise ValueError(
        f"fn {mech.name!r} raised on every trial call {call} ({TRIAL_CALLS} calls on each of "
        f"the trial data sets, the last {tried}): {type(last).__name__}: {_text(last)}; a "
        "function that raises on every call produces no output to audit"
    )


def _check_trial_result(mech: CallableMechanism, result: Any, call: str, data: Any) -> None:
    """A trial call's result must keep the sampling contract (:mod:`dpquant.audit.model.outputs`)."""
    size = TRIAL_SIZE if mech.vectorized else 1
    try:
        normalise(result if mech.vectorized else [result], size)
    except MalformedOutput as exc:
        what = exc.what if mech.vectorized else f"returned {kind_of(result)}"
        need = (
            f"{TRIAL_SIZE} outputs for size = {TRIAL_SIZE} (an array of shape ({TRIAL_SIZE},) or "
            f"({TRIAL_SIZE}, k), or a sequence of {TRIAL_SIZE} outputs)"
            if mech.vectorized
            else "one output (a number, a complex number, a flat sequence of numbers and symbols, "
            "a string, bytes, a boolean or None)"
        )
        raise ValueError(
            f"fn {mech.name!r} {what} on a trial call {call} with data = {data}; it must "
            f"return {need}"
        ) from None


def _text(exc: BaseException) -> str:
    """An exception's message on one line (at most 200 characters), even when its ``__str__``
    raises."""
    try:
        text = " ".join(str(exc).split())
    except Exception:  # noqa: BLE001 -- a broken __str__ of user code
        text = "(its message cannot be shown)"
    return text if len(text) <= 200 else text[:197] + "..."
