"""The law of a measured sample (``family: empirical``) and laws backed by data files:
reading every format, the errors a user sees, the exact sums against brute force and
numpy's quantiles, the draws, and the file's content digest in a cell's identity.
``test_a_toy_data_backed_family`` follows docs/contributing.md, "Adding a data-backed
size law", once."""

from __future__ import annotations

import gzip
import importlib
import itertools
import json
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

import straggler.distributions as D
from straggler.cell_build import build_model
from straggler.config import ConfigError, resolve_config
from straggler.distributions import Discrete, Empirical, from_spec, sample_many
from straggler.distributions.base import ParameterError
from straggler.distributions.codes import DISCRETE_CODE
from straggler.distributions.data_files import content_digest, read_sample
from straggler.evaluate import evaluate_cell, store_key
from straggler.grid import build_grid, result_spec

VALUES = [3.0, 1.5, 0.25, 1.5, 7.0, 2.0]
# the module (the package's name ``schema`` is its function)
config_schema = importlib.import_module("straggler.config.schema")


@pytest.fixture
def files(tmp_path):
    """The same six sizes in every format the law reads."""
    out = {}
    (tmp_path / "one.txt").write_text("# sizes in s\n3.0\n1.5  # a comment\n\n0.25\n1.5\n7.0\n2.0\n")
    rows = "".join(f"{i},x,{v}\n" for i, v in enumerate(VALUES))
    (tmp_path / "t.csv").write_text("id,host,seconds\n" + rows)
    (tmp_path / "t.tsv").write_text("id\thost\tseconds\n" + rows.replace(",", "\t"))
    (tmp_path / "single.csv").write_text("seconds\n" + "".join(f"{v}\n" for v in VALUES))
    np.save(tmp_path / "v.npy", np.array(VALUES))
    np.save(tmp_path / "m.npy", np.column_stack([np.arange(6.0), VALUES]))
    (tmp_path / "t.csv.gz").write_bytes(gzip.compress((tmp_path / "t.csv").read_bytes()))
    (tmp_path / "v.npy.gz").write_bytes(gzip.compress((tmp_path / "v.npy").read_bytes()))
    for name in ("one.txt", "t.csv", "t.tsv", "single.csv", "v.npy", "m.npy", "t.csv.gz", "v.npy.gz"):
        out[name] = str(tmp_path / name)
    return out


@pytest.mark.parametrize(
    ("name", "column"),
    [
        ("one.txt", None),
        ("t.csv", "seconds"),
        ("t.csv", 2),
        ("t.tsv", "seconds"),
        ("single.csv", None),
        ("v.npy", None),
        ("m.npy", 1),
        ("t.csv.gz", "seconds"),
        ("v.npy.gz", None),
    ],
)
def test_every_format_reads_the_same_values(files, name, column):
    assert read_sample(files[name], column).tolist() == VALUES
    law = Empirical(files[name], column)
    assert law.mean() == pytest.approx(sum(VALUES) / 6, rel=1e-15)
    assert law.values.tolist() == sorted(VALUES)


def _error(spec) -> ParameterError:
    with pytest.raises(ParameterError) as info:
        from_spec(spec)
    return info.value


