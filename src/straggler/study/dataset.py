"""The study dataset (docs/background/contracts.md, "The dataset"): per-cell files and their aggregate.

The variables and their attributes are :mod:`.variables`; the provenance
attributes (versions, commit, hashes) are :mod:`.provenance`.

Every variable carries CF attributes ``long_name`` and ``units``; provenance goes
into global attributes as strings (netCDF attributes cannot hold dicts, None or
bools, so structured values are JSON). Files are written to a temporary name and
renamed, so an interrupted run never leaves a partial file behind.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import xarray as xr

from ..common import cdf5
from ..common.files import atomic_write, write_checksummed
from .grid import Grid
from .variables import COORD_ATTRS, LOAD_BASIS_ATTRS, QUANTILES, VARIABLES, Variable


def _fill(var: Variable, shape) -> np.ndarray:
    if var.kind == "str":
        return np.full(shape, "", dtype=object)
    return np.full(shape, math.nan)


def _annotate(ds: xr.Dataset) -> xr.Dataset:
    for var in VARIABLES:
        if var.name in ds:
            ds[var.name].attrs.update(long_name=var.long_name, units=var.units)
    for name, (long_name, units) in COORD_ATTRS.items():
        if name in ds.coords:
            ds[name].attrs.update(long_name=long_name, units=units)
    for coord in ds.coords:
        if "long_name" not in ds[coord].attrs:
            ds[coord].attrs.update(long_name=f"swept parameter {coord}", units="1")
    basis = ds.attrs.get("load_basis", "nominal")
    if basis != "nominal":
        long_name, units = LOAD_BASIS_ATTRS[basis]
        ds["load"].attrs.update(long_name=long_name)
        for name in ("lambda_max", "lambda_sufficient"):
            if name in ds:
                ds[name].attrs.update(units=units)
    return ds


def cell_dataset(loads, values: dict, attrs: dict) -> xr.Dataset:
    """A cell's results on dims (load, quantile, replication); absent variables are NaN / ''."""
    loads = np.asarray(loads, dtype=float)
    replications = max(
        [
            np.shape(values[v.name])[v.dims.index("replication")]
            for v in VARIABLES
            if "replication" in v.dims and values.get(v.name) is not None
        ]
        + [1]
    )
    sizes = {"load": len(loads), "quantile": len(QUANTILES), "replication": replications}
    data = {}
    for var in VARIABLES:
        shape = tuple(sizes[d] for d in var.dims)
        array = _fill(var, shape)
        if var.name in values and values[var.name] is not None:
            given = np.asarray(values[var.name])
            array[tuple(slice(0, n) for n in given.shape)] = given
        data[var.name] = (var.dims, array)
    coords = {"load": loads, "quantile": list(QUANTILES), "replication": np.arange(replications)}
    ds = xr.Dataset(data, coords=coords)
    ds.attrs.update({k: _attr(v) for k, v in attrs.items()})
    return _annotate(ds)


def _attr(value):
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return value
    return json.dumps(value, sort_keys=True, default=str)


@dataclass
class CellRecord:
    """A cell file's variables and attributes, read without xarray (three times
    faster: a study of 10^3 cells is assembled from 10^3 files)."""

    values: dict
    attrs: dict

    def __getitem__(self, name: str):
        return _Values(self.values[name])


@dataclass
class _Values:
    values: np.ndarray


def read_cell(path) -> CellRecord:
    """The variables (:data:`VARIABLES` and ``load``) and attributes of a cell file:
    read with numpy (:mod:`straggler.common.cdf5`) when it is the cell format, else with the
    netCDF4 library (the same values either way)."""
    names = [v.name for v in VARIABLES] + ["load"]
    try:
        content = cdf5.read(path)
    except ValueError:  # the library's reading, and its error, for a file the codec cannot parse
        content = None
    if content is not None:
        variables, attrs, _ = content
        values = {name: variables[name] for name in names if name in variables}
    else:
        import netCDF4

        with netCDF4.Dataset(path) as nc:
            nc.set_auto_mask(False)
            values = {name: np.asarray(nc.variables[name][...]) for name in names if name in nc.variables}
            attrs = {k: nc.getncattr(k) for k in nc.ncattrs()}
    values = {name: data.astype(object) if data.dtype.kind in "OSU" else data for name, data in values.items()}
    return CellRecord(values, attrs)


