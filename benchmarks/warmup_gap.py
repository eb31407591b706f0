"""Why the default study's ZRed (exp, iid, r_slow 0.5, load 0.5) misses its exact E[T].

The default study simulates this cell at 6.434 +- 0.026 against the exact 6.5
(Pollaczek-Khinchine: each server is an M/H2/1 queue at utilisation 0.75). This script
tells initialisation bias from chance:

- **the study's run**, with its own seed (master seed 12345 and the cell's workload):
  the estimate, its interval, the replications' means and MSER's truncation point;
- **the same run under other master seeds**: how many intervals miss 6.5, and the mean
  of the estimates against 6.5 (a bias shows there; a miss that is chance does not);
- **the bias of starting empty**, measured directly: short runs (20,000 jobs) with no
  warm-up, and with the warm-up the study's ratio gives (a tenth of the run).

    .venv/bin/python benchmarks/warmup_gap.py
    .venv/bin/python benchmarks/warmup_gap.py --json > docs/validation/warmup-gap.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys

WORKLOAD = "distribution=exp__dependence=iid__r_slow=0.5__N=10"
"""The cell's workload id in the default study (``straggler.study.grid.workload_id``)."""
STUDY_SEED = 12345


def _model():
    from straggler.engines.simulation.reference import make_model

    return make_model("ZRed", 10, [0.5], r_slow=0.5)


def _run(seed_sequence, jobs: int, warmup: int, replications: int = 4):
    from straggler.engines.simulation import simulate

    return simulate(_model(), seed_sequence, jobs, warmup, replications, 0.95)


def _mean_and_se(values) -> tuple[float, float]:
    import numpy as np

    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(len(v)))


def measure(seeds: int) -> dict:
    import numpy as np

    from straggler.engines.analysis.cell import analyze
    from straggler.study.grid import seed_sequence

    exact = float(analyze(_model()).latency_approx[0])
    study = _run(seed_sequence(STUDY_SEED, WORKLOAD), 200_000, 20_000)
    estimates, misses = [], 0
    for s in range(1, seeds + 1):
        r = _run(seed_sequence(s, WORKLOAD), 200_000, 20_000)
        estimates.append(float(r.latency_mean[0]))
        misses += abs(float(r.latency_mean[0]) - exact) > float(r.latency_mean_ci[0])
    start = {}
    for warmup in (0, 2_000, 20_000):
        means = [float(_run(np.random.SeedSequence([s, warmup]), 20_000, warmup).latency_mean[0]) for s in range(seeds)]
        start[str(warmup)] = _mean_and_se(means)
    return {
        "created": datetime.date.today().isoformat(),
        "exact": exact,
        "seeds": seeds,
        "study": {
            "mean": float(study.latency_mean[0]),
            "ci": float(study.latency_mean_ci[0]),
            "replications": [float(x) for x in study.replication_means[0, :, 0]],
            "warmup_batches": float(study.warmup_batches[0]),
        },
        "other_seeds": {"misses": misses, "mean_se": _mean_and_se(estimates)},
        "empty_start": start,
    }


def table(out: dict) -> str:
    """The measurement as the docs show it."""
    s, o = out["study"], out["other_seeds"]
    lines = [
        f"exact E[T] (Pollaczek-Khinchine)           {out['exact']:.4f}",
        f"the study's run (seed {STUDY_SEED})               {s['mean']:.4f} +- {s['ci']:.4f}",
        "  its replications' means                  " + ", ".join(f"{x:.4f}" for x in s["replications"]),
        f"  MSER's truncation point                  {s['warmup_batches']:.0f} of 32 batches",
        f"{out['seeds']} other master seeds, same run length",
        f"  intervals that miss the exact value      {o['misses']} of {out['seeds']}",
        f"  mean of the estimates                    {o['mean_se'][0]:.4f} +- {o['mean_se'][1]:.4f} (s.e.)",
        "runs of 20,000 jobs from empty, by warm-up",
    ]
    for warmup, (mean, se) in out["empty_start"].items():
        lines.append(
            f"  warm-up {int(warmup):>6,} jobs: mean {mean:.4f} +- {se:.4f} (s.e.), bias {mean - out['exact']:+.4f}"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = measure(args.seeds)
    print(json.dumps(out, indent=1) if args.json else table(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
