"""The extra load is against one copy at full speed, the copy as the dependence makes it:
X S under S&X (E[X] E[S]), X otherwise; so sending one copy to identical servers is 0
extra load whatever the dependence."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from straggler.decide.intervals import copy_mean, extra_load_intervals, one_copy_words
from straggler.study.config import resolve_config
from straggler.study.dataset import aggregate
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid


def _dataset(dependence: str) -> xr.Dataset:
    resolved = resolve_config(
        {
            "study": "extra",
            "seed": 3,
            "grid": {
                "policy": ["ZRed", "CoC"],
                "distribution": ["x"],
                "dependence": [dependence],
                "r_slow": [1],
                "d": [2],
                "N": [10],
            },
            "load": [0.3],
            "distributions": {
                "x": {"family": "lognormal", "mean": 1, "cv": 0.6},
                "s": {"family": "discrete", "values": [1, 3], "p": [0.8, 0.2]},
            },
            "dependences": {"slow": {"kind": "sx", "slowdown": "s"}},
            "system": {"pools": 1},
            "evaluate": ["analytic", "simulation"],
            "simulation": {"jobs": 40_000, "warmup": 4_000, "replications": 4},
        }
    )
    grid = build_grid(resolved)
    cells = {cid: evaluate_cell(resolved, cid) for cid in grid.cells}
    import yaml

    return aggregate(grid, cells, {"config": yaml.safe_dump(resolved.to_dict())})


@pytest.mark.parametrize("dependence", ["slow", "iid"])
def test_one_copy_to_identical_servers_is_no_extra_load(dependence):
    ds = _dataset(dependence)
    unit = float(copy_mean(ds).sel(policy="ZRed").values.ravel()[0])
    size = float(ds["size_mean"].sel(policy="ZRed").values.ravel()[0])
    if dependence == "slow":
        assert unit == pytest.approx(size * (0.8 + 3 * 0.2))  # E[X] E[S]
        assert one_copy_words(ds) == "E[X S]"
    else:
        assert unit == size and one_copy_words(ds) == "E[X]"
    extra = extra_load_intervals(ds).sel(policy="ZRed")
    low, high = float(extra["low"].values.ravel()[0]), float(extra["high"].values.ravel()[0])
    assert low <= 0.0 <= high and high - low < 0.05


def test_a_dataset_without_copy_mean_reads_size_mean():
    ds = _dataset("iid").drop_vars("copy_mean")
    np.testing.assert_array_equal(copy_mean(ds).values, ds["size_mean"].broadcast_like(ds["lambda_max"]).values)
