"""Damaged files are recomputed, never trusted: a cell file changed by one byte or cut
short, a replication store cut short, temporary files a killed job left behind."""

import pytest
import xarray as xr
import yaml
from runs import snakemake

from straggler.common import files
from straggler.engines.simulation.statistics import new_accumulator
from straggler.engines.simulation.store import Replications, Store

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
    with files.write_checksummed(path) as tmp:
        tmp.write_bytes(b"abc" * 1000)
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

    with pytest.raises(OSError), files.atomic_write(path) as tmp:
        tmp.write_text("half")
        raise OSError("disk full")
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


@pytest.mark.workflow
def test_damaged_cell_files_are_recomputed_and_the_dataset_is_a_clean_runs(tmp_path):
    """One cell file changed by a byte, one cut short, one without its checksum, and a
    temporary file a killed job left: the next run removes and recomputes the three
    cells, sweeps the temporary file, and its dataset is the clean run's."""
    _, clean = _run(tmp_path)
    cells = sorted((tmp_path / "results" / "faults" / "cells").glob("*.nc"))[:3]
    flipped, truncated, unchecked = cells
    data = bytearray(flipped.read_bytes())
    data[len(data) // 2] ^= 0x40
    flipped.write_bytes(bytes(data))
    truncated.write_bytes(truncated.read_bytes()[: truncated.stat().st_size // 3])
    files.checksum_path(unchecked).unlink()
    stale = flipped.with_name(f".{flipped.name}.999999.tmp")
    stale.write_bytes(b"left by a killed job")
    run, repaired = _run(tmp_path)
    for cell in cells:
        assert cell.name in run.stderr and files.damage(cell) == ""
    assert run.stderr.count("computed again") == 3
    assert not stale.exists()
    _same(repaired, clean)


def test_the_previous_file_comes_back_where_a_rebuild_removed_it(tmp_path):
    path = tmp_path / "study.nc"
    files.write_text(path, "the previous dataset")
    files.keep_previous(path)
    assert not files.restore_previous(path)  # still there: nothing to do
    path.unlink()  # what Snakemake does before it runs the aggregate again
    assert files.restore_previous(path) and path.read_text() == "the previous dataset"
    files.write_text(path, "a new dataset")
    files.keep_previous(path)
    path.unlink()
    assert files.restore_previous(path) and path.read_text() == "a new dataset"
