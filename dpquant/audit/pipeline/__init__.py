"""The audit itself, stage by stage, in the order the module names give.

``runner.audit_mechanism`` checks its arguments and plans the audit, with the draw budget
decided by :mod:`.budget`; the draws are made by :mod:`.draws` (in the audit's worker
processes, :mod:`.workers`) and shared through :mod:`.context`. Then:

1. :mod:`.stage1_exact`: candidate pairs judged by their exact output laws;
2. :mod:`.stage2_screening`: pairs screened by their draws alone;
3. :mod:`.stage3_evaluation`: events selected on selection draws, then the bound on ε from fresh
   evaluation draws;

and the report (:mod:`dpquant.audit.report`). :mod:`.hang_check` is the path of an audit whose
draw overran its time limit; :mod:`.time_budget` runs an audit within a time budget.
"""
