"""No code in dpquant reads an exception's text to learn what went wrong (issue 36, "errors as
types"): a caller that needs the parameter reads the attributes of :mod:`dpquant.errors`.

The rule is checked on the source with ``ast``. Inside an ``except ... as exc:`` block, the text
of ``exc`` (``str(exc)``, ``repr(exc)``, ``format(exc)``, an f-string holding ``{exc}``, and
every name assigned from them) must not be compared (``==``, ``in``, ...), searched
(``.startswith``, ``.find``, ...) or given to a regular expression, and ``exc.args`` must not be
read. And no function takes a ``message`` (or ``msg``) and searches it or gives it to a regular
expression: the shape of the command line's old rewriters of messages. Passing the text on
(``UsageError(str(exc))``, ``f"{label}: {exc}"``, one line of it for display) is not reading it.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SEARCHES = frozenset(
    {"startswith", "endswith", "find", "rfind", "index", "rindex", "count", "partition",
     "rpartition", "__contains__", "__eq__"}
)  # fmt: skip
"""Methods of ``str`` that look into a text."""
PATTERN_METHODS = frozenset({"match", "fullmatch", "search", "findall", "finditer", "sub", "subn"})
"""Methods of ``re`` and of a compiled pattern that read a text."""
TEXT_FUNCTIONS = frozenset({"str", "repr", "format"})
MESSAGE_PARAMETERS = frozenset({"message", "msg"})


def _is_error_class(func: ast.expr) -> bool:
    """A call that builds an exception (``UsageError(...)``): its result is not text."""
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return name.endswith(("Error", "Exception", "Exit"))


class _Taint:
    """The names holding an exception or its text, and whether an expression derives from them."""

    def __init__(self, exception: str) -> None:
        self.exception = exception
        self.texts: set[str] = set()

    def is_text(self, node: ast.AST) -> bool:
        """Whether ``node`` is (or is computed from) the text of the exception."""
        if isinstance(node, ast.Name):
            return node.id in self.texts
        if isinstance(node, ast.Call):
            if _is_error_class(node.func) or (
                isinstance(node.func, ast.Name) and node.func.id == "len"
            ):
                return False  # an exception, or a length: not text
            if (
                isinstance(node.func, ast.Name)
                and node.func.id in TEXT_FUNCTIONS
                and any(self.is_exception(a) for a in node.args)
            ):
                return True
            if isinstance(node.func, ast.Attribute) and node.func.attr == "__str__":
                return self.is_exception(node.func.value) or self.is_text(node.func.value)
        if isinstance(node, ast.FormattedValue) and self.is_exception(node.value):
            return True
        return any(self.is_text(child) for child in ast.iter_child_nodes(node))

    def is_exception(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == self.exception


def _handler_findings(handler: ast.ExceptHandler) -> Iterator[tuple[int, str]]:
    """The places in one ``except ... as name`` block that read the exception's text."""
    assert handler.name is not None
    taint = _Taint(handler.name)
    nodes = [n for stmt in handler.body for n in ast.walk(stmt)]
    for node in nodes:  # names assigned from the text, in order of appearance
        if isinstance(node, ast.Assign) and taint.is_text(node.value):
            taint.texts.update(t.id for t in node.targets if isinstance(t, ast.Name))
    for node in nodes:
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "args"
            and taint.is_exception(node.value)
        ):
            yield node.lineno, f"{handler.name}.args read"
        elif isinstance(node, ast.Compare) and any(
            taint.is_text(side) for side in (node.left, *node.comparators)
        ):
            yield node.lineno, "the exception's text compared"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr in SEARCHES and taint.is_text(node.func.value):
                yield node.lineno, f"the exception's text searched (.{attr})"
            elif attr in PATTERN_METHODS and any(
                taint.is_text(a) for a in (*node.args, *(k.value for k in node.keywords))
            ):
                yield node.lineno, f"the exception's text given to a pattern (.{attr})"


def _message_findings(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
) -> Iterator[tuple[int, str]]:
    """A function that takes a ``message`` and searches it or gives it to a pattern."""
    names = {a.arg for a in (*function.args.args, *function.args.kwonlyargs)} & MESSAGE_PARAMETERS
    if not names:
        return
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        attr, args = node.func.attr, (*node.args, *(k.value for k in node.keywords))
        reads = [a for a in args if isinstance(a, ast.Name) and a.id in names]
        if attr in PATTERN_METHODS and reads:
            yield node.lineno, f"{function.name} gives its message to a pattern (.{attr})"
        value = node.func.value
        if attr in SEARCHES and isinstance(value, ast.Name) and value.id in names:
            yield node.lineno, f"{function.name} searches its message (.{attr})"


def findings(source: str) -> list[tuple[int, str]]:
    """Every place in ``source`` that reads an exception's text (line, what)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ExceptHandler) and node.name is not None:
            found.extend(_handler_findings(node))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.extend(_message_findings(node))
    return sorted(set(found))


def test_no_module_of_dpquant_reads_an_exceptions_text() -> None:
    bad = {
        str(path.relative_to(ROOT)): hits
        for path in sorted((ROOT / "dpquant").rglob("*.py"))
        if (hits := findings(path.read_text(encoding="utf-8")))
    }
    assert bad == {}


# the ways dpquant read its exceptions' text before issue 36, each of which must be found
READERS = {
    "a phrase looked for in the message": """
        try:
            read()
        except ValueError as exc:
            if "is missing" not in str(exc):
                raise
    """,
    "a prefix of the message": """
        try:
            draw()
        except ValueError as exc:
            if str(exc).startswith("variant"):
                raise
    """,
    "the message held in a name, then its prefixes": """
        try:
            draw()
        except ValueError as exc:
            text = str(exc)
            if any(text.startswith(p) for p in ("data", "epsilon", "L")):
                raise
    """,
    "the message through a pattern": """
        import re
        try:
            run()
        except ValueError as err:
            found = re.match(r"(\\w+) must", f"{err}")
    """,
    "the exception's args": """
        try:
            run()
        except ValueError as e:
            name = e.args[0]
    """,
    "a rewriter of messages": """
        import re
        def as_option(message, keywords):
            for word in keywords:
                if re.match(rf"{word}\\b", message):
                    return "--" + word
            return message
    """,
    "a rewriter of messages by substitution": """
        import re
        def as_options(message, keywords):
            for word in keywords:
                message = re.sub(word, keywords[word], message)
            return message
    """,
}


@pytest.mark.parametrize("source", list(READERS.values()), ids=list(READERS))
def test_each_old_way_of_reading_an_exceptions_text_is_found(source: str) -> None:
    assert findings(textwrap.dedent(source)) != []


PASSING_ON = {
    "the message as another error's": """
        try:
            check()
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    """,
    "the message after a label": """
        try:
            check()
        except ValueError as exc:
            raise ValueError(f"{label}: {exc}") from None
    """,
    "the message on one line, for display": """
        try:
            check()
        except ValueError as exc:
            text = " ".join(str(exc).split())
            shown = text if len(text) <= 200 else text[:197] + "..."
    """,
    "the error's attributes": """
        try:
            check()
        except ParameterError as exc:
            if exc.parameter == "variant":
                raise
    """,
}


@pytest.mark.parametrize("source", list(PASSING_ON.values()), ids=list(PASSING_ON))
def test_passing_a_message_on_or_reading_attributes_is_not_reading_the_text(source: str) -> None:
    assert findings(textwrap.dedent(source)) == []
