"""The threshold paper's claims (Raaijmakers, Borst, Boxma)."""

from __future__ import annotations

import numpy as np

from .claim import Claim, NotTested, outcome
from .data import at, value, values_of
from .formatting import fmt, pct

PAPER = "Raaijmakers, Borst, Boxma (threshold paper)"
P1, R_SLOW, BELIEF, LATENCY = "threshold_p1", "threshold_r_slow", "threshold_belief", "threshold_latency"
"""The paper's studies (their keys, :func:`~straggler.decide.claims.registry.study_key`)."""


def _lm(ds, policy, **sel) -> float:
    return value(ds, "lambda_max", policy=policy, **sel)


def _case(dist="exp", dep="identical"):
    return {"distribution": dist, "dependence": dep}


def _p1_half(ds) -> dict:
    return {"types.p1": 0.5} if "types.p1" in ds.dims else {}


def t_rep_beats_rer_unbalanced(ds):
    rows = []
    for p1 in values_of(ds, "types.p1") if "types.p1" in ds.dims else [None]:
        extra = {"types.p1": p1} if p1 is not None else {}
        rep = _lm(ds, "Rep", r_slow=0.1, **_case(), **extra)
        rer = _lm(ds, "Rer", r_slow=0.1, **_case(), **extra)
        rows.append((p1, rep, rer))
    worst = min(rows, key=lambda r: r[1] - r[2])
    ok = all(rep >= rer - 1e-6 for _, rep, rer in rows)
    return outcome(
        ok,
        f"Rep - Rer over {len(rows)} points: smallest {fmt(worst[1] - worst[2])} "
        f"(Rep {fmt(worst[1])}, Rer {fmt(worst[2])}" + (f" at p1 = {fmt(worst[0])})" if worst[0] is not None else ")"),
    )


def t_rer_vanishes(ds):
    rs = sorted(values_of(ds, "r_slow"))
    vals = [_lm(ds, "Rer", r_slow=r, **_case()) for r in rs]
    low = [v for r, v in zip(rs, vals) if r <= 0.4]
    if len(low) < 3:
        raise NotTested("fewer than three values of r_slow <= 0.4")
    increasing = all(b >= a - 1e-9 for a, b in zip(low, low[1:]))
    ok = increasing and vals[0] < 0.5 * _lm(ds, "Rer", r_slow=0.5, **_case())
    return outcome(
        ok,
        f"Rer lambda_max at r_slow = {fmt(rs[0])}: {fmt(vals[0])}, at 0.5: "
        f"{fmt(_lm(ds, 'Rer', r_slow=0.5, **_case()))}; non-decreasing on "
        f"r_slow <= 0.4: {increasing}",
    )


def t_balanced_same_as_zred(ds):
    worst = 0.0
    n = 0
    for r in values_of(ds, "r_slow"):
        if r < 0.45:
            continue
        z = _lm(ds, "ZRed", r_slow=r, **_case(), **_p1_half(ds))
        for p in ("Rer", "Rep"):
            worst = max(worst, abs(_lm(ds, p, r_slow=r, **_case(), **_p1_half(ds)) - z))
            n += 1
    if not n:
        raise NotTested("no r_slow >= 0.45")
    return outcome(
        worst <= 1e-3, f"largest |lambda_max - ZRed's| of Rer and Rep over {n} points with r_slow >= 0.45: {fmt(worst)}"
    )


def t_rep_is_fred_beats_rer(dist, dep, only_unbalanced):
    def check(ds):
        rs = [r for r in values_of(ds, "r_slow") if (r <= 0.1 + 1e-9 or not only_unbalanced)]
        if not rs:
            raise NotTested("no r_slow <= 0.1")
        gaps, margins = [], []
        for r in rs:
            rep = _lm(ds, "Rep", r_slow=r, **_case(dist, dep), **_p1_half(ds))
            fred = _lm(ds, "FRed", r_slow=r, **_case(dist, dep), **_p1_half(ds))
            rer = _lm(ds, "Rer", r_slow=r, **_case(dist, dep), **_p1_half(ds))
            gaps.append(abs(rep - fred) / fred)
            margins.append(rep - rer)
        ok = max(gaps) <= 1e-3 and min(margins) >= -1e-6 and (max(margins) > 1e-6 if only_unbalanced else True)
        return outcome(
            ok,
            f"{len(rs)} values of r_slow: largest |Rep / FRed - 1| "
            f"{pct(max(gaps))}, Rep - Rer from {fmt(min(margins))} to "
            f"{fmt(max(margins))}",
        )

    return check


