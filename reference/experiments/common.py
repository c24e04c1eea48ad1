"""Helpers shared by the experiment modules (the older shared ones, ``write_csv``, ``_axes_grid``
and ``check_seed``, live in :mod:`reference.experiments.aamand25` and its ``_data`` module)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def name_choices(values: Any, allowed: Sequence[str], name: str) -> tuple[str, ...]:
    """``values`` (a list, or a comma-separated string) as a tuple of distinct names, in order;
    ValueError unless it is a string or a list or tuple of strings, non-empty, and every name is
    in ``allowed``."""
    if not isinstance(values, str) and not (
        isinstance(values, list | tuple) and all(isinstance(v, str) for v in values)
    ):
        raise ValueError(
            f"{name} must be a non-empty list among {tuple(allowed)}, got {values!r:.80}"
        )
    if isinstance(values, str):
        values = [v.strip() for v in values.split(",") if v.strip()]
    out = tuple(dict.fromkeys(values))
    if not out or any(v not in allowed for v in out):
        raise ValueError(f"{name} must be a non-empty list among {tuple(allowed)}, got {values!r}")
    return out


__all__ = ["name_choices"]
