"""CoC d = 2, N = 50, i.i.d. exponential, load 0.4 by both engines, 10^8 jobs each.

    .venv/bin/python benchmarks/coc_n50_two_engines.py [--jobs 10000000] [--runs 10]

The reference value 0.6956 (finite N = 50, above the mean field 0.69266; see
tests/engines/simulation/test_simulation_statistical.py) must lie within 0.5% of both.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from straggler.engines.simulation import simulate
from straggler.engines.simulation.reference import make_model


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    model = make_model("CoC", 50, [0.4], d=2, two_pools=False)
    print(f"{'engine':<8} {'jobs':>13} {'seconds':>8} {'E[T]':>9} {'CI':>9} {'vs 0.6956':>10}")
    for engine in ("fast", "events"):
        start = time.perf_counter()
        res = simulate(model, np.random.SeedSequence(7), args.jobs, args.jobs // 20, args.runs, 0.95, engine=engine)
        seconds = time.perf_counter() - start
        mean, ci = res.latency_mean[0], res.latency_mean_ci[0]
        print(
            f"{engine:<8} {args.jobs * args.runs:>13,} {seconds:>8.1f} {mean:>9.5f} {ci:>9.5f} "
            f"{100 * (mean / 0.6956 - 1):>9.3f}%"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