def test_errors_name_the_parameter_the_value_and_what_is_allowed(files, tmp_path):
    e = _error({"family": "empirical", "file": "nowhere.csv"})
    assert e.parameter == "file" and "'nowhere.csv' does not exist" in str(e) and "read from" in str(e)
    e = _error({"family": "empirical", "file": files["t.csv"]})
    assert e.parameter == "column" and "has 3 columns (id, host, seconds)" in str(e)
    e = _error({"family": "empirical", "file": files["t.csv"], "column": "secs"})
    assert e.parameter == "column" and "columns id, host, seconds" in str(e)
    e = _error({"family": "empirical", "file": files["t.csv"], "column": 3})
    assert e.parameter == "column" and "columns 0 to 2" in str(e)
    e = _error({"family": "empirical", "file": files["one.txt"], "column": "seconds"})
    assert e.parameter == "column" and "plain text" in str(e)
    bad = tmp_path / "bad.txt"
    bad.write_text("1.0\n2.0\nfast\n")
    e = _error({"family": "empirical", "file": str(bad)})
    assert e.parameter == "file" and "line 3: 'fast' is not a number" in str(e)
    bad.write_text("1.0\n-2.0\n")
    assert "line 2: -2.0 is not allowed; expected a size >= 0" in str(_error({"family": "empirical", "file": str(bad)}))
    bad.write_text("# nothing measured\n")
    assert "holds no values" in str(_error({"family": "empirical", "file": str(bad)}))
    bad.write_text("0\n0\n")
    assert "expected a positive mean" in str(_error({"family": "empirical", "file": str(bad)}))
    e = _error({"family": "empirical", "file": files["m.npy"]})
    assert e.parameter == "column" and "6 x 2 array" in str(e)


def test_the_empirical_law_is_exact(files):
    """Each functional against its definition summed over the sample (all n^d tuples for
    the minimum of d copies), and the interpolated law against numpy's linear quantiles."""
    xs = np.array(VALUES)
    law = Empirical(files["one.txt"])
    for d in (1, 2, 3):
        brute = np.mean([min(t) for t in itertools.product(xs, repeat=d)])
        assert law.mean_min_of(d) == pytest.approx(brute, rel=1e-14)
    for t in (0.0, 0.25, 1.0, 1.5, 5.0, 9.0):
        assert law.mean_min(t) == pytest.approx(np.minimum(xs, t).mean(), rel=1e-14, abs=1e-15)
        assert law.second_moment_min(t) == pytest.approx((np.minimum(xs, t) ** 2).mean(), rel=1e-14, abs=1e-15)
        assert law.partial_mean(t) == pytest.approx((xs * (xs > t)).mean(), rel=1e-14, abs=1e-15)
        assert law.partial_second_moment(t) == pytest.approx((xs**2 * (xs > t)).mean(), rel=1e-14, abs=1e-15)
        assert law.sf(t) == np.mean(xs > t)
    # the same law as a discrete one with the values' frequencies
    twin = Discrete(sorted(set(VALUES)), [VALUES.count(v) / 6 for v in sorted(set(VALUES))])
    for d in (1, 2, 5):
        assert law.mean_min_of(d) == pytest.approx(twin.mean_min_of(d), rel=1e-14)
    assert law.second_moment() == pytest.approx(twin.second_moment(), rel=1e-14)

    smooth = Empirical(files["one.txt"], interpolate=True)
    u = np.linspace(0.0, 1.0, 101)
    q = np.quantile(xs, u, method="linear")  # Hyndman and Fan's type 7: the same law
    flat = (u >= 0.2) & (u <= 0.4)  # Q(u) = 1.5 there: the tie x_(2) = x_(3) is an atom
    np.testing.assert_allclose(smooth.sf(q[~flat]), 1.0 - u[~flat], atol=1e-12)
    # E[X] of the linear quantile function: the mean of Q(u) over u, by the trapezoids
    # (the grid holds the knots u = k / 5, so the trapezoids are exact for Q, and within
    # h^2 = 2.5e-11 for Q^2)
    grid = np.linspace(0, 1, 200_001)
    fine = np.quantile(xs, grid, method="linear")
    assert smooth.mean() == pytest.approx(np.trapezoid(fine, grid), rel=1e-13)
    assert smooth.second_moment() == pytest.approx(np.trapezoid(fine**2, grid), rel=1e-9)
    assert smooth.mean_min_of(2) == pytest.approx(D.Distribution.mean_min_of(smooth, 2), rel=1e-9)
    # a tie keeps an atom of (ties - 1) / (n - 1)
    assert smooth.point_masses() == ((1.5, 1 / 5),)


