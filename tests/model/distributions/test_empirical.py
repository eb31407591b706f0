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
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

import straggler
import straggler.model.distributions as D
from straggler.model.distributions import Discrete, Empirical, from_spec, sample_many
from straggler.model.distributions.base import ParameterError
from straggler.model.distributions.codes import DISCRETE_CODE
from straggler.model.distributions.data_files import content_digest, read_sample
from straggler.study.cell_build import build_model
from straggler.study.config import ConfigError, resolve_config
from straggler.study.evaluate import evaluate_cell, store_key
from straggler.study.grid import build_grid, result_spec

VALUES = [3.0, 1.5, 0.25, 1.5, 7.0, 2.0]
# the module (the package's name ``schema`` is its function)
config_schema = importlib.import_module("straggler.study.config.schema")


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
    bad.with_suffix(".csv").write_bytes(b"a,seconds\n0,1.5\r1,2\n")
    e = _error({"family": "empirical", "file": str(bad.with_suffix(".csv")), "column": "seconds"})
    assert "line 2: a carriage return alone inside a record; expected lines ending in \\n or \\r\\n" in str(e)
    e = _error({"family": "empirical", "file": files["m.npy"]})
    assert e.parameter == "column" and "6 x 2 array" in str(e)


# Text files the C reader (data_files.values_in_c) may read: each is read as the line
# parser reads it, the same values or the same error (None: the line parser's outcome is
# expected from both, and the C reader must have declined or agreed).
_TABLE = "id,host,seconds\n"
_TEXT_CASES = [
    ("plain.csv", _TABLE + "0,a,1.5\n1,b,0.25\n2,c,7\n", "seconds", True),
    ("index.csv", _TABLE + "0,a,1.5\n1,b,0.25\n", 2, True),
    ("crlf.csv", _TABLE.replace("\n", "\r\n") + "0,a,1.5\r\n1,b,2\r\n", "seconds", True),
    ("bom.csv", "\ufeff" + _TABLE + "0,a,1.5\n", "seconds", True),
    ("one.csv", "seconds\n1.5\n2\n", None, True),
    ("blank.csv", _TABLE + "0,a,1.5\n\n1,b,2\n", "seconds", True),
    ("long.csv", _TABLE + "0,a,1.5,extra\n1,b,2\n", "seconds", True),
    ("spaces.csv", _TABLE + "0,a,  1.5 \n1,b,\t2\x0c\n", "seconds", True),
    ("hash.csv", _TABLE + "0,a#b,1.5\n", "seconds", True),
    ("no-newline.csv", _TABLE + "0,a,1.5", "seconds", True),
    ("negative-zero.csv", _TABLE + "0,a,-0.0\n1,b,1\n", "seconds", True),
    ("plain.tsv", _TABLE.replace(",", "\t") + "0\ta b\t1.5\n1\t\t 2\n", "seconds", True),
    ("blanks.csv", _TABLE + "0,a,1.5\n   \n,,\n1,b,2\n", "seconds", False),
    ("short.csv", _TABLE + "0,a,1.5\n1,b\n", "seconds", False),
    ("empty-field.csv", _TABLE + "0,a,\n", "seconds", False),
    ("word.csv", _TABLE + "0,a,1.5\n1,b,fast\n", "seconds", False),
    ("underscore.csv", _TABLE + "0,a,1_000\n", "seconds", False),
    ("arabic.csv", _TABLE + "0,a,\u0661\u0665\n", "seconds", False),
    ("nbsp.csv", _TABLE + "0,a,1.5\u00a0\n", "seconds", None),
    ("nan.csv", _TABLE + "0,a,1.5\n1,b,nan\n", "seconds", False),
    ("inf.csv", _TABLE + "0,a,1e999\n", "seconds", False),
    ("minus.csv", _TABLE + "0,a,-1\n", "seconds", False),
    ("hash-value.csv", _TABLE + "0,a,1.5#\n", "seconds", False),
    ("quoted.csv", _TABLE + '0,"a,2,b",1.5\n1,"x,3,y",3\n', "seconds", True),
    ("quoted-value.csv", _TABLE + '0,a,"1.5"\n1,b," 2 "\n', "seconds", True),
    ("quoted-header.csv", '"id","host","seconds"\r\n0,"a",1.5\r\n', "seconds", True),
    ("quoted-lines.csv", _TABLE + '0,"two\nlines, 9",1.5\n"x\r\ny",b,2\n', "seconds", True),
    ("quotes.csv", _TABLE + '0,"say ""9"", x",1.5\n1,"a"b,2\n2,a"b,3\n3,"a"  ,4\n', "seconds", True),
    ("open-quote.csv", _TABLE + '0,a,"1.5\n', "seconds", True),
    ("quoted.tsv", _TABLE.replace(",", "\t") + '0\t"a\tb"\t1.5\n', "seconds", True),
    ("space-quote.csv", _TABLE + '0, "a,2",1.5\n', "seconds", False),
    ("quote-after.csv", _TABLE + '0,a,"1.5"x\n', "seconds", False),
    ("empty-quoted.csv", _TABLE + '""\n0,a,1.5\n', "seconds", False),
    ("header-lines.csv", '"id","host\nname",seconds\n0,a,1.5\n', "seconds", False),
    ("header-quote-after.csv", '"id"x,host,seconds\n0,a,1.5\n', "seconds", False),
    ("lone-cr.csv", _TABLE + "0,a,1.5\r1,b,2\n", "seconds", False),
    ("nul.csv", _TABLE + "0,a\x00,1.5\n", "seconds", False),
    ("header-only.csv", _TABLE, "seconds", False),
    ("empty.csv", "", "seconds", False),
    ("no-column.csv", _TABLE + "0,a,1.5\n", "secs", False),
    ("bad-index.csv", _TABLE + "0,a,1.5\n", 3, False),
    ("which.csv", _TABLE + "0,a,1.5\n", None, False),
    ("latin1.csv", (_TABLE + "0,caf\xe9,1.5\n").encode("latin-1"), "seconds", False),
    ("plain.txt", "# sizes\n1.5\n0.25  # fast\n\n  \n7\n", None, True),
    ("column0.txt", "1.5\n2\n", 0, True),
    ("cr.txt", "1.5\r2\r\n3\n", None, True),
    ("two.txt", "1.5 2\n", None, False),
    ("pairs.txt", "1 2\n3 4\n", None, False),
    ("comma.txt", "1,5\n", None, False),
    ("form-feed.txt", "# c\x0c1.5\n2\n", None, False),
    ("separator.txt", "1.5\u20282\n", None, False),
    ("comment-only.txt", "# nothing\n", None, False),
    ("column.txt", "1.5\n", "seconds", False),
    ("minus.txt", "1\n-2\n", None, False),
    ("latin1.txt", "1.5\ncaf\xe9\n".encode("latin-1"), None, False),
]


