"""The speculation paper's claims (Anselmi, Walton)."""

from __future__ import annotations

import math

import numpy as np

from .claim import Claim, NotTested, all_of, outcome
from .data import at, largest_stable, law, need, stable_loads, study_config, value, values_of
from .formatting import fmt

PAPER = "Anselmi, Walton (speculation paper)"
FIG1, FIG2 = "speculation_fig1", "speculation_fig2"
"""The paper's studies (their keys, :func:`~straggler.decide.claims.registry.study_key`)."""


def _L(ds, dist, dep):
    da = at(ds, "lambda_max", distribution=dist, dependence=dep)
    if list(da.dims) != ["Rer.tau"]:
        raise NotTested("lambda_max is not one series over Rer.tau")
    return da["Rer.tau"].values.astype(float), 1.0 / da.values


def _against_interval(tau, L, lo, hi) -> np.ndarray:
    """The grid's tau that contradict "L < 1 exactly inside (lo, hi)": grid points at an
    end of the interval are left out (whether a job of size exactly tau completes is a
    convention), and so is a tau where L is 1 to double precision (the gain is below
    1e-12)."""
    ends = np.isclose(tau, lo, rtol=1e-9) | np.isclose(tau, hi, rtol=1e-9)
    flat = np.abs(L - 1) <= 1e-12
    inside = (tau > lo) & (tau < hi)
    return tau[~ends & ~flat & ((inside & (L >= 1)) | (~inside & (L < 1)))]


def l_interval(dep, lo, hi, what, dist="one"):
    def check(ds):
        tau, L = _L(ds, dist, dep)
        ends = np.isclose(tau, lo, rtol=1e-9) | np.isclose(tau, hi, rtol=1e-9)
        flat = np.abs(L - 1) <= 1e-12
        inside = (tau > lo) & (tau < hi)
        wrong = _against_interval(tau, L, lo, hi)
        notes = []
        if ends.any():
            notes.append(
                f"at the interval's ends tau = {[float(fmt(t)) for t in tau[ends]]} "
                f"L = {[float(fmt(x)) for x in L[ends]]}"
            )
        if (flat & inside).any():
            notes.append(f"L = 1 to double precision at tau = {[float(fmt(t)) for t in tau[flat & inside]]}")
        return outcome(
            not len(wrong),
            f"{what}: L < 1 at tau = {[float(fmt(t)) for t in tau[L < 1]]}; "
            f"against the claim at {[float(fmt(t)) for t in wrong] or 'none'}"
            + ("; " + "; ".join(notes) if notes else ""),
        )

    return check


def l_half(ds):
    tau, L = _L(ds, "one", "sx_bimodal")
    m = float(L.min())
    return outcome(
        0.45 <= m <= 0.55, f"smallest L(tau) (X = 1, bimodal S): {fmt(m)} at tau = {fmt(tau[int(np.argmin(L))])}"
    )


_RANGES = {"one": (10, 1e3), "uniform": (13, 2e3), "exp": (13.5, math.inf)}
"""The text's ranges of tau with the benefit, by X (Fig. 1, bimodal S)."""


def _crossing(tau, L, below: float) -> str:
    """Where L falls below 1 on the grid, among the tau below ``below``."""
    for t0, t1, l0, l1 in zip(tau, tau[1:], L, L[1:]):
        if t1 <= below and l0 >= 1 > l1:
            return f"between tau = {fmt(t0)} (L = {fmt(l0)}) and {fmt(t1)} (L = {fmt(l1)})"
    return "not on the grid"


def l_ranges(ds):
    curves = {dist: _L(ds, dist, "sx_bimodal") for dist in _RANGES}
    readings = {
        "as printed": _RANGES,
        "13 and 13.5 swapped": {**_RANGES, "uniform": (13.5, 2e3), "exp": (13, math.inf)},
    }
    wrong = {
        name: {dist: _against_interval(*curves[dist], *rng) for dist, rng in ranges.items()}
        for name, ranges in readings.items()
    }
    fits = [name for name, w in wrong.items() if not any(len(t) for t in w.values())]
    text = [
        f"X {dist}: L < 1 from {_crossing(*curves[dist], 100)}, smallest L {fmt(curves[dist][1].min())}"
        for dist in _RANGES
    ]
    for name, w in wrong.items():
        bad = {dist: [float(fmt(t)) for t in taus] for dist, taus in w.items() if len(taus)}
        text.append(f"ranges {name}: " + (f"against the claim at tau {bad}" if bad else "L < 1 exactly on them"))
    if fits and fits[0] != "as printed":
        text.append("the text's low ends 13 (X uniform) and 13.5 (X exponential) appear swapped")
    return outcome(bool(fits), "; ".join(text))


