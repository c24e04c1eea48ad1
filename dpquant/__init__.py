"""The top layer of dpquant: the ``dpquant`` command line and the studies behind ``dpquant
reproduce``.

* :mod:`dpquant.cli` — the command line (``dpquant audit``, ``validate``, ``mechanisms``,
  ``claims``, ``reproduce``), one module per command; ``dpquant`` and ``python -m dpquant`` run
  :func:`dpquant.cli.main`;
* :mod:`dpquant.studies` — the reproductions of the papers' experiments, one subpackage per paper
  (``aamand25``, ``imola25``, ``fukuchi19``, ``tzamos20``) on a shared harness.

This layer imports :mod:`audit` and :mod:`reference`; neither imports it.

``__version__`` is the installed distribution's version, whose one source is ``version`` in
``pyproject.toml`` (``dpquant --version`` prints it; ``notes/packaging.md``).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("dpquant")
except PackageNotFoundError:  # a source tree on sys.path, never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
