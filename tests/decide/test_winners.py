"""Intervals from the best evidence, and winners by dominance: ties stay ties."""

import math

import numpy as np
import xarray as xr

from straggler.decide.intervals import cost_intervals, fmt_interval, latency_intervals, stability_intervals
from straggler.decide.winners import Candidate, beats, decide, winners
from straggler.engines.simulation.statistics import paired_ci

POLICIES = ["ZRed", "FRed", "CoC"]
LOADS = [0.2, 0.5]


def ds_of(**over):
    """One setting (r_slow = 1), three policies, two loads; every policy stable and
    simulated at both loads unless ``over`` says otherwise."""
    P, L = len(POLICIES), len(LOADS)
    base = {
        "lambda_max": np.array([0.9, 0.9, 1.4]),
        "lambda_max_kind": np.array(["exact", "approximate", "necessary"], dtype=object),
        "lambda_sufficient": np.array([0.9, np.nan, 0.3]),
        "cost": np.array([1.0, 1.5, 1.1]),
        "cost_kind": np.array(["exact", "approximation", "lower_bound"], dtype=object),
        "cost_lower": np.array([1.0, np.nan, 1.1]),
        "cost_upper": np.array([1.0, np.nan, np.nan]),
        "latency_approx": np.full((P, L), np.nan),
        "latency_approx_kind": np.array(["", "", ""], dtype=object),
        "latency_mean": np.array([[2.0, 3.0], [1.5, 2.5], [1.0, 2.0]]),
        "latency_mean_ci": np.full((P, L), 0.05),
        "latency_mean_kind": np.full((P, L), "estimate", dtype=object),
        "cost_mean": np.array([[1.0, 1.0], [1.5, 1.5], [2.0, 2.0]]),
        "cost_mean_ci": np.full((P, L), 0.01),
        "verdict": np.full((P, L), "stable", dtype=object),
        "verdict_source": np.full((P, L), "simulation", dtype=object),
    }
    base.update(over)
    data = {}
    for name, value in base.items():
        value = np.asarray(value)
        dims = ("policy", "r_slow") if value.ndim == 1 else ("policy", "r_slow", "load")
        data[name] = (dims, value[:, None] if value.ndim == 1 else value[:, None, :])
    return xr.Dataset(
        data,
        coords={"policy": POLICIES, "r_slow": [1.0], "load": LOADS},
        attrs={"config": "simulation: {confidence: 0.95}\n"},
    )


def at(iv, policy, load=None):
    sel = {"policy": policy, "r_slow": 1.0}
    if load is not None:
        sel["load"] = load
    one = iv.sel(sel)
    return float(one["low"]), float(one["high"]), str(one["evidence"].values)


def rows(ds, criterion):
    t = winners(ds)
    return t[t["criterion"] == criterion].to_dict("records")


# ------------------------------------------------------------------ interval rules


def test_stability_exact_necessary_sufficient_and_verdicts():
    verdict = np.array([["stable", "stable"], ["stable", "unstable"], ["stable", "stable"]], dtype=object)
    iv = stability_intervals(ds_of(verdict=verdict))
    assert at(iv, "ZRed") == (0.9, 0.9, "exact")
    # FRed: an approximation proves nothing; its verdicts: stable at 0.2, unstable at 0.5
    low, high, ev = at(iv, "FRed")
    # stable at 0.2 means lambda* > 0.2: an open end, one ulp above
    assert (low, high, ev) == (np.nextafter(0.2, 1.0), 0.5, "verdicts")
    assert float(iv["estimate"].sel(policy="FRed", r_slow=1.0)) == 0.9
    # CoC: necessary 1.4 is the high end, the largest stable load 0.5 beats its sufficient 0.3
    low, high, ev = at(iv, "CoC")
    assert (low, high) == (np.nextafter(0.5, 1.0), 1.4) and ev == "bound + verdicts"


def test_stable_at_a_load_beats_unstable_at_that_load():
    """Stable at l proves lambda* > l, unstable at l proves lambda* <= l: a decided win."""
    a = Candidate("A", np.nextafter(0.3, 1.0), 0.5, "verdicts")
    b = Candidate("B", 0.1, 0.3, "verdicts")
    d = decide([a, b], "stability")
    assert d.decided and d.winners == ("A",)