def t_ks_beats_kt_balanced(ds):
    rs = [r for r in values_of(ds, "r_slow") if r >= 0.8]
    if not rs:
        raise NotTested("no r_slow >= 0.8")
    diffs = [
        _lm(ds, "KS", r_slow=r, **_case("exp", "iid")) - _lm(ds, "KT", r_slow=r, **_case("exp", "iid")) for r in rs
    ]
    return outcome(
        min(diffs) > 1e-6,
        f"KS - KT (i.i.d., exponential) at r_slow in "
        f"[{fmt(min(rs))}, {fmt(max(rs))}]: from {fmt(min(diffs))} "
        f"to {fmt(max(diffs))}",
    )


def t_zred_best_balanced(ds):
    rs = [r for r in values_of(ds, "r_slow") if r >= 0.5]
    worst, where = 0.0, None
    for r in rs:
        for dist in values_of(ds, "distribution"):
            z = _lm(ds, "ZRed", r_slow=r, **_case(dist, "identical"), **_p1_half(ds))
            for p in ("FRed", "Rer", "Rep"):
                gap = _lm(ds, p, r_slow=r, **_case(dist, "identical"), **_p1_half(ds)) - z
                if gap > worst:
                    worst, where = gap, (p, r, dist)
    if not rs:
        raise NotTested("no r_slow >= 0.5")
    return outcome(
        worst <= 1e-3,
        "largest excess of FRed, Rer, Rep over ZRed (identical "
        f"replicas, r_slow >= 0.5): {fmt(worst)}"
        + (f" ({where[0]} at r_slow = {fmt(where[1])}, {where[2]})" if where else ""),
    )


def t_pareto_rer_worse_identical(ds):
    rows = []
    for r in values_of(ds, "r_slow"):
        ex = {**_p1_half(ds)}
        rer_p = _lm(ds, "Rer", r_slow=r, **_case("pareto"), **ex)
        rer_e = _lm(ds, "Rer", r_slow=r, **_case("exp"), **ex)
        others = max(
            abs(_lm(ds, p, r_slow=r, **_case("pareto"), **ex) - _lm(ds, p, r_slow=r, **_case("exp"), **ex))
            for p in ("ZRed", "FRed", "Rep", "KT")
        )
        rows.append((r, rer_p - rer_e, others))
    worse = [r for r, d, _ in rows if d < -1e-6]
    ok = all(d <= 1e-6 for _, d, _ in rows) and bool(worse) and max(o for *_, o in rows) <= 1e-3
    return outcome(
        ok,
        f"Rer (Pareto - exp) from {fmt(min(d for _, d, _ in rows))} to "
        f"{fmt(max(d for _, d, _ in rows))}, lower at r_slow "
        f"{[float(fmt(r)) for r in worse]}; largest |Pareto - exp| of ZRed, FRed, "
        f"Rep, KT: {fmt(max(o for *_, o in rows))}",
    )


def t_pareto_better_iid(ds):
    rows = []
    for r in values_of(ds, "r_slow"):
        for p in ("KS", "Rep", "FRed", "Rer"):
            rows.append(
                (
                    p,
                    r,
                    _lm(ds, p, r_slow=r, **_case("pareto", "iid"), **_p1_half(ds))
                    - _lm(ds, p, r_slow=r, **_case("exp", "iid"), **_p1_half(ds)),
                )
            )
    worst = min(rows, key=lambda x: x[2])
    return outcome(
        worst[2] >= -1e-6,
        f"smallest Pareto - exp lambda_max of KS, Rep, FRed, Rer "
        f"(i.i.d.): {fmt(worst[2])} ({worst[0]} at r_slow = "
        f"{fmt(worst[1])})",
    )


