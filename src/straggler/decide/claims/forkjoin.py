"""The fork-join paper's claims (Joshi, Soljanin, Wornell)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .claim import Claim, NotTested, Outcome, joined, outcome
from .data import at, estimate, fastest, need, value, value_str, values_of
from .formatting import fmt, pct

PAPER = "Joshi, Soljanin, Wornell (fork-join paper)"
REPLICAS, K_TRADEOFF, STRATEGY = "forkjoin_replicas", "forkjoin_k_tradeoff", "forkjoin_strategy"
"""The paper's studies (their keys, :func:`~straggler.decide.claims.registry.study_key`)."""

_LOG_CONCAVE, _LOG_CONVEX = "shifted_exp", "hyperexp"


def _by_d(ds, var, dist, load, **sel):
    da = at(ds, var, distribution=dist, load=load, **sel)
    return da["d"].values, np.asarray(da.values, dtype=float)


def j_rxr(ds):
    load = min(values_of(ds, "load"))
    text, ok = [], True
    for dist, sign in ((_LOG_CONCAVE, 1), (_LOG_CONVEX, -1)):
        ds_, c = _by_d(ds, "cost_mean", dist, load)
        okc = np.isfinite(c)
        if okc.sum() < 2:
            raise NotTested(f"fewer than two estimates of E[C] for {dist} at {load}")
        steps = np.diff(c[okc]) * sign
        ci = _by_d(ds, "cost_mean_ci", dist, load)[1][okc]
        good = (steps >= -(ci[1:] + ci[:-1])).all()
        ok &= bool(good)
        text.append(
            f"{dist}: E[C] at load {fmt(load)} for d = "
            f"{', '.join(str(int(x)) for x in ds_[okc])}: "
            f"{', '.join(fmt(x) for x in c[okc])}"
        )
    return outcome(ok, "; ".join(text))


def j_cost_monotone(ds):
    text, ok, n = [], True, 0
    for dist, sign, word in ((_LOG_CONCAVE, 1, "non-decreasing"), (_LOG_CONVEX, -1, "non-increasing")):
        bad = []
        for load in values_of(ds, "load"):
            d, c = _by_d(ds, "cost_mean", dist, load)
            ci = _by_d(ds, "cost_mean_ci", dist, load)[1]
            okc = np.isfinite(c)
            if okc.sum() < 2:
                continue
            n += 1
            steps = np.diff(c[okc]) * sign
            if (steps < -(ci[okc][1:] + ci[okc][:-1])).any():
                bad.append(fmt(load))
        ok &= not bad
        text.append(f"{dist} {word} in d except at loads {bad or 'none'}")
    if not n:
        raise NotTested("no load with two estimates")
    return outcome(ok, "; ".join(text) + f" ({n} law-load series)")


LOW_TRAFFIC = 0.10
"""Low traffic: every system compared runs at most this utilisation (lambda E[C] / N)."""


def _low_traffic(ds, series: dict, label: str, ex: float, what: str) -> Outcome:
    """The low-traffic claim on one series of systems (label -> selection at the
    study's lowest load): ``label`` is faster than every other beyond the error."""
    load = min(values_of(ds, "load"))
    m = {k: value(ds, "latency_mean", **sel) for k, sel in series.items()}
    if not np.isfinite(m.get(label, math.nan)):
        raise NotTested(f"{label} has no estimate at load {fmt(load)} ({what})")
    faster, unseparated = fastest(ds, "latency_mean", series, label)
    busy = {k: load * value(ds, "cost_mean", **sel) / ex for k, sel in series.items()}
    if np.nanmax(list(busy.values())) > LOW_TRAFFIC:
        raise NotTested(
            f"the lowest load, {fmt(load)}, is not low traffic ({what}: utilisation up to "
            f"{pct(np.nanmax(list(busy.values())))}, more than {pct(LOW_TRAFFIC)})"
        )
    text = (
        f"{what} at load {fmt(load)}: E[T] "
        + ", ".join(f"{k}: {fmt(v)} (utilisation {pct(busy[k])})" for k, v in m.items() if np.isfinite(v))
        + (f"; faster than {label} beyond the error: {faster}" if faster else "")
        + (f"; not separated from {label}: {unseparated}" if unseparated else "")
        + ("" if faster or unseparated else f"; {label} faster than every other beyond the error")
    )
    return outcome(not faster, text)


