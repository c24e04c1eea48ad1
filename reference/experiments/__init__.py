"""Reproductions of the experiments of the papers implemented in :mod:`reference`.

* :mod:`reference.experiments.aamand25` -- Sec. 5 and App. I of Aamand et al. (ICML 2025): the
  success-rate and error-CDF figures 1a, 1b, 2, 3, 4 and 5 (``dpquant reproduce aamand25``);
* :mod:`reference.experiments.aamand25_data` -- their data generators (Pareto/Lomax and skewed
  uniform), the population laws behind them and the authors' "true median".
"""