def t_symmetric_q(ds):
    q = value(ds, "q_opt", policy="ZRed", r_slow=0.1, **_case(), **{"types.p1": 0.5})
    return outcome(abs(q - 0.5) <= 1e-6, f"q_opt of ZRed at p1 = 0.5, r_slow = 0.1: {fmt(q)}")


def _belief_series(ds, policy, r, dist="exp", dep="identical"):
    bs = sorted(values_of(ds, "types.belief"))
    return bs, np.array([_lm(ds, policy, r_slow=r, **_case(dist, dep), **{"types.belief": b}) for b in bs])


def t_belief_convex(ds):
    out, ok = [], True
    for r in values_of(ds, "r_slow"):
        for policy in ("ZRed", "Rer", "Rep"):
            _, lm = _belief_series(ds, policy, r)
            d1 = np.diff(lm)
            d2 = np.diff(lm, 2)
            good = (d1 >= -1e-6).all() and (d2 >= -1e-6).all() and lm[-1] > lm[0] + 1e-6
            ok &= bool(good)
            out.append(
                f"{policy} at r_slow = {fmt(r)}: {fmt(lm[0])} to {fmt(lm[-1])}, smallest second difference {fmt(d2.min())}"
            )
    return outcome(ok, "; ".join(out))


def t_belief_rep_flat(ds):
    bs, rep = _belief_series(ds, "Rep", 0.1)
    first = [v for b, v in zip(bs, rep) if b <= 0.55 + 1e-9]
    if len(first) < 2:
        raise NotTested("fewer than two beliefs <= 0.55")
    change = max(first) / min(first) - 1
    return outcome(
        change <= 0.01,
        f"Rep at r_slow = 0.1: {fmt(first[0])} at belief "
        f"{fmt(bs[0])}, {fmt(first[-1])} at 0.55 ({pct(change)}); "
        f"{fmt(rep[-1])} at belief 1",
    )


def t_belief_rep_beats_rer(ds):
    bs, rep = _belief_series(ds, "Rep", 0.1)
    _, rer = _belief_series(ds, "Rer", 0.1)
    gap = rep - rer
    return outcome(
        gap.min() >= -1e-6,
        f"Rep - Rer at r_slow = 0.1 over {len(bs)} beliefs: from {fmt(gap.min())} to {fmt(gap.max())}",
    )


def t_belief_balanced_equal(ds):
    ref = _belief_series(ds, "ZRed", 0.5)[1]
    spread = max(np.abs(_belief_series(ds, p, 0.5)[1] - ref).max() for p in ("KS", "Rep", "Rer"))
    return outcome(spread <= 1e-3, f"largest |lambda_max - ZRed's| of KS, Rep, Rer at r_slow = 0.5: {fmt(spread)}")


def t_belief_iid_threshold_useless(ds):
    worst, where = 0.0, None
    for r in values_of(ds, "r_slow"):
        bs, rep = _belief_series(ds, "Rep", r, dep="iid")
        best = np.maximum(_belief_series(ds, "FRed", r, dep="iid")[1], _belief_series(ds, "ZRed", r, dep="iid")[1])
        gap = np.abs(rep - best) / best
        i = int(np.argmax(gap))
        if gap[i] > worst:
            worst, where = float(gap[i]), (r, bs[i], rep[i], best[i])
    text = f"largest |Rep / max(FRed, ZRed) - 1| (i.i.d., exp): {pct(worst)}"
    if where is not None and worst > 1e-3:
        r, b, rep, best = where
        sel = dict(policy="Rep", r_slow=r, **_case("exp", "iid"), **{"types.belief": b})
        taus = [value(ds, name, **sel) for name in ("tau_opt", "tau_opt_pool2") if name in ds]
        text += (
            f", at r_slow = {fmt(r)}, belief {fmt(b)}: Rep {fmt(rep)} against {fmt(best)} with the threshold "
            f"tau_opt = {', '.join(fmt(t) for t in taus)} (pools 1, 2). Not reproducible from eq. (4): Rep "
            "with tau = 0 is FRed (eq. 6) and with tau = inf is ZRed (eq. 5), so the best threshold "
            "gives Rep >= max(FRed, ZRed), equal only where it is 0 or inf; the paper's own Fig. 5 "
            "draws Rep under FRed at belief 0.5, which eq. (4) excludes"
        )
    return outcome(worst <= 1e-3, text)