def l_pareto_alpha(ds):
    worst = -math.inf
    for dist in values_of(ds, "distribution"):
        _, a = _L(ds, dist, "sx_pareto_a11")
        _, b = _L(ds, dist, "sx_pareto_a15")
        worst = max(worst, float(np.nanmax(a - b)))
    return outcome(worst <= 1e-9, f"largest L(alpha = 1.1) - L(alpha = 1.5) over every tau and X: {fmt(worst)}")


def l_small_tau_loses(ds):
    text, ok = [], True
    for dep in ("sx_bimodal", "sx_pareto_a11", "sx_pareto_a15"):
        tau, L = _L(ds, "one", dep)
        ok &= L[0] > 1
        text.append(f"{dep}: L({fmt(tau[0])}) = {fmt(L[0])}")
    return outcome(ok, "; ".join(text))


def _fig2_points(ds, dep):
    """{(policy, d): (loads, E[T])} of the speculation Fig. 2 study for one law."""
    out = {}
    for policy in values_of(ds, "policy"):
        for d in values_of(ds, "d"):
            if policy == "Rer" and d != values_of(ds, "d")[0]:
                continue  # SLB ignores d
            m = at(ds, "latency_mean", policy=policy, dependence=dep, d=d)
            if list(m.dims) != ["load"]:
                raise NotTested(
                    f"latency_mean of {policy} is not one series over the load "
                    f"(axes {list(m.dims)}): the grid is not the paper's"
                )
            out[(policy, int(d))] = m
    return out


def _name(key):
    policy, d = key
    return "SLB" if policy == "Rer" else f"{policy}-{d}"


def g_light(ds):
    load = min(values_of(ds, "load"))
    text, ok = [], True
    for dep in values_of(ds, "dependence"):
        pts = {k: float(v.sel(load=load)) for k, v in _fig2_points(ds, dep).items()}
        pts = {k: v for k, v in pts.items() if np.isfinite(v)}
        if not pts:
            raise NotTested(f"no estimate at load {load} ({dep})")
        best = min(pts, key=pts.get)
        ok &= best[0] == "CoC"
        text.append(
            f"{dep}: fastest {_name(best)} ({fmt(pts[best])}; SLB "
            f"{fmt(pts.get(('Rer', values_of(ds, 'd')[0]), math.nan))})"
        )
    return outcome(ok, f"load {fmt(load)}: " + "; ".join(text))


def further(ds, a: dict, b: dict) -> str:
    """Which of two policies (selections ``a``, ``b``) the verdicts show stable further:
    ``"a"`` if a is stable at a load where b is unstable, ``"b"`` for the reverse, ``""``
    when the load grid does not separate them (both give out between the same two
    loads, or a verdict is undetermined)."""
    va = np.asarray(at(ds, "verdict", **a).values)
    vb = np.asarray(at(ds, "verdict", **b).values)
    if va.shape != vb.shape or va.ndim != 1:
        raise NotTested("verdicts are not one series over the load")
    if ((va == "stable") & (vb == "unstable")).any():
        return "a"
    if ((vb == "stable") & (va == "unstable")).any():
        return "b"
    return ""


def _regions(ds, pairs, names) -> tuple[dict, list[str]]:
    """Tally of :func:`further` over (label, a, b) ``pairs``: counts of a, b and
    undecided, and the evidence per pair."""
    tally = {"a": 0, "b": 0, "": 0}
    text = []
    for label, sa, sb in pairs:
        who = further(ds, sa, sb)
        tally[who] += 1
        word = {"a": f"{names[0]} further", "b": f"{names[1]} further", "": "not separated by the load grid"}[who]
        cap_a = largest_stable(ds, **sa)
        cap_b = largest_stable(ds, **sb)
        text.append(f"{label}: {word} (largest stable load {names[0]} {fmt(cap_a)}, {names[1]} {fmt(cap_b)})")
    return tally, text


