"""What the command line's tests read of a refused command: its one error line."""

from __future__ import annotations


def one_error_line(err: str) -> str:
    """The one non-empty line on stderr, ``dpquant: error: ...`` (asserted)."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("dpquant: error: "), err
    return lines[0]
