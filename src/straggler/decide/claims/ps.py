"""The PS paper's claims (Raaijmakers, Borst, Boxma)."""

from __future__ import annotations

import math

import numpy as np

from .claim import Claim, NotTested, outcome
from .data import at, by_variance, difference, estimate, law, need, scv, value, values_of
from .formatting import fmt, pct

PAPER = "Raaijmakers, Borst, Boxma (PS paper)"
REDUNDANCY, FIG5, FIG6 = "ps_redundancy", "ps_fig5", "ps_fig6"
"""The paper's studies (their keys, :func:`~straggler.decide.claims.registry.study_key`)."""


def _ps_series(ds, bound, dist, dep):
    sel = dict(distribution=dist, dependence=dep, **{"CoC.ps_bound": bound})
    return (at(ds, "latency_mean", **sel).values, at(ds, "latency_mean_ci", **sel).values)


def p_lower_accurate(ds):
    errs = []
    for dist in values_of(ds, "distribution"):
        lo, _ = _ps_series(ds, "lower", dist, "identical")
        orig, _ = _ps_series(ds, "none", dist, "identical")
        ok = np.isfinite(lo) & np.isfinite(orig)
        errs += list(np.abs(lo[ok] / orig[ok] - 1))
    if not errs:
        raise NotTested("no load with both systems estimated")
    med, worst = float(np.median(errs)), float(np.max(errs))
    return outcome(
        med <= 0.05,
        f"identical replicas: median |lower / original - 1| {pct(med)}, largest {pct(worst)} over {len(errs)} points",
    )


def p_upper_mean_only(ds):
    laws = by_variance(ds)
    means = {dist: law(ds, dist).mean() for dist in laws}
    if len(laws) < 2:
        raise NotTested("one job-size law")
    if max(means.values()) > min(means.values()) * (1 + 1e-9):
        raise NotTested(f"the laws' means differ ({means}): the claim compares laws of one mean")
    sel = {"CoC.ps_bound": "none"} if "CoC.ps_bound" in ds.dims else {}
    bound = np.array(
        [at(ds, "latency_approx", distribution=dist, dependence="identical", **sel).values for dist in laws]
    )
    ok = np.isfinite(bound).all(axis=0)
    if not ok.any():
        raise NotTested("no load where every law has the Section 3.5 bound")
    spread = float(np.max(bound[:, ok].max(axis=0) / bound[:, ok].min(axis=0) - 1))
    text = (
        f"Section 3.5 bound E[X] / (1 - rho~) (every replica served in full: M/X/1/PS queues), identical "
        f"replicas, laws of mean {fmt(means[laws[0]])} with scv "
        + ", ".join(f"{dist} {fmt(scv(ds, dist))}" for dist in laws)
        + f": largest spread max / min - 1 across the laws {fmt(spread)} over {int(ok.sum())} loads"
    )
    if "CoC.ps_bound" in ds.dims:
        spans = []
        for load in values_of(ds, "load"):
            m = {
                dist: value(
                    ds,
                    "latency_mean",
                    distribution=dist,
                    dependence="identical",
                    load=load,
                    **{"CoC.ps_bound": "upper"},
                )
                for dist in laws
            }
            m = {k: v for k, v in m.items() if np.isfinite(v)}
            if len(m) >= 2:
                hi, lo = max(m, key=m.get), min(m, key=m.get)
                sel_hi = dict(distribution=hi, dependence="identical", load=load, **{"CoC.ps_bound": "upper"})
                diff = difference(ds, "latency_mean", sel_hi, {**sel_hi, "distribution": lo})
                spans.append(
                    f"{fmt(load)}: {pct(diff.estimate / m[lo])} [{pct(diff.low / m[lo])}, {pct(diff.high / m[lo])}]"
                )
        if spans:
            text += (
                "; not this claim's system, the simulated upper-bound system of Section 3.2 (service at "
                "rate 1/max of the queue lengths) spreads across the laws by " + ", ".join(spans)
            )
    return outcome(spread <= 1e-9, text)


TIGHT = 0.05
"""A "tight" bound: its median relative gap to the original system is at most 5 %."""


