"""straggler archive / verify: a whole result set verifies; every tampered or malformed
archive is refused in one line, exit 1, no traceback, nothing written."""

import copy
import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tracemalloc
from pathlib import Path

import pytest
import xarray as xr
import yaml

from straggler.cli import main
from straggler.outputs import archive

ROOT = Path(__file__).resolve().parents[2]

MINI = {
    "study": "mini",
    "seed": 3,
    "grid": {
        "policy": ["ZRed", "KT", "CoC"],
        "distribution": ["exp"],
        "dependence": ["iid"],
        "r_slow": [0.5, 1.0],
        "d": [2, 8],  # d = 8 > N: impossible points for CoC, recorded in the dataset
        "N": [4],
    },
    "load": [0.3, 0.6],
    "distributions": {"exp": {"family": "exponential", "mean": 1}},
    "evaluate": ["analytic"],
}
"""Six analytic cells: a result set in about two seconds."""

CELLS = 6


def build_results(root: Path, config: dict = MINI) -> Path:
    """results/<study> (mini) as the workflow makes it (workflow/rules/common.smk and the
    evaluate and aggregate rules), without Snakemake."""
    from straggler.common.sources import model_hash
    from straggler.run.pipeline import aggregate, evaluate_batch
    from straggler.study.config import dump_config, resolve_config
    from straggler.study.grid import build_grid, result_config
    from straggler.study.workunits import plan

    resolved = resolve_config(config)
    grid = build_grid(resolved)
    work = plan(resolved, grid, model_hash())
    results = root / resolved.study
    text = dump_config(resolved)
    evaluate_batch(text, list(grid.cells), [work.keys[c] for c in grid.cells], results, results / "units" / "u.json")
    paths = [work.cell_path(str(results), c) for c in grid.cells]
    out = results / f"{resolved.study}.nc"
    aggregate(text, paths, out, results / "config.yaml", dump_config(result_config(resolved)))
    return root


@pytest.fixture(scope="module")
def results_root(tmp_path_factory):
    return build_results(tmp_path_factory.mktemp("results"))


