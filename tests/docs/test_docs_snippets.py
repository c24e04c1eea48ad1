"""Every ```python block of the documentation site's pages, and the README's first example, runs
as written (a person copies it).

The blocks of one page run in order in one namespace (a later block may use an earlier one's
names), in a temporary working directory. A block that must not run (a test module of another
project, say) is preceded, on the line just before its fence, by the marker
``<!-- docs-test: skip (why) -->``; notes/docs.md documents it. Blocks of other languages (``sh``)
are not run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SKIP = "<!-- docs-test: skip"
_FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(page: Path) -> list[tuple[int, str, bool]]:
    """(line, code, skipped) of each ```python block of ``page``."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rpartition("\n")[2]
        line = text.count("\n", 0, match.start()) + 2
        blocks.append((line, match.group(1), before.strip().startswith(SKIP)))
    return blocks


PAGES = sorted(p for p in DOCS.rglob("*.md") if any(not s for _, _, s in python_blocks(p)))
"""The pages with at least one block to run."""


def test_the_pages_with_examples_are_found() -> None:
    names = {p.relative_to(DOCS).as_posix() for p in PAGES}
    assert {"getting-started.md", "auditor/index.md", "validating.md"} <= names
    assert {f"papers/{paper}.md" for paper in ("aamand25", "imola25", "fukuchi19", "tzamos20")} <= names


def test_a_skip_marker_needs_a_reason() -> None:
    for page in DOCS.rglob("*.md"):
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.strip().startswith(SKIP):
                assert re.match(r"<!-- docs-test: skip \(.+\) -->$", line.strip()), (page, line)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_the_python_examples_of_a_page_run(page: Path, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for line, code, skipped in python_blocks(page):
        if not skipped:
            exec(compile(code, f"{page.relative_to(DOCS)}:{line}", "exec"), namespace)


def test_the_readme_first_example_runs(tmp_path, monkeypatch, capsys) -> None:
    """The README's example (its other block is run by tests/test_readme_examples.py)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## A first example")
    match = _FENCE.search(text, start)
    assert match is not None
    assert len(match.group(1).splitlines()) <= 30
    monkeypatch.chdir(tmp_path)
    exec(compile(match.group(1), "README.md", "exec"), {"__name__": "__readme__"})
    assert "VIOLATION" in capsys.readouterr().out
