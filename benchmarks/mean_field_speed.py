"""Seconds per mean-field solve (:func:`straggler.engines.mean_field.solve`), once compiled.

    .venv/bin/python benchmarks/mean_field_speed.py [--repeats 3] [--tolerance 1e-3] [--d 2]

For each size law (exponential, Pareto with alpha 2.2, the measured trace
config/data/requests_ms.csv, 5,000 requests with a heavy tail), each policy and
dependence the tier solves, and each load of 0.3, 0.5, 0.7, 0.9: the best of
``--repeats`` solves' wall time on one core, E[T], the error the solve reports and the
grid's cells. One warm-up solve first loads (or compiles) the kernels; the budget is
one second a solve.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from straggler.engines import mean_field
from straggler.model import distributions
from straggler.model.dependence import IID, Identical, Mixture

ROOT = Path(__file__).resolve().parents[1]
LOADS = (0.3, 0.5, 0.7, 0.9)


def laws() -> dict[str, distributions.Distribution]:
    trace = {"family": "empirical", "file": str(ROOT / "config/data/requests_ms.csv"), "column": "duration_ms"}
    return {
        "exponential": distributions.Exponential(1.0),
        "pareto(2.2)": distributions.Pareto(xm=1.0, alpha=2.2),
        "requests_ms": distributions.from_spec(trace),
    }


def cases(d: int):
    """(label, policy, d, dependence) of every policy and dependence the tier solves."""
    yield "ZRed", "ZRed", 1, IID()
    yield f"CoS d={d}", "CoS", d, IID()
    yield f"CoC d={d} iid", "CoC", d, IID()
    yield f"CoC d={d} identical", "CoC", d, Identical()
    yield f"CoC d={d} mixture 0.5", "CoC", d, Mixture(0.5)
    yield f"RIQ d={d} iid", "RIQ", d, IID()
    yield f"RIQ d={d} identical", "RIQ", d, Identical()
    yield "FRed", "FRed", 2, IID()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tolerance", type=float, default=1e-3)
    parser.add_argument("--d", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    mean_field.solve("CoC", 2, distributions.Exponential(1.0), Mixture(0.5), 0.5)
    print(f"warm-up (kernels loaded or compiled): {time.perf_counter() - start:.2f} s\n")
    header = f"{'law':12s} {'policy':22s} {'load':>4s} {'seconds':>8s} {'E[T]':>10s} {'error':>8s} {'cells':>6s}"
    print(header)
    print("-" * len(header))
    slowest = (0.0, "")
    for name, X in laws().items():
        for label, policy, d, dep in cases(args.d):
            for load in LOADS:
                best = float("inf")
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    eq = mean_field.solve(policy, d, X, dep, load, tolerance=args.tolerance)
                    best = min(best, time.perf_counter() - t0)
                mean = f"{eq.latency_mean:10.5g}" if eq.stable else f"{'unstable':>10s}"
                error = f"{eq.error:8.1e}" if eq.stable else f"{'':8s}"
                print(f"{name:12s} {label:22s} {load:4.1f} {best:8.4f} {mean} {error} {eq.workload_sf.size:6d}")
                slowest = max(slowest, (best, f"{name}, {label}, load {load}"))
    print(f"\nslowest: {slowest[0]:.3f} s ({slowest[1]})")


if __name__ == "__main__":
    main()