def test_cost_bounds_are_half_lines_intersected_with_the_simulation():
    iv = cost_intervals(ds_of())
    assert at(iv, "ZRed", 0.2)[:2] == (1.0, 1.0)  # exact, and the CI agrees
    low, high, ev = at(iv, "CoC", 0.2)  # a lower bound 1.1 and the simulation's [1.99, 2.01]
    assert math.isclose(low, 1.99) and math.isclose(high, 2.01) and ev == "simulation"
    low, high, ev = at(iv, "FRed", 0.2)  # an approximation is no end
    assert math.isclose(low, 1.49) and ev == "simulation"
    # not simulated: the lower bound alone is a half-line
    iv = cost_intervals(ds_of(cost_mean=np.full((3, 2), np.nan)))
    assert at(iv, "CoC", 0.2) == (1.1, math.inf, "bound")
    assert at(iv, "FRed", 0.2)[2] == "estimate only"


def test_latency_unstable_undetermined_clipped_and_conflict():
    verdict = np.array([["stable", "unstable"], ["undetermined", "stable"], ["stable", "stable"]], dtype=object)
    ci = np.full((3, 2), 0.05)
    ci[2, 0] = 5.0  # a CI wider than the mean: clipped at 0
    approx = np.full((3, 2), np.nan)
    approx[0, 0] = 2.5  # exact, outside ZRed's CI [1.95, 2.05]: a conflict
    lower = np.full((3, 2), np.nan)
    lower[1, 0] = 0.7
    ds = ds_of(
        verdict=verdict,
        latency_mean_ci=ci,
        latency_approx=approx,
        latency_approx_kind=np.array(["exact", "", ""], dtype=object),
        latency_lower=lower,
    )
    ds["latency_lower"] = (("policy", "r_slow", "load"), lower[:, None, :])
    iv = latency_intervals(ds)
    assert at(iv, "ZRed", 0.5) == (math.inf, math.inf, "unstable")
    assert at(iv, "FRed", 0.2) == (0.7, math.inf, "undetermined")
    low, high, _ = at(iv, "CoC", 0.2)
    assert low == 0.0 and high == 6.0
    low, high, ev = at(iv, "ZRed", 0.2)
    assert ev.startswith("conflict") and math.isclose(low, 1.95) and math.isclose(high, 2.05)


def test_an_unreliable_ci_decides_nothing_an_exact_value_stands_alone():
    """ZRed's CI [1.95, 2.05] is unreliable (a heavy tail) and misses its exact 2.5: the
    exact value stands alone, no conflict. CoC's is unreliable with only a lower bound
    0.7: the interval is that bound, open above (evidence 'unreliable CI')."""
    approx = np.full((3, 2), np.nan)
    approx[0, 0] = 2.5
    reliable = np.ones((3, 2))
    reliable[0, 0] = reliable[2, 0] = 0.0
    lower = np.full((3, 2), np.nan)
    lower[2, 0] = 0.7
    ds = ds_of(
        latency_approx=approx,
        latency_approx_kind=np.array(["exact", "", ""], dtype=object),
        ci_reliable=reliable,
        latency_lower=lower,
    )
    iv = latency_intervals(ds)
    assert at(iv, "ZRed", 0.2) == (2.5, 2.5, "exact")
    assert at(iv, "CoC", 0.2) == (0.7, math.inf, "unreliable CI")
    assert at(iv, "FRed", 0.2) == (1.45, 1.55, "simulation")
    assert not bool(iv["reliable"].sel(policy="CoC", r_slow=1.0, load=0.2))
    # a dataset older than ci_reliable: latency_mean_kind = ci_undercovers says the same
    kind = np.full((3, 2), "estimate", dtype=object)
    kind[0, 0] = "ci_undercovers"
    old = ds_of(
        latency_approx=approx, latency_approx_kind=np.array(["exact", "", ""], dtype=object), latency_mean_kind=kind
    )
    assert at(latency_intervals(old), "ZRed", 0.2) == (2.5, 2.5, "exact")


def test_fmt_interval():
    assert fmt_interval(1.0, 1.0) == "1"
    assert fmt_interval(1.0, math.inf) == ">= 1"
    assert fmt_interval(0.0, 2.0) == "<= 2"
    assert fmt_interval(1.0, 2.0) == "[1, 2]"
    assert fmt_interval(math.inf, math.inf) == "inf"


# ------------------------------------------------------------------ dominance and ties