def _lower_gap(ds, dist, dep, load) -> tuple[float, float, float]:
    """(gap, low, high): 1 - E[T] lower-bound system / original, with its CI (from
    the paired CI of the difference); NaN without both estimates."""
    lower = dict(distribution=dist, dependence=dep, load=load, **{"CoC.ps_bound": "lower"})
    diff = difference(ds, "latency_mean", {**lower, "CoC.ps_bound": "none"}, lower)
    orig = value(ds, "latency_mean", **{**lower, "CoC.ps_bound": "none"})
    return diff.estimate / orig, diff.low / orig, diff.high / orig


def p_lower_tight_det(ds):
    laws = values_of(ds, "distribution")
    if "det" not in laws:
        raise NotTested("no deterministic sizes")
    beaten, det_gaps, n, missing = [], [], 0, []
    for load in values_of(ds, "load"):
        gaps = {dist: _lower_gap(ds, dist, "iid", load) for dist in laws}
        missing += [f"{dist} at {fmt(load)}" for dist, g in gaps.items() if not np.isfinite(g[0])]
        if not np.isfinite(gaps["det"][0]):
            continue
        n += 1
        det_gaps.append(gaps["det"])
        smaller = [dist for dist, g in gaps.items() if dist != "det" and np.isfinite(g[0]) and g[2] < gaps["det"][1]]
        beaten += [f"{dist} at {fmt(load)}" for dist in smaller]
    if not n:
        raise NotTested("no load with both systems estimated for deterministic sizes")
    g = np.array(det_gaps)
    median, median_low = float(np.median(g[:, 0])), float(np.median(g[:, 1]))
    text = (
        "i.i.d. replicas, 1 - E[T] lower-bound system / original: deterministic sizes "
        + ", ".join(f"{pct(x)}" for x in g[:, 0])
        + f" over {n} loads (median {pct(median)}); a smaller gap than deterministic beyond the "
        f"error: {beaten or 'none'}"
        + (f"; without both estimates (undetermined verdicts): {missing}" if missing else "")
    )
    return outcome(not beaten and median_low <= TIGHT, text)


def p_ordering(ds):
    bad, n, missing = [], 0, []
    systems = {"lower": "lower-bound", "none": "original", "upper": "upper-bound"}
    for dist in values_of(ds, "distribution"):
        for dep in values_of(ds, "dependence"):
            lo, lci = _ps_series(ds, "lower", dist, dep)
            orig, oci = _ps_series(ds, "none", dist, dep)
            up, uci = _ps_series(ds, "upper", dist, dep)
            ok = np.isfinite(lo) & np.isfinite(orig) & np.isfinite(up)
            n += int(ok.sum())
            low_bad = lo[ok] > orig[ok] + lci[ok] + oci[ok]
            up_bad = up[ok] < orig[ok] - uci[ok] - oci[ok]
            if low_bad.any() or up_bad.any():
                bad.append(f"{dist}, {dep}")
            loads = values_of(ds, "load")
            for bound, word in systems.items():
                sel = dict(distribution=dist, dependence=dep, **{"CoC.ps_bound": bound})
                verdicts = at(ds, "verdict", **sel).values
                means = at(ds, "latency_mean", **sel).values
                missing += [
                    f"{word} system {dist}, {dep}, load {fmt(x)}: {v}"
                    for x, v, m in zip(loads, verdicts, means)
                    if not np.isfinite(m)
                ]
    if not n:
        raise NotTested("no load with the three systems estimated")
    return outcome(
        not bad,
        f"{n} points with the three systems estimated; order violated beyond the CIs in: {', '.join(bad) or 'none'}"
        + (f"; not compared, without an estimate: {'; '.join(missing)}" if missing else ""),
    )


def p_section35_bound(ds):
    sel = {"CoC.ps_bound": "none"} if "CoC.ps_bound" in ds.dims else {}
    approx = at(ds, "latency_approx", **sel)
    mean = at(ds, "latency_mean", **sel)
    ci = at(ds, "latency_mean_ci", **sel)
    ok = np.isfinite(approx.values) & np.isfinite(mean.values)
    if not ok.any():
        raise NotTested("no point with the bound and an estimate")
    below = approx.values[ok] < mean.values[ok] - 2 * ci.values[ok]
    gap = approx.values[ok] / mean.values[ok] - 1
    return outcome(
        not below.any(),
        f"{int(ok.sum())} points: E[X] / (1 - rho~) / simulated "
        f"E[T] - 1 from {pct(gap.min())} to {pct(gap.max())}; "
        f"below the simulation's CI at {int(below.sum())}",
    )


