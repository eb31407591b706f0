"""The papers' claims: verdicts computed from small synthetic datasets."""

from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from straggler.decide import claims
from straggler.decide.claims import FAILS, HOLDS, NOT_TESTED, check_claims, claims_for
from straggler.decide.claims.data import difference

ROOT = Path(__file__).resolve().parents[3]
PAPER_STUDIES = [
    "threshold_p1",
    "threshold_r_slow",
    "threshold_belief",
    "threshold_latency",
    "ps_redundancy",
    "ps_fig5",
    "ps_fig6",
    "forkjoin_replicas",
    "forkjoin_k_tradeoff",
    "forkjoin_strategy",
    "speculation_fig1",
    "speculation_fig2",
]


@pytest.mark.parametrize("study", PAPER_STUDIES)
def test_every_paper_study_ships_five_claims_with_source_and_test(study):
    assert (ROOT / "config" / "studies" / f"{study}.yaml").exists()
    found = claims_for(study)
    assert len(found) >= 5
    assert len({c.id for c in found}) == len(found)
    for c in found:
        assert c.source and c.statement and c.test and callable(c.check)
    assert [c.id for c in claims_for(f"{study}-paper")] == [c.id for c in found]


def test_a_study_that_reproduces_no_paper_has_no_claims():
    assert claims_for("default") == [] and claims_for("tiny") == []


def fig6(values_d5_95):
    """ps_fig6-like data: E[T] against d at rho~ 0.75 and 0.95, identical and iid."""
    d = np.arange(1, 11)
    loads = [0.75, 0.95]
    lat = np.empty((1, 2, 10, 2))
    lat[0, 0, :, 0] = [4, 1.5, 1.1, 1.05, 1.05, 1.05, 1.1, 1.3, 2, 4]  # identical, 0.75
    lat[0, 0, :, 1] = values_d5_95
    lat[0, 1, :, :] = 2.0 + 0.01 * d[:, None]  # iid varies little
    ds = xr.Dataset(
        {
            "latency_mean": (("distribution", "dependence", "d", "load"), lat),
            "latency_mean_ci": (("distribution", "dependence", "d", "load"), 0.01 * lat),
            "verdict": (("distribution", "dependence", "d", "load"), np.full(lat.shape, "stable", dtype=object)),
        },
        coords={"distribution": ["exp"], "dependence": ["identical", "iid"], "d": d, "load": loads},
        attrs={"study": "ps_fig6", "load_basis": "redundancy"},
    )
    return ds


def by_id(ds):
    return {r["claim"]: r for r in check_claims(ds).to_dict("records")}


def test_about_two_holds_within_25_percent_and_fails_beyond():
    ok = np.array([20, 3.1, 2.2, 2.0, 1.9, 2.1, 2.3, 3.0, 4.0, 20.0])
    rows = by_id(fig6(ok))
    assert rows["about-2"]["verdict"] == HOLDS
    assert rows["d1-dN-20"]["verdict"] == HOLDS
    assert rows["about-1"]["verdict"] == HOLDS
    assert rows["identical-varies-more"]["verdict"] == HOLDS
    bad = ok.copy()
    bad[4] = 2.9  # d = 5 at rho~ = 0.95: 45 % above 2
    rows = by_id(fig6(bad))
    assert rows["about-2"]["verdict"] == FAILS and "d = 5" in rows["about-2"]["evidence"]
    assert "2.9" in rows["about-2"]["evidence"]
    # the analytic bound is not in this dataset: not tested, with the reason
    assert rows["section35-bound"]["verdict"] == NOT_TESTED
    assert "latency_approx" in rows["section35-bound"]["evidence"]


def fig1(L_bimodal):
    taus = np.array([0.1, 1, 5, 20, 100, 500, 2000])
    lm = np.ones((1, 4, 7))
    lm[0, 0] = 1 / np.asarray(L_bimodal)
    lm[0, 1] = 1 / np.where(taus > 1.1, 0.8, 1.02)  # Pareto 1.1
    lm[0, 2] = 1 / np.where(taus > 1.5, 0.85, 1.03)  # Pareto 1.5
    lm[0, 3] = 1 / np.full(7, 0.9)  # hyperexponential
    return xr.Dataset(
        {"lambda_max": (("distribution", "dependence", "Rer.tau"), lm)},
        coords={
            "distribution": ["one"],
            "dependence": ["sx_bimodal", "sx_pareto_a11", "sx_pareto_a15", "sx_hyper"],
            "Rer.tau": taus,
        },
        attrs={"study": "speculation_fig1"},
    )


