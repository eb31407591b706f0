"""One cell end to end in Python: model, analysis, cell dataset, netCDF round trip."""

import json

import numpy as np
import pytest
import xarray as xr

from straggler.engines.analysis import queues
from straggler.study.config import resolve_config
from straggler.study.dataset import aggregate, cell_dataset, read_cell, write_cell, write_netcdf
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid


def resolved(**overrides):
    cfg = {
        "study": "t",
        "grid": {"policy": ["ZRed"], "distribution": ["h2"], "dependence": ["iid"], "r_slow": [1.0], "N": [3]},
        "load": [0.2, 0.6],
        "distributions": {"h2": {"family": "hyperexponential", "p": [0.9, 0.1], "rates": [2.0, 0.2]}},
        "evaluate": ["analytic"],
    }
    cfg.update(overrides)
    return resolve_config(cfg)


def test_random_dispatch_latency_is_pollaczek_khinchine():
    cfg = resolved()
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    m1 = 0.9 / 2.0 + 0.1 / 0.2
    m2 = 0.9 * 2 / 2.0**2 + 0.1 * 2 / 0.2**2
    for load, t in zip(ds["load"].values, ds["latency_approx"].values):
        lam_server = load / m1  # load = lambda E[X] / N, each of N servers gets lambda / N
        assert t == pytest.approx(queues.mg1_fcfs_response_time(lam_server, m1, m2), rel=1e-12)
    assert str(ds["latency_approx_kind"].values) == "exact"
    assert float(ds["lambda_max"]) == 1.0


def test_ps_latency_is_insensitive():
    cfg = resolved(system={"discipline": "PS"})
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    m1 = 0.9 / 2.0 + 0.1 / 0.2
    np.testing.assert_allclose(ds["latency_approx"].values, m1 / (1 - ds["load"].values))


def test_affinity_latency_mixes_types_per_pool():
    """Two pools, r = 0.5, q = 1/2: each pool-i server is M/G/1 with a two-type mixture."""
    cfg = resolved(
        grid={"policy": ["ZRed"], "distribution": ["exp"], "r_slow": [0.5], "N": [2]},
        distributions={"exp": {"family": "exponential", "mean": 1}},
    )
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    for load, t in zip(ds["load"].values, ds["latency_approx"].values):
        lam = load * 2  # lambda = load N / E[X]
        lam_server = lam / 2
        s1 = 0.5 * 1 + 0.5 * 2  # sizes 1 (fast type) and mean 2 (slow type)
        s2 = 0.5 * 2 + 0.5 * 8
        w = queues.mg1_waiting_time(lam_server, s1, s2)
        assert t == pytest.approx(w + s1, rel=1e-12)


def test_policy_without_a_paper_gets_the_replica_bounds_with_their_kinds():
    cfg = resolved(grid={"policy": ["RIQ"], "distribution": ["h2"], "dependence": ["iid"], "N": [3], "d": [2]})
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    assert ds["lambda_max_kind"].item() == "necessary" and ds["cost_kind"].item() == "lower_bound"
    assert float(ds["lambda_max"]) > 1.0  # i.i.d. h2 replicas: E[X_{1:2}] < E[X]
    # no paper analyses RIQ, but the fork-join paper's r E[X_{1:r}] (sections 4.2, 5.1)
    # bounds its cost on identical FCFS servers with i.i.d. replicas (log-convex h2)
    assert any(
        note.startswith("none of the four papers analyses RIQ") and "sections 4.2 and 5.1" in note
        for note in json.loads(ds.attrs["notes"])
    )


def test_affinity_without_theory_gets_the_replica_bounds():
    cfg = resolved(grid={"policy": ["CoC"], "distribution": ["h2"], "r_slow": [0.5], "N": [4], "d": [2]})
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    assert ds["lambda_max_kind"].item() == "necessary" and ds["cost_kind"].item() == "lower_bound"
    assert np.isfinite(float(ds["lambda_max"])) and np.isfinite(float(ds["cost"]))
    assert any("job-server affinity: bounds" in note for note in json.loads(ds.attrs["notes"]))


def _cell(policy, dist, dep="iid", N=4, d=2, **extra):
    cfg = resolved(
        grid={"policy": [policy], "distribution": [dist], "dependence": [dep], "N": [N], "d": [d]},
        distributions={"exp": {"family": "exponential", "mean": 2}, "det": {"family": "deterministic", "value": 2}},
        load=[0.3, 0.6],
        **extra,
    )
    (cid,) = build_grid(cfg).cells
    return evaluate_cell(cfg, cid)


