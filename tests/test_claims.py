"""The papers' claims: verdicts computed from small synthetic datasets."""

from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from straggler import claims
from straggler.claims import FAILS, HOLDS, NOT_TESTED, check_claims, claims_for

ROOT = Path(__file__).resolve().parents[1]
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