def test_load_ratio_claims_on_synthetic_curves():
    good = [1.01, 1.2, 1.1, 0.5, 0.55, 0.9, 1.05]  # < 1 exactly inside (10, 980.1)
    rows = by_id(fig1(good))
    assert rows["bimodal-interval"]["verdict"] == HOLDS
    assert rows["pareto-interval"]["verdict"] == HOLDS
    assert rows["hyper-all"]["verdict"] == HOLDS
    assert rows["double-capacity"]["verdict"] == HOLDS
    assert rows["pareto-alpha"]["verdict"] == HOLDS
    assert rows["small-tau-loses"]["verdict"] == HOLDS
    bad = list(good)
    bad[2] = 0.9  # tau = 5 < s_m: speculation should lose capacity there
    rows = by_id(fig1(bad))
    assert rows["bimodal-interval"]["verdict"] == FAILS
    assert "[5.0]" in rows["bimodal-interval"]["evidence"]
    # the claim that needs X uniform and exponential: not on this grid
    assert rows["benefit-ranges"]["verdict"] == NOT_TESTED


def fig2(slb_capacity=1.9, coc_capacity=1.5, fastest_light="CoC"):
    policies = ["Rer", "CoC", "CoS", "RIQ"]
    loads = np.array([0.1, 0.5, 0.9, 1.3, 1.7])
    cap = {"Rer": slb_capacity, "CoC": coc_capacity, "CoS": 0.95, "RIQ": 0.95}
    lat = np.empty((4, 1, 2, 5))
    verdict = np.empty(lat.shape, dtype=object)
    for i, p in enumerate(policies):
        for k, d in enumerate((2, 4)):
            c = cap[p] + (0.05 if (p == "CoC" and d == 2) else 0.0)
            base = {"Rer": 3.0, "CoC": 1.0 + 0.1 * d, "CoS": 2.5, "RIQ": 1.3 + (0 if d == 4 else 2)}[p]
            if fastest_light != "CoC" and p == "CoC":
                base = 5.0
            lat[i, 0, k] = base / (1 - loads / (c + 0.25))
            verdict[i, 0, k] = np.where(loads < c, "stable", "unstable")
    lat = np.where(verdict == "stable", lat, np.nan)
    return xr.Dataset(
        {
            "latency_mean": (("policy", "dependence", "d", "load"), lat),
            "latency_mean_ci": (("policy", "dependence", "d", "load"), 0.01 * lat),
            "verdict": (("policy", "dependence", "d", "load"), verdict),
        },
        coords={"policy": policies, "dependence": ["sx_pareto_a11"], "d": [2, 4], "load": loads},
        attrs={"study": "speculation_fig2"},
    )


def test_fig2_claims_follow_the_data():
    rows = by_id(fig2())
    assert rows["coc-light-load"]["verdict"] == HOLDS
    assert rows["coc-beyond-cos"]["verdict"] == HOLDS
    assert rows["slb-more-traffic"]["verdict"] == HOLDS
    assert rows["riq4-light"]["verdict"] == HOLDS  # RIQ-4 1.3, SLB 3.0 at light load
    assert rows["slb-beyond-riq"]["verdict"] == HOLDS
    assert rows["cos-capacity"]["verdict"] == HOLDS
    # SLB gives out before CoC-d: the paper's "in most cases" fails on these data
    rows = by_id(fig2(slb_capacity=1.2))
    assert rows["slb-more-traffic"]["verdict"] == FAILS
    assert "0 of 2" in rows["slb-more-traffic"]["evidence"]
    rows = by_id(fig2(fastest_light="RIQ"))
    assert rows["coc-light-load"]["verdict"] == FAILS


def test_a_failing_check_says_by_how_much():
    out = claims.check(claims_for("ps_fig6")[1], fig6(np.full(10, 3.0)))
    assert out.verdict == FAILS and "3" in out.evidence


def test_claims_table_has_the_csv_columns():
    table = check_claims(fig6(np.full(10, 2.0)))
    assert {"claim", "source", "verdict", "evidence"} <= set(table.columns)
    assert set(table["verdict"]) <= {HOLDS, FAILS, NOT_TESTED}


def two_points(a_reps, b_reps, ci=(0.01, 0.01)):
    """Two policies at one load, with per-replication means."""
    reps = np.array([a_reps, b_reps], dtype=float)[:, None, :]
    return xr.Dataset(
        {
            "latency_mean": (("policy", "load"), reps.mean(axis=-1)),
            "latency_mean_ci": (("policy", "load"), np.array(ci)[:, None]),
            "latency_replication_mean": (("policy", "load", "replication"), reps),
        },
        coords={"policy": ["A", "B"], "load": [0.5], "replication": np.arange(reps.shape[-1])},
    )