def p_identical_stable(ds):
    original = {"CoC.ps_bound": "none"} if "CoC.ps_bound" in ds.dims else {}
    v = at(ds, "verdict", dependence="identical", **original)
    d = value(ds, "d") if "d" in ds.coords and ds["d"].size == 1 else None
    basis = ds.attrs.get("load_basis", "nominal")
    loads = v["load"].broadcast_like(v).values
    rho = loads if basis == "redundancy" else loads * (d or 1)
    inside = rho < 1 - 1e-9
    verdicts = np.asarray(v.values)[inside]
    unstable = int((verdicts == "unstable").sum())
    stable = int((verdicts == "stable").sum())
    text = (
        f"the original system, identical replicas with rho~ < 1: {stable} stable, {unstable} unstable, "
        f"{int((verdicts == 'undetermined').sum())} undetermined"
    )
    if original:
        bounds = at(ds, "verdict", dependence="identical", **{"CoC.ps_bound": ["lower", "upper"]})
        flagged = [
            f"{b} {dist} at load {fmt(x)}: {vv}"
            for dist in bounds["distribution"].values
            for b in bounds["CoC.ps_bound"].values
            for x, vv in zip(bounds["load"].values, bounds.sel(distribution=dist, **{"CoC.ps_bound": b}).values)
            if vv != "stable"
        ]
        text += "; the bound systems (not this claim's) not stable: " + ("; ".join(flagged) or "none")
    return outcome(unstable == 0 and stable > 0, text)


def _extremes(ds) -> tuple[str, str]:
    """The laws of the lowest and the highest variance (by scv)."""
    laws = by_variance(ds)
    if len(laws) < 2:
        raise NotTested("one job-size law")
    return laws[0], laws[-1]


def f5_ci_separate(ds):
    lo_law, hi_law = _extremes(ds)
    text, ok = [], True
    for load in values_of(ds, "load"):
        lo_m, lo_c = estimate(ds, "latency_mean", distribution=lo_law, load=load)
        hi_m, hi_c = estimate(ds, "latency_mean", distribution=hi_law, load=load)
        need(lo_m, f"{lo_law} at {load}")
        need(hi_m, f"{hi_law} at {load}")
        sep = abs(hi_m - lo_m) > lo_c + hi_c
        ok &= sep
        text.append(f"rho~ = {fmt(load)}: {lo_law} {fmt(lo_m)} ± {fmt(lo_c)}, {hi_law} {fmt(hi_m)} ± {fmt(hi_c)}")
    return outcome(
        ok,
        f"lowest and highest scv: {lo_law} ({fmt(scv(ds, lo_law))}), {hi_law} ({fmt(scv(ds, hi_law))}); "
        + "; ".join(text),
    )


def _relative_gap(ds, a: str, b: str, load) -> tuple[float, float, float]:
    """(E[T] of law a - law b) / law b's, with its CI, at one load."""
    sel = dict(distribution=a, load=load)
    diff = difference(ds, "latency_mean", sel, {**sel, "distribution": b})
    base = need(value(ds, "latency_mean", distribution=b, load=load), b)
    return diff.estimate / base, diff.low / base, diff.high / base


def f5_about(ds):
    lo_law, hi_law = _extremes(ds)
    load = max(values_of(ds, "load"))
    gap, low, high = _relative_gap(ds, hi_law, lo_law, load)
    need(gap, f"{hi_law} and {lo_law} at {load}")
    lo = value(ds, "latency_mean", distribution=lo_law, load=load)
    hi = value(ds, "latency_mean", distribution=hi_law, load=load)
    outside = high < 0.0075 or low > 0.03
    text = (
        f"rho~ = {fmt(load)}: {hi_law} (scv {fmt(scv(ds, hi_law))}) {fmt(hi)} against {lo_law} "
        f"(scv {fmt(scv(ds, lo_law))}) {fmt(lo)}: {fmt(hi - lo)} apart ({pct(gap)}, CI [{pct(low)}, {pct(high)}])"
    )
    if outside:
        others = [
            f"{dist} (scv {fmt(scv(ds, dist))}) {pct(_relative_gap(ds, dist, lo_law, load)[0])}"
            for dist in by_variance(ds)[1:-1]
        ]
        text += (
            f"; the paper does not name its laws, and with this study's the spread is not 1.5 %: "
            f"from {lo_law}, " + ", ".join(others)
        )
    return outcome(not outside, text)


