"""Certified claims: ledger inequalities proven over a stated domain by branch and bound in Arb
ball arithmetic (python-flint, the ``certify`` extra), written as certificates that an
independent checker (``proofs_checks/certificate_checker.py``) re-verifies.

The modules: :mod:`~dpquant.certify.specs` (what a certification states),
:mod:`~dpquant.certify.expressions` (the expression language in ball arithmetic),
:mod:`~dpquant.certify.branch_and_bound`, :mod:`~dpquant.certify.certificates` (proving and
writing) and :mod:`~dpquant.certify.catalogue` (the certified claims).
"""