def test_a_difference_is_paired_where_replications_are_and_added_cis_otherwise():
    # B is A plus 0.05 in every replication: the paired CI is tight, the added CIs are not
    a = [1.0, 1.2, 0.9, 1.1]
    ds = two_points(a, [x + 0.05 for x in a], ci=(0.2, 0.2))
    diff = difference(ds, "latency_mean", {"policy": "A", "load": 0.5}, {"policy": "B", "load": 0.5})
    assert diff.how == "paired" and diff.below and abs(diff.estimate + 0.05) < 1e-12
    unpaired = difference(
        ds.drop_vars("latency_replication_mean"), "latency_mean", {"policy": "A", "load": 0.5}, {"policy": "B"}
    )
    assert unpaired.how == "CIs added" and not unpaired.below and not unpaired.above
    assert unpaired.low == pytest.approx(-0.45) and unpaired.high == pytest.approx(0.35)


STRATEGY_CONFIG = "distributions:\n  pareto: {family: pareto, xm: 1, alpha: 2.2}\nsimulation: {confidence: 0.95}\n"


def strategy(latency_at_low, load=0.02):
    """forkjoin_strategy-like data at one load: partial fork-join for d = 1, 2, 8."""
    d = np.array([1, 2, 8])
    reps = np.array(latency_at_low, dtype=float)[:, None] + np.array([0.0, 0.01, -0.01, 0.0])
    lat = reps.mean(axis=1)
    ex = 1.8333
    dims = ("d", "FJ.keep", "load")
    return xr.Dataset(
        {
            "latency_mean": (dims, np.stack([lat, lat], axis=1)[..., None]),
            "latency_mean_ci": (dims, np.full((3, 2, 1), 0.01)),
            "latency_replication_mean": (dims + ("replication",), np.stack([reps, reps], axis=1)[:, :, None, :]),
            "cost_mean": (dims, np.full((3, 2, 1), 2 * ex)),
            "cost": (("d", "FJ.keep"), np.full((3, 2), ex)),
        },
        coords={"d": d, "FJ.keep": ["d", "opt"], "load": [load], "replication": np.arange(4)},
        attrs={"study": "forkjoin_strategy", "config": STRATEGY_CONFIG},
    )


def test_low_traffic_claims_hold_at_a_low_load_and_are_not_tested_elsewhere():
    rows = by_id(strategy([1.9, 1.5, 1.2]))
    assert rows["low-traffic-full"]["verdict"] == HOLDS
    assert "faster than every other beyond the error" in rows["low-traffic-full"]["evidence"]
    rows = by_id(strategy([1.9, 1.1, 1.2]))  # d = 2 faster than d = 8 beyond the error
    assert rows["low-traffic-full"]["verdict"] == FAILS and "['d=2']" in rows["low-traffic-full"]["evidence"]
    # at load 0.3 every d runs at 60 % utilisation: not the regime of the claim
    rows = by_id(strategy([1.9, 1.5, 1.2], load=0.3))
    assert (
        rows["low-traffic-full"]["verdict"] == NOT_TESTED and "not low traffic" in rows["low-traffic-full"]["evidence"]
    )


FIG5_CONFIG = (
    "distributions:\n  det: {family: deterministic, value: 1}\n  exp: {family: exponential, mean: 1}\n"
    "  h2: {family: hyperexponential, p: [0.9, 0.1], rates: [1.8, 0.2]}\nsimulation: {confidence: 0.95}\n"
)


def fig5(h2_at_95, ci=0.01):
    """ps_fig5-like data, the laws in an order that is not their variance's."""
    laws = ["h2", "det", "exp"]
    lat = np.array([[2.8, h2_at_95], [2.66, 3.18], [2.7, 3.26]])
    return xr.Dataset(
        {
            "latency_mean": (("distribution", "load"), lat),
            "latency_mean_ci": (("distribution", "load"), np.full(lat.shape, ci)),
        },
        coords={"distribution": laws, "load": [0.9, 0.95]},
        attrs={"study": "ps_fig5", "config": FIG5_CONFIG, "load_basis": "redundancy"},
    )


