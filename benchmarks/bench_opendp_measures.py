"""OpenDP's Gaussian audited against the ρ its own map states (issue 37): the configuration as
built, and rebuilt with 0.8 of its noise scale under the same claim.

Run: ``.venv/bin/python benchmarks/bench_opendp_measures.py [--samples N] [--scale S ...]``
(needs the ``peers`` extra). Each draw is one OpenDP invocation (about 0.25–0.45 ms), so the
default budget takes tens of minutes; ``--samples 100000`` keeps the broken configuration's
audit to about 10⁶ calls.
"""

from __future__ import annotations

import argparse
import time

from dpquant.audit import audit_claim
from dpquant.audit.suites.adapters import opendp_measurements as om


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=None, help="samples per final candidate")
    parser.add_argument("--scale", type=float, nargs="+", default=[0.8, 1.0])
    parser.add_argument("--sigma", type=float, default=1.0)
    args = parser.parse_args()
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
    for scale in args.scale:
        mech = om.opendp_measurement(dp.m.make_gaussian(*space, args.sigma), 1.0, scale=scale)
        start = time.perf_counter()
        report = audit_claim(mech, seed=0, samples=args.samples)
        seconds = time.perf_counter() - start
        print(f"scale {scale:g}: {report.verdict}, {report.draws} calls, {seconds:.1f} s")
        print(f"  {report.summary()}", flush=True)


if __name__ == "__main__":
    main()
