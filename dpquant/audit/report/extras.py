"""Optional dependencies and the extras that bring them.

dpquant's core needs numpy, scipy, mpmath, sympy and numba; what only some users need sits
behind a named extra of ``pyproject.toml``: ``dpquant[plots]`` (matplotlib: ``report.plot()``,
the CLI's ``--plot``, the plots of ``audit --all`` and of the studies), ``dpquant[pytest]``
(pytest, for the ``dp_audit`` fixture and ``pytest -m audit``), ``dpquant[distributed]`` (dask,
the CLI's ``--scheduler``) and ``dpquant[peers]`` (the other libraries the adapters audit).

A feature whose dependency is missing raises :class:`MissingExtra` when it is used, naming the
module and the extra to install; nothing returns ``None`` in its place. Importing dpquant, or
loading its pytest plugin, never needs an extra.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

EXTRAS = {"matplotlib": "plots", "pytest": "pytest", "dask": "distributed"}
"""The extra of ``pyproject.toml`` that installs each optional module dpquant imports."""


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message says how to install it.

    Args:
        module: The module missing.
        extra: The extra of dpquant that installs it.
        feature: What needed it.
    """

    def __init__(self, module: str, extra: str, feature: str):
        super().__init__(
            f"{feature} needs {module}, which is not installed: "
            f"pip install 'dpquant[{extra}]' (or pip install {module})",
            name=module,
        )
        self.module = module
        self.extra = extra
        self.feature = feature

    def __reduce__(self) -> tuple[type[MissingExtra], tuple[str, str, str]]:
        return (type(self), (self.module, self.extra, self.feature))


def require(module: str, feature: str) -> ModuleType:
    """Import an optional module for a feature.

    Args:
        module: A key of :data:`EXTRAS`, or a submodule of one.
        feature: What needs it, for the message.

    Returns:
        The module.

    Raises:
        MissingExtra: when it is not installed (naming the extra that installs it).
        ValueError: naming ``module``, when it is not the module of an extra.
    """
    top = module.split(".")[0] if isinstance(module, str) else None
    if top not in EXTRAS:
        raise ValueError(f"module must be one of {sorted(EXTRAS)} or a submodule, got {module!r}")
    try:
        return import_module(module)
    except ImportError as exc:
        if exc.name is not None and exc.name.split(".")[0] != top:
            raise  # the module is there but one of its own dependencies is broken: say that
        raise MissingExtra(top, EXTRAS[top], feature) from None


def missing(module: str, feature: str) -> str | None:
    """Whether an optional module is missing, for a feature that goes on without it and says so.

    Args:
        module: As for :func:`require`.
        feature: As for :func:`require`.

    Returns:
        None when the module can be imported; else the sentence of :class:`MissingExtra`.
    """
    try:
        require(module, feature)
    except MissingExtra as exc:
        return str(exc)
    return None


__all__ = ["EXTRAS", "MissingExtra", "missing", "require"]