def j_low_traffic_full(ds):
    n = max(values_of(ds, "d"))
    load = min(values_of(ds, "load"))
    outs = []
    for dist in values_of(ds, "distribution"):
        ex = value(ds, "cost", distribution=dist, d=1)  # E[X]: one replica, exact
        series = {f"d={int(d)}": dict(distribution=dist, d=d, load=load) for d in values_of(ds, "d")}
        outs.append(_low_traffic(ds, series, f"d={int(n)}", ex, dist))
    return joined(outs)


def j_heavy_traffic(ds):
    text, ok = [], True
    n = max(values_of(ds, "d"))
    for dist, want in ((_LOG_CONCAVE, 1), (_LOG_CONVEX, n)):
        loads = [
            x
            for x in values_of(ds, "load")
            if np.isfinite(value(ds, "latency_mean", distribution=dist, d=want, load=x))
        ]
        if not loads:
            raise NotTested(f"d = {want} has no estimate ({dist})")
        load = max(loads)
        series = {int(d): dict(distribution=dist, d=d, load=load) for d in values_of(ds, "d")}
        faster, unseparated = fastest(ds, "latency_mean", series, want)
        ex = value(ds, "cost", distribution=dist, d=1)  # E[X]: one replica, exact
        busy = load * value(ds, "cost_mean", **series[want]) / ex
        verdicts = {d: str(value_str(ds, "verdict", **sel)) for d, sel in series.items()}
        ok &= not faster
        text.append(
            f"{dist}: at load {fmt(load)}, the highest where d = {want} is stable (utilisation {pct(busy)}): "
            + ", ".join(
                f"d={d}: {fmt(value(ds, 'latency_mean', **sel))}"
                if verdicts[d] == "stable"
                else f"d={d}: {verdicts[d]}"
                for d, sel in series.items()
            )
            + (f"; faster than d = {want} beyond the error: d = {faster}" if faster else "")
            + (f"; not separated from d = {want}: d = {unseparated}" if unseparated else "")
        )
    return outcome(ok, "; ".join(text))


def j_convex_both_fall(ds):
    bad, n = [], 0
    for load in values_of(ds, "load"):
        for var in ("latency_mean", "cost_mean"):
            d, m = _by_d(ds, var, _LOG_CONVEX, load)
            ci = _by_d(ds, f"{var}_ci", _LOG_CONVEX, load)[1]
            okm = np.isfinite(m)
            if okm.sum() < 2:
                continue
            n += 1
            if (np.diff(m[okm]) > ci[okm][1:] + ci[okm][:-1]).any():
                bad.append(f"{var} at {fmt(load)}")
    if not n:
        raise NotTested("no load with two estimates")
    return outcome(
        not bad,
        f"{_LOG_CONVEX}: E[T] and E[C] non-increasing in d (within CIs) "
        f"in {n - len(bad)} of {n} series; rising: {bad or 'none'}",
    )


def j_capacity(ds):
    bad, n = [], 0
    for dist in values_of(ds, "distribution"):
        ex = value(ds, "cost", distribution=dist, d=1)  # E[X]: one replica, exact
        for load in values_of(ds, "load"):
            d, c = _by_d(ds, "cost_mean", dist, load)
            v = at(ds, "verdict", distribution=dist, load=load).values
            for di, ci, vi in zip(d, c, v):
                if vi == "stable" and np.isfinite(ci):
                    n += 1
                    if load * ci / ex >= 1:
                        bad.append(f"{dist} d={int(di)} load {fmt(load)}")
    if not n:
        raise NotTested("no stable load")
    return outcome(not bad, f"{n} stable points, lambda E[C] / N >= 1 at {bad or 'none'}")


def _k_estimates(ds, dist, load):
    """{k: simulated E[T]} of one law at one load, the k with an estimate."""
    m = at(ds, "latency_mean", distribution=dist, load=load)
    return {int(k): float(v) for k, v in zip(m["FJ.k"].values, m.values) if np.isfinite(v)}


def k_argmin_grows(ds):
    text, ok, n = [], True, 0
    laws = values_of(ds, "distribution")
    for load in values_of(ds, "load"):
        est = [_k_estimates(ds, dist, load) for dist in laws]
        if not all(est):
            continue  # beyond every k's capacity for a law: no latency to minimise
        n += 1
        best = [min(e, key=e.get) for e in est]
        ok &= best[-1] > best[0]
        text.append(
            f"load {fmt(load)}: latency-minimising k = " + ", ".join(f"{b} ({law})" for b, law in zip(best, laws))
        )
    if not n:
        raise NotTested("no load where every law has an estimate")
    return outcome(ok, "; ".join(text))


