"""The cell files' numpy codec (straggler.common.cdf5) against the netCDF4 library: what it
writes the library reads as the library's own file, and what it reads is what the
library reads, on real cells and on the corners of the format."""

import netCDF4
import numpy as np
import pytest
import xarray as xr

from straggler.common import cdf5
from straggler.study.config import resolve_config
from straggler.study.dataset import CELL_FORMAT, read_cell, write_cell, write_cell_netcdf4
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid


def library_read(path):
    """``cdf5.read``'s answer, from the netCDF4 library (automatic masking off)."""
    with netCDF4.Dataset(path) as nc:
        nc.set_auto_mask(False)
        variables = {name: np.asarray(v[...]) for name, v in nc.variables.items()}
        var_attrs = {name: {a: v.getncattr(a) for a in v.ncattrs()} for name, v in nc.variables.items()}
        return variables, {a: nc.getncattr(a) for a in nc.ncattrs()}, var_attrs


def assert_same_attrs(a: dict, b: dict):
    assert list(a) == list(b)
    for key in a:
        assert type(a[key]) is type(b[key]), key
        assert np.array_equal(a[key], b[key], equal_nan=isinstance(a[key], (float, np.floating, np.ndarray))), key


def assert_same(ours, theirs):
    (v1, g1, a1), (v2, g2, a2) = ours, theirs
    assert list(v1) == list(v2)
    for name in v1:
        assert v1[name].dtype == v2[name].dtype, name
        assert v1[name].shape == v2[name].shape, name
        assert np.array_equal(v1[name], v2[name], equal_nan=v1[name].dtype.kind == "f"), name
        assert_same_attrs(a1[name], a2[name])
    assert_same_attrs(g1, g2)


CORNERS = {
    "dims": {"load": 3, "quantile": 2},
    "variables": [
        ("load", ("load",), np.array([0.1, 0.5, 0.9]), {"_FillValue": np.float64(np.nan), "units": "1"}),
        ("scalar", (), np.array(2.5), {"_FillValue": np.float64(np.nan)}),
        ("count", ("load",), np.array([1, -2, 3], dtype=np.int64), {"long_name": "an integer"}),
        ("grid", ("load", "quantile"), np.array([[1.0, np.nan], [np.inf, -0.0], [3.0, 4.0]]), {}),
        ("word", ("load",), np.array(["stable", "", "unstable"]), {"long_name": "text"}),
        ("greek", ("load", "quantile"), np.array([["ρ", "λ max"], ["", "ä"], ["x", "yz"]]), {}),
        ("empty", ("load",), np.array(["", "", ""]), {}),
    ],
    "attrs": {
        "text": "a cell",
        "empty": "",
        "unicode": "ρ~ = λ d E[X] / N",
        "integer": 2021,
        "real": 0.25,
        "numbers": np.array([1.5, 2.5]),
        "integers": np.array([3, 4], dtype=np.int64),
    },
}


def test_corners_read_as_the_library_reads_them(tmp_path):
    ours, theirs = tmp_path / "ours.nc", tmp_path / "theirs.nc"
    args = CORNERS["dims"], CORNERS["variables"], CORNERS["attrs"]
    assert cdf5.writable(*args)
    cdf5.write(ours, *args)
    write_cell_netcdf4(theirs, *args)
    with netCDF4.Dataset(ours) as nc:
        assert nc.file_format == CELL_FORMAT
    # the library reads our file as its own; we read its file as it does
    assert_same(library_read(ours), library_read(theirs))
    assert_same(cdf5.read(ours), library_read(ours))
    assert_same(cdf5.read(theirs), library_read(theirs))
    with xr.open_dataset(ours) as a, xr.open_dataset(theirs) as b:
        assert a.load().identical(b.load())


