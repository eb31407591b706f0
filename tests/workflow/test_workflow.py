"""End to end: snakemake on a tiny study in a temporary directory."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml
from runs import snakemake

ROOT = Path(__file__).resolve().parents[2]

TINY = {
    "study": "tiny",
    "seed": 7,
    "grid": {
        "policy": ["ZRed", "FRed", "KT", "Rep", "CoC"],
        "distribution": ["exp", "det"],
        "dependence": ["identical", "iid"],
        "r_slow": [0.25, 1.0],
        "d": [2, 20],
        "N": [10],
    },
    "load": [0.2, 0.4],
    "distributions": {
        "exp": {"family": "exponential", "mean": 10},
        "det": {"family": "deterministic", "value": 10},
    },
    "evaluate": ["analytic"],
}

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def tiny_study(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("study")
    configfile = workdir / "tiny.yaml"
    configfile.write_text(yaml.safe_dump(TINY))
    run = snakemake(workdir, configfile, "--cores", "2")
    assert run.returncode == 0, run.stderr[-4000:]
    with xr.open_dataset(workdir / "results" / "tiny" / "tiny.nc") as ds:
        yield workdir, ds.load()


def job_counts(run) -> dict[str, int]:
    return {
        line.split()[0]: int(line.split()[1])
        for line in (run.stdout + run.stderr).splitlines()
        if len(line.split()) == 2 and line.split()[1].isdigit()
    }


def test_dry_run_batches_the_cheap_cells(tmp_path):
    """40 analytic cells of tens of milliseconds: one evaluate job (execution:
    target_seconds 20), or one per cell when cells_per_job is 1; nothing is written."""
    configfile = tmp_path / "tiny.yaml"
    configfile.write_text(yaml.safe_dump(TINY))
    run = snakemake(tmp_path, configfile, "-n", "--quiet", "rules")
    assert run.returncode == 0, run.stderr[-4000:]
    assert job_counts(run)["evaluate"] == 1
    configfile.write_text(yaml.safe_dump(dict(TINY, execution={"cells_per_job": 1})))
    run = snakemake(tmp_path, configfile, "-n", "--quiet", "rules")
    # ZRed, FRed, KT, Rep: 2 distributions x 2 dependences x 2 r_slow; CoC d=2 only (d=20 > N)
    assert job_counts(run)["evaluate"] == 5 * 2 * 2 * 2
    assert not (tmp_path / "results").exists()


def test_dataset_dimensions_and_attributes(tiny_study):
    workdir, ds = tiny_study
    assert list(ds["lambda_max"].dims) == ["policy", "distribution", "dependence", "r_slow", "d", "N"]
    assert list(ds["rho"].dims)[-1] == "load"
    assert list(ds["latency_quantile"].dims)[-2:] == ["load", "quantile"]
    assert list(ds["policy"].values) == ["ZRed", "FRed", "KT", "Rep", "CoC"]
    for name, var in ds.data_vars.items():
        assert var.attrs.get("long_name") and var.attrs.get("units"), name
    for key in (
        "study",
        "config",
        "config_sha256",
        "seed",
        "straggler_version",
        "git_commit",
        "numpy_version",
        "numba_version",
        "xarray_version",
        "snakemake_version",
        "python_version",
        "created",
    ):
        assert key in ds.attrs, key
    assert yaml.safe_load(ds.attrs["config"])["study"] == "tiny"
    impossible = json.loads(ds.attrs["impossible_cells"])
    assert {(c["policy"], c["d"]) for c in impossible} == {("CoC", 20)}


def test_outputs_exist(tiny_study):
    workdir, ds = tiny_study
    out = workdir / "results" / "tiny"
    assert (out / "config.yaml").exists()
    assert "## Recommendation" in (out / "report.md").read_text()
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert (out / "claims.csv").read_text().startswith("claim,source,statement,test,verdict")
    winners = (out / "winners.csv").read_text().splitlines()
    # d is swept: (policy, d) pairs are contenders ("CoC d=2"), so d is no setting axis
    assert winners[0].startswith("distribution,dependence,r_slow,N,load,criterion,winners,decided")
    # a stability row per setting; E[T], E[C] and the recommendation's rows per load (no tail: analytic)
    loads = ds.sizes["load"]
    assert len(winners) == 1 + 2 * 2 * 2 * (1 + 3 * loads)
    assert "CoC d=2" in "\n".join(winners) and "CoC d=20" not in "\n".join(winners)
    for name in ("stability", "load", "cost", "latency", "tradeoff", "winners_d"):
        assert (out / "figures" / f"{name}.png").stat().st_size > 1000
        assert (out / "figures" / f"{name}.svg").stat().st_size > 1000


def test_lambda_max_reference_values(tiny_study):
    _, ds = tiny_study
    lm = ds["lambda_max"].sel(d=2, N=10)
    for r in [0.25, 1.0]:
        for dist in ["exp", "det"]:
            for dep in ["identical", "iid"]:
                cell = lm.sel(r_slow=r, distribution=dist, dependence=dep)
                assert float(cell.sel(policy="ZRed")) == pytest.approx(2 * r / (1 + r), rel=1e-9)
                assert float(cell.sel(policy="KT")) == pytest.approx(1.0, rel=1e-9)
        assert float(lm.sel(policy="FRed", r_slow=r, distribution="det", dependence="identical")) == pytest.approx(
            0.5, rel=1e-9
        )
        assert float(lm.sel(policy="FRed", r_slow=r, distribution="exp", dependence="identical")) == pytest.approx(
            0.5, rel=1e-9
        )
        assert float(lm.sel(policy="FRed", r_slow=r, distribution="exp", dependence="iid")) == pytest.approx(
            (1 + r) / 2, rel=1e-7
        )
    assert set(ds["lambda_max_kind"].sel(policy="ZRed").values.ravel()) == {"exact"}
    # replication with its optimal threshold is never below zero or full redundancy
    best_plain = np.maximum(lm.sel(policy="ZRed"), lm.sel(policy="FRed"))
    assert (lm.sel(policy="Rep") >= best_plain - 1e-9).all()
    assert np.isfinite(ds["tau_opt"].sel(policy="Rep", d=2)).any()
    # ZRed ignores d: the value is repeated along it; CoC at d = 20 > N is NaN
    assert np.array_equal(
        ds["lambda_max"].sel(policy="ZRed", d=2).values, ds["lambda_max"].sel(policy="ZRed", d=20).values
    )
    assert np.isnan(ds["lambda_max"].sel(policy="CoC", d=20)).all()


def test_rho_is_load_over_bound(tiny_study):
    _, ds = tiny_study
    sub = ds.sel(policy=["ZRed", "FRed", "KT"], d=2)
    expected = sub["load"] / sub["lambda_max"]
    np.testing.assert_allclose(sub["rho"].values, expected.transpose(*sub["rho"].dims).values, rtol=1e-9)


def test_second_run_is_a_no_op(tiny_study):
    workdir, _ = tiny_study
    run = snakemake(workdir, workdir / "tiny.yaml", "-n", "--quiet", "rules")
    assert run.returncode == 0, run.stderr[-4000:]
    assert "Nothing to be done" in run.stdout + run.stderr


def _bad(path, value):
    cfg = json.loads(json.dumps(TINY))
    *parents, key = path
    node = cfg
    for part in parents:
        node = node[part]
    node[key] = value
    return cfg


@pytest.mark.parametrize(
    "path,value,expected",
    [
        (("grid", "policy"), ["ZRed", "CoCC"], ["grid.policy", "CoCC", "did you mean 'CoC'"]),
        (("lod",), [0.5], ["lod", "did you mean 'load'"]),
        (("distributions", "exp"), {"family": "pareto", "xm": 1, "alpha": 0.9}, ["distributions.exp", "alpha", "0.9"]),
        (("grid", "N"), [9], ["grid.N", "9", "even"]),
        (("grid", "r_slow"), [0.5, 1.5], ["grid.r_slow", "1.5", "(0, 1]"]),
    ],
    ids=["policy", "top-level-key", "pareto-alpha", "odd-N", "r_slow"],
)
def test_bad_config_is_refused_before_any_job(tmp_path, path, value, expected):
    configfile = tmp_path / "bad.yaml"
    configfile.write_text(yaml.safe_dump(_bad(path, value)))
    run = snakemake(tmp_path, configfile, "--cores", "1")
    assert run.returncode != 0
    for text in expected:
        assert text in run.stderr, (text, run.stderr[-2000:])
    assert not (tmp_path / "results").exists()


# ---------------------------------------------------------------- archives


def test_archive_verifies_reruns_and_is_reproducible(tiny_study, tmp_path):
    from straggler.outputs import archive

    workdir, _ = tiny_study
    first = archive.create("tiny", results_root=workdir / "results", project_root=ROOT, output=tmp_path / "a.tar.gz")
    second = archive.create("tiny", results_root=workdir / "results", project_root=ROOT, output=tmp_path / "b.tar.gz")
    assert first.read_bytes() == second.read_bytes()  # sorted members, zeroed times
    verdict = archive.verify(first, rerun=3)
    assert verdict.ok, verdict.lines
    assert sum(line.endswith(": identical") for line in verdict.lines) == 3
    with pytest.raises(archive.ArchiveError, match="exists; pass --force"):
        archive.create("tiny", results_root=workdir / "results", output=first)
    with pytest.raises(archive.ArchiveError, match="run the study first"):
        archive.create("nope", results_root=workdir / "results", output=tmp_path / "c.tar.gz")


def test_verify_reports_an_altered_member(tiny_study, tmp_path):
    import tarfile

    from straggler.outputs import archive

    workdir, _ = tiny_study
    path = archive.create("tiny", results_root=workdir / "results", project_root=ROOT, output=tmp_path / "a.tar.gz")
    altered = tmp_path / "altered.tar.gz"
    with tarfile.open(path) as src, tarfile.open(altered, "w:gz") as dst:
        for info in src.getmembers():
            data = src.extractfile(info).read()
            if info.name == "tiny/results/winners.csv":
                data += b"forged,row\n"
                info.size = len(data)
            dst.addfile(info, __import__("io").BytesIO(data))
    verdict = archive.verify(altered)
    assert not verdict.ok and "FAIL altered: tiny/results/winners.csv" in verdict.lines
    run = subprocess.run(
        [str(Path(sys.executable).with_name("straggler")), "verify", str(altered)], capture_output=True, text=True
    )
    assert run.returncode == 1 and run.stdout.rstrip().endswith("FAILED")


def test_every_figure_draws_when_a_case_has_no_values(tiny_study, tmp_path):
    """A panel without a positive value (a case no analysis covers) keeps a linear
    axis instead of failing the log scale (it did for speculation_fig1)."""
    from straggler.outputs.figures import figure_names, write_figures
    from straggler.study.config import resolve_config
    from straggler.study.grid import build_grid

    _, ds = tiny_study
    ds = ds.copy(deep=True)
    for var in ("latency_approx", "latency_lower", "cost", "lambda_max"):
        if var in ds:
            ds[var].loc[{"distribution": "det"}] = np.nan
    names = figure_names(build_grid(resolve_config(TINY)).axes)
    paths = write_figures(ds, tmp_path, names)
    assert len(paths) == 2 * len(names) and all(p.stat().st_size > 0 for p in paths)


# ---------------------------------------------------------------- work units

SIMULATED = {
    "study": "units",
    "seed": 11,
    "grid": {
        "policy": ["ZRed", "CoC"],
        "distribution": ["exp"],
        "dependence": ["iid"],
        "r_slow": [1.0],
        "d": [2],
        "N": [4],
    },
    "load": [0.3, 0.6],
    "distributions": {"exp": {"family": "exponential", "mean": 1}},
    "evaluate": ["analytic", "simulation"],
    "simulation": {"jobs": 20000, "warmup": 1000, "replications": 3},
}


def _run_study(workdir: Path, config: dict, *extra) -> subprocess.CompletedProcess:
    workdir.mkdir(parents=True, exist_ok=True)
    configfile = workdir / "study.yaml"
    configfile.write_text(yaml.safe_dump(config))
    run = snakemake(workdir, configfile, *extra)
    assert run.returncode == 0, run.stderr[-4000:]
    return run


def _dataset(workdir: Path, study: str) -> xr.Dataset:
    with xr.open_dataset(workdir / "results" / study / f"{study}.nc") as ds:
        return ds.load()


def _assert_identical(a: xr.Dataset, b: xr.Dataset) -> None:
    assert a.identical(b.assign_attrs(created=a.attrs["created"])), [v for v in a.data_vars if not a[v].identical(b[v])]


def _simulated_jobs(workdir: Path, study: str) -> dict[str, int]:
    """Jobs simulated per cell by the last run, from the evaluate jobs' progress lines."""
    out = {}
    for log in (workdir / "results" / study / "logs" / "evaluate").glob("*.log"):
        for line in log.read_text().splitlines():
            if "jobs simulated" in line:
                cell = line.split("] ", 1)[1].split(":", 1)[0]
                out[cell] = int(line.split(" loads, ")[1].split(" jobs")[0].replace(",", ""))
    return out