def aggregate(grid: Grid, cell_datasets: dict, attrs: dict) -> xr.Dataset:
    """Assemble the study dataset: every grid point takes its cell's values
    (repeated along axes the cell ignores); impossible points stay NaN.
    ``cell_datasets`` maps cell ids to cell datasets or :class:`CellRecord`."""
    any_cell = next(iter(cell_datasets.values()))
    loads = any_cell["load"].values
    axis_names = list(grid.axes)
    grid_shape = tuple(len(v) for v in grid.axes.values())
    replicated = [v for v in VARIABLES if "replication" in v.dims]
    replications = max(
        [
            np.shape(ds[var.name].values)[var.dims.index("replication")]
            for ds in cell_datasets.values()
            for var in replicated
            if _has(ds, var.name)
        ]
        + [1]
    )
    extra_sizes = {"load": len(loads), "quantile": len(QUANTILES), "replication": replications}
    arrays = {var.name: _fill(var, grid_shape + tuple(extra_sizes[d] for d in var.dims)) for var in VARIABLES}
    index = {name: {v: i for i, v in enumerate(values)} for name, values in grid.axes.items()}
    for point, cid in grid.point_cells.items():
        if cid is None:
            continue
        ds = cell_datasets[cid]
        where = tuple(index[name][value] for name, value in zip(axis_names, point))
        for var in VARIABLES:
            if not _has(ds, var.name):
                continue  # a cell file written before the variable existed
            values = np.asarray(ds[var.name].values)
            if "quantile" in var.dims and values.shape[var.dims.index("quantile")] != len(QUANTILES):
                continue  # written for other quantile levels: their columns are not these
            arrays[var.name][where + tuple(slice(0, n) for n in values.shape)] = values
    data = {var.name: (tuple(axis_names) + var.dims, arrays[var.name]) for var in VARIABLES}
    coords = {name: _coord(values) for name, values in grid.axes.items()}
    coords.update(load=loads, quantile=list(QUANTILES), replication=np.arange(replications))
    out = xr.Dataset(data, coords=coords)
    for var in VARIABLES:
        if var.kind == "str":
            out[var.name] = out[var.name].astype(str)
    out.attrs.update({k: _attr(v) for k, v in attrs.items()})
    notes = {cid: json.loads(ds.attrs.get("notes", "[]")) for cid, ds in cell_datasets.items()}
    out.attrs["cell_notes"] = json.dumps({cid: n for cid, n in notes.items() if n}, sort_keys=True)
    out.attrs["impossible_cells"] = json.dumps(
        [dict(zip(axis_names, map(_jsonable, p)), reason=r) for p, r in grid.impossible.items()]
    )
    return _annotate(out)


def _has(ds, name: str) -> bool:
    """The cell (a dataset or a :class:`CellRecord`) holds the variable ``name``."""
    return name in (ds.values if isinstance(ds, CellRecord) else ds.data_vars)


def _jsonable(value):
    return value.item() if isinstance(value, np.generic) else value


def _coord(values):
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        if all(isinstance(v, int) for v in values):
            return np.asarray(values, dtype=np.int64)
        return np.asarray(values, dtype=float)
    return np.asarray([str(v) for v in values], dtype=object)


def write_netcdf(ds: xr.Dataset, path) -> None:
    """Write atomically (temporary file, then rename), compressed, with no
    inherited fixed-width string encodings (they truncate string coordinates)."""
    ds = ds.drop_encoding()
    encoding = {name: {"zlib": True, "complevel": 4} for name, var in ds.data_vars.items() if var.dtype.kind == "f"}
    with atomic_write(path) as tmp:
        ds.to_netcdf(tmp, engine="netcdf4", encoding=encoding)


CELL_FORMAT: Literal["NETCDF3_64BIT_DATA"] = "NETCDF3_64BIT_DATA"
"""A cell file's format: netCDF's CDF-5 (64-bit sizes and integers, no HDF5), written
and read in half the time of netCDF-4's HDF5 files; a study writes and reads one per
cell. Strings are character arrays with ``_Encoding`` (netCDF's convention: xarray and
netCDF4 read them back as strings)."""


def write_cell(ds: xr.Dataset, path) -> None:
    """Write a cell's dataset atomically, its checksum beside it (:mod:`straggler.common.files`:
    a damaged cell file is recomputed), in :data:`CELL_FORMAT`, with numpy
    (:mod:`straggler.common.cdf5`; the netCDF4 library for content that module does not take):
    the dataset xarray opens is the one written, NaN fill for floats, strings as strings
    (tests/study/test_evaluate.py)."""
    variables = []
    for name, var in [*ds.coords.items(), *ds.data_vars.items()]:
        values = np.asarray(var.values)
        if values.dtype.kind in "OU":
            values = np.array([str(x) for x in values.ravel()], dtype=str).reshape(values.shape)
        fill = {"_FillValue": values.dtype.type(np.nan)} if values.dtype.kind == "f" else {}
        variables.append((name, var.dims, values, {**fill, **var.attrs}))
    dims = {str(name): int(size) for name, size in ds.sizes.items()}
    attrs = dict(ds.attrs)
    if cdf5.writable(dims, variables, attrs):
        with write_checksummed(path) as tmp:
            cdf5.write(tmp, dims, variables, attrs)
    else:
        with write_checksummed(path) as tmp:
            write_cell_netcdf4(tmp, dims, variables, attrs)


def write_cell_netcdf4(tmp, dims: dict, variables: list, attrs: dict) -> None:
    """A cell file through the netCDF4 library (what :func:`write_cell` falls back to,
    and what tests/common/test_cdf5.py holds :mod:`straggler.common.cdf5` against); the arguments
    are :func:`straggler.common.cdf5.write`'s."""
    import netCDF4

    with netCDF4.Dataset(tmp, "w", format=CELL_FORMAT) as nc:
        for dim, size in dims.items():
            nc.createDimension(dim, size)
        for name, var_dims, values, own in variables:
            own = dict(own)
            fill = own.pop("_FillValue", None)
            if values.dtype.kind == "U":
                width = max([len(str(t).encode()) for t in values.ravel()] + [1])
                chars = f"string{width}"
                if chars not in nc.dimensions:
                    nc.createDimension(chars, width)
                v = nc.createVariable(name, "S1", (*var_dims, chars))
                v.setncattr("_Encoding", "utf-8")
                # as characters: the library converts strings of one dimension only
                v.set_auto_chartostring(False)
                encoded = np.ascontiguousarray(np.char.encode(values, "utf-8").astype(f"S{width}"))
                v[...] = encoded.view("S1").reshape(*values.shape, width)
            else:
                v = nc.createVariable(name, values.dtype, var_dims, fill_value=fill)
                v.set_auto_mask(False)
                v[...] = values
            v.setncatts(own)
        nc.setncatts(attrs)