def k_cost_and_latency(ds):
    """Heavy traffic: lambda_max = N / E[C] (Section 4.1), so the k with the smallest
    E[C] has the largest capacity, and between the two largest capacities it is the
    one k that is stable: the fastest."""
    text, ok, n = [], True, 0
    low = min(values_of(ds, "load"))
    for dist in values_of(ds, "distribution"):
        lm = at(ds, "lambda_max", distribution=dist)
        ks = [int(k) for k in lm["FJ.k"].values]
        caps = dict(zip(ks, np.asarray(lm.values, dtype=float)))
        order = sorted(ks, key=lambda k: -caps[k])
        kc, second = order[0], order[1]
        points = {k: {"distribution": dist, "FJ.k": k, "load": low} for k in ks}
        cheaper, unseparated = fastest(ds, "cost_mean", points, kc)
        ok &= not cheaper
        part = (
            f"{dist}: the largest capacity is k = {kc} ({fmt(caps[kc])}; next k = {second}, "
            f"{fmt(caps[second])}); simulated E[C] at load {fmt(low)}: k = {kc} "
            f"{fmt(value(ds, 'cost_mean', **points[kc]))}"
            + (f", cheaper beyond the error: k = {cheaper}" if cheaper else "")
            + (f", not separated: k = {unseparated}" if unseparated else ", the smallest beyond the error")
        )
        window = [x for x in values_of(ds, "load") if caps[second] < x < caps[kc]]
        if not window:
            raise NotTested(
                f"no load of the grid in {dist}'s heavy-traffic window ({fmt(caps[second])}, {fmt(caps[kc])}), "
                "between its two largest capacities"
            )
        for load in window:
            v = {
                int(k): str(x)
                for k, x in zip(lm["FJ.k"].values, at(ds, "verdict", distribution=dist, load=load).values)
            }
            others = {k: x for k, x in v.items() if k != kc and x != "unstable"}
            n += 1
            ok &= v[kc] != "unstable" and not others
            part += (
                f"; at load {fmt(load)} (heavy traffic): k = {kc} {v[kc]}, E[T] "
                f"{fmt(value(ds, 'latency_mean', distribution=dist, load=load, **{'FJ.k': kc}))}"
                + (f", other k not unstable: {others}" if others else ", every other k unstable")
            )
        text.append(part)
    return outcome(ok, "; ".join(text))


def k_theorem4(ds):
    lo = at(ds, "latency_lower")
    up = at(ds, "latency_approx")
    m = at(ds, "latency_mean")
    ci = at(ds, "latency_mean_ci")
    ok = np.isfinite(lo.values) & np.isfinite(up.values) & np.isfinite(m.values)
    if not ok.any():
        raise NotTested("no point with both bounds and an estimate")
    below = ok & (m.values + 2 * ci.values < lo.values)
    above = ok & (m.values - 2 * ci.values > up.values)
    where = []
    for mask, word, ref in ((below, "below the lower bound", lo), (above, "above the upper bound", up)):
        for idx in zip(*np.nonzero(mask)):
            point = ", ".join(
                f"{dim} = {fmt(m[dim].values[i]) if m[dim].dtype.kind in 'if' else m[dim].values[i]}"
                for dim, i in zip(m.dims, idx)
            )
            where.append(
                f"{word} at {point}: {fmt(m.values[idx])} ± {fmt(ci.values[idx])} against {fmt(ref.values[idx])}"
            )
    return outcome(not where, f"{int(ok.sum())} points; " + ("; ".join(where) or "all within the bounds"))


def k_cost_tight_ends(ds):
    ks = sorted(values_of(ds, "FJ.k"))
    text, ok = [], True
    for k in (ks[0], ks[-1]):
        lo = at(ds, "cost_lower", **{"FJ.k": k}).values
        up = at(ds, "cost_upper", **{"FJ.k": k}).values
        gap = float(np.nanmax(np.abs(up / lo - 1)))
        ok &= gap <= 1e-6
        text.append(f"k = {k}: largest |upper / lower - 1| {pct(gap)}")
    mid = [k for k in ks if k not in (ks[0], ks[-1])]
    if mid:
        lo = at(ds, "cost_lower", **{"FJ.k": mid}).values
        up = at(ds, "cost_upper", **{"FJ.k": mid}).values
        text.append(f"between: up to {pct(float(np.nanmax(up / lo - 1)))}")
    return outcome(ok, "; ".join(text))