def f5_level(ds):
    load = max(values_of(ds, "load"))
    m, ci = estimate(ds, "latency_mean", distribution="exp", load=load)
    need(m, "exp")
    off = max(abs(m - 3.3) - ci, 0.0) / 3.3
    return outcome(
        off <= 0.10,
        f"exponential sizes at rho~ = {fmt(load)}: E[T] = {fmt(m)} ± {fmt(ci)} ({pct(m / 3.3 - 1)} from 3.3)",
    )


def f5_nearly_insensitive(ds):
    text, worst = [], -math.inf
    for load in values_of(ds, "load"):
        m = {dist: value(ds, "latency_mean", distribution=dist, load=load) for dist in values_of(ds, "distribution")}
        if not all(np.isfinite(v) for v in m.values()):
            raise NotTested(f"a law without an estimate at {load}")
        hi, lo = max(m, key=m.get), min(m, key=m.get)
        gap, low, high = _relative_gap(ds, hi, lo, load)
        worst = max(worst, low)
        text.append(f"rho~ = {fmt(load)}: {hi} / {lo} - 1 = {pct(gap)} (CI [{pct(low)}, {pct(high)}])")
    return outcome(worst <= 0.05, "; ".join(text))


def f6_level(target, load, ds_sel, tolerance, what, reason=""):
    """Simulated E[T] (identical, exp) at ``load`` within ``tolerance`` of ``target``
    at each d of ``ds_sel``, beyond its CI; ``reason`` is said when it is not."""

    def check(ds):
        rows = []
        for d in ds_sel:
            sel = dict(distribution="exp", dependence="identical", d=d, load=load)
            m, ci = estimate(ds, "latency_mean", **sel)
            rows.append((d, need(m, f"d = {d}"), ci))
        bad = [(d, m) for d, m, ci in rows if max(abs(m - target) - ci, 0.0) > tolerance * target]
        return outcome(
            not bad,
            f"{what}: "
            + ", ".join(f"d = {d}: {fmt(m)} ± {fmt(ci)}" for d, m, ci in rows)
            + (f"; off by more than {pct(tolerance)}: d = {', '.join(str(d) for d, _ in bad)}" if bad else "")
            + (f"; {reason(ds) if callable(reason) else reason}" if bad and reason else ""),
        )

    return check


def f6_about_1_reason(ds) -> str:
    sel = dict(distribution="exp", dependence="identical", d=5, load=0.75)
    m = value(ds, "latency_mean", **sel)
    idle = ""
    if "idle_fraction" in ds:
        f = np.asarray(at(ds, "idle_fraction", **sel).values, dtype=float).ravel()
        if np.isfinite(f).any():
            idle = f" (a server is idle {pct(float(np.nanmean(f)))} of the time)"
    return (
        f"the paper reads its plot loosely: E[T] is {pct(m - 1)} above E[X] = 1; that most jobs "
        f"see no delay{idle} does not make E[T] about 1"
    )


def _span(ds, dist, dep, load, ds_range) -> tuple[float, float, float, float]:
    """(max - min of simulated E[T] over d in ``ds_range``, its low and high end from
    the CIs, E[T] at the largest d)."""
    m, ci = [], []
    for d in ds_range:
        mean, half = estimate(ds, "latency_mean", distribution=dist, dependence=dep, d=d, load=load)
        if np.isfinite(mean):
            m.append(mean)
            ci.append(half)
    if len(m) < 2:
        raise NotTested(f"too few estimates ({dist}, {dep}, {load})")
    m_, c_ = np.array(m), np.array(ci)
    return (
        float(m_.max() - m_.min()),
        float(max((m_ - c_).max() - (m_ + c_).min(), 0.0)),
        float((m_ + c_).max() - (m_ - c_).min()),
        float(m_[-1]),
    )


def _mg1_ps(ds, dist, load) -> float:
    """E[T] of M/G/1-PS at the redundancy load rho~ (the system identical replicas make
    at d = N): E[X] / (1 - rho~); NaN where the dataset does not say E[X]."""
    if ds.attrs.get("load_basis") != "redundancy":
        return math.nan
    try:
        return law(ds, dist).mean() / (1 - load)
    except NotTested:
        return math.nan


