"""``size_mean``: E[X] of the cell's size law (one copy of the job at speed 1), written
for every cell whether the study is analytic, simulated or both."""

import json
import math

import numpy as np
import pytest

from straggler.study.config import resolve_config
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid
from straggler.study.variables import VARIABLE_BY_NAME

EXP = {"family": "exponential", "mean": 1}


def _study(distributions, grid=None, evaluate=("analytic",), **extra):
    cfg = {
        "study": "t",
        "grid": {"policy": ["ZRed"], "distribution": list(distributions), "dependence": ["iid"], "N": [4]},
        "load": [0.3],
        "distributions": distributions,
        "evaluate": list(evaluate),
        "simulation": {"jobs": 1000, "warmup": 100, "replications": 2},
        **extra,
    }
    if grid:
        cfg["grid"].update(grid)
    resolved = resolve_config(cfg)
    return {cid: evaluate_cell(resolved, cid) for cid in build_grid(resolved).cells}


def _size_mean(**kwargs) -> float:
    (ds,) = _study(**kwargs).values()
    assert ds["size_mean"].dims == ()
    return float(ds["size_mean"])


def test_the_variable_has_grid_dims_only_like_cost():
    var = VARIABLE_BY_NAME["size_mean"]
    assert var.dims == () == VARIABLE_BY_NAME["cost"].dims and var.units == "time" and var.kind == "float"


@pytest.mark.parametrize("evaluate", [("analytic",), ("simulation",), ("analytic", "simulation")])
def test_exponential_of_mean_one_whatever_is_evaluated(evaluate):
    (ds,) = _study({"exp": EXP}, evaluate=evaluate).values()
    assert float(ds["size_mean"]) == 1.0
    assert ds["size_mean"].attrs["units"] == "time"


def test_other_means_and_a_pareto_scaled_to_mean_one():
    assert _size_mean(distributions={"exp": {"family": "exponential", "mean": 2.5}}) == 2.5
    pareto = {"family": "pareto", "xm": 1, "alpha": 2.5, "scale_to_mean": 1}
    assert _size_mean(distributions={"pareto": pareto}) == pytest.approx(1.0, rel=1e-12)
    unscaled = {"family": "pareto", "xm": 1, "alpha": 2.5}
    assert _size_mean(distributions={"pareto": unscaled}) == pytest.approx(2.5 / 1.5, rel=1e-12)


def test_by_type_is_the_mixture_under_the_cells_type_probabilities():
    """Type 1 a quantile table {0: 1, 0.5: 2, 1: 6} (mean (1 + 2) / 4 + (2 + 6) / 4 =
    2.75), type 2 a deterministic 2: sum_j p_j E[X_j] at each swept p1."""
    law = {
        "family": "by_type",
        "laws": [
            {"family": "quantiles", "quantiles": {0: 1.0, 0.5: 2.0, 1: 6.0}},
            {"family": "deterministic", "value": 2.0},
        ],
    }
    cells = _study({"mix": law}, grid={"r_slow": [0.5], "types.p1": [0.3, 0.8]})
    assert len(cells) == 2
    for ds in cells.values():
        p1 = float(json.loads(ds.attrs["cell"])["types.p1"])
        assert float(ds["size_mean"]) == pytest.approx(p1 * 2.75 + (1 - p1) * 2.0, rel=1e-12)
    assert len({float(ds["size_mean"]) for ds in cells.values()}) == 2


def test_sx_is_the_jobs_x_not_a_replicas_x_s():
    """X exponential of mean 2, slowdown S deterministic 3: a replica X S has mean 6, the
    load unit; size_mean is E[X] = 2."""
    cells = _study(
        {"exp": {"family": "exponential", "mean": 2}},
        grid={"policy": ["CoC"], "dependence": ["sx3"], "d": [2]},
        dependences={"sx3": {"kind": "sx", "slowdown": {"family": "deterministic", "value": 3}}},
    )
    (ds,) = cells.values()
    assert float(ds["size_mean"]) == 2.0


def test_fork_join_split_keeps_the_unsplit_jobs_mean():
    """FJ with split: shift simulates tasks of ShiftedExp(Delta / k, mean - Delta); the job
    is still one of ShiftedExp(Delta, mean - Delta), of mean 3, for every k."""
    cells = _study(
        {"se": {"family": "shifted_exponential", "shift": 2, "mean": 3}},
        grid={"policy": ["FJ"], "d": [4]},
        policies={"FJ": {"k": [1, 2, 4], "split": "shift"}},
    )
    assert len(cells) == 3
    for ds in cells.values():
        assert float(ds["size_mean"]) == pytest.approx(3.0, rel=1e-12)
    # without the split, the law itself
    (ds,) = _study({"se": {"family": "shifted_exponential", "shift": 2, "mean": 3}}).values()
    assert float(ds["size_mean"]) == 3.0
    assert math.isfinite(float(ds["cost"])) and np.isfinite(ds["size_mean"].values)