def test_what_the_codec_does_not_take_goes_to_the_library(tmp_path):
    # a dimension of length 0 is netCDF-3's record dimension
    assert not cdf5.writable({"load": 0}, [("x", ("load",), np.zeros(0), {})], {})
    assert not cdf5.writable({"load": 1}, [("x", ("load",), np.zeros(1, dtype=complex), {})], {})
    assert not cdf5.writable({"load": 1}, [("x", ("load",), np.zeros(1), {"bad": {"a": 1}})], {})
    assert not cdf5.writable({"load": 1}, [], {"flag": np.array([[1.0]])})
    records = tmp_path / "records.nc"
    with netCDF4.Dataset(records, "w", format=CELL_FORMAT) as nc:
        nc.createDimension("t", None)
        nc.createVariable("x", "f8", ("t",))[0:2] = [1.0, 2.0]
    assert cdf5.read(records) is None
    hdf5 = tmp_path / "hdf5.nc"
    xr.Dataset({"x": ("load", [1.0])}).to_netcdf(hdf5, engine="netcdf4")
    assert cdf5.read(hdf5) is None


@pytest.mark.parametrize("simulate", [False, True])
def test_real_cells_written_and_read_as_the_library_does(tmp_path, simulate):
    """Every cell of a small study (two pools, CoC and a threshold policy, stable and
    unstable loads), analytic only and simulated: the file ``write_cell`` writes reads,
    through the library and through ``read_cell``, as the file the library writes."""
    cfg = resolve_config(
        {
            "study": "t",
            "grid": {
                "policy": ["ZRed", "CoC", "Rer"],
                "distribution": ["exp"],
                "dependence": ["iid"],
                "r_slow": [0.5],
                "d": [2],
                "N": [4],
            },
            "load": [0.3, 0.9, 1.2],
            "distributions": {"exp": {"family": "exponential", "mean": 1}},
            "evaluate": ["analytic", "simulation"] if simulate else ["analytic"],
            "simulation": {"jobs": 3000, "warmup": 100, "replications": 2},
        }
    )
    for cid in build_grid(cfg).cells:
        ds = evaluate_cell(cfg, cid)
        write_cell(ds, tmp_path / "ours.nc")
        variables = [
            (name, var.dims, _plain(var.values), {**_fill(var.values), **var.attrs})
            for name, var in [*ds.coords.items(), *ds.data_vars.items()]
        ]
        write_cell_netcdf4(tmp_path / "theirs.nc", dict(ds.sizes), variables, dict(ds.attrs))
        assert_same(library_read(tmp_path / "ours.nc"), library_read(tmp_path / "theirs.nc"))
        assert_same(cdf5.read(tmp_path / "ours.nc"), library_read(tmp_path / "ours.nc"))
        a, b = read_cell(tmp_path / "ours.nc"), read_cell(tmp_path / "theirs.nc")
        assert_same_attrs(a.attrs, b.attrs)
        for name in a.values:
            assert np.array_equal(a.values[name], b.values[name], equal_nan=a.values[name].dtype.kind == "f")


def _plain(values):
    values = np.asarray(values)
    if values.dtype.kind in "OU":
        return np.array([str(x) for x in values.ravel()], dtype=str).reshape(values.shape)
    return values


def _fill(values):
    return {"_FillValue": np.float64(np.nan)} if np.asarray(values).dtype.kind == "f" else {}


def test_a_damaged_file_is_refused_with_a_value_error(tmp_path):
    """Bytes changed or cut anywhere: the codec reads the file or raises ValueError (the
    archive's refusals name it; read_cell then lets the library try), never another
    error and never a hang."""
    path = tmp_path / "cell.nc"
    cdf5.write(path, CORNERS["dims"], CORNERS["variables"], CORNERS["attrs"])
    good = path.read_bytes()
    rng = np.random.default_rng(5)
    damaged = [good[:cut] for cut in range(4, len(good), 7)]
    for _ in range(300):
        data = bytearray(good)
        for at in rng.integers(4, len(good), size=rng.integers(1, 4)):
            data[at] = int(rng.integers(256))
        damaged.append(bytes(data))
    for data in damaged:
        path.write_bytes(data)
        try:
            cdf5.read(path)
        except ValueError:
            pass