def test_cross_paper_closed_forms_in_the_dataset():
    # PS redundancy: identical replicas 1/d, i.i.d. exponential 1 (PS paper)
    assert float(_cell("CoC", "exp", "identical", system={"discipline": "PS"})["lambda_max"]) == pytest.approx(0.5)
    assert float(_cell("CoC", "exp", "iid", system={"discipline": "PS"})["lambda_max"]) == pytest.approx(1.0)
    # (N,1) fork-join with i.i.d. exponential: E[T] = 1 / (N mu - lambda), cost E[X]
    ds = _cell("CoC", "exp", "iid", N=4, d=4)
    lam = ds["load"].values * 4 / 2.0
    np.testing.assert_allclose(ds["latency_approx"].values, 1 / (4 * 0.5 - lam), rtol=1e-9)
    assert float(ds["cost"]) == pytest.approx(2.0)
    # CoS: stability of plain load balancing, one replica served
    ds = _cell("CoS", "det", "identical")
    assert float(ds["lambda_max"]) == pytest.approx(1.0) and float(ds["cost"]) == 2.0
    # SLB with deterministic sizes never gains: tau_opt = inf, lambda_max = 1
    ds = _cell("Rer", "det", "identical")
    assert float(ds["lambda_max"]) == pytest.approx(1.0)


def test_netcdf_round_trip_keeps_strings_and_dotted_axes(tmp_path):
    cfg = resolve_config(
        {
            "study": "t",
            "grid": {
                "policy": ["ZRed", "FRed"],
                "distribution": ["exp"],
                "dependence": ["identical", "iid"],
                "r_slow": [0.5],
                "N": [4],
                "types.p1": [0.3, 0.5],
            },
            "load": [0.5],
            "distributions": {"exp": {"family": "exponential", "mean": 1}},
            "evaluate": ["analytic"],
        }
    )
    grid = build_grid(cfg)
    cells = {cid: evaluate_cell(cfg, cid) for cid in grid.cells}
    # a cell written and read back first, as the workflow does
    first = next(iter(cells))
    write_netcdf(cells[first], tmp_path / "cell.nc")
    with xr.open_dataset(tmp_path / "cell.nc") as ds:
        cells[first] = ds.load()
    study = aggregate(grid, cells, {"study": "t"})
    write_netcdf(study, tmp_path / "t.nc")
    with xr.open_dataset(tmp_path / "t.nc") as back:
        assert list(back["dependence"].values) == ["identical", "iid"]
        assert list(back["policy"].values) == ["ZRed", "FRed"]
        assert "types.p1" in back.dims
        assert set(np.unique(back["lambda_max_kind"].values)) == {"exact", "approximate"}
        zred = back["lambda_max"].sel(policy="ZRed", distribution="exp", r_slow=0.5, d=2, N=4)
        assert zred.sel({"types.p1": 0.5}).isel(dependence=0).item() == pytest.approx(2 / 3)
        # p = (0.3, 0.7): mean work per pool-1 job 0.3 + 0.7 / r, pool 2: 0.3 / r + 0.7
        expected = 0.5 / (0.3 + 0.7 / 0.5) + 0.5 / (0.3 / 0.5 + 0.7)
        assert zred.sel({"types.p1": 0.3}).isel(dependence=0).item() == pytest.approx(expected)


def test_interrupted_write_leaves_no_file(tmp_path, monkeypatch):
    ds = cell_dataset([0.5], {"lambda_max": 1.0}, {"cell_id": "x"})

    def boom(self, path, **kwargs):
        open(path, "wb").write(b"partial")
        raise RuntimeError("disk full")

    monkeypatch.setattr(xr.Dataset, "to_netcdf", boom)
    with pytest.raises(RuntimeError):
        write_netcdf(ds, tmp_path / "out.nc")
    assert list(tmp_path.iterdir()) == []


