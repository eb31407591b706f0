"""How much common random numbers narrow the CI of a difference between two policies.

    .venv/bin/python benchmarks/paired_ci.py results/default/default.nc

For every setting and load of a finished study, and every pair of policies stable
there with per-replication means (``latency_replication_mean``,
``cost_replication_mean``) over the same replications, compares two Student-t
half-widths of the difference of their means: paired (over the per-replication
differences: what the winners use when the dataset says ``common_random_numbers``)
and unpaired (Welch's, as if the runs were independent). Prints, per criterion and
replica dependence, the number of pairs, the median and quartiles of unpaired /
paired, and how many pairs each CI decides (excludes 0). A benchmark: it reads a
dataset, it times nothing.
"""

from __future__ import annotations

import argparse
import itertools
import sys

import numpy as np
import xarray as xr
from scipy import stats


def half_widths(a: np.ndarray, b: np.ndarray, level: float) -> tuple[float, float, float] | None:
    """(difference of means, paired half-width, Welch half-width) over the
    replications both have, or None with fewer than two."""
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    n = len(a)
    if n < 2:
        return None
    q = 0.5 + 0.5 * level
    diff = a - b
    paired = stats.t.ppf(q, n - 1) * diff.std(ddof=1) / np.sqrt(n)
    va, vb = a.var(ddof=1) / n, b.var(ddof=1) / n
    if va + vb == 0:
        return None
    df = (va + vb) ** 2 / (va**2 / (n - 1) + vb**2 / (n - 1))
    welch = stats.t.ppf(q, df) * np.sqrt(va + vb)
    return float(diff.mean()), float(paired), float(welch)


def compare(ds: xr.Dataset, level: float = 0.95) -> dict:
    from straggler.decide.winners import ORACLES

    policies = [str(p) for p in ds["policy"].values if str(p) not in ORACLES]
    out: dict = {}
    for criterion, name in (("E[T]", "latency_replication_mean"), ("E[C]", "cost_replication_mean")):
        if name not in ds:
            continue
        var = ds[name].sel(policy=policies)
        others = [d for d in var.dims if d not in ("policy", "replication")]
        values = var.transpose(*others, "policy", "replication").values
        dependence = list(ds["dependence"].values) if "dependence" in others else ["all"]
        dep_axis = others.index("dependence") if "dependence" in others else None
        for index in np.ndindex(*values.shape[:-2]):
            dep = str(dependence[index[dep_axis]]) if dep_axis is not None else "all"
            block = values[index]
            for i, j in itertools.combinations(range(len(policies)), 2):
                hw = half_widths(block[i], block[j], level)
                if hw is None:
                    continue
                mean, paired, welch = hw
                rows = out.setdefault((criterion, dep), [])
                rows.append((paired, welch, abs(mean) > paired, abs(mean) > welch))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--confidence", type=float, default=0.95)
    args = parser.parse_args(argv)
    ds = xr.open_dataset(args.dataset)
    print(f"dataset {args.dataset}: common_random_numbers = {ds.attrs.get('common_random_numbers', 'absent')}")
    print(
        f"{'criterion':9s} {'dependence':10s} {'pairs':>5s}  unpaired / paired: median (quartiles)  decided: paired, unpaired"
    )
    for (criterion, dep), rows in sorted(compare(ds, args.confidence).items()):
        a = np.array(rows)
        ratio = a[:, 1] / a[:, 0]
        q1, med, q3 = np.quantile(ratio[np.isfinite(ratio)], [0.25, 0.5, 0.75])
        print(
            f"{criterion:9s} {dep:10s} {len(a):5d}  {med:6.2f} ({q1:.2f}-{q3:.2f})"
            f"                  {int(a[:, 2].sum()):4d}, {int(a[:, 3].sum()):4d}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