def f6_identical_varies_more(ds):
    ds_range = [d for d in values_of(ds, "d") if d >= 2]  # d = 1 is one system for both dependences
    n = max(values_of(ds, "d"))
    text, ok = [], True
    for load in values_of(ds, "load"):
        for dist in values_of(ds, "distribution"):
            ident = _span(ds, dist, "identical", load, ds_range)
            iid = _span(ds, dist, "iid", load, ds_range)
            ok &= not ident[2] < iid[1]
            word = "decided" if ident[1] > iid[2] else "not separated beyond the CIs"
            mg1 = _mg1_ps(ds, dist, load)
            text.append(
                f"{dist} at rho~ = {fmt(load)}: range of E[T] over d = 2..{n} identical {fmt(ident[0])} "
                f"[{fmt(ident[1])}, {fmt(ident[2])}], i.i.d. {fmt(iid[0])} [{fmt(iid[1])}, {fmt(iid[2])}] ({word}); "
                f"identical at d = {n} {fmt(ident[3])} (M/G/1-PS: {fmt(mg1)})"
            )
    return outcome(ok, "; ".join(text))


def f6_iid_exp_stable(ds):
    v = np.asarray(at(ds, "verdict", distribution="exp", dependence="iid").values)
    return outcome(
        (v != "unstable").all() and (v == "stable").any(),
        f"i.i.d. exponential, rho~ < 1: {int((v == 'stable').sum())} stable, "
        f"{int((v == 'unstable').sum())} unstable, "
        f"{int((v == 'undetermined').sum())} undetermined",
    )


