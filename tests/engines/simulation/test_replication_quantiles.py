"""Each replication's own latency quantiles (``latency_replication_quantile``): the numbers
whose Student-t spread is ``latency_quantile_ci``, kept so that two policies' quantiles
compare by a paired CI under common random numbers, as the per-replication means do."""

import logging
import math

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from straggler.common.quantiles import QUANTILES
from straggler.engines.simulation import KnownStability, simulate, simulate_shard
from straggler.engines.simulation import statistics as S
from straggler.engines.simulation.reference import make_model
from straggler.engines.simulation.store import Replications, Store
from straggler.study.config import resolve_config
from straggler.study.dataset import CellRecord, aggregate, cell_dataset, read_cell, write_cell
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid
from straggler.study.variables import VARIABLE_BY_NAME

JOBS, WARMUP, REPS, CONFIDENCE = 4_000, 400, 4, 0.95


def _model():
    return make_model("ZRed", 3, [0.2, 0.4], two_pools=False)


def _seed():
    return np.random.SeedSequence(2024, spawn_key=(5,))


def _simulate(**kwargs):
    return simulate(_model(), _seed(), JOBS, WARMUP, REPS, CONFIDENCE, **kwargs)


def test_the_levels_include_p95_and_p999():
    assert QUANTILES == (0.5, 0.9, 0.95, 0.99, 0.999)
    assert list(QUANTILES) == sorted(QUANTILES)


def test_the_variable_is_declared_like_the_replication_means():
    var = VARIABLE_BY_NAME["latency_replication_quantile"]
    assert var.dims == ("load", "quantile", "replication") and var.units == "time" and var.kind == "float"
    assert VARIABLE_BY_NAME["latency_replication_mean"].dims == ("load", "replication")


def test_quantile_ci_is_the_student_t_half_width_of_the_replications_quantiles():
    res = _simulate()
    per = res.values()["latency_replication_quantile"]
    assert per.shape == (2, len(QUANTILES), REPS)
    assert np.isfinite(per).all()
    # each replication's quantiles increase with the level
    assert (np.diff(per, axis=1) >= 0).all()
    # the same numbers: the CI half-width recomputed from them is the stored one
    t = S.t_quantile(CONFIDENCE, REPS - 1)
    half = t * np.std(per, axis=2, ddof=1) / math.sqrt(REPS)
    np.testing.assert_allclose(res.latency_quantile_ci, half, rtol=1e-13, atol=0)
    # and scipy's Student t interval around their mean agrees
    lo, hi = stats.t.interval(CONFIDENCE, REPS - 1, loc=per.mean(axis=2), scale=stats.sem(per, axis=2))
    np.testing.assert_allclose(res.latency_quantile_ci, (hi - lo) / 2, rtol=1e-9)
    # the pooled quantile lies within the spread of the replications' own
    assert ((per.min(axis=2) <= res.latency_quantile) & (res.latency_quantile <= per.max(axis=2))).all()


def test_each_replication_is_its_own_histogram_quantiles(tmp_path):
    """Replication r's quantiles are those of its own histogram: the histogram of the
    shard r..r+1, run alone (load 0.2: decided at the fixed length, not lengthened)."""
    res = _simulate()
    assert np.isnan(res.extended_jobs[0])
    for r in range(REPS):
        store = Store(tmp_path, f"alone-{r}")
        simulate_shard(_model(), _seed(), r, r + 1, JOBS, WARMUP, REPS, store)
        alone = store.read(0.2, None, r, r + 1, JOBS)
        assert alone is not None and len(alone) == 1
        np.testing.assert_array_equal(S.hist_quantiles(alone.hist), res.replication_quantiles[0, :, r])


@pytest.mark.parametrize("cuts", [[(0, 1), (1, 2), (2, 3), (3, 4)], [(0, 3), (3, 4)], [(0, 2), (2, 4)]])
def test_bit_identical_however_the_replications_are_sharded(tmp_path, cuts):
    whole = _simulate()
    store = Store(tmp_path, "cell")
    for first, stop in cuts:
        simulate_shard(_model(), _seed(), first, stop, JOBS, WARMUP, REPS, store)
    sharded = _simulate(store=store)
    for name in ("latency_quantile", "latency_quantile_ci", "latency_mean", "cost_mean"):
        np.testing.assert_array_equal(getattr(sharded, name), getattr(whole, name), err_msg=name)
    np.testing.assert_array_equal(sharded.replication_quantiles, whole.replication_quantiles)
    np.testing.assert_array_equal(sharded.replication_means, whole.replication_means)
    # and read back again, nothing simulated
    again = _simulate(store=store)
    assert again.fresh_jobs == 0
    np.testing.assert_array_equal(again.replication_quantiles, whole.replication_quantiles)


def test_nan_where_a_replication_does_not_exist():
    """A skipped load (above a load the analysis proves unstable, stability monotone) has
    no replication: NaN, like its per-replication means."""
    known = KnownStability(monotone=True, unstable_from=0.2)
    res = simulate(make_model("ZRed", 3, [0.2, 0.4], two_pools=False), _seed(), 1000, 100, 2, CONFIDENCE, known=known)
    assert res.skipped.tolist() == [False, True]
    per = res.values()["latency_replication_quantile"]
    assert per.shape == (2, len(QUANTILES), 2)
    assert np.isfinite(per[0]).all() and np.isnan(per[1]).all()
    assert np.isnan(res.values()["latency_replication_mean"][1]).all()