def test_a_lower_bound_never_wins_cost_against_a_simulated_interval_it_does_not_beat():
    """CoC's analytic E[C] is a lower bound 1.1, below ZRed's simulated [1.49, 1.51]:
    before, it was 'cheapest'. A half-line [1.1, inf) beats nothing."""
    cost_mean = np.array([[np.nan, np.nan], [1.5, 1.5], [np.nan, np.nan]])
    ds = ds_of(
        cost_mean=cost_mean,
        cost=np.array([np.nan, 1.5, 1.1]),
        cost_kind=np.array(["", "approximation", "lower_bound"], dtype=object),
        cost_lower=np.array([np.nan, np.nan, 1.1]),
        cost_upper=np.array([np.nan, np.nan, np.nan]),
    )
    ds = ds.sel(policy=["FRed", "CoC"])
    first = rows(ds, "cost")[0]
    assert first["winners"] == "FRed, CoC" and first["decided"] == "false"
    assert first["evidence"].startswith("tie")
    assert first["low"] == 1.1 and first["high"] == math.inf


def test_two_overlapping_intervals_are_a_tie_and_separate_ones_a_win():
    a, b = Candidate("A", 1.0, 1.2), Candidate("B", 1.1, 1.3)
    d = decide([a, b], "latency")
    assert d.winners == ("A", "B") and not d.decided
    assert (d.low, d.high) == (1.0, 1.3)
    c = Candidate("C", 1.25, 1.4)
    d = decide([a, c], "latency")
    assert d.winners == ("A",) and d.decided and d.runner_up == "C" and math.isclose(d.margin, 0.05)
    # stability maximises
    d = decide([Candidate("A", 0.6, 0.7), Candidate("B", 0.4, 0.5)], "stability")
    assert d.winners == ("A",) and math.isclose(d.margin, 0.1)


def test_an_undetermined_contender_is_in_the_tie_set_unless_beaten():
    fast = Candidate("A", 1.0, 1.1, verdict="stable")
    open_ = Candidate("B", 0.0, math.inf, verdict="undetermined")
    d = decide([fast, open_], "latency")
    assert d.winners == ("A", "B") and d.undetermined == ("B",)
    # an undetermined one whose lower bound is above another's CI is beaten
    d = decide([fast, Candidate("B", 1.5, math.inf, verdict="undetermined")], "latency")
    assert d.winners == ("A",) and d.decided


def test_the_tie_set_is_well_defined_without_transitivity():
    """A beats B, B beats C, C beats A (paired decisions can cycle): nobody is
    unbeaten, so all three are tied; A beats B only: the tie set is A and C."""
    reps = {"A": [1.0, 2.0, 3.0], "B": [1.1, 2.1, 3.1], "C": [0.9, 2.2, 3.05]}
    cands = [Candidate(n, 0.0, math.inf, replications=np.array(v)) for n, v in reps.items()]
    wins = {(a.name, b.name) for a in cands for b in cands if a is not b and beats(a, b, True, 0.95, paired=True)[0]}
    d = decide(cands, "latency", paired=True)
    unbeaten = {c.name for c in cands if not any((o, c.name) in wins for o in reps)}
    assert set(d.winners) >= unbeaten and not d.decided or len(d.winners) == 1
    # a hand-made cycle
    a, b, c = Candidate("A", 1, 2), Candidate("B", 3, 4), Candidate("C", 5, 6)
    import straggler.decide.winners as w

    cycle = {("A", "B"), ("B", "C"), ("C", "A")}
    orig = w.beats
    try:
        w.beats = lambda x, y, *args, **kw: ((x.name, y.name) in cycle, "interval")
        assert w.decide([a, b, c], "latency").winners == ("A", "B", "C")
        w.beats = lambda x, y, *args, **kw: ((x.name, y.name) == ("A", "B"), "interval")
        assert w.decide([a, b, c], "latency").winners == ("A", "C")
    finally:
        w.beats = orig


def test_oracles_are_no_contenders_but_have_their_column():
    ds = ds_of()
    ds = ds.assign_coords(policy=["ZRed", "FRed", "KT"])
    lat = rows(ds, "latency")[0]
    assert lat["winners"] == "FRed" and lat["winners_with_oracles"] == "KT"


def test_winners_csv_columns_and_a_stability_row_per_setting():
    t = winners(ds_of())
    assert list(t.columns) == [
        "r_slow",
        "load",
        "criterion",
        "winners",
        "decided",
        "low",
        "high",
        "evidence",
        "runner_up",
        "margin",
        "undetermined",
        "winners_with_oracles",
    ]
    assert (t["criterion"] == "stability").sum() == 1 and (t["criterion"] == "latency").sum() == 2
    assert t.loc[t["criterion"] == "stability", "load"].tolist() == [""]


# ------------------------------------------------------------------ the paired hook