def test_draws_index_the_sorted_sample(files):
    """A draw is one uniform of the stream: x_(floor(u n)), or the linear quantile."""
    law = Empirical(files["one.txt"])
    u = np.random.default_rng(11).random(10_000)
    draws = sample_many(law, 10_000, np.random.default_rng(11))
    np.testing.assert_array_equal(draws, np.sort(VALUES)[np.floor(u * 6).astype(int)])
    smooth = Empirical(files["one.txt"], interpolate=True, scale_to_mean=2.0)
    draws = sample_many(smooth, 10_000, np.random.default_rng(11))
    np.testing.assert_allclose(draws, np.quantile(smooth.values, u, method="linear"), rtol=1e-13)
    assert smooth.mean() == pytest.approx(2.0, rel=1e-14)


def _study(file, **law):
    return {
        "study": "trace",
        "grid": {"policy": ["ZRed", "CoC"], "distribution": ["trace"], "dependence": ["iid"], "N": [3], "d": [2]},
        "load": [0.5],
        "distributions": {"trace": {"family": "empirical", "file": file, **law}},
        "evaluate": ["analytic", "simulation"],
        "simulation": {"jobs": 3000, "warmup": 300, "replications": 2},
    }


def test_the_file_content_is_in_the_cell_identity(files, tmp_path):
    path = tmp_path / "sizes.txt"
    path.write_text("1\n2\n3\n")
    first = resolve_config(_study(str(path)))
    assert first.distributions["trace"]["digest"] == content_digest(str(path))
    cell = next(iter(build_grid(first).cells.values()))
    spec, key = result_spec(first, cell), store_key(first, cell, {"alpha": None, "tau": None, "keep": None})
    path.write_text("1\n2\n4\n")  # the same path, another content: another identity
    again = resolve_config(_study(str(path)))
    assert result_spec(again, cell) != spec
    assert store_key(again, cell, {"alpha": None, "tau": None, "keep": None}) != key
    # the dataset's provenance names the file by its content
    from straggler.provenance import data_files

    assert data_files(again) == f"trace: {path} ({content_digest(str(path))}, 3 values)"
    # a cell planned before the change refuses the new content rather than mix the two
    with pytest.raises(ParameterError, match="has changed"):
        from_spec(first.distributions["trace"])
    # a digest written in the study pins the content
    with pytest.raises(ConfigError, match=r"distributions\.trace\.file: file .* has changed"):
        resolve_config(_study(str(path), digest=first.distributions["trace"]["digest"]))
    with pytest.raises(ConfigError, match=r"distributions\.trace\.column: column 'ms' is not allowed"):
        resolve_config(_study(files["t.csv"], column="ms"))


def test_a_measured_workload_is_analysed_and_simulated(tmp_path):
    """ZRed on a trace: random dispatch to M/G/1 queues, whose mean response time the
    Pollaczek-Khinchine formula gives from the sample's two moments; the simulation
    agrees within its interval."""
    rng = np.random.default_rng(5)
    path = tmp_path / "ms.csv"
    path.write_text("ms\n" + "".join(f"{v:.3f}\n" for v in rng.lognormal(2.0, 0.8, 2000)))
    cfg = resolve_config(_study(str(path), scale_to_mean=1.0))
    law = from_spec(cfg.distributions["trace"])
    zred = next(c for c in build_grid(cfg).cells if "ZRed" in c)
    ds = evaluate_cell(cfg, zred)
    lam = 0.5  # per server: load 0.5 with E[X] = 1
    pk = 1.0 + lam * law.second_moment() / (2 * (1 - lam * 1.0))
    assert float(ds["latency_approx"].values[0]) == pytest.approx(pk, rel=1e-12)
    half = float(ds["latency_mean_ci"].values[0])  # the 95 % interval's half-width
    assert abs(float(ds["latency_mean"].values[0]) - pk) <= half