# A study checks its claims in this list's order (a claim of several studies sits where
# it comes in each of them).
CLAIMS: list[Claim] = [
    Claim(
        "lower-accurate",
        PAPER,
        "Section 4.1, Fig. 3",
        "For identical replicas the lower bound is quite accurate.",
        "median |E[T] lower-bound system / original - 1| <= 5 % (identical replicas, simulated, every law and load)",
        p_lower_accurate,
        studies=(REDUNDANCY,),
    ),
    Claim(
        "upper-mean-only",
        PAPER,
        "Section 4.1, Fig. 3",
        "The expected latency in the upper-bound "
        "system depends only on the mean of the job size distribution, not on its higher "
        "moments.",
        "the upper-bound system that is analytically tractable, Section 3.5's (every "
        "replica served in full), is the one Fig. 3 draws: its E[T], E[X] / (1 - rho~), is "
        "the same (1e-9) across the laws (one mean, different scv) at every load, identical "
        "replicas; the evidence adds the simulated 1/max system of Section 3.2 for contrast",
        p_upper_mean_only,
        studies=(REDUNDANCY,),
    ),
    Claim(
        "lower-tight-det",
        PAPER,
        "Section 4.1, Fig. 4",
        "With i.i.d. replicas the lower bound for deterministic job sizes is tight.",
        "tight read against the other laws: with i.i.d. replicas no law has a smaller gap "
        "1 - E[T] lower-bound / original than deterministic sizes beyond the error (paired CI) "
        "at any load, and the median gap of deterministic sizes is at most 5 % (a bound "
        "tighter than 'quite accurate')",
        p_lower_tight_det,
        studies=(REDUNDANCY,),
    ),
    Claim(
        "ordering",
        PAPER,
        "Sections 3.1-3.2",
        "The sojourn time in the lower-bound system is "
        "at most, and in the upper-bound system at least, that of the original system "
        "(sample-path ordering).",
        "simulated E[T]: lower <= original <= upper within the sum of the CIs at every law, dependence and load",
        p_ordering,
        studies=(REDUNDANCY,),
    ),
    Claim(
        "ci-separate",
        PAPER,
        "Section 4.2, Fig. 5",
        "The 95 % confidence intervals of the "
        "expected latency differ and do not overlap for the various job size "
        "distributions.",
        "the CIs of the laws of the lowest and the highest variance (by scv) do not overlap at any load",
        f5_ci_separate,
        studies=(FIG5,),
    ),
    Claim(
        "about-1.5-percent",
        PAPER,
        "Section 4.2, Fig. 5",
        "The expected latency differs by only "
        "about 0.05, approximately 1.5 %, between the job size distributions with the "
        "lowest and highest variance.",
        "at the highest load, (E[T] of the highest-variance law - the lowest's) / the lowest's "
        "(laws ordered by scv) within a factor two of 1.5 % (0.75 % to 3 %): fails only when "
        "its CI lies outside",
        f5_about,
        studies=(FIG5,),
    ),
    Claim(
        "level-3.3",
        PAPER,
        "Section 4.2, Fig. 5",
        "The expected latency is about 3.3 (the vertical axis of Fig. 5).",
        "simulated E[T] with exponential sizes at the highest load within 10 % of 3.3 (beyond its CI)",
        f5_level,
        studies=(FIG5,),
    ),
    Claim(
        "near-insensitive",
        PAPER,
        "Section 4.2",
        "The expected latency is nearly insensitive to "
        "the job size distribution in redundancy-d systems with PS and identical replicas.",
        "the spread max / min - 1 of simulated E[T] across the laws is at most 5 % at every "
        "load: fails only when the spread minus its CI exceeds 5 %",
        f5_nearly_insensitive,
        studies=(FIG5,),
    ),
    Claim(
        "about-1",
        PAPER,
        "Section 4.3, Fig. 6",
        "E[T] ~ E[X] = 1: with identical replicas, even "
        "at rho~ = 0.75, for d = N/2 jobs (most of the time) experience no delay.",
        "simulated E[T] (identical, exp, rho~ = 0.75, d = 5) within 25 % of 1, beyond its CI",
        f6_level(1.0, 0.75, [5], 0.25, "rho~ = 0.75", f6_about_1_reason),
        studies=(FIG6,),
    ),
    Claim(
        "about-2",
        PAPER,
        "Section 4.3, Fig. 6",
        "At rho~ = 0.95 the expected latency is approximately 2 for d between 3 and 7.",
        "simulated E[T] (identical, exp, rho~ = 0.95) within 25 % of 2 at each d = 3..7, beyond its CI",
        f6_level(2.0, 0.95, [3, 4, 5, 6, 7], 0.25, "rho~ = 0.95"),
        studies=(FIG6,),
    ),
    Claim(
        "d1-dN-20",
        PAPER,
        "Section 4.3, Fig. 6",
        "For d = 1 and d = N = 10, equivalent to the classical setting, E[T] = 20.",
        "simulated E[T] (identical, exp, rho~ = 0.95) within 10 % of 20 at d = 1 and d = 10, beyond the CIs",
        f6_level(20.0, 0.95, [1, 10], 0.10, "rho~ = 0.95"),
        studies=(FIG6,),
    ),
    Claim(
        "identical-varies-more",
        PAPER,
        "Section 4.3, Fig. 6",
        "For identical replicas the expected latency varies significantly more with d than for i.i.d. replicas.",
        "over d = 2..N (d = 1 is one system for both dependences), the range max - min of "
        "simulated E[T] is larger for identical than for i.i.d. replicas at every load and "
        "law: fails only when the CIs put it smaller",
        f6_identical_varies_more,
        studies=(FIG6,),
    ),
    Claim(
        "iid-exp-stable",
        PAPER,
        "Section 3.5",
        "For i.i.d. exponential replicas X_min has mean E[X] / d, so the system is stable for rho~ < 1.",
        "no unstable verdict for i.i.d. exponential replicas (every load has rho~ < 1), some stable",
        f6_iid_exp_stable,
        studies=(FIG6,),
    ),
    Claim(
        "section35-bound",
        PAPER,
        "Section 3.5, Theorem 2",
        "The alternative upper-bound system (every replica "
        "served in full, M/X/1/PS queues with arrival rate d lambda / N) bounds the "
        "original system: E[T] <= E[X] / (1 - rho~).",
        "the analytic latency_approx (E[X] / (1 - rho~)) is not below the simulated "
        "E[T] minus twice its CI half-width at any point with both",
        p_section35_bound,
        studies=(REDUNDANCY, FIG5, FIG6),
    ),
    Claim(
        "identical-stable",
        PAPER,
        "Section 3.5",
        "For identical replicas d rho = rho~ and the stability condition is rho~ = lambda d E[X] / N < 1.",
        "no load with rho~ < 1 of the original system (identical replicas) is unstable, and some "
        "are stable (the bound systems' verdicts are listed in the evidence)",
        p_identical_stable,
        studies=(REDUNDANCY, FIG5),
    ),
]
"""The paper's claims, each tagged with the studies that check it."""