@pytest.fixture(scope="module")
def good(results_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("archives") / "mini.tar.gz"
    return archive.create("mini", results_root=results_root, project_root=ROOT, output=out)


@pytest.fixture
def quiet_tmp(tmp_path, monkeypatch):
    """Temporary files go to a folder of the test's, to show that none is left."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


# ---------------------------------------------------------------- archive helpers


def members(path: Path) -> list[tuple[tarfile.TarInfo, bytes]]:
    with tarfile.open(path) as tar:
        return [(info, tar.extractfile(info).read() if info.isfile() else b"") for info in tar.getmembers()]


def write(path: Path, items: list[tuple[tarfile.TarInfo, bytes]]) -> Path:
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for given, data in items:
            # a fresh header: a read one keeps its name in its PAX headers, whatever .name says
            info = tarfile.TarInfo(given.name)
            info.type, info.linkname = given.type, given.linkname
            if info.isfile():
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return path


def entry(data: bytes) -> dict:
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def restamp(items: list[tuple[tarfile.TarInfo, bytes]]) -> list[tuple[tarfile.TarInfo, bytes]]:
    """What a careful forger does: the manifest made to match the members."""
    (info, data), rest = items[0], items[1:]
    manifest = json.loads(data)
    manifest["files"] = {i.name: entry(d) for i, d in rest if i.isfile()}
    return [(info, json.dumps(manifest).encode()), *rest]


def edited(good: Path, tmp_path: Path, name: str, change) -> Path:
    """``good`` with member ``name``'s bytes replaced by ``change(bytes)`` (None
    removes it), the manifest restamped."""
    items = []
    for info, data in members(good):
        if info.name == name:
            data = change(data)
        if data is not None:
            items.append((info, data))
    return write(tmp_path / "edited.tar.gz", restamp(items))


def handmade(path: Path, manifest, files: dict[str, bytes] | None = None) -> Path:
    """An archive of study 's': ``manifest`` (an object, or raw bytes) first, then ``files``."""
    raw = manifest if isinstance(manifest, bytes) else json.dumps(manifest).encode()
    rest = [(tarfile.TarInfo(n), d) for n, d in (files or {}).items()]
    return write(path, [(tarfile.TarInfo(f"s/{archive.MANIFEST}"), raw), *rest])


def plain_manifest(files: dict[str, bytes]) -> dict:
    return {"format": 1, "study": "s", "files": {n: entry(d) for n, d in files.items()}}


def netcdf_edit(change):
    """A change of a netCDF member: ``change(dataset)`` on the decoded dataset, written back."""

    def edit(data: bytes) -> bytes:
        from straggler.study.dataset import write_netcdf

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "x.nc"
            path.write_bytes(data)
            with xr.open_dataset(path, engine="netcdf4") as ds:
                ds = ds.load()
            change(ds)
            write_netcdf(ds, path)
            return path.read_bytes()

    return edit


def refused(path: Path, capsys, *args) -> str:
    """``straggler verify`` on ``path``: exit 1, one line naming the problem (a refusal
    on stderr, or the one FAIL line of a verdict), no traceback."""
    code = main(["verify", str(path), *args])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in out + err
    if err:
        assert not out and len(err.splitlines()) == 1, err
        return err.strip()
    fails = [line for line in out.splitlines() if line.startswith("FAIL ")]
    assert len(fails) == 1 and out.splitlines()[-1] == "FAILED", out
    return fails[0]


# ---------------------------------------------------------------- a whole result set


def test_a_whole_result_set_verifies_and_reruns(good, capsys, quiet_tmp):
    assert main(["verify", str(good), "--rerun", "16"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"mini.nc is the aggregate of its {CELLS} cells, rebuilt and compared bit for bit" in lines
    assert sum(line.endswith(": identical") for line in lines) == CELLS and lines[-1] == "OK"
    assert not any(quiet_tmp.iterdir())


def test_a_result_set_of_another_scale_archives_and_verifies(tmp_path, capsys, quiet_tmp):
    """results/<study>-paper: its config.yaml says `scale: paper` and holds no scales."""
    config = dict(MINI, scale="paper", scales={"paper": {"load": [0.3, 0.6, 0.9]}})
    root = build_results(tmp_path / "results", config)
    out = archive.create("mini-paper", results_root=root, project_root=ROOT, output=tmp_path / "mini-paper.tar.gz")
    assert main(["verify", str(out), "--rerun", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "OK"


def test_the_manifest_comes_first(good):
    assert members(good)[0][0].name == f"mini/{archive.MANIFEST}"


# ---------------------------------------------------------------- a result set proven


def test_a_changed_dataset_with_its_manifest_entry_fails_the_rebuild(good, tmp_path, capsys, quiet_tmp):
    def change(ds):
        ds["rho"][{"policy": 0, "r_slow": 0, "d": 0, "load": 0}] += 1e-12

    forged = edited(good, tmp_path, "mini/results/mini.nc", netcdf_edit(change))
    line = refused(forged, capsys, "--rerun", "16")
    assert line == "FAIL mini.nc is not the aggregate of its cells: it differs in rho"
    assert not any(quiet_tmp.iterdir())


def test_a_changed_provenance_attribute_fails_the_rebuild(good, tmp_path, capsys):
    forged = edited(good, tmp_path, "mini/results/mini.nc", netcdf_edit(lambda ds: ds.attrs.update(seed=4)))
    assert refused(forged, capsys).endswith("it differs in attribute seed")


def test_the_creation_time_is_not_compared(good, tmp_path, capsys):
    """``created`` is when the aggregation ran: a rebuild cannot reproduce it."""
    forged = edited(good, tmp_path, "mini/results/mini.nc", netcdf_edit(lambda ds: ds.attrs.update(created="1999")))
    assert main(["verify", str(forged)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "OK"


def test_every_provenance_attribute_is_compared_or_said_machine_dependent():
    """A new provenance attribute must be placed: one a rebuild reproduces, or one of
    archive.MACHINE_ATTRS (a rebuild elsewhere, later, would differ in it)."""
    from straggler.study.config import dump_config, resolve_config
    from straggler.study.provenance import provenance

    resolved = resolve_config(MINI)
    reproduced = set(provenance(resolved, dump_config(resolved))) - archive.MACHINE_ATTRS
    assert reproduced == {
        "study",
        "config",
        "config_sha256",
        "seed",
        "common_random_numbers",
        "load_basis",
        "time_unit",
        "data_files",
        "Conventions",
    }


def cell_name(good: Path, index: int = 0) -> str:
    return sorted(i.name for i, _ in members(good) if "/cells/" in i.name)[index]


def test_a_removed_cell_with_its_manifest_entry_is_an_incomplete_result_set(good, tmp_path, capsys):
    name = cell_name(good)
    forged = edited(good, tmp_path, name, lambda data: None)
    cell = name.rpartition("/")[2].rpartition("@")[0]
    assert refused(forged, capsys) == f"FAIL 1 of the {CELLS} cells of the config's grid have no file: {cell}"


def test_a_cell_under_another_code_hash_is_not_the_cell_of_the_result_set(good, tmp_path, capsys):
    name = cell_name(good)
    items = [(copy.copy(i), d) for i, d in members(good)]
    for info, _ in items:
        if info.name == name:
            info.name = name.rpartition("@")[0] + "@000000000000.nc"
    line = refused(write(tmp_path / "renamed.tar.gz", restamp(items)), capsys)
    assert line.startswith("FAIL cells/") and "is not the file of its cell for this config and the code" in line


def test_a_cell_that_is_not_a_cell_file_is_refused_naming_it(good, tmp_path, capsys):
    name = cell_name(good)
    forged = edited(good, tmp_path, name, lambda data: b"not netCDF")
    assert refused(forged, capsys).startswith(f"FAIL {name.partition('/results/')[2]}: ")


# ---------------------------------------------------------------- members refused unread


def test_a_duplicate_member_is_refused(good, tmp_path, capsys):
    """The tampered copy first: a reader keeping the first copy would see it."""
    items = members(good)
    name = "mini/results/config.yaml"
    original = next(d for i, d in items if i.name == name)
    tampered = original.replace(b"seed: 3", b"seed: 4")
    forged = [(i, d) for i, d in items if i.name != name] + [(tarfile.TarInfo(name), tampered)]
    forged.append((tarfile.TarInfo(name), original))
    line = refused(write(tmp_path / "twice.tar.gz", forged), capsys)
    assert line.endswith(f"member {name!r} appears twice")


def special(kind: str, name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
        info.linkname = "/etc/passwd"
    return info


@pytest.mark.parametrize(
    "kind, what",
    [
        (tarfile.SYMTYPE, "a symbolic link to '/etc/passwd'"),
        (tarfile.LNKTYPE, "a hard link to '/etc/passwd'"),
        (tarfile.DIRTYPE, "a directory"),
        (tarfile.CHRTYPE, "a character device"),
        (tarfile.BLKTYPE, "a block device"),
        (tarfile.FIFOTYPE, "a FIFO"),
    ],
)
def test_a_member_that_is_not_a_plain_file_is_refused(tmp_path, capsys, kind, what):
    data = {"s/results/figures/a.png": b"png"}
    path = tmp_path / "special.tar.gz"
    handmade(path, plain_manifest(data))
    items = members(path)[:1] + [(special(kind, "s/results/figures/a.png"), b"")]
    line = refused(write(path, items), capsys)
    assert line.endswith(f"member 's/results/figures/a.png' is {what}, not a plain file")


def test_a_member_larger_than_its_manifest_entry_is_refused_unread(tmp_path, capsys):
    """Its header says 2.5 GiB, and no data follows: reading it would fail otherwise
    (or, in a real gzip bomb, fill the memory)."""
    path = tmp_path / "bomb.tar.gz"
    header = tarfile.TarInfo("s/project/bomb")
    header.size = 5 << 29
    manifest = json.dumps(plain_manifest({"s/project/bomb": b"small"})).encode()
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo(f"s/{archive.MANIFEST}")
        info.size = len(manifest)
        tar.addfile(info, io.BytesIO(manifest))
        tar.fileobj.write(header.tobuf(tarfile.PAX_FORMAT))
        tar.fileobj.write(b"\0" * 512)
    assert refused(path, capsys) == "FAIL altered: s/project/bomb"
    note = f"s/project/bomb ({5 << 29} bytes by its header, more than the 5 of the manifest) and the members after"
    assert any(line.startswith(note) for line in archive.verify(path).lines)


def test_members_are_hashed_a_chunk_at_a_time(tmp_path):
    """A 64 MiB member (64 kB compressed) verifies without being held in memory."""
    big = bytes(64 << 20)
    path = handmade(tmp_path / "big.tar.gz", plain_manifest({"s/project/big": big}), {"s/project/big": big})
    del big
    tracemalloc.start()
    try:
        verdict = archive.verify(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "1 of 1 files match the manifest" in verdict.lines
    assert peak < 16 << 20  # a quarter of the member (imports included)


def test_a_member_not_in_the_manifest_is_refused(tmp_path, capsys):
    path = handmade(tmp_path / "extra.tar.gz", plain_manifest({}), {"s/project/extra": b"x"})
    assert refused(path, capsys) == "FAIL not in the manifest: s/project/extra"


def test_a_manifest_that_does_not_come_first_is_refused(good, tmp_path, capsys):
    items = members(good)
    line = refused(write(tmp_path / "late.tar.gz", items[1:] + items[:1]), capsys)
    assert "not <study>/MANIFEST.json (the manifest comes first" in line


@pytest.mark.parametrize(
    "manifest, why",
    [
        (b"{not json", "not JSON"),
        (b"[]", "a JSON list, not an object"),
        ({"format": 1, "study": "s"}, "'files' is missing or not a mapping"),
        ({"format": 1, "study": "s", "files": []}, "'files' is missing or not a mapping"),
        ({"format": 1, "study": "s", "files": {"s/a": {"sha256": 1, "size": 1}}}, "the entry of 's/a' is"),
        ({"format": 1, "study": "s", "files": {"s/a": {"sha256": "0" * 64, "size": "1"}}}, "the entry of 's/a' is"),
        ({"format": 1, "study": "s", "files": {"s/a": ["0" * 64, 1]}}, "the entry of 's/a' is"),
        ({"format": 1, "study": "s", "files": {"s/../etc/passwd": entry(b"")}}, "is not a path under s/"),
        ({"format": 1, "study": "t", "files": {}}, "study 't', but its folder is 's'"),
        ({"format": 2, "study": "s", "files": {}}, "format 2, this version reads format 1"),
        ({"format": 1, "study": "s", "files": {}, "provenance": []}, "'provenance' is not a mapping"),
        (b'{"format": 1, "study": "s", "files": {}, "files": {}}', "the key 'files' appears twice"),
        (b"[" * 100000, "not JSON"),
    ],
)
def test_a_malformed_manifest_is_one_line(tmp_path, capsys, quiet_tmp, manifest, why):
    line = refused(handmade(tmp_path / "bad.tar.gz", manifest), capsys)
    assert line.startswith(f"straggler verify: {tmp_path / 'bad.tar.gz'}: malformed s/MANIFEST.json: ") and why in line
    assert not any(quiet_tmp.iterdir())


def test_what_is_not_a_tar_gz_is_refused(good, tmp_path, capsys):
    (tmp_path / "text.tar.gz").write_text("hello")
    assert "not a readable .tar.gz archive" in refused(tmp_path / "text.tar.gz", capsys)
    (tmp_path / "cut.tar.gz").write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    assert "not a readable .tar.gz archive" in refused(tmp_path / "cut.tar.gz", capsys)
    assert "not a readable .tar.gz archive" in refused(tmp_path / "absent.tar.gz", capsys)


# ---------------------------------------------------------------- archive refuses


@pytest.fixture
def results_copy(results_root, tmp_path):
    shutil.copytree(results_root, tmp_path / "results", symlinks=True)
    return tmp_path / "results"


def test_archive_refuses_a_symbolic_link_under_results(results_copy, tmp_path, capsys):
    link = results_copy / "mini" / "figures" / "hosts.png"
    link.parent.mkdir()
    link.symlink_to("/etc/hosts")
    out = tmp_path / "out.tar.gz"
    assert main(["archive", "mini", "--results", str(results_copy), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert (
        err == f"straggler archive: {link} is a symbolic link (to /etc/hosts): " + err.partition("(to /etc/hosts): ")[2]
    )
    assert len(err.splitlines()) == 1 and not out.exists()


def test_archive_refuses_an_incomplete_result_set(results_copy, tmp_path, capsys):
    cell = sorted((results_copy / "mini" / "cells").iterdir())[0]
    cell.unlink()
    out = tmp_path / "out.tar.gz"
    assert main(["archive", "mini", "--results", str(results_copy), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "is not a whole result set: 1 of the 6 cells of the config's grid have no file" in err
    assert len(err.splitlines()) == 1 and not out.exists()


# ---------------------------------------------------------------- end to end


@pytest.mark.workflow
def test_snakemake_archive_makes_an_archive_that_verifies(tmp_path):
    configfile = tmp_path / "mini.yaml"
    configfile.write_text(yaml.safe_dump(MINI))
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    command = [snakemake, "--snakefile", str(ROOT / "workflow" / "Snakefile"), "--directory", str(tmp_path)]
    run = subprocess.run(
        [*command, "--configfile", str(configfile), "--cores", "2", "archive"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    names = [info.name for info, _ in members(tmp_path / "archives" / "mini.tar.gz")]
    assert "mini/project/src/straggler/outputs/archive.py" in names  # the Snakefile's project, not the work directory's
    assert "mini/project/workflow/Snakefile" in names
    straggler = str(Path(sys.executable).with_name("straggler"))
    run = subprocess.run(
        [straggler, "verify", str(tmp_path / "archives" / "mini.tar.gz"), "--rerun", "2"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and run.stdout.splitlines()[-1] == "OK", run.stdout + run.stderr


def test_archive_while_a_caller_holds_the_dataset_open(results_root, tmp_path):
    """netCDF4 crashes reading strings of a file another handle holds open: the proof
    reads a private copy."""
    with xr.open_dataset(results_root / "mini" / "mini.nc", engine="netcdf4") as ds:
        ds.load()
        out = archive.create("mini", results_root=results_root, project_root=ROOT, output=tmp_path / "a.tar.gz")
        assert archive.create("mini", results_root=results_root, output=out, force=True) == out
        assert float(ds["rho"].max()) > 0


def test_the_git_commit_names_the_package_checkout_from_any_working_directory(tmp_path, monkeypatch):
    # a study run with `snakemake --directory` outside the checkout (as CI runs the tiny
    # study) records the commit of the code that ran, not "unknown"
    import subprocess
    from pathlib import Path

    from straggler.study.provenance import git_commit

    checkout = Path(__file__).resolve().parents[2]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("the tests do not run from a git checkout")
    monkeypatch.chdir(tmp_path)
    assert git_commit().removesuffix("-dirty") == head.stdout.strip()


# ---------------------------------------------------------------- a measured trace


def test_the_trace_a_study_read_is_archived_and_verified(tmp_path, capsys, quiet_tmp):
    """A study whose law is read from a file: the archive holds the file, the manifest says
    which law it is and the digest the study ran with, verify checks both; a trace changed
    since the run is refused, and so is a forged one, even with its manifest entry."""
    trace = tmp_path / "trace.txt"
    trace.write_text("".join(f"{v}\n" for v in (0.2, 0.5, 0.9, 1.4, 2.0, 3.5)))
    config = dict(MINI, study="mini-trace", distributions={"exp": {"family": "empirical", "file": str(trace)}})
    root = build_results(tmp_path / "results", config)
    out = archive.create("mini-trace", results_root=root, project_root=ROOT, output=tmp_path / "t.tar.gz")
    manifest = json.loads(members(out)[0][1])
    member = f"mini-trace/data/exp/{trace.name}"
    assert manifest["data_files"]["exp"] == {
        "law": "exp",
        "path": str(trace),
        "digest": "sha256:" + hashlib.sha256(trace.read_bytes()).hexdigest(),
        "member": member,
    }
    assert dict((i.name, d) for i, d in members(out))[member] == trace.read_bytes()
    moved = trace.rename(tmp_path / "elsewhere.txt")  # verified from the archive's copy alone
    assert main(["verify", str(out), "--rerun", "1"]) == 0
    printed = capsys.readouterr().out
    assert "1 data file(s) of the study's laws, each the content it ran with" in printed
    assert printed.splitlines()[-1] == "OK"
    moved.rename(trace)

    forged = edited(out, tmp_path, member, lambda data: data.replace(b"3.5", b"9.5"))
    assert main(["verify", str(forged)]) == 1
    assert f"the data file of law 'exp' ({member}) is not the content the study ran with" in capsys.readouterr().out

    trace.write_text("1\n2\n")  # the same path, another content
    with pytest.raises(archive.ArchiveError, match=r"trace\.txt' has changed: its content is sha256:"):
        archive.create("mini-trace", results_root=root, project_root=ROOT, output=tmp_path / "u.tar.gz")


def test_a_csv_trace_inside_a_law_per_type_is_archived_and_verified(tmp_path, capsys, quiet_tmp):
    """A type's law read from a gzip-compressed CSV column inside a law per job type: the
    archive holds the file under ``<law>.laws.<j>``, and verify reads the archive's copy
    as the study read the original (by its suffixes: .csv.gz, a header)."""
    import gzip

    trace = tmp_path / "reads.csv.gz"
    trace.write_bytes(gzip.compress(b"host,ms\n" + b"".join(b"a,%g\n" % v for v in (0.2, 0.5, 0.9, 1.4, 2.0, 3.5))))
    law = {
        "family": "by_type",
        "laws": [
            {"family": "empirical", "file": str(trace), "column": "ms"},
            {"family": "quantiles", "quantiles": {0: 1.0, 0.5: 2.0, 1: 6.0}},
        ],
    }
    config = dict(MINI, study="mini-types", distributions={"exp": law})
    root = build_results(tmp_path / "results", config)
    out = archive.create("mini-types", results_root=root, project_root=ROOT, output=tmp_path / "t.tar.gz")
    manifest = json.loads(members(out)[0][1])
    assert manifest["data_files"]["exp.laws.0"]["member"] == f"mini-types/data/exp.laws.0/{trace.name}"
    moved = trace.rename(tmp_path / "elsewhere.csv.gz")  # verified from the archive's copy alone
    assert main(["verify", str(out), "--rerun", "1"]) == 0
    printed = capsys.readouterr().out
    assert "1 data file(s) of the study's laws, each the content it ran with" in printed
    assert printed.splitlines()[-1] == "OK"
    moved.rename(trace)