def test_fig5_laws_are_ordered_by_variance_and_insensitivity_fails_only_beyond_the_error():
    rows = by_id(fig5(3.33))
    assert "lowest and highest scv: det (0), h2 (4.556)" in rows["ci-separate"]["evidence"]
    assert rows["near-insensitive"]["verdict"] == HOLDS  # 4.7 %
    # 5.3 % with CIs of 0.01 on 3.18: the spread's lower end, 4.7 %, is not beyond 5 %
    rows = by_id(fig5(3.35))
    assert rows["near-insensitive"]["verdict"] == HOLDS
    rows = by_id(fig5(3.45))  # 8.5 %, lower end 7.8 %
    assert rows["near-insensitive"]["verdict"] == FAILS
    assert rows["about-1.5-percent"]["verdict"] == FAILS
    assert "does not name its laws" in rows["about-1.5-percent"]["evidence"]


def fig1_ranges(uniform_13, uniform_13_5, exp_13, exp_13_5):
    """speculation_fig1-like load ratios for X = 1, uniform and exponential (bimodal S)."""
    taus = np.array([5, 12.5, 13, 13.5, 14, 100, 1000, 2000, 5000])
    one = [1.2, 0.51, 0.51, 0.51, 0.51, 0.55, 1.0, 1.0, 1.0]
    uniform = [1.2, 1.05, uniform_13, uniform_13_5, 0.97, 0.6, 0.88, 1.0, 1.0]
    exp = [1.2, 1.01, exp_13, exp_13_5, 0.98, 0.7, 0.82, 0.94, 0.997]
    L = np.array([one, uniform, exp])[:, None, :]
    return xr.Dataset(
        {"lambda_max": (("distribution", "dependence", "Rer.tau"), 1 / L)},
        coords={"distribution": ["one", "uniform", "exp"], "dependence": ["sx_bimodal"], "Rer.tau": taus},
        attrs={"study": "speculation_fig1"},
    )


def test_benefit_ranges_hold_as_printed_or_with_the_ends_swapped_and_fail_otherwise():
    rows = by_id(fig1_ranges(1.02, 0.99, 1.001, 0.99))  # as printed
    assert rows["benefit-ranges"]["verdict"] == HOLDS and "appear swapped" not in rows["benefit-ranges"]["evidence"]
    rows = by_id(fig1_ranges(1.02, 1.0006, 0.999, 0.99))  # uniform from 13.5, exp from 13
    assert rows["benefit-ranges"]["verdict"] == HOLDS
    assert "appear swapped" in rows["benefit-ranges"]["evidence"]
    rows = by_id(fig1_ranges(1.02, 1.01, 1.01, 1.01))  # no benefit before 14 for either
    assert rows["benefit-ranges"]["verdict"] == FAILS


def k_tradeoff(verdict_k2_heavy="undetermined", cheapest=2):
    """forkjoin_k_tradeoff-like data, one law: k = 2 has the largest capacity (0.3), k = 1
    the next (0.25); load 0.28 lies between them."""
    ks = [1, 2, 3]
    loads = [0.02, 0.28]
    cost = np.array([[11.0, 11.0], [7.0, 7.0], [9.0, 9.0]])
    cost[cheapest - 1] = 6.5
    verdict = np.array([["stable", "unstable"], ["stable", verdict_k2_heavy], ["stable", "unstable"]], dtype=object)
    lat = np.array([[1.2, np.nan], [1.1, 5.0 if verdict_k2_heavy == "stable" else np.nan], [1.3, np.nan]])
    dims = ("distribution", "FJ.k", "load")
    return xr.Dataset(
        {
            "lambda_max": (("distribution", "FJ.k"), np.array([[0.25, 0.3, 0.2]])),
            "cost_mean": (dims, cost[None]),
            "cost_mean_ci": (dims, np.full((1, 3, 2), 0.01)),
            "latency_mean": (dims, lat[None]),
            "latency_mean_ci": (dims, np.full((1, 3, 2), 0.01)),
            "verdict": (dims, verdict[None]),
        },
        coords={"distribution": ["delta"], "FJ.k": ks, "load": loads},
        attrs={"study": "forkjoin_k_tradeoff"},
    )


def test_heavy_traffic_k_is_the_cheapest_and_the_one_stable_between_the_two_largest_capacities():
    rows = by_id(k_tradeoff())
    assert rows["cost-k-is-latency-k"]["verdict"] == HOLDS
    assert "every other k unstable" in rows["cost-k-is-latency-k"]["evidence"]
    rows = by_id(k_tradeoff(verdict_k2_heavy="unstable"))
    assert rows["cost-k-is-latency-k"]["verdict"] == FAILS
    rows = by_id(k_tradeoff(cheapest=3))  # the simulated costs point at another k
    assert rows["cost-k-is-latency-k"]["verdict"] == FAILS and "k = [3]" in rows["cost-k-is-latency-k"]["evidence"]