def _outcome(read):
    try:
        values = read()
    except ParameterError as e:
        return ("error", e.parameter, str(e))
    if values.size == 0:
        return ("error", "file", "holds no values")
    return ("values", values.tolist(), np.signbit(values).tolist())


@pytest.mark.parametrize(("name", "content", "column", "in_c"), _TEXT_CASES, ids=[c[0] for c in _TEXT_CASES])
def test_the_c_reader_reads_what_the_line_parser_reads(tmp_path, name, content, column, in_c):
    """The fast path through numpy's reader gives the values the line-by-line parser gives,
    or declines, and the error is the line parser's, line and value named."""
    from straggler.model.distributions.data_files import values_by_line, values_in_c

    path = tmp_path / name
    data = content if isinstance(content, bytes) else content.encode()
    path.write_bytes(data)
    suffix = path.suffix
    precise = _outcome(lambda: values_by_line(data, suffix, str(path), column))
    fast = values_in_c(data, suffix, str(path), column)
    if in_c is not None:
        assert (fast is not None) == in_c
    if fast is not None:
        assert precise[0] == "values" and _outcome(lambda: fast) == precise
    got = _outcome(lambda: read_sample(str(path), column))
    assert got[:2] == precise[:2] and (got[2] == precise[2] or precise[2] in got[2])
    gz = tmp_path / (name + ".gz")
    gz.write_bytes(gzip.compress(data))
    assert _outcome(lambda: read_sample(str(gz), column))[:2] == precise[:2]


def test_decimal_strings_read_in_c_are_the_doubles_float_gives(tmp_path):
    """numpy's reader and float() both round a decimal string to the nearest double: long
    mantissas, halfway cases, subnormals, exponents."""
    rng = np.random.default_rng(3)
    digits = ["".join(rng.choice(list("0123456789"), size=int(k))) for k in rng.integers(1, 40, 3000)]
    texts = [f"{d[:1]}.{d[1:] or '0'}e{int(e)}" for d, e in zip(digits, rng.integers(-320, 300, 3000))]
    texts += [d.lstrip("0") or "0" for d in digits[:500]]
    texts += [
        "2.2250738585072011e-308",
        "4.9406564584124654e-324",
        "1.7976931348623157e308",
        "0.1",
        "9007199254740993",
        "0.30000000000000004",
        "5e-324",
        "2.4703282292062328e-324",
        "123456789012345678901234567890",
    ]
    expected = [float(t) for t in texts]
    for suffix, body in (
        (".csv", "x,size\n" + "".join(f"{i},{t}\n" for i, t in enumerate(texts))),
        (".txt", "".join(f"{t}\n" for t in texts)),
    ):
        path = tmp_path / f"decimals{suffix}"
        path.write_text(body)
        column = "size" if suffix == ".csv" else None
        from straggler.model.distributions.data_files import values_in_c

        assert values_in_c(path.read_bytes(), suffix, str(path), column) is not None
        assert read_sample(str(path), column).tolist() == expected


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
    from straggler.study.provenance import data_files

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