def test_a_cell_file_written_directly_is_the_file_xarray_writes(tmp_path):
    """write_cell (netCDF4 directly, for speed) against write_netcdf (xarray): the same
    dataset when opened, the same values and attributes when read back."""
    cfg = resolve_config(
        {
            "study": "t",
            "grid": {
                "policy": ["ZRed", "CoC"],
                "distribution": ["exp"],
                "dependence": ["iid"],
                "r_slow": [0.5],
                "d": [2],
                "N": [4],
            },
            "load": [0.3, 0.9, 1.2],
            "distributions": {"exp": {"family": "exponential", "mean": 1}},
            "evaluate": ["analytic", "simulation"],
            "simulation": {"jobs": 3000, "warmup": 100, "replications": 2},
        }
    )
    for cid in build_grid(cfg).cells:
        ds = evaluate_cell(cfg, cid)
        write_netcdf(ds, tmp_path / "a.nc")
        write_cell(ds, tmp_path / "b.nc")
        with xr.open_dataset(tmp_path / "a.nc") as a, xr.open_dataset(tmp_path / "b.nc") as b:
            assert a.load().identical(b.load())
        ra, rb = read_cell(tmp_path / "a.nc"), read_cell(tmp_path / "b.nc")
        assert ra.attrs == rb.attrs and set(ra.values) == set(rb.values)
        for name, value in ra.values.items():
            assert value.dtype == rb.values[name].dtype
            assert np.array_equal(value, rb.values[name], equal_nan=value.dtype.kind == "f")


def test_infinite_second_moment_gives_inf_latency_with_reason():
    cfg = resolve_config(
        {
            "study": "t",
            "grid": {"policy": ["KT", "ZRed"], "distribution": ["p"], "r_slow": [0.1], "N": [10]},
            "load": [0.5],
            "distributions": {"p": {"family": "pareto", "xm": 1, "alpha": 1.5}},
            "evaluate": ["analytic"],
        }
    )
    for cid in build_grid(cfg).cells:
        ds = evaluate_cell(cfg, cid)
        assert np.isposinf(ds["latency_approx"].values).all(), cid
        assert any("infinite second moment" in n for n in json.loads(ds.attrs["notes"]))


def test_one_pool_is_simulated_as_one_mmc_queue():
    """``system.pools: 1`` with central queueing on N = 10: one FCFS queue of 10
    servers. Erlang C gives its mean exactly; the simulation (fixed seed, 8
    replications) must agree within 4 CI half-widths, as the engines' own M/M/c test
    asks. Two pools of 5 (the default) would be 29 % slower at load 0.8 (1.554 against
    1.2046)."""
    cfg = resolved(
        grid={"policy": ["ZRed"], "distribution": ["exp"], "r_slow": [1.0], "N": [10]},
        distributions={"exp": {"family": "exponential", "mean": 1}},
        system={"queueing": "central", "pools": 1},
        load=[0.5, 0.8],
        seed=2024,
        evaluate=["analytic", "simulation"],
        simulation={"jobs": 60_000, "warmup": 6_000, "replications": 8, "confidence": 0.95},
    )
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    assert ds["latency_approx_kind"].item() == "exact"
    for load, t in zip(ds["load"].values, ds["latency_approx"].values):
        assert t == pytest.approx(queues.mmc_response_time(10 * load, 1.0, 10), rel=1e-12)
        assert t < queues.mmc_response_time(5 * load, 1.0, 5)  # one queue of 10 beats two of 5
    mean, ci = ds["latency_mean"].values, ds["latency_mean_ci"].values
    assert np.all(np.abs(mean - ds["latency_approx"].values) <= 4 * ci), (mean, ci)


def test_known_sizes_cost_saturates_both_pools():
    """KS with identical exponential replicas, r_slow = 0.1: rerouting at the job's own
    size costs x in the right pool and 2x in the wrong one, 1.5 E[X] on average."""
    cfg = resolve_config(
        {
            "study": "t",
            "grid": {"policy": ["KS"], "distribution": ["e"], "r_slow": [0.1], "N": [10]},
            "load": [0.5],
            "distributions": {"e": {"family": "exponential", "mean": 10}},
            "evaluate": ["analytic"],
        }
    )
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    assert float(ds["cost"]) == pytest.approx(15.0, rel=1e-9)
    assert float(ds["lambda_max"]) == pytest.approx(2 / 3, rel=1e-9)


def cell_policy(cid: str) -> str:
    return cid.split("__")[0].removeprefix("policy=")


