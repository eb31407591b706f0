"""Every point where an exact value and the simulation disagree, and why.

A point disagrees when the analysis gives E[T] or E[C] exactly (kind ``exact``) and the
simulation's confidence interval at a stable load does not contain it. Each such point
is put in one class, the first that applies:

``heavy tail``
    the size law's tail gives the response time (E[T]: ``ci_reliable_reason``) or the
    server time per job (E[C]: ``cost_ci_reliable_reason``) an infinite variance, so
    the replication means converge slowly and from below and the Student-t interval
    under-covers (``benchmarks/ci_coverage.py`` measures by how much). The decisions
    use the exact value there.
``not settled``
    the run was still drifting (``ci_reliable_reason``: MSER's truncation point at half
    the run).
``chance``
    a light tail and a settled run: a 95 % interval misses the true value at one point
    in twenty, and a study makes many comparisons. The miss is chance when it is not
    significant once the number of comparisons is accounted for: the two-sided
    Student-t p-value of the gap, on the replications' degrees of freedom, times the
    number of comparisons of the criterion with an exact value (Bonferroni) is above
    the interval's error rate.
``unexplained``
    everything else: a gap no number of comparisons accounts for. A correct simulator
    and analysis leave none.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import xarray as xr

from .intervals import confidence

CLASSES = ("heavy tail", "not settled", "chance", "unexplained")
COLUMNS = ("criterion", "point", "exact", "simulated", "ci", "gap_in_ci", "p_adjusted", "class", "why")


def _frame(ds: xr.Dataset, names: list[str]) -> pd.DataFrame:
    dims = [*ds["lambda_max"].dims, "load"]
    like = ds["lambda_max"].broadcast_like(ds["load"]).transpose(*dims)
    data = {n: ds[n].broadcast_like(like).transpose(*dims).values.ravel() for n in names if n in ds}
    index = pd.MultiIndex.from_product([ds[d].values for d in dims], names=dims)
    return pd.DataFrame(data, index=index).reset_index()


CRITERIA = (
    ("E[T]", "latency_approx", "latency_approx_kind", "latency_mean", "latency_mean_ci"),
    ("E[C]", "cost", "cost_kind", "cost_mean", "cost_mean_ci"),
)
"""Per criterion: its name, the analytic value and kind, the simulated mean and CI."""


def _compared(ds: xr.Dataset):
    """Per criterion with both sides in ``ds``: (its names, a frame of its points, where
    an exact value meets a simulated CI at a stable load)."""
    for names in CRITERIA:
        _, value, kind, mean, ci = names
        extra = ["verdict", "replications", "ci_reliable_reason", "cost_ci_reliable_reason", "latency_mean_kind"]
        df = _frame(ds, [value, kind, mean, ci, *extra])
        if value not in df or mean not in df or "verdict" not in df:
            continue
        ok = df[kind].astype(str).eq("exact") & np.isfinite(df[value].astype(float))
        ok &= df["verdict"].astype(str).eq("stable") & np.isfinite(df[mean].astype(float))
        yield names, df, ok & np.isfinite(df[ci].astype(float))


def comparisons(ds: xr.Dataset) -> dict[str, int]:
    """Per criterion, how many (policy, setting, stable load) points compare an exact
    value with a simulated CI."""
    return {names[0]: int(compared.sum()) for names, _, compared in _compared(ds)}


def classify(ds: xr.Dataset) -> pd.DataFrame:
    """One row per disagreement (:data:`COLUMNS`): the criterion (``E[T]``, ``E[C]``),
    the point (``policy=..., distribution=..., load=...``), the exact value, the
    simulated mean and CI half-width, the gap in half-widths, the Bonferroni-adjusted
    p-value, the class (:data:`CLASSES`) and why."""
    from scipy import stats

    if "latency_mean" not in ds:
        return pd.DataFrame(columns=COLUMNS)
    level = confidence(ds)
    rows = []
    for (noun, value, _, mean, ci), df, compared in _compared(ds):
        m = int(compared.sum())
        gap = (df[mean].astype(float) - df[value].astype(float)).abs()
        missed = compared & (gap > df[ci].astype(float) * (1 + 1e-12) + 1e-15)
        for _, r in df[missed].iterrows():
            reps = int(r.get("replications", 2)) if np.isfinite(r.get("replications", np.nan)) else 2
            dof = max(reps - 1, 1)
            se = float(r[ci]) / stats.t.ppf(0.5 + level / 2, dof) if r[ci] > 0 else math.nan
            p = 2 * stats.t.sf(abs(float(r[mean]) - float(r[value])) / se, dof) if se > 0 else 0.0
            adjusted = min(1.0, p * m)
            said = "ci_reliable_reason" if noun == "E[T]" else "cost_ci_reliable_reason"
            reason = str(r.get(said, "") or "")
            if said not in df and noun == "E[T]" and str(r.get("latency_mean_kind", "")) == "ci_undercovers":
                reason = "infinite variance: the size law's tail (a dataset older than ci_reliable)"
            if reason.startswith(("infinite variance", "infinite mean")):
                cls, why = "heavy tail", reason.split(": ", 1)[-1]
            elif reason.startswith("not settled"):
                cls, why = "not settled", reason.split(": ", 1)[-1]
            elif adjusted > 1 - level:
                cls = "chance"
                why = f"p = {p:.2g} on {dof} degrees of freedom; times the {m} comparisons of {noun}: {adjusted:.2g}"
            else:
                cls = "unexplained"
                why = f"p = {p:.2g}; times the {m} comparisons of {noun}: {adjusted:.2g}, below {1 - level:.2g}"
            point = ", ".join(
                f"{d}={r[d]}" for d in [*ds["lambda_max"].dims, "load"] if ds.sizes.get(d, 1) > 1 or d == "load"
            )
            rows.append(
                dict(
                    criterion=noun,
                    point=point,
                    exact=float(r[value]),
                    simulated=float(r[mean]),
                    ci=float(r[ci]),
                    gap_in_ci=(float(r[mean]) - float(r[value])) / float(r[ci]) if r[ci] > 0 else math.inf,
                    p_adjusted=adjusted,
                    **{"class": cls, "why": why},
                )
            )
    return pd.DataFrame(rows, columns=COLUMNS)
