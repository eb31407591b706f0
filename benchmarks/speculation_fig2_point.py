"""One point of the speculation paper's Fig. 2 at paper scale, timed on one core.

    .venv/bin/python benchmarks/speculation_fig2_point.py [--jobs 10000000] [--runs 50]

SLB (Rer on identical servers, kill and restart) and CoC-2 on N = 50 FCFS queues,
S&X model with X = 1 and the bimodal slowdown (10 w.p. 0.99, 1000 w.p. 0.01; see
config/studies/speculation_fig1.yaml), load lambda E[eta_1] / N = 0.5, the timeout
that minimises the load ratio; 10^7 jobs x 50 independent runs per policy, as the
paper averages 50 simulation runs per point. Prints seconds and jobs/s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from straggler.engines.analysis import speculation
from straggler.engines.simulation import simulate
from straggler.engines.simulation.reference import make_model
from straggler.model import dependence, distributions


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--load", type=float, default=0.5)
    args = parser.parse_args(argv)
    X = distributions.from_spec({"family": "deterministic", "value": 1})
    S = distributions.from_spec({"family": "discrete", "values": [10, 1000], "p": [0.99, 0.01]})
    dep = dependence.SX(S)
    tau = speculation.optimal_timeout(X, dep).tau
    seed = np.random.SeedSequence(2021)
    print(f"{'policy':<8} {'jobs':>14} {'seconds':>9} {'jobs/s':>10} {'E[T]':>9} {'CI':>8}")
    for policy, params, d in (("Rer", {"tau": tau}, None), ("CoC", {}, 2)):
        model = make_model(policy, 50, [args.load], size=X, dependence=dep, d=d, params=params)
        # warm the numba cache outside the timing
        simulate(model, seed, jobs=1000, warmup=100, replications=1, confidence=0.95)
        start = time.perf_counter()
        res = simulate(model, seed, jobs=args.jobs, warmup=args.jobs // 10, replications=args.runs, confidence=0.95)
        seconds = time.perf_counter() - start
        total = args.runs * (args.jobs + args.jobs // 10)
        print(
            f"{policy:<8} {total:>14,} {seconds:>9.1f} {total / seconds:>10.3g} "
            f"{res.latency_mean[0]:>9.4f} {res.latency_mean_ci[0]:>8.4f}"
        )
    print(f"(tau* = {tau:.4g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