def test_loads_above_the_bound_are_simulated_and_flagged():
    cfg = resolved(
        load=[0.5, 1.2],
        evaluate=["analytic", "simulation"],
        simulation={"jobs": 100_000, "warmup": 2_000, "replications": 2, "confidence": 0.95},
    )
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    assert ds["stable"].values.tolist() == [1.0, 0.0]
    assert ds["verdict"].values.tolist() == ["stable", "unstable"]
    # the exact bound 1 proves 0.5 stable, where the servers idled half the time too, and
    # 1.2 unstable, where the monitor saw the growth too
    assert ds["verdict_source"].values.tolist() == ["both", "both"]
    assert ds["verdict_evidence"].values.tolist() == ["idle", "exact bound"]
    from straggler.decide.intervals import tail_intervals

    study = ds.expand_dims(policy=[cell_policy(cid)])
    tail = tail_intervals(study).isel(policy=0)
    p99 = float(ds["latency_quantile"].sel(quantile=0.99).values[0])
    assert float(tail["low"].values[0]) < p99 < float(tail["high"].values[0])
    assert tail["evidence"].values.tolist() == ["simulation", "unstable"]
    assert np.isnan(ds["latency_mean"].values[1]) and np.isfinite(ds["latency_mean"].values[0])
    notes = json.loads(ds.attrs["notes"])
    assert "simulation: the backlog grows at loads [1.2]" in notes


@pytest.mark.parametrize(
    "system",
    [{"discipline": "PS"}, {"discipline": "FCFS"}, {"discipline": "FCFS", "queueing": "central"}],
    ids=["ps", "fcfs", "central"],
)
def test_every_simulated_policy_is_simulated(system):
    """Every policy except the analytic-only KS gets simulated variables, with
    affinity (r_slow = 0.5); with central queueing the d-of-N policies are
    impossible grid points (a reason each), never NaN cells."""
    policies = ["ZRed", "KT", "FRed", "Rer", "Rep", "CoC", "CoS", "RIQ", "FJ"]
    cfg = resolved(
        grid={"policy": policies, "distribution": ["h2"], "dependence": ["iid"], "r_slow": [0.5], "d": [2], "N": [4]},
        policies={"Rer": {"tau": 1.0}, "Rep": {"tau": 1.0}, "FJ": {"k": 2}},
        load=[0.05],
        system=system,
        evaluate=["simulation"],
        simulation={"jobs": 2000, "warmup": 200, "replications": 2},
    )
    grid = build_grid(cfg)
    central = system.get("queueing") == "central"
    expected = [p for p in policies if not (central and p in ("CoC", "CoS", "RIQ", "FJ"))]
    assert sorted(c.policy for c in grid.cells.values()) == sorted(expected)
    assert len(grid.impossible) == len(policies) - len(expected)
    for cid, cell in grid.cells.items():
        ds = evaluate_cell(cfg, cid)
        notes = json.loads(ds.attrs["notes"])
        assert not any("not simulated" in n for n in notes), (cell.policy, notes)
        # 2,000 jobs measure something but decide no verdict (unless the analysis does)
        for var in ("latency_sample_mean", "cost_sample_mean", "jobs"):
            assert np.all(np.isfinite(ds[var].values) & (ds[var].values > 0)), (cell.policy, var)
        assert ds["verdict"].values[0] in ("stable", "undetermined"), cell.policy


def test_a_cell_evaluated_by_hand_from_its_spec(tmp_path):
    """`python -m straggler.run.pipeline evaluate SPEC.json CELL OUT.nc`: the cell's own config
    (grid.cell_spec, as JSON) gives the cell the study's config gives."""
    from straggler.run import pipeline
    from straggler.study.grid import cell_spec

    cfg = resolved()
    grid = build_grid(cfg)
    (cid,) = grid.cells
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(cell_spec(cfg, grid.cells[cid])))
    assert pipeline.main(["evaluate", str(spec), cid, str(tmp_path / "hand.nc")]) == 0
    write_cell(evaluate_cell(cfg, cid), tmp_path / "study.nc")
    hand, study = read_cell(tmp_path / "hand.nc"), read_cell(tmp_path / "study.nc")
    assert set(hand.values) == set(study.values)
    for name, value in study.values.items():
        assert np.array_equal(value, hand.values[name], equal_nan=value.dtype.kind == "f")


def test_an_analytic_cell_imports_no_numba():
    """An analytic job's start-up: the families, the dependence models and the analysis
    without the samplers (numba's import is most of a job's start-up; only a simulated
    cell needs it). In a new process, every analytic cell of threshold_r_slow (two pools,
    a threshold, partly known types: the analysis's widest reach in one study)."""
    import subprocess
    import sys
    from pathlib import Path

    study = Path(__file__).resolve().parents[2] / "config" / "studies" / "threshold_r_slow.yaml"
    code = f"""
import sys
from straggler.study.config import load_config, resolve_config
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid
resolved = resolve_config(load_config({str(study)!r}))
for cell in list(build_grid(resolved).cells)[::40]:
    evaluate_cell(resolved, cell)
assert "numba" not in sys.modules, [m for m in sys.modules if m.startswith("numba")][:3]
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
