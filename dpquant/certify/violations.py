"""Certified counterexamples as checker certificates: a printed or buggy algorithm whose exact
law breaks its ε-DP claim on a witness pair, written as a ``method="points"`` certificate whose
goal is ``log(P) - log(Q) - eps > 0`` with P and Q the exact expressions of the two laws at one
output (the probabilities of an atom, or the densities at a point inside a cell of the merged
breakpoints, where both densities are continuous: the ratio exceeds e^ε on a set of positive
measure, so the loss does).

The expressions are written from the laws' exact parameters: a
:class:`~dpquant.reference.distributions.DiscreteLaw` with ``exact_probabilities``, a
:class:`~dpquant.reference.distributions.PiecewiseLogLinear` whose slopes, intercepts and
breakpoints are exact rationals (ints, floats, Fractions), or a
:class:`~dpquant.reference.distributions.ProductLaw` of such densities. A law known only through
rounded ``mpf`` values has no such expression: :func:`log_density_text` returns None, and the
caller writes the law's closed form from the mechanism's definition instead (its agreement with
the implemented law is then checked separately).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from dpquant.certify.specs import ClaimCertification, Condition, Part, Variable
from dpquant.errors import ParameterError
from dpquant.reference.distributions import DiscreteLaw, PiecewiseLogLinear, ProductLaw
from dpquant.reference.exact.mp import workdps


def _q(x: Any) -> str:
    """An exact rational as expression text, parenthesised."""
    f = Fraction(x)
    return f"({f.numerator})" if f.denominator == 1 else f"({f.numerator}/{f.denominator})"


def _exact(x: Any) -> bool:
    return isinstance(x, int | float | Fraction) and not isinstance(x, bool)


def _piecewise_text(
    law: PiecewiseLogLinear, var: str
) -> tuple[list[tuple[Any, Any, str]], str] | None:
    """(per piece: left, right, the text of its unnormalised log-density at ``var``; the text of
    the normaliser Z), or None when a parameter is not an exact rational or an end infinite."""
    pieces, terms = [], []
    for i in range(len(law)):
        left, right, a, b = law.exact_parameters(i)
        if isinstance(b, mpmath.mpf) and mpmath.isinf(b):
            continue  # a piece of zero density
        if not all(_exact(x) for x in (left, right, a, b)):
            return None
        if not (_finite(left) and _finite(right)):
            return None
        lin = f"{_q(a)}*{var} + {_q(b)}"
        pieces.append((Fraction(left), Fraction(right), lin))
        if Fraction(a) == 0:
            terms.append(f"({_q(Fraction(right) - Fraction(left))}*exp({_q(b)}))")
        else:
            top = f"exp({_q(a)}*{_q(right)} + {_q(b)})"
            bottom = f"exp({_q(a)}*{_q(left)} + {_q(b)})"
            terms.append(f"(({top} - {bottom})/{_q(a)})")
    if not pieces:
        return None
    return pieces, " + ".join(terms)


def log_density_text(law: Any, at: Any, var: str = "y") -> str | None:
    """The exact log-probability (log-density) of ``law`` at one output, as expression text.

    Args:
        law: A :class:`DiscreteLaw` (``at``: an atom), a :class:`PiecewiseLogLinear` (``at``: an
            exact rational point strictly inside a piece) or a :class:`ProductLaw` of
            piecewise densities (``at``: one point per coordinate).
        at: The output.
        var: The variable's name for a density's point (``y``; coordinate i of a product:
            ``y{i}``).

    Returns:
        The text (the point left as the variable ``var``), or None when the law's parameters are
            not exact rationals.

    Raises:
        ValueError: ``at`` is not an output of the law (off the support, or on a breakpoint).
    """
    if isinstance(law, DiscreteLaw):
        if at not in law.support:
            raise ParameterError("at", "must be an atom of the law", repr(at))
        if law.exact_probabilities is None:
            return None
        return f"log({_q(law.exact_probabilities[law.support.index(at)])})"
    if isinstance(law, ProductLaw):
        if not isinstance(at, tuple | list) or len(at) != len(law.components):
            raise ParameterError(
                "at", f"must give one point per coordinate ({len(law.components)})"
            )
        texts = [
            log_density_text(c, y, f"{var}{i}")
            for i, (c, y) in enumerate(zip(law.components, at, strict=True))
        ]
        if any(t is None for t in texts):
            return None
        return " + ".join(f"({t})" for t in texts)
    if not isinstance(law, PiecewiseLogLinear):
        raise ParameterError(
            "law", "must be a DiscreteLaw, PiecewiseLogLinear or ProductLaw", type(law).__name__
        )
    form = _piecewise_text(law, var)
    if form is None:
        return None
    pieces, z = form
    y = Fraction(at)
    for left, right, lin in pieces:
        if left < y < right:
            return f"{lin} - log({z})"
        if y in (left, right):
            raise ParameterError(
                "at", "must lie strictly inside a piece, not on a breakpoint", str(y)
            )
    raise ParameterError("at", "must lie where the law has positive density", str(y))


def density_witness(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> tuple[Fraction, mpmath.mpf]:
    """An exact rational point strictly inside a cell of the merged breakpoints where
    log p − log q is (about) largest, and that value (mpmath; for choosing the point only).

    Args:
        p: A density.
        q: Another.

    Returns:
        (point, log p − log q there).

    Raises:
        ValueError: No finite cell where both have positive density.
    """
    for name, law in (("p", p), ("q", q)):
        if not isinstance(law, PiecewiseLogLinear):
            raise ParameterError(name, "must be a PiecewiseLogLinear", type(law).__name__)
    cuts = sorted({Fraction(x) for x in (*p.exact_breaks, *q.exact_breaks) if _finite(x)})
    best: tuple[Fraction, mpmath.mpf] | None = None
    with workdps():
        for left, right in zip(cuts[:-1], cuts[1:], strict=True):
            for y in (left + (right - left) / 64, (left + right) / 2, right - (right - left) / 64):
                lp, lq = p.logpdf_mp(y), q.logpdf_mp(y)
                if not (mpmath.isfinite(lp) and mpmath.isfinite(lq)):
                    continue
                if best is None or lp - lq > best[1]:
                    best = (y, lp - lq)
    if best is None:
        raise ParameterError("p", "and q have no finite cell where both have positive density")
    return best


def _finite(x: Any) -> bool:
    return not (isinstance(x, float | mpmath.mpf) and not mpmath.isfinite(x))


def violation_certification(
    claim: str,
    log_p: str,
    log_q: str,
    epsilon: float,
    point: dict[str, Fraction],
    *,
    statement: str,
    domain: str,
) -> ClaimCertification:
    """The certification of a counterexample: ``log_p - log_q - eps > 0`` at one point.

    Args:
        claim: Its id, ``catalogue/<name>`` (the checker's ``[a-z0-9]+/[A-Za-z0-9.-]+``).
        log_p: The text of log P (the log-probability or log-density of one law at the output).
        log_q: The text of log Q (the other law, same output).
        epsilon: The claimed ε (a float, written as the exact rational it is).
        point: The values of the variables the texts use (``y``, ``y0``...), exact rationals.
        statement: What is proved, in words.
        domain: The pair and the output, in words.

    Returns:
        The certification (one ``points`` part over ``eps`` and the point's variables).

    Raises:
        ValueError: An argument refused (named).
    """
    if not isinstance(claim, str) or not claim.startswith("catalogue/"):
        raise ParameterError("claim", "must be a string 'catalogue/<name>'", repr(claim))
    if isinstance(epsilon, bool) or not isinstance(epsilon, float | int) or not epsilon > 0:
        raise ParameterError("epsilon", "must be a finite number > 0", repr(epsilon))
    if not isinstance(point, dict) or any(k == "eps" for k in point):
        raise ParameterError(
            "point", "must be a dict of variable name to exact rational (not 'eps')"
        )
    eps = Fraction(epsilon)
    variables = [Variable("eps", eps, eps)]
    at: dict[str, Fraction | int | str] = {"eps": eps}
    for name, value in point.items():
        v = Fraction(value)
        variables.append(Variable(name, v, v))
        at[name] = v
    part = Part(
        name="the log-likelihood ratio exceeds the claimed epsilon",
        variables=tuple(variables),
        goal=Condition(f"({log_p}) - ({log_q}) - eps", ">"),
        method="points",
        points=(at,),
        precision=256,
    )
    return ClaimCertification(claim=claim, domain=domain, parts=(part,), statement=statement)


__all__ = ["density_witness", "log_density_text", "violation_certification"]
