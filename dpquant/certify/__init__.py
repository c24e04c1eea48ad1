"""Certified claims (issue 38, ``notes/certified.md``): ledger inequalities proven over a stated
domain by branch and bound in Arb ball arithmetic (python-flint, the ``certify`` extra), written
as certificates that an independent checker (``proofs_checks/certificate_checker.py``, which
imports no dpquant code) re-verifies; and the implementations checked exhaustively on small
domains.

The modules: :mod:`~dpquant.certify.specs` (what a certification states),
:mod:`~dpquant.certify.expressions` (the expression language in ball arithmetic),
:mod:`~dpquant.certify.branch_and_bound` (boxes, points, monotone leaves),
:mod:`~dpquant.certify.certificates` (proving and writing), :mod:`~dpquant.certify.catalogue`
(the certified ledger entries), :mod:`~dpquant.certify.exhaustive` and
:mod:`~dpquant.certify.enclosures` (every neighbouring pair of a small domain, the implemented
exact law's loss enclosed), :mod:`~dpquant.certify.tight` (the identities that settle the
mechanisms whose loss equals their claim) and :mod:`~dpquant.certify.violations` (the known-bad
catalogue's counterexample certificates).
"""
