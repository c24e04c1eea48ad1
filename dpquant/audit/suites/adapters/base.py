"""The adapter type: a library call per draw, with its claim and the library's version."""

from __future__ import annotations

import contextlib
import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.audit.model.wrap import CallableMechanism
from dpquant.reference.validation import check_data


class PeerUnavailable(ImportError):
    """The library an adapter wraps is not installed (``pip install -e '.[peers]'``)."""


def installed_version(distribution: str) -> str | None:
    """The installed version of a PyPI distribution.

    Args:
        distribution: The distribution's name on PyPI, e.g. ``"diffprivlib"``.

    Returns:
        Its version string, or None when it is not installed.
    """
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def require(distribution: str, module: str) -> str:
    """The installed version of ``distribution``; :class:`PeerUnavailable` when ``module`` does not
    import."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise PeerUnavailable(
            f"{distribution} is not installed or does not import ({exc}); "
            "install the optional extra: pip install -e '.[peers]'"
        ) from exc
    version = installed_version(distribution)
    return "unknown" if version is None else version


@dataclass(frozen=True)
class PeerMechanism(CallableMechanism):
    """A library's quantile release as a mechanism: ``fn(data, rng)`` makes one library call per
    draw (an exception is an output, as for :func:`dpquant.audit.from_callable`). Built by the
    adapters of :mod:`dpquant.audit.suites.adapters.libraries`.

    Attributes:
        fn: The release, one library call per draw.
        privacy_claim: The claim the library makes at the adapter's ε.
        input_domain: The interval the data lie in.
        name: Its name in reports, naming every parameter.
        vectorized: Always False: one call per draw.
        input_values: None (any value of the domain).
        relation: None (the claim's adjacency).
        library: The PyPI distribution.
        checked_version: The version these adapters were checked against.
        version: The version installed when the adapter was built.
        call: The library call, as a user would write it.
        seedable: Whether the draws are a function of the generator passed to ``sample``
            (False: the library uses its own OS randomness; tests seed it in a subprocess with
            the preloaded shim of :mod:`dpquant.audit.suites.adapters.seeding`).
        chunk_guard: A context manager entered once around each chunk of draws (eeprivacy's
            adapter keeps numpy's global generator there: saving and restoring its state per
            draw cost as much as the draw), or None.
    """

    library: str = ""
    checked_version: str = ""
    version: str = ""
    call: str = ""
    seedable: bool = True
    chunk_guard: Callable[[], contextlib.AbstractContextManager[Any]] | None = None

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> Any:
        with self.chunk_guard() if self.chunk_guard is not None else contextlib.nullcontext():
            return super()._draw(data, size, rng)

    @property
    def version_matches(self) -> bool:
        return self.version == self.checked_version

    def check_input(self, data: Any) -> np.ndarray:
        """Check a data set: the base's data policy, except that NaN records pass through to
        the library (how a library treats NaN is one of the things its tests probe: OpenDP
        counts NaN below every candidate).

        Args:
            data: The data set.

        Returns:
            The data as a float array.

        Raises:
            ValueError: Infinite, non-numeric or out-of-domain records, as usual.
        """
        if (
            isinstance(data, np.ndarray)
            and data.dtype.kind == "f"
            and data.ndim == 1
            and np.isnan(data).any()
        ):
            check_data(data[~np.isnan(data)], "data", domain=self.domain, allow_empty=True)
            return data.astype(np.float64, copy=True)
        return super().check_input(data)
