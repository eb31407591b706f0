"""How far the mean-field limit is from a finite fleet: the tier's E[T] and P99 beside the
simulation's at N = 10, 100 and 1000 (and 10^4 with ``--large``).

    .venv/bin/python benchmarks/mean_field_vs_n.py [--json] [--large] [--replications 4]

For CoC d = 2 with i.i.d. and with identical copies, RIQ d = 2 and CoS d = 2, on exponential
sizes and on the shipped trace (config/data/requests_ms.csv, ms), at loads 0.5 and 0.7: each
cell is evaluated as a study evaluates it (:func:`straggler.study.evaluate.evaluate_cell`: the
analysis with its mean-field values, and the simulation of 200,000 jobs a replication after
20,000 of warm-up, a fleet of more than 100 servers started in equilibrium), and the table
prints the relative error of the limit, (limit - simulation) / simulation, with the
simulation's CI half-width as a share beside it. The error is the finite fleet's: O(1/N),
largest where the servers interact most (identical copies, high load).

The docs' fleet guide prints the recorded run (docs/validation/mean-field-vs-n.json).
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOADS = (0.5, 0.7)
CASES = (
    ("CoC", "iid"),
    ("CoC", "identical"),
    ("RIQ", "iid"),
    ("CoS", "iid"),
)
LAWS = {
    "exponential": {"family": "exponential", "mean": 1},
    "trace": {"family": "empirical", "file": str(ROOT / "config/data/requests_ms.csv"), "column": "duration_ms"},
}


def config(law: str, N: list[int], replications: int) -> dict:
    return {
        "study": "mean_field_vs_n",
        "seed": 12345,
        "grid": {
            "policy": sorted({p for p, _ in CASES}),
            "distribution": [law],
            "dependence": ["iid", "identical"],
            "r_slow": [1],
            "d": [2],
            "N": N,
        },
        "load": list(LOADS),
        "distributions": {law: LAWS[law]},
        "system": {"pools": 1},
        "evaluate": ["analytic", "simulation"],
        "simulation": {"jobs": 200_000, "warmup": 20_000, "replications": replications},
    }


def measure(Ns: list[int], replications: int) -> dict:
    from straggler import build_grid, resolve_config
    from straggler.study.evaluate import evaluate_cell

    rows = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as store:
        for law in LAWS:
            resolved = resolve_config(config(law, Ns, replications))
            for cid, cell in build_grid(resolved).cells.items():
                if (cell.policy, cell["dependence"]) not in CASES:
                    continue
                ds = evaluate_cell(resolved, cid, store_root=store)
                for li, load in enumerate(ds["load"].values):
                    sim = float(ds["latency_mean"].values[li])
                    ci = float(ds["latency_mean_ci"].values[li])
                    p99 = float(ds["latency_quantile"].sel(quantile=0.99).values[li])
                    p99_ci = float(ds["latency_quantile_ci"].sel(quantile=0.99).values[li])
                    rows.append(
                        {
                            "law": law,
                            "policy": cell.policy,
                            "dependence": cell["dependence"],
                            "N": int(cell["N"]),
                            "load": float(load),
                            "kind": str(ds["latency_approx_kind"].values),
                            "limit": float(ds["latency_approx"].values[li]),
                            "limit_p99": float(ds["latency_approx_quantile"].sel(quantile=0.99).values[li]),
                            "simulation": sim,
                            "ci": ci,
                            "p99": p99,
                            "p99_ci": p99_ci,
                        }
                    )
    return {
        "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "replications": replications,
        "seconds": time.perf_counter() - start,
        "rows": rows,
    }


def _share(a: float, b: float) -> str:
    return f"{(a - b) / b:+.1%}" if math.isfinite(a) and math.isfinite(b) and b > 0 else "-"


def table(out: dict) -> str:
    """The relative error of the limit against the simulation, a row per case and load, a
    column pair (E[T], P99) per N; the simulation's CI as a share in brackets."""
    Ns = sorted({r["N"] for r in out["rows"]})
    head = f"{'law':<12}{'policy':<15}{'load':>5}" + "".join(f"{'N = ' + str(n):>25}" for n in Ns)
    sub = f"{'':<32}" + "".join(f"{'E[T] (CI)':>16}{'P99':>9}" for _ in Ns)
    lines = [head, sub]
    keys = sorted({(r["law"], r["policy"], r["dependence"], r["load"]) for r in out["rows"]})
    by = {(r["law"], r["policy"], r["dependence"], r["load"], r["N"]): r for r in out["rows"]}
    for law, policy, dep, load in keys:
        cells = []
        for n in Ns:
            r = by.get((law, policy, dep, load, n))
            if r is None:
                cells.append(f"{'':>25}")
                continue
            ci = f" ({r['ci'] / r['simulation']:.1%})" if r["simulation"] > 0 else ""
            cells.append(f"{_share(r['limit'], r['simulation']) + ci:>16}{_share(r['limit_p99'], r['p99']):>9}")
        lines.append(f"{law:<12}{policy + ' ' + dep:<15}{load:>5.2g}" + "".join(cells))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--large", action="store_true", help="N = 10^4 too")
    parser.add_argument("--replications", type=int, default=4)
    args = parser.parse_args()
    Ns = [10, 100, 1000] + ([10_000] if args.large else [])
    out = measure(Ns, args.replications)
    print(json.dumps(out, indent=1) if args.json else table(out))


if __name__ == "__main__":
    main()
