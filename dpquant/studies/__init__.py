"""The studies behind ``dpquant reproduce``: one subpackage per paper on a shared harness.

* :mod:`.harness` — seeds, workers and process pools, progress, CSV files, figures;
* :mod:`.command` — what a study gives ``dpquant reproduce <paper>`` (:class:`StudyCommand`);
* :mod:`.aamand25` — Sec. 5 and App. I of Aamand et al. (figures 1a–5);
* :mod:`.imola25` — Sec. 6 / Figure 1 of Imola et al. (Adult);
* :mod:`.fukuchi19` — Sec. 6.1 / Figures 1–2 of Fukuchi et al. (synthetic Beta data);
* :mod:`.tzamos20` — our accuracy study of Tzamos et al.'s private median.

Each subpackage has the same shape: ``config`` (a frozen dataclass ``Study`` built and checked by
``make_study(...)``), ``runner`` (``run(study, *, workers, out, progress, plot) -> list[Path]``),
``tables`` (CSV), ``plots`` (PNG) and ``arguments`` (its ``COMMAND``: ``add_arguments(parser)``
and the parsing of the paper's own options for ``dpquant reproduce <paper>``). The studies use the
paper packages through their public API.
"""