def with_replications(ds, lat_reps, crn=True):
    """``latency_replication_mean`` (policy, r_slow, load, replication)."""
    arr = np.asarray(lat_reps, dtype=float)[:, None, :, :]
    ds = ds.assign(latency_replication_mean=(("policy", "r_slow", "load", "replication"), arr))
    ds = ds.assign_coords(replication=np.arange(arr.shape[-1]))
    if crn:
        ds.attrs["common_random_numbers"] = "true"
    return ds


def test_paired_replications_decide_where_the_intervals_overlap():
    # ZRed and FRed: E[T] CIs [1.4, 1.6] overlap; per replication FRed is always 0.02 faster
    base = np.array([1.3, 1.45, 1.55, 1.7])
    lat_mean = np.array([[1.52, 3.0], [1.5, 2.5], [3.0, 3.5]])
    ci = np.full((3, 2), 0.1)
    ds = ds_of(latency_mean=lat_mean, latency_mean_ci=ci)
    reps = np.full((3, 2, 5), np.nan)  # a fifth replication nobody has
    reps[0, 0, :4] = base + 0.02
    reps[1, 0, :4] = base
    reps[1, 0, 3] = np.nan  # FRed lacks one: the pair uses the three both have
    reps[1, 0, 3] = base[3]
    reps[2, 0, :4] = base + 1.5
    unpaired = rows(ds, "latency")[0]
    assert unpaired["winners"] == "ZRed, FRed" and unpaired["decided"] == "false"
    paired = rows(with_replications(ds, reps), "latency")[0]
    assert paired["winners"] == "FRed" and paired["decided"] == "true"
    assert paired["evidence"] == "paired simulation" and paired["margin"] > 0
    # without common random numbers the replications are not paired
    again = rows(with_replications(ds, reps, crn=False), "latency")[0]
    assert again["winners"] == "ZRed, FRed"


def test_an_unreliable_ci_pairs_nothing():
    """The paired CI that decides ZRed against FRed above is not used when FRed's CI is
    unreliable: its replication means are no evidence, and the point stays a tie."""
    base = np.array([1.3, 1.45, 1.55, 1.7])
    ds = ds_of(latency_mean=np.array([[1.52, 3.0], [1.5, 2.5], [3.0, 3.5]]), latency_mean_ci=np.full((3, 2), 0.1))
    reps = np.full((3, 2, 4), np.nan)
    reps[0, 0], reps[1, 0], reps[2, 0] = base + 0.02, base, base + 1.5
    assert rows(with_replications(ds, reps), "latency")[0]["winners"] == "FRed"
    reliable = np.ones((3, 2))
    reliable[1, 0] = 0.0
    lower = np.full((3, 2), 1.0)
    unsure = with_replications(ds, reps).assign(
        ci_reliable=(("policy", "r_slow", "load"), reliable[:, None, :]),
        latency_lower=(("policy", "r_slow", "load"), lower[:, None, :]),
    )
    row = rows(unsure, "latency")[0]
    assert row["winners"] == "ZRed, FRed" and row["decided"] == "false"


def test_paired_ci_uses_the_replications_both_have():
    a = np.array([1.0, 2.0, np.nan, 4.0])
    b = np.array([0.9, 1.9, 3.0, np.nan])
    lo, hi = paired_ci(a, b, 0.95)
    assert math.isclose(lo, 0.1) and math.isclose(hi, 0.1)
    assert paired_ci(np.array([1.0, np.nan]), np.array([1.0, 2.0]), 0.95) is None


# ------------------------------------------------------------------ heavy tails: the P99 decides


HEAVY = "infinite variance: FCFS: a replica's service time has tail index 2.2 (test)"


def heavy_ds(p99, half, reason=HEAVY, unreliable_at=0):
    """:func:`ds_of` with simulated P99 intervals (``p99`` +- ``half`` per policy, at every
    load) and, at the load ``unreliable_at``, every E[T] CI untrusted for ``reason``."""
    P, L = len(POLICIES), len(LOADS)
    reliable = np.ones((P, L))
    reliable[:, unreliable_at] = 0.0
    why = np.full((P, L), "", dtype=object)
    why[:, unreliable_at] = reason
    ds = ds_of(ci_reliable=reliable, ci_reliable_reason=why)
    levels = [0.5, 0.99]
    value = np.zeros((P, 1, L, 2))
    ci = np.zeros((P, 1, L, 2))
    value[..., 1] = np.asarray(p99, dtype=float)[:, None, None]
    ci[..., 1] = np.asarray(half, dtype=float)[:, None, None]
    dims = ("policy", "r_slow", "load", "quantile")
    return ds.assign(latency_quantile=(dims, value), latency_quantile_ci=(dims, ci)).assign_coords(quantile=levels)