def test_full_replication_on_a_trace_is_one_m_g_1_queue(files):
    """CoC with d = N and i.i.d. replicas from a trace: every job occupies all N servers
    at once and leaves at its first copy's end, so the system is one M/G/1 queue whose
    service time is the minimum of N copies. Pollaczek-Khinchine with that minimum's two
    moments, summed over all 6^3 triples of the sample (independent of the law's sums),
    lies within the simulation's interval."""
    xs = np.array(VALUES)
    mins = np.array([min(t) for t in itertools.product(xs, repeat=3)])
    m1, m2 = mins.mean(), (mins**2).mean()
    cfg = resolve_config(
        {
            "study": "full",
            "grid": {"policy": ["CoC"], "distribution": ["trace"], "dependence": ["iid"], "N": [3], "d": [3]},
            "load": [0.5],
            "distributions": {"trace": {"family": "empirical", "file": files["one.txt"]}},
            "simulation": {"jobs": 40000, "warmup": 4000, "replications": 4},
        }
    )
    (cell,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cell)
    lam = 0.5 * 3 / xs.mean()  # load = lambda E[X] / N
    assert lam * m1 < 1
    pk = m1 + lam * m2 / (2 * (1 - lam * m1))
    assert float(ds["latency_approx"].values[0]) == pytest.approx(pk, rel=1e-12)
    half = float(ds["latency_mean_ci"].values[0])
    assert abs(float(ds["latency_mean"].values[0]) - pk) <= half, (float(ds["latency_mean"].values[0]), pk, half)


# ------------------------------------------------------------------- a toy data-backed family


@dataclass(frozen=True)
class WeightedSizes(Discrete):
    """Sizes and their weights, read from a two-column CSV (``size,weight``): a discrete
    law whose table lives in a file."""

    file: str = ""
    digest: str = ""
    values: tuple[float, ...] = ()
    p: tuple[float, ...] = ()
    family: ClassVar[str] = "weighted_sizes"
    code: ClassVar[int] = DISCRETE_CODE  # drawn as the discrete law it is
    optional: ClassVar[tuple[str, ...]] = ("digest", "values", "p")
    data_file: ClassVar[str | None] = "file"
    schema: ClassVar[dict] = {
        "file": {"type": "string", "description": "A CSV of size,weight rows."},
        "digest": {"type": "string", "description": "The file's content digest."},
    }

    def __post_init__(self):
        if self.digest and content_digest(self.file) != self.digest:
            raise ParameterError("file", f"file {self.file!r} has changed")
        sizes = read_sample(self.file, "size")
        weights = read_sample(self.file, "weight")
        object.__setattr__(self, "values", tuple(sizes.tolist()))
        object.__setattr__(self, "p", tuple((weights / weights.sum()).tolist()))
        super().__post_init__()

    def config_values(self) -> dict:
        return {"file": self.file, **({"digest": self.digest} if self.digest else {})}

    @classmethod
    def resolved_extras(cls, spec: dict) -> dict:
        return {"digest": content_digest(spec["file"])}