def k_upper_looser(ds):
    ks = sorted(values_of(ds, "FJ.k"))[:-1]  # k < n (Lemma 8 takes over at k = n)
    text, ok, n = [], True, 0
    for dist in values_of(ds, "distribution"):
        for load in values_of(ds, "load"):
            gaps = []
            for k in ks:
                up = value(ds, "latency_approx", distribution=dist, load=load, **{"FJ.k": k})
                m = value(ds, "latency_mean", distribution=dist, load=load, **{"FJ.k": k})
                gaps.append(up / m - 1 if np.isfinite(m) and np.isfinite(up) else np.nan)
            g = np.array(gaps)
            good = np.isfinite(g)
            if good.sum() < 3:
                continue  # near capacity: too few k with a finite bound and an estimate
            n += 1
            rho = float(pd.Series(np.array(ks)[good]).corr(pd.Series(g[good]), method="spearman"))
            ok &= rho > 0
            text.append(
                f"{dist} at {fmt(load)}: gap {pct(g[good][0])} at k = "
                f"{np.array(ks)[good][0]} to {pct(g[good][-1])} at k = "
                f"{np.array(ks)[good][-1]} (rank correlation {fmt(rho)})"
            )
    if not n:
        raise NotTested("no law and load with three k below n estimated under a finite bound")
    return outcome(ok, "; ".join(text))


def k_bounds_meet(ds):
    loads = sorted(values_of(ds, "load"))
    gaps = {}
    for load in loads:
        up = at(ds, "latency_approx", load=load).values
        lo = at(ds, "latency_lower", load=load).values
        with np.errstate(invalid="ignore", divide="ignore"):  # infinite bounds near capacity
            ratio = up / lo - 1
        ratio = ratio[np.isfinite(ratio)]
        if ratio.size:
            gaps[load] = float(np.median(ratio))
    if len(gaps) < 2 or loads[0] not in gaps:
        raise NotTested("fewer than two loads with finite bounds")
    ok = all(gaps[loads[0]] < g for x, g in gaps.items() if x != loads[0])
    return outcome(
        ok,
        "median gap upper / lower bound - 1 (over the k and laws where both are finite): "
        + ", ".join(f"{pct(g)} at load {fmt(x)}" for x, g in gaps.items()),
    )


def _fj(ds, var, d, keep, load):
    return value(ds, var, d=d, load=load, **{"FJ.keep": keep})


def s_reduction(ds):
    text, ok, n = [], True, 0
    dmax = max(values_of(ds, "d"))
    for load in values_of(ds, "load"):
        base = _fj(ds, "latency_mean", 1, "d", load)
        strat = _fj(ds, "latency_mean", dmax, "opt", load)
        if not (np.isfinite(base) and np.isfinite(strat)):
            continue
        n += 1
        red = 1 - strat / base
        ok &= red >= 0.10
        text.append(f"{fmt(load)}: {pct(red)}")
    if not n:
        raise NotTested("no load where the strategy and d = 1 both have estimates")
    return outcome(
        ok, f"latency reduction of the strategy (d = {dmax}, keep opt) over d = 1 by load: " + ", ".join(text)
    )


def s_not_dominated(ds):
    dmax = max(values_of(ds, "d"))
    text, n = [], 0
    for load in values_of(ds, "load"):
        t0, tc = estimate(ds, "latency_mean", d=dmax, load=load, **{"FJ.keep": "opt"})
        c0, cc = estimate(ds, "cost_mean", d=dmax, load=load, **{"FJ.keep": "opt"})
        if not (np.isfinite(t0) and np.isfinite(c0)):
            continue
        n += 1
        for d in values_of(ds, "d"):
            t, tci = estimate(ds, "latency_mean", d=d, load=load, **{"FJ.keep": "d"})
            c, cci = estimate(ds, "cost_mean", d=d, load=load, **{"FJ.keep": "d"})
            if np.isfinite(t) and t + tci < t0 - tc and c + cci < c0 - cc:
                text.append(f"d = {d} at {fmt(load)} (E[T] {fmt(t)} < {fmt(t0)}, E[C] {fmt(c)} < {fmt(c0)})")
    if not n:
        raise NotTested("no load where the strategy has estimates")
    return outcome(
        not text,
        f"{n} loads; partial fork-join points faster and cheaper than the "
        f"strategy beyond the CIs: {'; '.join(text) or 'none'}",
    )


