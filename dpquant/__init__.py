"""The top layer of dpquant: the ``dpquant`` command line and the studies behind ``dpquant
reproduce``.

* :mod:`dpquant.cli` — the command line (``dpquant audit``, ``validate``, ``mechanisms``,
  ``claims``, ``reproduce``), one module per command; ``dpquant`` and ``python -m dpquant`` run
  :func:`dpquant.cli.main`;
* :mod:`dpquant.studies` — the reproductions of the papers' experiments, one subpackage per paper
  (``aamand25``, ``imola25``, ``fukuchi19``, ``tzamos20``) on a shared harness.

This layer imports :mod:`audit` and :mod:`reference`; neither imports it.
"""