def _replica_work(ds, dist: str, dep: str, d: int) -> tuple[float, float]:
    """(E[eta_1], d E[min(eta_1..eta_d)]): one replica's mean work, and the work of d
    replicas that all run until the first completes."""
    from ...model.dependence import from_spec, mean_min_replicas

    cfg = study_config(ds)
    named = {name: law(ds, name) for name in cfg.get("distributions") or {}}
    spec = (cfg.get("dependences") or {}).get(dep, dep)
    X, D = law(ds, dist), from_spec(spec, named)
    return mean_min_replicas(X, D, 1), d * mean_min_replicas(X, D, d)


def g_coc_beyond_cos(ds):
    pairs = [
        (f"{dep}, d = {d}", dict(policy="CoC", dependence=dep, d=d), dict(policy="CoS", dependence=dep, d=d))
        for dep in values_of(ds, "dependence")
        for d in values_of(ds, "d")
    ]
    tally, text = _regions(ds, pairs, ("CoC", "CoS"))
    if tally["b"]:
        behind = [(label, a) for label, a, b in pairs if further(ds, a, b) == "b"]
        x = values_of(ds, "distribution")[0]
        work = []
        for label, a in behind:
            one, all_d = _replica_work(ds, x, a["dependence"], int(a["d"]))
            work.append(f"{label}: {fmt(all_d)} against {fmt(one)}")
        return outcome(
            False,
            f"CoS-d stable further than CoC-d in {tally['b']} of {len(pairs)} cases "
            f"({'; '.join(label for label, _ in behind)}): "
            + "; ".join(text)
            + ". The paper generalises beyond what its model gives: CoC-d runs its replicas until "
            "the first completes, and where they run together they cost d E[min] against CoS-d's "
            f"E[eta_1] ({', '.join(work)}), as the paper's own heavy-load argument allows "
            "('potentially leading CoC-d to be unstable')",
        )
    if tally["a"] * 2 < len(pairs):
        raise NotTested("the load grid separates CoC-d from CoS-d in fewer than half the cases: " + "; ".join(text))
    return outcome(
        True, f"CoC-d stable further in {tally['a']} of {len(pairs)} cases, never behind: " + "; ".join(text)
    )


def g_slb_further(ds):
    d0 = values_of(ds, "d")[0]
    pairs = [
        (f"{dep}, d = {d}", dict(policy="Rer", dependence=dep, d=d0), dict(policy="CoC", dependence=dep, d=d))
        for dep in values_of(ds, "dependence")
        for d in values_of(ds, "d")
    ]
    tally, text = _regions(ds, pairs, ("SLB", "CoC"))
    return outcome(
        tally["a"] * 2 > len(pairs),
        f"SLB stable further than CoC-d in {tally['a']} of {len(pairs)} cases, "
        f"CoC-d further in {tally['b']}: " + "; ".join(text),
    )


def g_pareto11_coc2(ds):
    dep = "sx_pareto_a11"
    pts = _fig2_points(ds, dep)
    loads = [
        load for load in values_of(ds, "load") if sum(np.isfinite(float(v.sel(load=load))) for v in pts.values()) >= 2
    ]
    if not loads:
        raise NotTested("no load with two stable policies")
    load = max(loads)
    vals = {k: float(v.sel(load=load)) for k, v in pts.items()}
    vals = {k: v for k, v in vals.items() if np.isfinite(v)}
    best = min(vals, key=vals.get)
    return outcome(
        best == ("CoC", 2),
        f"Pareto alpha = 1.1, load {fmt(load)} (highest with two "
        f"stable): " + ", ".join(f"{_name(k)} {fmt(v)}" for k, v in sorted(vals.items(), key=lambda x: x[1])),
    )


