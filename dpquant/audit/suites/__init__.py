"""Mechanisms to audit: the catalogue of known-bad quantile mechanisms with exact answers
(:mod:`.catalogue`), the classic benchmark of DP-violation detectors (:mod:`.classic`) and other
libraries' quantiles as mechanisms (:mod:`.adapters`).
"""
