"""The installed distribution's metadata: its version.

A module of its own, below every other, so that the package root (``dpquant.__version__``) and
the command line (``dpquant --version``) read the version from one place without the command
line importing the root, which sits above it (docs/DESIGN.md, "Layers").
"""

from __future__ import annotations


def package_version() -> str:
    """The installed distribution's version.

    Read from its metadata on each call (``importlib.metadata`` takes tens of milliseconds to
    import, so it is imported here, not at load).

    Returns:
        The version of the ``dpquant`` distribution, or ``"0+unknown"`` for a source tree on
        ``sys.path`` that was never installed.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dpquant")
    except PackageNotFoundError:
        return "0+unknown"


__all__ = ["package_version"]