def s_cost_limit(ds):
    dmax = max(values_of(ds, "d"))
    costs = []
    for load in values_of(ds, "load"):
        c, ci = estimate(ds, "cost_mean", d=dmax, load=load, **{"FJ.keep": "opt"})
        if np.isfinite(c):
            costs.append((load, c, ci))
    if not costs:
        raise NotTested("no estimate of the strategy's cost")
    worst = max(costs, key=lambda x: x[1] - x[2])
    return outcome(
        worst[1] - worst[2] <= 5.0,
        f"largest simulated E[C] of the strategy {fmt(worst[1])} ± {fmt(worst[2])} (load {fmt(worst[0])}); limit 5",
    )


def s_close_to_best(ds):
    dmax = max(values_of(ds, "d"))
    text, ok, n = [], True, 0
    for load in values_of(ds, "load"):
        strat = _fj(ds, "latency_mean", dmax, "opt", load)
        best = math.inf
        for d in values_of(ds, "d"):
            t = _fj(ds, "latency_mean", d, "d", load)
            c = _fj(ds, "cost_mean", d, "d", load)
            if np.isfinite(t) and np.isfinite(c) and c <= 5.0:
                best = min(best, t)
        if not (np.isfinite(strat) and np.isfinite(best)):
            continue
        n += 1
        ok &= strat <= 1.10 * best
        text.append(f"{fmt(load)}: {fmt(strat)} vs {fmt(best)}")
    if not n:
        raise NotTested("no load with estimates")
    return outcome(
        ok, "E[T] of the strategy against the best partial fork-join with E[C] <= 5, by load: " + "; ".join(text)
    )


def s_low_traffic_full(ds):
    load = min(values_of(ds, "load"))
    n = max(values_of(ds, "d"))
    ex = need(value(ds, "cost", d=1, **{"FJ.keep": "d"}), "E[X] (d = 1)")
    series = {f"d={int(d)}": dict(d=d, load=load, **{"FJ.keep": "d"}) for d in values_of(ds, "d")}
    return _low_traffic(ds, series, f"d={int(n)}", ex, "partial fork-join")