@pytest.fixture(scope="module")
def units_study(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("units")
    _run_study(workdir, SIMULATED, "--cores", "2")
    return workdir, _dataset(workdir, "units")


def test_how_work_is_cut_changes_no_number(units_study, tmp_path):
    """One job per replication (replications_per_job: 1) and one cell per job, on one
    core, gives the dataset of the automatic cut on two cores, bit for bit."""
    _, auto = units_study
    config = dict(SIMULATED, execution={"replications_per_job": 1, "cells_per_job": 1, "target_seconds": 1})
    run = _run_study(tmp_path, config, "--cores", "1")
    assert job_counts(run)["simulate_shard"] == 2 * 3  # 2 cells x 3 replications
    _assert_identical(auto, _dataset(tmp_path, "units"))


def test_a_new_axis_value_or_load_evaluates_only_what_is_new(units_study, tmp_path):

    workdir, _ = units_study
    shutil.copytree(workdir / "results", tmp_path / "results")
    shutil.rmtree(tmp_path / "results" / "units" / "logs")
    # a new value of N: only its two cells are simulated
    wider = json.loads(json.dumps(SIMULATED))
    wider["grid"]["N"] = [4, 6]
    _run_study(tmp_path, wider, "--cores", "2")
    jobs = _simulated_jobs(tmp_path, "units")
    assert set(jobs) == {
        "policy=ZRed__distribution=exp__dependence=iid__r_slow=1.0__N=6",
        "policy=CoC__distribution=exp__dependence=iid__r_slow=1.0__d=2__N=6",
    }
    fresh = tmp_path / "fresh"
    _run_study(fresh, wider, "--cores", "2")
    _assert_identical(_dataset(fresh, "units"), _dataset(tmp_path, "units"))
    # a new load: every cell is evaluated again, but simulates only the new load
    shutil.rmtree(tmp_path / "results" / "units" / "logs")
    more = dict(wider, load=[0.3, 0.45, 0.6])
    _run_study(tmp_path, more, "--cores", "2")
    assert set(_simulated_jobs(tmp_path, "units").values()) == {3 * 20000}
    _run_study(fresh, more, "--cores", "2")
    _assert_identical(_dataset(fresh, "units"), _dataset(tmp_path, "units"))


# ---------------------------------------------------------------- the report of a simulated study

TINY_SIMULATED = ROOT / "tests" / "data" / "tiny.yaml"


@pytest.fixture(scope="module")
def simulated_study(tmp_path_factory):
    """tests/data/tiny.yaml (analysis and a short simulation), run once."""
    workdir = tmp_path_factory.mktemp("simulated")
    run = snakemake(workdir, TINY_SIMULATED, "--cores", "2")
    assert run.returncode == 0, run.stderr[-4000:]
    out = workdir / "results" / "tiny"
    with xr.open_dataset(out / "tiny.nc") as ds:
        yield workdir, out, ds.load()


def test_every_section_and_figure_of_the_report(simulated_study):
    from straggler.outputs.figures import figure_names
    from straggler.outputs.report import SECTIONS
    from straggler.study.config import load_config, resolve_config
    from straggler.study.grid import build_grid

    _, out, _ = simulated_study
    resolved = resolve_config(load_config(TINY_SIMULATED))
    names = figure_names(build_grid(resolved).axes, True)
    assert {"tradeoff", "tail", "theory_vs_simulation", "winners_r_slow"} <= set(names)
    for name in names:
        assert (out / "figures" / f"{name}.png").stat().st_size > 1000, name
    page = (out / "report.html").read_text()
    for section in SECTIONS:
        assert f'<section id="{section}">' in page, section
    for name in names:  # every figure embedded, none linked
        assert f'id="fig-{name}"' in page, name
    assert page.count("data:image/png;base64,") == len(names)
    assert not re.search(r"(src|href)=\"(?!data:|#)", page)
    assert not re.search(r"https?://", page)
    summary = (out / "report.md").read_text()
    assert "## Recommendation" in summary and "## Stability verdicts" in summary
    assert summary.index("## Recommendation") < summary.index("## Stability verdicts")  # the answer first


def test_a_policy_has_the_same_colour_and_marker_in_every_figure_of_a_study(simulated_study):
    import matplotlib.pyplot as plt

    from straggler.outputs import figures

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "outputs" / "figures"))
    from test_figures import check_policy_styles

    _, _, ds = simulated_study
    names = figures.figure_names(
        {d: list(ds[d].values) for d in ("policy", "distribution", "dependence", "r_slow", "d", "N")}
    )
    for name in names:
        fig = figures.make_figure(ds, name)
        check_policy_styles(fig)
        plt.close(fig)


def test_snakemake_report_builds_with_a_caption_per_figure(simulated_study, tmp_path):
    import zipfile

    workdir, _, _ = simulated_study
    target = tmp_path / "report.zip"
    run = snakemake(workdir, TINY_SIMULATED, "--report", str(target))
    assert run.returncode == 0, run.stderr[-4000:]
    with zipfile.ZipFile(target) as z:
        names = z.namelist()
    assert any(n.endswith("report.html") for n in names)
    captions = {p.read_text() for p in (ROOT / "workflow" / "report" / "figures").glob("*.rst")}
    assert len(captions) == len(list((ROOT / "workflow" / "report" / "figures").glob("*.rst")))
