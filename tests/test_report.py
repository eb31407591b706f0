"""The comparison report: winners per setting, ties, oracles left out."""

import numpy as np
import xarray as xr

from straggler.report import latency_winners, markdown, winners


def dataset():
    policies = ["ZRed", "FRed", "KT"]
    lm = np.array([[0.5, 0.7, 1.0], [0.9, 0.9, np.nan]])  # r_slow x policy
    cost = np.array([[1.0, 1.8, 1.0], [1.0, 1.2, np.nan]])
    kind = np.array([["exact", "necessary", "exact"], ["exact", "necessary", ""]])
    cost_kind = np.array([["exact", "exact", "exact"], ["lower_bound", "exact", ""]])
    lat = np.full((2, 3, 1), np.nan)
    lat[0, :, 0] = [2.0, 1.5, 1.2]
    return xr.Dataset(
        {
            "lambda_max": (("r_slow", "policy"), lm),
            "cost": (("r_slow", "policy"), cost),
            "lambda_max_kind": (("r_slow", "policy"), kind),
            "cost_kind": (("r_slow", "policy"), cost_kind),
            "latency_mean": (("r_slow", "policy", "load"), lat),
        },
        coords={"r_slow": [0.1, 1.0], "policy": policies, "load": [0.5]},
        attrs={"study": "t"},
    )


def test_winners_ties_kinds_and_oracles():
    table = winners(dataset())
    first, second = table.to_dict("records")
    assert first["most_stable"] == "KT" and first["lambda_max_kind"] == "exact"
    assert first["most_stable_practical"] == "FRed"
    assert first["cheapest"] == "ZRed, KT" and first["cheapest_practical"] == "ZRed"
    assert second["most_stable"] == "ZRed, FRed" and second["no_analysis"] == "KT"
    assert first["cost_kind"] == "exact"
    assert second["cheapest"] == "ZRed" and second["cost_kind"] == "lower_bound"


def test_latency_winners_and_markdown():
    ds = dataset()
    lat = latency_winners(ds)
    assert lat.loc[0, "fastest"] == "KT" and lat.loc[0, "fastest_practical"] == "FRed"
    assert lat.loc[1, "fastest"] == ""  # nothing simulated there
    text = markdown(ds, winners(ds))
    assert "# Study `t`" in text and "most_stable_practical" in text
    assert "Smallest simulated mean latency" in text