def _sim_pairs(ds, policy, dist):
    """(load, approximation, simulated mean, CI) where both exist."""
    approx = at(ds, "latency_approx", policy=policy, distribution=dist)
    mean = at(ds, "latency_mean", policy=policy, distribution=dist)
    ci = at(ds, "latency_mean_ci", policy=policy, distribution=dist)
    ok = np.isfinite(approx.values) & np.isfinite(mean.values)
    return (approx["load"].values[ok], approx.values[ok], mean.values[ok], ci.values[ok])


def t_latency_approx_good(policy):
    def check(ds):
        errs, n = [], 0
        for dist in values_of(ds, "distribution"):
            loads, a, m, _ = _sim_pairs(ds, policy, dist)
            errs += list(np.abs(a / m - 1))
            n += len(loads)
        if not n:
            raise NotTested(f"no load with both an approximation and an estimate for {policy}")
        med, worst = float(np.median(errs)), float(np.max(errs))
        return outcome(
            med <= 0.10,
            f"{policy}: median |approximation / simulation - 1| {pct(med)}, largest {pct(worst)} over {n} loads",
        )

    return check


def t_winner_depends_on_law(ds):
    laws = values_of(ds, "distribution")
    if len(laws) < 2:
        raise NotTested("one job-size law")
    winners, text = set(), []
    for dist in laws:
        rer = at(ds, "latency_mean", policy="Rer", distribution=dist)
        rep = at(ds, "latency_mean", policy="Rep", distribution=dist)
        ok = np.isfinite(rer.values) & np.isfinite(rep.values)
        if not ok.any():
            raise NotTested(f"no load where Rer and Rep both have estimates ({dist})")
        loads = rer["load"].values[ok]
        top = int(np.argmax(loads))
        a, b = rer.values[ok][top], rep.values[ok][top]
        winners.add("Rer" if a < b else "Rep")
        text.append(
            f"{dist}: Rer faster at {int((rer.values[ok] < rep.values[ok]).sum())} of "
            f"{int(ok.sum())} common stable loads; at the highest, {fmt(loads[top])}, "
            f"Rer {fmt(a)}, Rep {fmt(b)}"
        )
    return outcome(len(winners) > 1, "; ".join(text))


def t_rep_fred_overlap_exp(ds):
    rep = at(ds, "latency_mean", policy="Rep", distribution="exp").values
    fred = at(ds, "latency_mean", policy="FRed", distribution="exp").values
    ci = (
        at(ds, "latency_mean_ci", policy="Rep", distribution="exp").values
        + at(ds, "latency_mean_ci", policy="FRed", distribution="exp").values
    )
    ok = np.isfinite(rep) & np.isfinite(fred)
    if not ok.any():
        raise NotTested("no load where Rep and FRed both have estimates (exp)")
    rel = np.abs(rep[ok] / fred[ok] - 1)
    within = np.abs(rep[ok] - fred[ok]) <= ci[ok] + 0.02 * fred[ok]
    return outcome(
        bool(within.all()),
        f"|Rep / FRed - 1| up to {pct(rel.max())} over "
        f"{int(ok.sum())} loads; within the CIs (+2 %) at "
        f"{int(within.sum())}",
    )


def t_fig6_stability(ds):
    rep = _lm(ds, "Rep", **_case("exp"))
    fred = _lm(ds, "FRed", **_case("exp"))
    rer = _lm(ds, "Rer", **_case("exp"))
    return outcome(
        abs(rep - fred) <= 1e-3 * fred and rep > rer,
        f"lambda_max at r_slow = 0.1 (exp): Rep {fmt(rep)}, FRed {fmt(fred)}, Rer {fmt(rer)}",
    )


