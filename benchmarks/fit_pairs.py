"""How long ``straggler fit --pairs`` takes: every dependence family fitted and checked,
S&X's EM and its bootstrap included.

    .venv/bin/python benchmarks/fit_pairs.py            # 4,000 and 100,000 S&X pairs
    .venv/bin/python benchmarks/fit_pairs.py --quick    # 4,000 only

Times :func:`straggler.model.dependence.families.fit_pairs` (what the command runs after
reading the file) on the shipped S&X pairs, config/data/sx_pairs_ms.csv (4,000 pairs), and
on 100,000 pairs of the same model (config/data/make_sx_pairs_ms.py's laws, seed 1), with
the bootstrap's processes on every core this process may use; prints the seconds, the
cores, the resamples and the EM's iterations. The first call compiles the EM's kernel
(numba), or loads it from the cache: it is timed apart, on 200 pairs. The figures are
recorded in docs/guide/workload.md, section 7.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def sx_pairs(n: int, seed: int) -> np.ndarray:
    """``n`` pairs of the shipped S&X model."""
    spec = importlib.util.spec_from_file_location("make_sx_pairs_ms", ROOT / "config" / "data" / "make_sx_pairs_ms.py")
    assert spec and spec.loader
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    rng = np.random.default_rng(seed)
    work = rng.lognormal(math.log(model.MEDIAN), model.SIGMA, n)
    slowdown = rng.choice(np.array(model.SLOWDOWNS), p=np.array(model.P), size=(n, 2))
    return np.round(work[:, None] * slowdown, 3)


def timed(values: np.ndarray) -> tuple[float, object]:
    from straggler.model.dependence.families import fit_pairs

    start = time.perf_counter()
    fit = fit_pairs(values)
    return time.perf_counter() - start, fit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the 4,000 shipped pairs only")
    args = parser.parse_args()
    from straggler.model.dependence.measured import read_pairs
    from straggler.model.dependence.sx_fit import workers

    warm, _ = timed(sx_pairs(200, seed=2))
    print(f"compile or load of the EM kernel, and a fit of 200 pairs: {warm:.1f} s")
    cases = [("config/data/sx_pairs_ms.csv", read_pairs(str(ROOT / "config/data/sx_pairs_ms.csv")).values)]
    if not args.quick:
        cases.append(("100,000 pairs of the same model", sx_pairs(100_000, seed=1)))
    for name, values in cases:
        seconds, fit = timed(values)
        sx = fit.sx  # type: ignore[attr-defined]
        iterations = sx.solution.iterations if sx is not None else 0
        resamples = sx.resamples if sx is not None else 0
        print(
            f"{name}: {len(values):,} pairs, {seconds:.1f} s on {workers()} cores "
            f"(chosen: {fit.chosen}; EM {iterations} iterations; {fit.resamples:,} resamples of the pairs, "  # type: ignore[attr-defined]
            f"{resamples} refits of S&X)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