# A study checks its claims in this list's order (a claim of several studies sits where
# it comes in each of them).
CLAIMS: list[Claim] = [
    Claim(
        "rE-dichotomy",
        PAPER,
        "Section 4.2",
        "r E[X_{1:r}] is non-decreasing in r for a log-concave tail and non-increasing for a log-convex one.",
        "simulated E[C] at the lowest load (where it is r E[X_{1:r}]) is non-decreasing in "
        "d for the shifted exponential and non-increasing for the hyperexponential (within "
        "the CIs)",
        j_rxr,
        studies=(REPLICAS,),
    ),
    Claim(
        "cost-dichotomy",
        PAPER,
        "Sections 5.1, 6.1",
        "The expected cost is non-decreasing in "
        "the number of replicas for log-concave tails and non-increasing for log-convex "
        "tails.",
        "simulated E[C] monotone in d in that direction (within the CIs) at every load with two estimates",
        j_cost_monotone,
        studies=(REPLICAS,),
    ),
    Claim(
        "low-traffic-full",
        PAPER,
        "Section 6.2",
        "In low traffic, r = n gives the lowest latency for any service-time distribution.",
        "at the study's lowest load, which must be low traffic (every d at most 10 % "
        "utilisation, lambda E[C] / N), no d is faster than d = N beyond the error (paired CI "
        "of the per-replication means), for both laws",
        j_low_traffic_full,
        studies=(REPLICAS,),
    ),
    Claim(
        "heavy-traffic",
        PAPER,
        "Section 6.2",
        "In heavy traffic, r = 1 is best for log-concave tails and r = n for log-convex tails.",
        "heavy traffic is the grid's highest load where d = 1 (shifted exponential) or d = N "
        "(hyperexponential) is stable (the study's 0.95: d = 1 at 95 % utilisation): no d is "
        "faster there beyond the error (paired CI); the others may be unstable",
        j_heavy_traffic,
        studies=(REPLICAS,),
    ),
    Claim(
        "log-convex-both",
        PAPER,
        "Sections 3.2, 9",
        "For log-convex service times more redundancy reduces both latency and cost.",
        "hyperexponential: simulated E[T] and E[C] non-increasing in d (within the CIs) at every load",
        j_convex_both_fall,
        studies=(REPLICAS,),
    ),
    Claim(
        "capacity",
        PAPER,
        "Section 4.1",
        "For symmetric policies stability requires lambda < n / E[C].",
        "every stable point has lambda E[C] / N < 1 with the simulated E[C]",
        j_capacity,
        studies=(REPLICAS,),
    ),
    Claim(
        "k-grows-with-delta",
        PAPER,
        "Section 7.2, Fig. 18",
        "The latency-minimizing k shifts upward as Delta increases.",
        "the k with the smallest simulated E[T] is larger for Delta = 10 than for Delta = 1 at "
        "every load where both laws have a stable k",
        k_argmin_grows,
        studies=(K_TRADEOFF,),
    ),
    Claim(
        "cost-k-is-latency-k",
        PAPER,
        "Section 7.2, Fig. 19",
        "In heavy traffic the k that minimizes E[C] also minimizes E[T].",
        "heavy traffic is the limit of the load at the largest capacity lambda_max = N / E[C] "
        "(Section 4.1): for each law, no k has a smaller simulated E[C] than the k with the "
        "largest analytic capacity beyond the error (lowest load), and at the grid's loads "
        "between the two largest capacities that k is not unstable while every other k is "
        "(it alone has a finite E[T])",
        k_cost_and_latency,
        studies=(K_TRADEOFF,),
    ),
    Claim(
        "theorem4-bounds",
        PAPER,
        "Section 7.1, Theorem 4",
        "Split-merge upper and lower bounds on the (n, k) fork-join latency.",
        "latency_lower <= simulated E[T] <= "
        "latency_approx (upper bound) within twice the CI half-width at every point (many "
        "points are compared: one 95 % interval in twenty misses)",
        k_theorem4,
        studies=(K_TRADEOFF,),
    ),
    Claim(
        "cost-bounds-tight",
        PAPER,
        "Section 7.1, Fig. 17",
        "The cost bounds are tight at k = 1 and k = n.",
        "cost_lower = cost_upper (1e-6) at the smallest and largest k",
        k_cost_tight_ends,
        studies=(K_TRADEOFF,),
    ),
    Claim(
        "upper-looser-with-k",
        PAPER,
        "Section 7.1, Fig. 16",
        "The latency upper bound becomes looser as k increases (for k < n).",
        "upper bound / simulated E[T] - 1 has a positive rank correlation with k over k < n, "
        "for each law and load with at least three such k estimated",
        k_upper_looser,
        studies=(K_TRADEOFF,),
    ),
    Claim(
        "bounds-meet-light",
        PAPER,
        "Section 7.2",
        "The bounds coincide as lambda -> 0 for shifted-exponential service.",
        "the median gap between the upper and lower bounds (where both are finite) is smaller "
        "at the lowest load than at every other load",
        k_bounds_meet,
        studies=(K_TRADEOFF,),
    ),
    Claim(
        "beats-no-redundancy",
        PAPER,
        "Section 8.3, Fig. 20",
        "The strategy gives a significant latency reduction over no redundancy.",
        "simulated E[T] of the strategy (largest d, keep opt) at least 10 % below d = 1 at every load both are stable",
        s_reduction,
        studies=(STRATEGY,),
    ),
    Claim(
        "better-trade-off",
        PAPER,
        "Section 8.3, Fig. 20",
        "The strategy achieves a better latency-cost trade-off than partial fork-join.",
        "no partial fork-join point (keep d) is both faster and cheaper than the strategy beyond the CIs, at any load",
        s_not_dominated,
        studies=(STRATEGY,),
    ),
    Claim(
        "cost-limit",
        PAPER,
        "Section 8.3",
        "The strategy is chosen under the limit E[C] <= 5.",
        "simulated E[C] of the strategy minus its CI <= 5 at every stable load",
        s_cost_limit,
        studies=(STRATEGY,),
    ),
    Claim(
        "close-to-best",
        PAPER,
        "Section 8.3, Fig. 20",
        "The strategy is close to the best partial fork-join system.",
        "its simulated E[T] within 10 % of the fastest partial fork-join with simulated E[C] <= 5, at every load",
        s_close_to_best,
        studies=(STRATEGY,),
    ),
    Claim(
        "low-traffic-full",
        PAPER,
        "Section 6.2",
        "In low traffic, r = n (here the largest r) gives the lowest latency for any service-time distribution.",
        "at the study's lowest load, which must be low traffic (every d at most 10 % "
        "utilisation), no partial fork-join is faster than the largest d beyond the error "
        "(paired CI)",
        s_low_traffic_full,
        studies=(STRATEGY,),
    ),
]
"""The paper's claims, each tagged with the studies that check it."""