def test_a_toy_data_backed_family(monkeypatch, tmp_path):
    """docs/contributing.md, "Adding a data-backed size law", followed once: a class, its
    place in the table of families; the schema, the checks, the resolved config's digest,
    the analysis and the simulation all follow."""
    monkeypatch.setitem(D.FAMILIES, WeightedSizes.family, WeightedSizes)
    monkeypatch.setitem(D.PARAMETERS, WeightedSizes.family, WeightedSizes.config_parameters())
    monkeypatch.setitem(D.OPTIONAL_PARAMETERS, WeightedSizes.family, WeightedSizes.optional)
    for cached in (config_schema._schema, config_schema.family_parameters, config_schema.schema_validator):
        cached.cache_clear()
    try:
        table = tmp_path / "sizes.csv"
        table.write_text("size,weight\n1,3\n4,1\n")
        study = _study(str(table))
        study["distributions"] = {"trace": {"family": "weighted_sizes", "file": str(table)}}
        study["grid"]["policy"] = ["ZRed"]
        cfg = resolve_config(study)
        assert cfg.distributions["trace"]["digest"] == content_digest(str(table))
        law = from_spec(cfg.distributions["trace"])
        assert law.mean() == pytest.approx(0.75 * 1 + 0.25 * 4)
        (cid,) = build_grid(cfg).cells
        ds = evaluate_cell(cfg, cid)
        lam = 0.5 / law.mean()
        pk = law.mean() + lam * law.second_moment() / (2 * (1 - 0.5))
        assert float(ds["latency_approx"].values[0]) == pytest.approx(pk, rel=1e-12)
        assert math.isfinite(float(ds["latency_mean"].values[0]))
        # the schema knows it: a misspelt key is named
        study["distributions"]["trace"]["fil"] = "x"
        with pytest.raises(ConfigError, match="fil"):
            resolve_config(study)
    finally:
        monkeypatch.undo()
        for cached in (config_schema._schema, config_schema.family_parameters, config_schema.schema_validator):
            cached.cache_clear()


@pytest.mark.slow
@pytest.mark.workflow
def test_a_trace_of_a_known_family_gives_the_family_s_winners(tmp_path, ci_scale):
    """10^6 draws of a hyperexponential (mean 1, scv 4.6) written as a trace, beside the law itself on
    the distribution axis, on the same workloads: wherever both decide a winner it is the
    same policy, and wherever the family decides one the trace names it (alone or in its
    tie set). The trace's sampling error is far below the simulation's."""
    import pandas as pd

    from tests.runs import snakemake

    family = {"family": "hyperexponential", "p": [0.9, 0.1], "rates": [1.8, 0.2]}
    law = from_spec(family)
    trace = sample_many(law, 1_000_000, np.random.default_rng(20261204))
    np.save(tmp_path / "trace.npy", trace)
    jobs = int(200_000 * ci_scale)
    study = tmp_path / "study.yaml"
    study.write_text(
        "study: trace_vs_family\nseed: 7\n"
        "grid: {policy: [ZRed, CoC, CoS, RIQ], distribution: [family, trace], dependence: [iid], "
        "r_slow: [1], d: [2], N: [10]}\n"
        "load: [0.3, 0.6]\n"
        f"distributions:\n  family: {family}\n  trace: {{family: empirical, file: trace.npy}}\n"
        "evaluate: [analytic, simulation]\n"
        f"simulation: {{jobs: {jobs}, warmup: {jobs // 10}, replications: 3, confidence: 0.95}}\n"
    )
    run = snakemake(tmp_path, study, "--cores", "2", timeout=1800)
    assert run.returncode == 0, run.stderr[-3000:]
    table = pd.read_csv(tmp_path / "results/trace_vs_family/winners.csv", dtype=str, keep_default_na=False)
    keys = ["load", "criterion"]
    both = table[table.distribution == "family"].merge(table[table.distribution == "trace"], on=keys)
    assert len(both) >= 5
    decided = 0
    for _, row in both.iterrows():
        if row.decided_x == "true":
            decided += 1
            assert row.winners_x in row.winners_y.split(", "), row.to_dict()
            if row.decided_y == "true":
                assert row.winners_x == row.winners_y, row.to_dict()
    assert decided >= 3  # the check is not empty