def g_riq4_light(ds):
    load = min(values_of(ds, "load"))
    d0 = values_of(ds, "d")[0]
    text, ok = [], True
    for dep in values_of(ds, "dependence"):
        riq = need(value(ds, "latency_mean", policy="RIQ", dependence=dep, d=4, load=load), f"RIQ-4 at {load}")
        slb = need(value(ds, "latency_mean", policy="Rer", dependence=dep, d=d0, load=load), f"SLB at {load}")
        ok &= riq < slb
        text.append(f"{dep}: RIQ-4 {fmt(riq)}, SLB {fmt(slb)}")
    return outcome(ok, f"load {fmt(load)}: " + "; ".join(text))


def g_riq_vs_slb(ds):
    d0 = values_of(ds, "d")[0]
    pairs = [
        (f"{dep}, d = {d}", dict(policy="Rer", dependence=dep, d=d0), dict(policy="RIQ", dependence=dep, d=d))
        for dep in values_of(ds, "dependence")
        for d in values_of(ds, "d")
    ]
    tally, text = _regions(ds, pairs, ("SLB", "RIQ"))
    if tally["b"]:
        return outcome(
            False, f"RIQ-d stable further than SLB in {tally['b']} of {len(pairs)} cases: " + "; ".join(text)
        )
    if tally["a"] * 2 < len(pairs):
        raise NotTested("the load grid separates SLB from RIQ-d in fewer than half the cases: " + "; ".join(text))
    return outcome(True, f"SLB stable further in {tally['a']} of {len(pairs)} cases, never behind: " + "; ".join(text))


def g_cos_capacity(ds):
    bad, n = [], 0
    for dep in values_of(ds, "dependence"):
        for d in values_of(ds, "d"):
            for load in stable_loads(ds, policy="CoS", dependence=dep, d=d):
                n += 1
                if load >= 1.0:
                    bad.append(f"{dep}, d = {d}, load {fmt(load)}")
    if not n:
        raise NotTested("CoS has no stable load")
    return outcome(not bad, f"{n} stable CoS points; at a load >= 1: {bad or 'none'}")


