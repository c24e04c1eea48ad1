"""The expression language of dpquant's certificates, for the independent checker
(``certificate_checker.py``): exact numbers, a recursive-descent parser of ``+ - * / **``, calls
and parentheses with Python's precedence, evaluation in Arb ball arithmetic (python-flint), and
the translation to sympy for the identity and derivative checks.

Like the checker, it imports no dpquant code: only the standard library, python-flint and (when
a certificate asks for a symbolic check) sympy.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from flint import arb, fmpq


class CertificateError(Exception):
    """A certificate the checker does not accept; ``where`` says which part of it."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


# ----------------------------------------------------------------------------- numbers

_RATIONAL = re.compile(r"^[+-]?\d+(/\d+)?$")
_DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def rational(text: Any, where: str) -> Fraction:
    """The exact rational a certificate's number denotes (``"p/q"``, an integer, a decimal)."""
    if isinstance(text, bool) or not isinstance(text, str | int):
        raise CertificateError(where, f"a number must be a string or an integer, got {text!r}")
    text = str(text).strip()
    if len(text) > 400 or not (_RATIONAL.match(text) or _DECIMAL.match(text)):
        raise CertificateError(where, f"not an exact number: {text[:60]!r}")
    value = Fraction(text)
    return value


# ----------------------------------------------------------------------------- expressions

_TOKEN = re.compile(r"\s*(\d+|[A-Za-z_][A-Za-z_0-9]*|\*\*|[-+*/(),])")
FUNCTIONS = {
    "exp": (1, lambda a: a.exp()),
    "log": (1, lambda a: a.log()),
    "sqrt": (1, lambda a: a.sqrt()),
    "erf": (1, lambda a: a.erf()),
    "erfc": (1, lambda a: a.erfc()),
    "loggamma": (1, lambda a: a.lgamma()),
    "gamma": (1, lambda a: a.gamma()),
    "Abs": (1, lambda a: abs(a)),
    "floor": (1, lambda a: a.floor()),
    "ceiling": (1, lambda a: a.ceil()),
    "Min": (2, lambda a, b: a.min(b)),
    "Max": (2, lambda a, b: a.max(b)),
}
CONSTANTS: dict[str, Callable[[], arb]] = {"pi": arb.pi, "E": arb.const_e}

Node = tuple[Any, ...]


def _tokens(text: str, where: str) -> list[str]:
    out, i = [], 0
    text = text.rstrip()
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:
            raise CertificateError(where, f"cannot read the expression at {text[i : i + 20]!r}")
        out.append(m.group(1))
        i = m.end()
    return out


class _Parser:
    """Recursive descent over ``+ - * / **``, calls and parentheses, with Python's precedence
    (``**`` binds tighter than a unary minus on its left and is right-associative)."""

    def __init__(self, text: str, names: set[str], where: str) -> None:
        self.tokens = _tokens(text, where)
        self.i = 0
        self.names = names
        self.where = where

    def fail(self, reason: str) -> CertificateError:
        return CertificateError(self.where, reason)

    def peek(self) -> str | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise self.fail(f"expected {expected or 'more'}, found {token!r}")
        self.i += 1
        return token

    def parse(self) -> Node:
        node = self.sum()
        if self.peek() is not None:
            raise self.fail(f"unexpected {self.peek()!r}")
        return node

    def sum(self) -> Node:
        node = self.product()
        while self.peek() in ("+", "-"):
            op = self.take()
            node = ("add" if op == "+" else "sub", node, self.product())
        return node

    def product(self) -> Node:
        node = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()
            node = ("mul" if op == "*" else "div", node, self.unary())
        return node

    def unary(self) -> Node:
        if self.peek() == "-":
            self.take()
            return ("neg", self.unary())
        if self.peek() == "+":
            self.take()
            return self.unary()
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        if self.peek() == "**":
            self.take()
            return ("pow", base, self.unary())
        return base

    def atom(self) -> Node:
        token = self.take()
        if token == "(":
            node = self.sum()
            self.take(")")
            return node
        if token.isdigit():
            return ("num", Fraction(int(token)))
        if not (token[0].isalpha() or token[0] == "_"):
            raise self.fail(f"unexpected {token!r}")
        if self.peek() == "(":
            if token not in FUNCTIONS:
                raise self.fail(f"unknown function {token!r}")
            self.take("(")
            args = [self.sum()]
            while self.peek() == ",":
                self.take()
                args.append(self.sum())
            self.take(")")
            if len(args) != FUNCTIONS[token][0]:
                raise self.fail(f"{token} takes {FUNCTIONS[token][0]} argument(s)")
            return ("call", token, *args)
        if token in CONSTANTS:
            return ("const", token)
        if token not in self.names:
            raise self.fail(f"unknown name {token!r}")
        return ("var", token)