def test_a_resample_is_the_trace_drawn_again_from_the_study_s_seed(files):
    """Resample r: n values drawn with replacement from the trace, sorted; the same for
    the same seed, file and r (whatever process builds it), another for another r or
    seed; the trace's own scale factor (a resample keeps its own mean)."""
    trace = Empirical(files["t.csv"], column="seconds")
    one = Empirical(files["t.csv"], column="seconds", resample=1, seed=7)
    assert one.size == trace.size and set(one.values) <= set(trace.values)
    assert np.array_equal(one.values, np.sort(one.values))
    again = Empirical(files["t.csv"], column="seconds", resample=1, seed=7, bootstrap=5)
    assert np.array_equal(again.values, one.values)  # bootstrap shapes the grid, not the law
    draws = {
        tuple(Empirical(files["t.csv"], column="seconds", resample=r, seed=s).values.tolist())
        for r, s in [(1, 7), (2, 7), (3, 7), (1, 8)]
    }
    assert len(draws) == 4
    # the stream: the seed, the file's content and r (numpy's PCG64, fixed by the pins)
    rng = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(0x5EEDB007, int(trace_digest(files), 16), 1)))
    assert np.array_equal(one.values, np.sort(np.sort(VALUES)[rng.integers(0, 6, 6)]))  # indices into the sorted trace
    scaled = Empirical(files["t.csv"], column="seconds", resample=1, seed=7, scale_to_mean=1.0)
    np.testing.assert_allclose(scaled.values, one.values / trace.mean(), rtol=1e-15)
    with pytest.raises(ParameterError, match="resample 1 needs the study's seed: give the law bootstrap: B"):
        Empirical(files["t.csv"], column="seconds", resample=1)
    with pytest.raises(ParameterError, match="bootstrap must be an integer >= 0, got -1"):
        Empirical(files["t.csv"], column="seconds", bootstrap=-1)


def trace_digest(files) -> str:
    return content_digest(files["t.csv"]).removeprefix("sha256:")[:16]


def test_bootstrap_is_an_axis_of_resamples_that_a_larger_b_extends(files):
    """bootstrap: B gives the grid the axis trace.resample = 0..B (0 the trace); the
    resolved law carries the study's seed; a cell's spec has its resample and not B, so
    B = 4 reruns none of B = 2's cells; a law the grid does not use adds no axis."""
    cfg = resolve_config({**_study(files["t.csv"], column="seconds", bootstrap=2), "seed": 9})
    assert cfg.distributions["trace"]["seed"] == 9
    grid = build_grid(cfg)
    assert grid.axes["trace.resample"] == [0, 1, 2]
    assert len(grid.cells) == 2 * 3
    bigger = resolve_config({**_study(files["t.csv"], column="seconds", bootstrap=4), "seed": 9})
    big_grid = build_grid(bigger)
    specs = {json.dumps(result_spec(cfg, c), sort_keys=True) for c in grid.cells.values()}
    big_specs = {json.dumps(result_spec(bigger, c), sort_keys=True) for c in big_grid.cells.values()}
    assert specs < big_specs and len(big_specs) == 2 * 5
    cell = next(c for c in grid.cells.values() if dict(c.coords)["trace.resample"] == 2)
    assert "bootstrap" not in result_spec(cfg, cell)["distributions"]["trace"]
    model = build_model(cfg, cell)
    assert model.size.values.tolist() == Empirical(files["t.csv"], "seconds", resample=2, seed=9).values.tolist()
    # the trace itself without bootstrap: no seed, no axis, its cells as before
    plain = resolve_config(_study(files["t.csv"], column="seconds"))
    assert "seed" not in plain.distributions["trace"] and "trace.resample" not in build_grid(plain).axes
    unused = _study(files["t.csv"], column="seconds", bootstrap=2)
    unused["distributions"]["other"] = unused["distributions"].pop("trace")
    unused["distributions"]["trace"] = {"family": "exponential", "mean": 1}
    assert "other.resample" not in build_grid(resolve_config(unused)).axes
    twice = _study(files["t.csv"], column="seconds", bootstrap=2)
    twice["grid"]["trace.resample"] = [0, 1]
    with pytest.raises(ConfigError, match="the law's bootstrap makes the axis of its resamples; drop it from the grid"):
        resolve_config(twice)
    del twice["distributions"]["trace"]["bootstrap"]
    with pytest.raises(ConfigError, match="'resample' of distribution trace .* cannot be swept on the grid; write "):
        resolve_config(twice)