# A study checks its claims in this list's order (a claim of several studies sits where
# it comes in each of them).
CLAIMS: list[Claim] = [
    Claim(
        "bimodal-interval",
        PAPER,
        "Section 5.1, point 1",
        "With X = 1 and S bimodal (s_m w.p. p, s_M otherwise), L(tau) < 1 exactly for tau in (s_m, (s_M - s_m) p).",
        "X = 1, bimodal S (10 w.p. 0.99, 1000): L < 1 at the grid's tau inside "
        "(10, 980.1) and >= 1 outside (the ends left out)",
        l_interval("sx_bimodal", 10, 980.1, "X = 1, bimodal S"),
        studies=(FIG1,),
    ),
    Claim(
        "pareto-interval",
        PAPER,
        "Section 5.1, point 3",
        "With X = 1 and S ~ Pareto(alpha, s_m), L(tau) < 1 exactly for tau > alpha s_m.",
        "X = 1: L < 1 exactly at the grid's tau > 1.1 (alpha = 1.1) and tau > 1.5 (alpha = 1.5)",
        all_of(
            l_interval("sx_pareto_a11", 1.1, math.inf, "alpha 1.1"),
            l_interval("sx_pareto_a15", 1.5, math.inf, "alpha 1.5"),
        ),
        studies=(FIG1,),
    ),
    Claim(
        "hyper-all",
        PAPER,
        "Section 5.1, point 2",
        "With a nondegenerate hyperexponential S every timeout reduces the load.",
        "X = 1, hyperexponential S: L < 1 at every tau of the "
        "grid, but where L is 1 to double precision (a gain below 1e-12)",
        l_interval("sx_hyper", 0, math.inf, "X = 1, hyperexponential S"),
        studies=(FIG1,),
    ),
    Claim(
        "double-capacity",
        PAPER,
        "Section 5.1, Fig. 1",
        "The timeouts that minimize the load can double the stability region: L ~ 0.5.",
        "smallest L(tau) for X = 1, bimodal S within [0.45, 0.55]",
        l_half,
        studies=(FIG1,),
    ),
    Claim(
        "benefit-ranges",
        PAPER,
        "Section 5.1, Fig. 1",
        "With bimodal S the benefit (L ~ 0.5) is "
        "obtained for tau in [10, 10^3) (X = 1), [13, 2 10^3) (X uniform on [0, 2]) and "
        "[13.5, inf) (X exponential).",
        "the benefit is a larger stability region, L < 1 (how close L comes to 0.5 is the claim "
        "double-capacity): L < 1 exactly at the grid's tau inside each range and L >= 1 "
        "outside (the ends and L = 1 to double precision left out), the text's ends 13 and "
        "13.5 read as printed or swapped",
        l_ranges,
        studies=(FIG1,),
    ),
    Claim(
        "pareto-alpha",
        PAPER,
        "Section 5.1, Fig. 1",
        "With Pareto S, L(tau) decreases when alpha decreases, for any given tau.",
        "L(tau) for alpha = 1.1 <= L(tau) for alpha = 1.5 at every tau and X",
        l_pareto_alpha,
        studies=(FIG1,),
    ),
    Claim(
        "small-tau-loses",
        PAPER,
        "Section 5.1, Fig. 1",
        "If timeouts are too small, speculation may lose capacity (L(tau) > 1).",
        "L > 1 at the smallest tau of the grid for X = 1 with bimodal and Pareto S",
        l_small_tau_loses,
        studies=(FIG1,),
    ),
    Claim(
        "coc-light-load",
        PAPER,
        "Section 5.3, Fig. 2",
        "CoC-d provides the best results in light load conditions.",
        "at the lowest load the smallest simulated E[T] among SLB, "
        "CoC-d, CoS-d and RIQ-d (d = 2, 4) is a CoC-d, for every slowdown law",
        g_light,
        studies=(FIG2,),
    ),
    Claim(
        "coc-beyond-cos",
        PAPER,
        "Section 5.3, Fig. 2",
        "CoC-d increases the stability region achieved by CoS-d (lambda E[eta_1] < 1).",
        "in no (law, d) case is CoS-d stable at "
        "a load where CoC-d is unstable, and in at least half CoC-d is stable at a load "
        "where CoS-d is unstable (cases the load grid does not separate are counted "
        "apart)",
        g_coc_beyond_cos,
        studies=(FIG2,),
    ),
    Claim(
        "slb-more-traffic",
        PAPER,
        "Section 5.3, Fig. 2",
        "In most cases SLB goes further and accommodates more traffic than CoC-d.",
        "SLB is stable at a load where CoC-d is unstable in more than half of the (law, d) cases",
        g_slb_further,
        studies=(FIG2,),
    ),
    Claim(
        "pareto11-coc2",
        PAPER,
        "Section 5.3, Fig. 2",
        "For Pareto S with alpha = 1.1, CoC-2 eventually provides the best results.",
        "at the highest load where two policies are stable (alpha = 1.1), CoC-2 has the smallest simulated E[T]",
        g_pareto11_coc2,
        studies=(FIG2,),
    ),
    Claim(
        "riq4-light",
        PAPER,
        "Section 5.3, Fig. 2",
        "RIQ-4 provides slightly better results than SLB in light load conditions.",
        "at the lowest load RIQ-4's simulated E[T] is below SLB's, for every law",
        g_riq4_light,
        studies=(FIG2,),
    ),
    Claim(
        "slb-beyond-riq",
        PAPER,
        "Section 5.3, Fig. 2",
        "RIQ-d gets close to random dispatch as "
        "the load increases, with its stability condition lambda E[eta_1] < 1, while SLB "
        "preserves stability much further.",
        "in no (law, d) case is RIQ-d stable at a "
        "load where SLB is unstable, and in at least half SLB is stable at a load where "
        "RIQ-d is unstable",
        g_riq_vs_slb,
        studies=(FIG2,),
    ),
    Claim(
        "cos-capacity",
        PAPER,
        "Section 5.3, Remark",
        "CoS-d (= LLW-d) is stable if and only if lambda E[eta_1] < 1.",
        "no stable CoS-d point at a load >= 1",
        g_cos_capacity,
        studies=(FIG2,),
    ),
]
"""The paper's claims, each tagged with the studies that check it."""