def answer_at(ds, load):
    from straggler.decide.decision import recommendations

    rec = recommendations(ds)
    return rec[rec["load"] == load].iloc[0].to_dict()


def test_unreliable_e_t_with_separated_p99_intervals_is_decided_on_the_p99():
    ds = heavy_ds(p99=[10.0, 20.0, 30.0], half=[0.5, 0.5, 0.5])
    lat = rows(ds, "latency")[0]
    assert not lat["decided"] == "true" and lat["evidence"] == "tie: unreliable CI"  # E[T] decides nothing
    r = answer_at(ds, 0.2)
    assert r["recommended"] == "ZRed" and r["decided"]
    assert r["basis"] == "P99 (E[T] undecidable: infinite variance)"
    assert r["decided by"] == "intervals disjoint" and r["runner_up"] == "FRed" and r["margin"] == 9.0
    assert r["tail"] == "[9.5, 10.5]"


def test_unreliable_e_t_with_overlapping_p99_intervals_stays_a_tie():
    ds = heavy_ds(p99=[10.0, 10.5, 30.0], half=[1.0, 1.0, 1.0])
    r = answer_at(ds, 0.2)
    assert r["recommended"] == "ZRed, FRed" and not r["decided"]
    assert r["basis"] == "P99 tie (E[T] undecidable: infinite variance)" and r["decided by"] == ""


def test_a_run_not_settled_is_no_ground_for_the_p99_the_tie_is_left_whole():
    ds = heavy_ds(p99=[10.0, 20.0, 30.0], half=[0.5, 0.5, 0.5], reason="not settled: MSER (test)")
    r = answer_at(ds, 0.2)
    assert r["recommended"] == "ZRed, FRed, CoC"
    assert r["basis"] == "E[T] undetermined: unreliable CI of ZRed, FRed, CoC"


def test_reliable_e_t_is_decided_as_before_bit_for_bit():
    """At load 0.5 every E[T] CI can be trusted: the answer is the one of the same point
    without any P99 or reliability data, column for column."""
    from straggler.decide.decision import recommendations

    heavy = answer_at(heavy_ds(p99=[30.0, 20.0, 10.0], half=[0.5, 0.5, 0.5]), 0.5)
    plain_rec = recommendations(ds_of())
    plain_row = plain_rec[plain_rec["load"] == 0.5].iloc[0].to_dict()
    assert heavy["basis"] == "E[T]" and heavy["recommended"] == "CoC"
    for key, value in plain_row.items():
        if key != "tail":  # the plain dataset has no quantiles
            assert heavy[key] == value or (value != value and heavy[key] != heavy[key]), key


def test_winners_csv_and_best_say_the_basis():
    from straggler.decide.decision import winners_table
    from straggler.outputs.report import best_at

    ds = heavy_ds(p99=[10.0, 20.0, 30.0], half=[0.5, 0.5, 0.5])
    t = winners_table(ds)
    rec = t[(t["criterion"] == "recommended") & (t["load"] == 0.2)].iloc[0]
    assert rec["winners"] == "ZRed" and rec["evidence"] == "P99 (E[T] undecidable: infinite variance)"
    assert (rec["low"], rec["high"]) == (9.5, 10.5)  # the P99's interval it was decided on
    lines, ok = best_at(ds, {"load": "0.2"})
    assert ok and "  recommended: ZRed (P99 (E[T] undecidable: infinite variance))" in "\n".join(lines)


def test_with_a_budget_the_p99_decides_among_the_qualifying_and_the_answer_says_so():
    from straggler.decide.decision import recommendations
    from straggler.decide.question_answer import MAX_ANSWER_LINES, answer_lines

    ds = heavy_ds(p99=[10.0, 20.0, 30.0], half=[0.5, 0.5, 0.5])
    ds = ds.assign(size_mean=(("policy", "r_slow"), np.ones((3, 1))))
    ds.attrs["config"] = "simulation: {confidence: 0.95}\ndecision: {budget: {extra_load: 10}}\n"
    rec = recommendations(ds)
    r = rec[rec["load"] == 0.2].iloc[0]
    assert (
        r["recommended"] == "ZRed" and r["basis"] == "fastest P99 that qualifies (E[T] undecidable: infinite variance)"
    )
    assert rec[rec["load"] == 0.5].iloc[0]["basis"] == "fastest E[T] that qualifies"
    lines = answer_lines(ds)
    assert len(lines) <= MAX_ANSWER_LINES
    assert lines[1].startswith("load 0.2 (on P99, E[T] undecidable: infinite variance): Run ZRed:")
    assert lines[1].endswith("runner-up FRed (P99 at least 9 higher)")