_REP_RER = (
    "Section 5.1.1, Fig. 2 (left)",
    "The replication policy outperforms the rerouting policy for unbalanced server speeds (r_slow = 0.1).",
)
_REP_FRED = (
    "Section 5.1.1, Fig. 2",
    "For unbalanced server speeds the replication policy is "
    "equivalent to the full redundancy policy and both outperform the rerouting policy.",
)
_IID = (
    "Section 5.1.2, Fig. 3",
    "With i.i.d. replicas the replication policy outperforms the "
    "rerouting policy and is equivalent with the full redundancy policy.",
)
_A7 = (
    "Appendix A, Fig. A.7",
    "With identical replicas only the rerouting policy performs "
    "worse for Pareto than for exponential sizes; the other policies achieve the same bound.",
)
_A8 = (
    "Appendix A, Fig. A.8",
    "With i.i.d. replicas the known sizes, replication, full "
    "redundancy and rerouting policies all perform better for Pareto sizes.",
)


# A study checks its claims in this list's order (a claim of several studies sits where
# it comes in each of them).
CLAIMS: list[Claim] = [
    Claim(
        "rep-beats-rer",
        PAPER,
        *_REP_RER,
        "lambda_max of Rep >= that of Rer (1e-6) at r_slow = 0.1, identical replicas, exponential sizes, for every p1",
        t_rep_beats_rer_unbalanced,
        studies=(P1,),
    ),
    Claim(
        "symmetric-assignment",
        PAPER,
        "Section 5.1.1",
        "With p1 = p2 = 1/2 the scenario is completely symmetric and therefore q1 = q2 = 1/2.",
        "q_opt of ZRed at p1 = 0.5 (r_slow = 0.1, identical, exp) equals 0.5 (1e-6)",
        t_symmetric_q,
        studies=(P1,),
    ),
    Claim(
        "rep-is-fred-unbalanced",
        PAPER,
        *_REP_FRED,
        "at r_slow <= 0.1 (p1 = 1/2, identical, exp): |Rep / FRed - 1| <= 0.1 % and Rep > Rer",
        t_rep_is_fred_beats_rer("exp", "identical", True),
        studies=(P1, R_SLOW),
    ),
    Claim(
        "iid-rep-is-fred",
        PAPER,
        *_IID,
        "for every r_slow (p1 = 1/2, i.i.d., exp): |Rep / FRed - 1| <= 0.1 % and Rep >= Rer",
        t_rep_is_fred_beats_rer("exp", "iid", False),
        studies=(P1, R_SLOW),
    ),
    Claim(
        "pareto-rer-worse",
        PAPER,
        *_A7,
        "identical replicas, every r_slow: Rer's lambda_max for Pareto <= exponential "
        "(lower somewhere); ZRed, FRed, Rep and KT equal for both laws (1e-3)",
        t_pareto_rer_worse_identical,
        studies=(P1, R_SLOW),
    ),
    Claim(
        "pareto-better-iid",
        PAPER,
        *_A8,
        "i.i.d. replicas, every r_slow: lambda_max for Pareto >= exponential (1e-6) for KS, Rep, FRed and Rer",
        t_pareto_better_iid,
        studies=(P1, R_SLOW),
    ),
    Claim(
        "rer-vanishes",
        PAPER,
        "Section 5.1.1, Fig. 2 (right)",
        "The rerouting policy becomes unstable, lambda_max -> 0, as r_slow -> 0.",
        "Rer's lambda_max (identical, exp) is non-decreasing in r_slow on r_slow <= 0.4 "
        "and at the smallest r_slow below half its value at r_slow = 0.5",
        t_rer_vanishes,
        studies=(R_SLOW,),
    ),
    Claim(
        "balanced-no-gain",
        PAPER,
        "Section 5.1.1, Fig. 2 (right)",
        "Rerouting and replication "
        "achieve the same stability bound as zero redundancy for r_slow > 0.4: the "
        "threshold does not increase the bound.",
        "|lambda_max - ZRed's| <= 1e-3 for Rer and Rep at r_slow >= 0.45 (identical, exp)",
        t_balanced_same_as_zred,
        studies=(R_SLOW,),
    ),
    Claim(
        "ks-beats-kt",
        PAPER,
        "Section 5.1.2, Fig. 3",
        "For balanced server speeds, rerouting with known sizes even outperforms the policy with known job types.",
        "KS's lambda_max > KT's at r_slow >= 0.8 (i.i.d., exp)",
        t_ks_beats_kt_balanced,
        studies=(R_SLOW,),
    ),
    Claim(
        "zred-max-balanced",
        PAPER,
        "Section 7 (conclusion)",
        "For balanced server speeds the zero redundancy policy achieves the maximum achievable stability bound.",
        "no FRed, Rer or Rep lambda_max above ZRed's (1e-3) at r_slow >= 0.5, identical replicas, both laws",
        t_zred_best_balanced,
        studies=(R_SLOW,),
    ),
    Claim(
        "belief-convex",
        PAPER,
        "Section 5.2, Fig. 4",
        "Decreasing the uncertainty in the job types increases the achievable stability bound in a convex manner.",
        "lambda_max of ZRed, Rer and Rep (identical, exp; the policies that use the "
        "belief) non-decreasing and convex in the belief (first and second differences "
        ">= -1e-6) and rising from belief 0.5 to 1, at both r_slow",
        t_belief_convex,
        studies=(BELIEF,),
    ),
    Claim(
        "belief-rep-flat",
        PAPER,
        "Section 5.2, Fig. 4",
        "For unbalanced server speeds, decreasing "
        "the uncertainty about the job types at first has no effect on the bound of the "
        "replication policy.",
        "Rep's lambda_max at r_slow = 0.1 (identical, exp) changes by at most 1 % (a "
        "figure's resolution) from belief 0.5 to 0.55 (the first tenth of the range)",
        t_belief_rep_flat,
        studies=(BELIEF,),
    ),
    Claim(
        "belief-rep-beats-rer",
        PAPER,
        "Section 5.2, Fig. 4",
        "The replication policy still achieves a larger stability bound than the rerouting policy.",
        "Rep's lambda_max >= Rer's (1e-6) at r_slow = 0.1 for every belief (identical, exp)",
        t_belief_rep_beats_rer,
        studies=(BELIEF,),
    ),
    Claim(
        "belief-balanced-equal",
        PAPER,
        "Section 5.2, Fig. 4 (right)",
        "For balanced server "
        "speeds the bounds of known sizes, replication, rerouting and zero redundancy "
        "are all equal.",
        "|lambda_max - ZRed's| <= 1e-3 for KS, Rep, Rer at r_slow = 0.5, every belief (identical, exp)",
        t_belief_balanced_equal,
        studies=(BELIEF,),
    ),
    Claim(
        "belief-iid-no-threshold",
        PAPER,
        "Section 5.2, Fig. 5",
        "With i.i.d. replicas the use of thresholds does not improve the bound of the replication policy.",
        "Rep's lambda_max equals max(FRed, ZRed) within 0.1 % at every belief and r_slow (i.i.d., exp)",
        t_belief_iid_threshold_useless,
        studies=(BELIEF,),
    ),
    *[
        Claim(
            f"approx-good-{policy}",
            PAPER,
            "Section 6, Fig. 6",
            "The approximations of the expected latency appear to be reasonably good.",
            f"{policy}: median |approximation / simulated E[T] - 1| <= 10 % over the stable loads of both laws",
            t_latency_approx_good(policy),
            studies=(LATENCY,),
        )
        for policy in ("Rer", "Rep")
    ],
    Claim(
        "law-decides",
        PAPER,
        "Section 6, Fig. 6",
        "Depending on the variability of the job size "
        "distribution either the rerouting or the replication policy achieves the lowest "
        "expected latency.",
        "the faster of Rer and Rep (simulated E[T]) at the highest load where both are "
        "stable, where the curves of Fig. 6 part, differs between the two laws",
        t_winner_depends_on_law,
        studies=(LATENCY,),
    ),
    Claim(
        "rep-fred-overlap",
        PAPER,
        "Fig. 6 (caption)",
        "For exponential job sizes the replication and full redundancy policy are overlapping.",
        "simulated E[T] of Rep and FRed (exp) differ by at most the sum of their CI "
        "half-widths plus 2 % at every common stable load",
        t_rep_fred_overlap_exp,
        studies=(LATENCY,),
    ),
    Claim(
        "rep-is-fred-unbalanced",
        PAPER,
        *_REP_FRED,
        "lambda_max at r_slow = 0.1 (exp): |Rep / FRed - 1| <= 0.1 % and Rep > Rer",
        t_fig6_stability,
        studies=(LATENCY,),
    ),
]
"""The paper's claims, each tagged with the studies that check it."""