def test_a_store_file_of_other_quantile_levels_is_simulated_again(tmp_path, caplog):
    """A replication file with three quantile columns (the levels before p95 and p99.9)
    is treated as absent: simulated again, never read as these levels. (The store's key
    covers the levels, so a study's own store never holds one.)"""
    whole = _simulate()
    store = Store(tmp_path, "cell")
    _simulate(store=store)
    files = sorted(tmp_path.rglob("r*-*.npz"))
    assert files
    for path in files:
        with np.load(path) as z:
            kept = {k: z[k] for k in z.files}
        kept["quantiles"] = kept["quantiles"][:, [0, 1, 3]]  # 0.5, 0.9, 0.99
        with open(path, "wb") as f:
            np.savez_compressed(f, **kept)
    with caplog.at_level(logging.WARNING):
        assert store.read(0.2, None, 0, REPS, JOBS) is None
        again = _simulate(store=store)
    assert "quantiles of shape" in caplog.text and "simulated again" in caplog.text
    assert again.fresh_jobs > 0
    np.testing.assert_array_equal(again.replication_quantiles, whole.replication_quantiles)
    np.testing.assert_array_equal(again.latency_quantile_ci, whole.latency_quantile_ci)
    # written again with the current levels: read back
    rec = store.read(0.2, None, 0, REPS, JOBS)
    assert isinstance(rec, Replications) and rec.quantiles.shape == (REPS, len(QUANTILES))


# ---------------------------------------------------------------- in the dataset


def _resolved(**overrides):
    cfg = {
        "study": "t",
        "grid": {"policy": ["ZRed"], "distribution": ["exp"], "dependence": ["iid"], "r_slow": [1.0], "N": [3]},
        "load": [0.3, 1.2],
        "distributions": {"exp": {"family": "exponential", "mean": 1}},
        "evaluate": ["analytic", "simulation"],
        "simulation": {"jobs": 20_000, "warmup": 1_000, "replications": 3},
    }
    cfg.update(overrides)
    return resolve_config(cfg)


def test_the_cell_dataset_holds_it_on_load_quantile_replication(tmp_path):
    cfg = _resolved()
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    per = ds["latency_replication_quantile"]
    assert per.dims == ("load", "quantile", "replication")
    assert per.shape == (2, len(QUANTILES), 3)
    assert ds["quantile"].values.tolist() == list(QUANTILES)
    assert per.attrs["units"] == "time" and "each replication" in per.attrs["long_name"]
    assert ds["verdict"].values.tolist() == ["stable", "unstable"]
    # an estimate: given at the stable load only
    assert np.isfinite(per.values[0]).all() and np.isnan(per.values[1]).all()
    t = S.t_quantile(0.95, 2)
    half = t * per.std("replication", ddof=1) / math.sqrt(3)
    np.testing.assert_allclose(ds["latency_quantile_ci"].values[0], half.values[0], rtol=1e-13)
    # p95 and p99.9 are selected by value
    assert float(ds["latency_quantile"].sel(quantile=0.95)[0]) < float(ds["latency_quantile"].sel(quantile=0.999)[0])
    # through a cell file and the aggregate, unchanged
    write_cell(ds, tmp_path / "cell.nc")
    with xr.open_dataset(tmp_path / "cell.nc") as back:
        xr.testing.assert_identical(back["latency_replication_quantile"].load(), per)
    study = aggregate(build_grid(cfg), {cid: read_cell(tmp_path / "cell.nc")}, {"study": "t"})
    got = study["latency_replication_quantile"].squeeze(drop=True)
    assert got.dims == ("load", "quantile", "replication")
    np.testing.assert_array_equal(got.values, per.values)


def test_the_replication_dimension_is_sized_from_the_quantiles_too():
    """cell_dataset takes the replication count from the replication axis of every
    per-replication variable (not from their second axis: the quantiles' is the levels)."""
    ds = cell_dataset([0.5], {"latency_replication_quantile": np.ones((1, len(QUANTILES), 7))}, {})
    assert ds.sizes["replication"] == 7
    assert ds["latency_replication_mean"].shape == (1, 7) and np.isnan(ds["latency_replication_mean"]).all()


def test_the_aggregate_leaves_nan_for_a_cell_of_other_quantile_levels():
    cfg = _resolved(evaluate=["analytic"], load=[0.3])
    grid = build_grid(cfg)
    (cid,) = grid.cells
    old = CellRecord(
        {"load": np.array([0.3]), "lambda_max": np.array(1.0), "latency_quantile": np.ones((1, 3))},
        {"notes": "[]"},
    )
    study = aggregate(grid, {cid: old}, {"study": "t"})
    assert study.sizes["quantile"] == len(QUANTILES)
    assert np.isnan(study["latency_quantile"].values).all()
    assert float(study["lambda_max"].squeeze()) == 1.0
