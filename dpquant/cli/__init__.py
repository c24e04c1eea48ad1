"""The ``dpquant`` command line, a thin layer over :mod:`dpquant.reference`, :mod:`dpquant.audit` and
:mod:`dpquant.studies`: one module per command, one sub-parser per command.

* ``dpquant audit MODULE:ATTR`` / ``dpquant audit --all`` (:mod:`.audit`);
* ``dpquant validate REFERENCE CANDIDATE`` (:mod:`.validate`);
* ``dpquant mechanisms`` (:mod:`.mechanisms`) and ``dpquant claims`` (:mod:`.claims`);
* ``dpquant reproduce PAPER [options]`` (:mod:`.reproduce`), one sub-parser per paper.

Shared pieces: :mod:`.app` (the parser and :func:`main`), :mod:`.messages` (exit codes, the
one-line errors), :mod:`.paths` (output paths checked before any work), :mod:`.targets` (what a
``MODULE:ATTR`` names) and :mod:`dpquant.options` (option values). ``dpquant`` and
``python -m dpquant`` run :func:`main`.
"""

from dpquant.cli.app import build_parser, main

__all__ = ["build_parser", "main"]