def parse(text: Any, names: set[str], where: str) -> Node:
    """The tree of an expression over ``names``."""
    if not isinstance(text, str) or not text.strip() or len(text) > 20_000:
        raise CertificateError(where, "an expression must be a non-empty string")
    return _Parser(text, names, where).parse()


def evaluate(node: Node, values: dict[str, arb]) -> arb:
    """An Arb ball containing the value of ``node`` for every point of the balls ``values``."""
    tag = node[0]
    if tag == "num":
        return arb(fmpq(node[1].numerator, node[1].denominator))
    if tag == "var":
        return values[node[1]]
    if tag == "const":
        return CONSTANTS[node[1]]()
    if tag == "neg":
        return -evaluate(node[1], values)
    if tag == "call":
        args = [evaluate(a, values) for a in node[2:]]
        return FUNCTIONS[node[1]][1](*args)
    a, b = evaluate(node[1], values), node[2]
    if tag == "pow":
        if b[0] == "num" and b[1].denominator == 1:
            return _power(a, int(b[1]))
        if b[0] == "neg" and b[1][0] == "num" and b[1][1].denominator == 1:
            return 1 / _power(a, int(b[1][1]))
        return a ** evaluate(b, values)
    right = evaluate(b, values)
    return {"add": a.__add__, "sub": a.__sub__, "mul": a.__mul__, "div": a.__truediv__}[tag](right)


def _power(a: arb, k: int) -> arb:
    """A ball containing x**k for every x in ``a`` (k >= 0), from the powers of the two ends
    (python-flint's own ``**`` is NaN on a ball holding 0 or a negative number)."""
    if k == 0:
        return arb(1)
    if not a.is_finite():
        return arb("nan")
    ends = []
    for end in (a.lower(), a.upper()):
        p = abs(end) ** k
        ends.append(-p if end < 0 and k % 2 else p)
    out = ends[0].union(ends[1])
    if k % 2 == 0 and a.lower() <= 0 <= a.upper():
        out = out.union(arb(0))
    return out


def uses(node: Node, functions: set[str]) -> bool:
    if node[0] == "call" and node[1] in functions:
        return True
    return any(uses(child, functions) for child in node[1:] if isinstance(child, tuple))


def to_sympy(node: Node, symbols: dict[str, Any], sympy: Any) -> Any:
    tag = node[0]
    if tag == "num":
        return sympy.Rational(node[1].numerator, node[1].denominator)
    if tag == "var":
        return symbols[node[1]]
    if tag == "const":
        return {"pi": sympy.pi, "E": sympy.E}[node[1]]
    if tag == "neg":
        return -to_sympy(node[1], symbols, sympy)
    if tag == "call":
        args = [to_sympy(a, symbols, sympy) for a in node[2:]]
        return getattr(sympy, node[1])(*args)
    a, b = to_sympy(node[1], symbols, sympy), to_sympy(node[2], symbols, sympy)
    return {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b, "pow": a**b}[tag]
