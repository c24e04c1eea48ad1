"""aamand25: adaptive local-DP and shuffle-DP quantile search (Aamand, Boninsegna, Gentle, Imola,
Pagh, ICML 2025, "Lightweight Protocols for Distributed Private Quantile Estimation").

Conventions shared by every module here:

* a user holds one integer in ``[B] = {1, ..., B}``; coins are the values ``1..B`` and flipping coin
  ``m`` on user ``x`` asks the bit ``[x <= m]``;
* every protocol consumes users **without replacement in a uniformly random order** (one query,
  one ε-RR bit per user) through :class:`reference.distributed_quantiles.users.UserStream`;
* a protocol returns a coin ``m`` in ``[B]``; it is an α-approximate τ-quantile when
  ``F(m) < τ + α`` and ``F(m + 1) > τ − α`` with ``F(B + 1) = 1`` (spec §6.1, the strict version).
"""
