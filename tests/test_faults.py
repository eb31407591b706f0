"""Damaged files are recomputed, never trusted: a cell file changed by one byte or cut
short, a replication store cut short, temporary files a killed job left behind."""

import shutil

import pytest
import xarray as xr
import yaml
from runs import snakemake

from straggler import files
from straggler.simulation.statistics import new_accumulator
from straggler.simulation.store import Replications, Store

STUDY = {
    "study": "faults",
    "seed": 11,
    "grid": {
        "policy": ["ZRed", "FRed"],
        "distribution": ["exp"],
        "dependence": ["identical", "iid"],
        "r_slow": [0.5],
        "N": [10],
    },
    "load": [0.2, 0.4],
    "distributions": {"exp": {"family": "exponential", "mean": 10}},
    "evaluate": ["analytic"],
}
VOLATILE = ("created",)
"""Attributes that say when the dataset was written, not what it holds."""


def test_a_checksummed_file_is_trusted_only_while_it_matches(tmp_path):
    path = tmp_path / "cell.nc"
    files.write_checksummed(path, lambda tmp: tmp.write_bytes(b"abc" * 1000))
    assert files.damage(path) == ""
    data = bytearray(path.read_bytes())
    data[100] ^= 1
    path.write_bytes(bytes(data))
    assert "does not match" in files.damage(path)
    path.write_bytes(b"abc")
    assert "does not match" in files.damage(path)
    files.checksum_path(path).unlink()
    assert "no checksum" in files.damage(path)
    files.discard(path)
    assert not path.exists() and files.damage(path) == ""


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "out.txt"
    files.write_text(path, "old")

    def fail(tmp):
        tmp.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError):
        files.atomic_write(path, fail)
    assert path.read_text() == "old"
    assert list(tmp_path.iterdir()) == [path]
    stale = tmp_path / "sub" / ".cell.nc.4242.tmp"
    stale.parent.mkdir()
    stale.write_text("left by a killed job")
    assert files.sweep_temporaries([tmp_path]) == [stale] and not stale.exists()


def test_a_truncated_replication_store_is_simulated_again(tmp_path, caplog):
    store = Store(tmp_path, "cell@0")
    store.write_named(0.5, None, "extended-100", Replications.of([0, 1], [new_accumulator(), new_accumulator()], 100))
    assert store.read_named(0.5, None, "extended-100") is not None
    (path,) = tmp_path.rglob("*.npz")
    path.write_bytes(path.read_bytes()[:50])
    with caplog.at_level("WARNING"):
        assert store.read_named(0.5, None, "extended-100") is None
    assert "unreadable" in caplog.text and path.name in caplog.text


def _run(workdir):
    configfile = workdir / "faults.yaml"
    configfile.write_text(yaml.safe_dump(STUDY))
    run = snakemake(workdir, configfile, "--cores", "2")
    assert run.returncode == 0, run.stderr[-4000:]
    with xr.open_dataset(workdir / "results" / "faults" / "faults.nc") as ds:
        return run, ds.load()


def _same(a: xr.Dataset, b: xr.Dataset) -> None:
    xr.testing.assert_identical(a.drop_attrs(deep=False), b.drop_attrs(deep=False))
    assert {k: v for k, v in a.attrs.items() if k not in VOLATILE} == {
        k: v for k, v in b.attrs.items() if k not in VOLATILE
    }


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    """A clean run's working folder and dataset."""
    workdir = tmp_path_factory.mktemp("clean")
    return workdir, _run(workdir)[1]


@pytest.mark.workflow
@pytest.mark.parametrize("fault", ["flipped byte", "truncated", "no checksum"])
def test_a_damaged_cell_file_is_recomputed_and_the_dataset_is_a_clean_runs(clean, tmp_path, fault):
    workdir = tmp_path / "study"
    shutil.copytree(clean[0], workdir)
    cell = sorted((workdir / "results" / "faults" / "cells").glob("*.nc"))[0]
    data = bytearray(cell.read_bytes())
    if fault == "flipped byte":
        data[len(data) // 2] ^= 0x40
        cell.write_bytes(bytes(data))
    elif fault == "truncated":
        cell.write_bytes(bytes(data[: len(data) // 3]))
    else:
        files.checksum_path(cell).unlink()
    stale = cell.with_name(f".{cell.name}.999999.tmp")
    stale.write_bytes(b"left by a killed job")
    run, repaired = _run(workdir)
    assert cell.name in run.stderr and "computed again" in run.stderr
    assert files.damage(cell) == ""
    assert not stale.exists()
    _same(repaired, clean[1])