_READ_IN_A_FRESH_PROCESS = """
import json, resource, sys
import numpy as np
from straggler.model.distributions import from_spec
from straggler.model.distributions.data_files import sorted_sample
path, out = sys.argv[1], sys.argv[2]


def peak_kib():
    # this process's peak resident memory: VmHWM on Linux (ru_maxrss there starts at the
    # parent's size, which a child inherits through fork and exec), ru_maxrss elsewhere
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 if sys.platform == "darwin" else 1)


before = peak_kib()
xs = sorted_sample(path, "duration_ms")
law = from_spec({"family": "empirical", "file": path, "column": "duration_ms"})
growth = peak_kib() - before
np.save(out, law.values)
print(json.dumps({"n": int(xs.size), "law_n": law.size, "mean": law.mean(), "growth_kib": growth, "before_kib": before}))
"""


def _fixed_digits(k: np.ndarray, width: int) -> np.ndarray:
    """The integers ``k`` >= 0 as ``width`` ASCII digits each, zero-padded: an (n, width) array."""
    out = np.empty((k.size, width), dtype=np.uint8)
    for j in range(width - 1, -1, -1):
        out[:, j] = k % 10 + ord("0")
        k = k // 10
    return out


@pytest.mark.slow
def test_a_trace_of_ten_million_rows_is_read_in_bounded_memory(tmp_path, ci_scale):
    """10^7 rows of timestamp_s,endpoint,duration_ms (a quarter in CI) are read, sorted and
    made a law in a fresh process: every value the double that numpy computes from the
    generated integers (k / 1000 is the correctly rounded k/1000, as "12.345" parses), and
    the peak memory within the file's bytes and four arrays of the sample (nothing is
    timed here). Measured at 10^7 rows (a 290 MB file, an 80 MB sample): the
    process grew by 360 MiB (the file's bytes and about one array while numpy's reader
    parsed, in 2 to 5 s); the line-by-line parser alone grew by 2.1 GiB, 7.6 times the
    file (in 17 to 24 s), and fails the bound."""
    n = int(10_000_000 * ci_scale)
    rng = np.random.default_rng(7)
    ts_ms = np.cumsum(rng.integers(0, 3, n))  # timestamps in ms, at most 9999999.999 s
    dur = np.minimum(np.rint(rng.lognormal(np.log(8000.0), 0.9, n)), 99_999_999).astype(np.int64)  # in us
    endpoints = np.frombuffer(b"GET /aPUT /bGET /c", dtype=np.uint8).reshape(3, 6)
    rows = np.empty((n, 29), dtype=np.uint8)  # 0000012.345,GET /a,00008.123\n
    rows[:, 0:7], rows[:, 7], rows[:, 8:11] = _fixed_digits(ts_ms // 1000, 7), ord("."), _fixed_digits(ts_ms % 1000, 3)
    rows[:, 11], rows[:, 12:18], rows[:, 18] = ord(","), endpoints[rng.integers(0, 3, n)], ord(",")
    rows[:, 19:24], rows[:, 24], rows[:, 25:28] = _fixed_digits(dur // 1000, 5), ord("."), _fixed_digits(dur % 1000, 3)
    rows[:, 28] = ord("\n")
    path = tmp_path / "trace.csv"
    with open(path, "wb") as f:
        f.write(b"timestamp_s,endpoint,duration_ms\n")
        f.write(rows.data)
    del rows
    expected = np.sort(dur / 1000.0)

    src = str(Path(straggler.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-c", _READ_IN_A_FRESH_PROCESS, str(path), str(tmp_path / "sorted.npy")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    size = path.stat().st_size
    print(
        f"\n{n} rows, {size / 1e6:.0f} MB: peak memory +{got['growth_kib'] / 1024:.0f} MiB (from {got['before_kib'] / 1024:.0f} MiB after the imports)"
    )
    assert got["n"] == got["law_n"] == n
    np.testing.assert_array_equal(np.load(tmp_path / "sorted.npy"), expected)
    assert got["mean"] == pytest.approx(math.fsum(expected) / n, rel=1e-12)
    bound = size + 4 * expected.nbytes
    assert got["growth_kib"] * 1024 <= bound, f"peak memory grew by {got['growth_kib'] / 1024:.0f} MiB"
