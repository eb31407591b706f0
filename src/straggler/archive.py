"""Archived result sets: ``straggler archive STUDY`` and ``straggler verify ARCHIVE``.

An archive is one ``.tar.gz`` holding a study's results (the dataset, the
resolved config, the report, the figures and every cell), the code and
environment files that produced them, and ``MANIFEST.json``: the sha256 and size
of every member, the dataset's provenance (config hash, seed, source hash, git
commit, versions) and the installed packages. It is byte-for-byte reproducible
from the same files: members are sorted, owners and times zeroed.

``verify`` checks every member against the manifest (nothing missing, nothing
added, nothing altered) and, with ``--rerun K``, evaluates K cells again from the
archived config with the installed code and compares every variable bit for bit
with the archived cell (the simulation is bitwise reproducible, so any difference
is a change of code, of a dependency, or of the data).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tarfile
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

MANIFEST = "MANIFEST.json"
FORMAT = 1

#: project files archived beside the results (those present), so a result set can be rerun
PROJECT_FILES = ("pyproject.toml", "constraints.txt", "environment.yml", "Snakefile", "Makefile", "README.md")
PROJECT_DIRS = ("src/straggler", "workflow", "config", "profiles")
_SKIP_PARTS = {"__pycache__", ".snakemake"}
_SKIP_RESULTS = ("logs", "sim", "units", "benchmarks")
"""Under results/<study>/: logs, the replication store (a cache of the cells), the work
units' temporary manifests and Snakemake's timings are not part of a result set."""


class ArchiveError(Exception):
    """Refused before anything was written; the message says why."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _result_files(results: Path) -> list[Path]:
    return sorted(
        p
        for p in results.rglob("*")
        if p.is_file()
        and not p.name.startswith(".")
        and p.relative_to(results).parts[0] not in _SKIP_RESULTS
        and not (_SKIP_PARTS & set(p.parts))
    )


def _project_files(root: Path) -> list[Path]:
    files = [root / f for f in PROJECT_FILES if (root / f).is_file()]
    for d in PROJECT_DIRS:
        base = root / d
        if base.is_dir():
            files += sorted(
                p
                for p in base.rglob("*")
                if p.is_file() and not (_SKIP_PARTS & set(p.parts)) and p.suffix not in (".pyc", ".nbi", ".nbc")
            )
    return files


def _installed_packages() -> dict[str, str]:
    return dict(sorted({(d.metadata["Name"] or "?").lower(): d.version for d in metadata.distributions()}.items()))


def default_output(study: str, archives: Path = Path("archives")) -> Path:
    return archives / f"{study}.tar.gz"


def create(
    study: str,
    results_root: Path = Path("results"),
    project_root: Path = Path("."),
    output: Path | None = None,
    force: bool = False,
) -> Path:
    """Write the archive of ``results/<study>`` atomically and return its path."""
    results = Path(results_root) / study
    dataset_path = results / f"{study}.nc"
    config_path = results / "config.yaml"
    for path in (dataset_path, config_path):
        if not path.is_file():
            raise ArchiveError(
                f"study {study!r}: {path} is missing; run the study first "
                f"(snakemake --cores all --configfile config/studies/{study}.yaml)"
            )
    output = Path(output) if output else default_output(study)
    if output.exists() and not force:
        raise ArchiveError(f"{output} exists; pass --force to replace it or --output to choose another path")
    provenance = _global_attributes(dataset_path)
    prefix = f"{study}"
    members: dict[str, bytes] = {}
    for path in _result_files(results):
        members[f"{prefix}/results/{path.relative_to(results).as_posix()}"] = path.read_bytes()
    root = Path(project_root)
    for path in _project_files(root):
        members[f"{prefix}/project/{path.relative_to(root).as_posix()}"] = path.read_bytes()
    manifest = {
        "format": FORMAT,
        "study": study,
        "provenance": provenance,
        "packages": _installed_packages(),
        "files": {name: {"sha256": _sha256(data), "size": len(data)} for name, data in sorted(members.items())},
    }
    members[f"{prefix}/{MANIFEST}"] = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(f".{output.name}.{os.getpid()}.tmp")
    try:
        with (
            open(tmp, "wb") as raw,
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as gz,
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
        ):
            for name in sorted(members):
                data = members[name]
                info = tarfile.TarInfo(name)
                info.size, info.mtime, info.mode = len(data), 0, 0o644
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                tar.addfile(info, io.BytesIO(data))
        os.replace(tmp, output)
    finally:
        if tmp.exists():
            tmp.unlink()
    return output


def _global_attributes(path: Path) -> dict:
    """The dataset's provenance attributes. Read with netCDF4 directly: closing an
    xarray handle closes the file that xarray's cache shares with any other open
    handle on the same path (a caller's), which then crashes HDF5 on next use."""
    import netCDF4

    with netCDF4.Dataset(path) as nc:
        return {
            k: (v.item() if hasattr(v, "item") else v)
            for k in nc.ncattrs()
            if k not in ("config", "cell_notes", "impossible_cells")
            for v in [nc.getncattr(k)]
        }


@dataclass
class Verdict:
    ok: bool = True
    lines: list[str] = field(default_factory=list)

    def fail(self, line: str) -> None:
        self.ok = False
        self.lines.append(f"FAIL {line}")

    def note(self, line: str) -> None:
        self.lines.append(line)


def _read_members(path: Path) -> dict[str, bytes]:
    try:
        with tarfile.open(path, "r:gz") as tar:
            out = {}
            for info in tar.getmembers():
                if not info.isfile():
                    raise ArchiveError(f"{path}: member {info.name!r} is not a regular file")
                out[info.name] = tar.extractfile(info).read()
            return out
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ArchiveError(f"{path}: not a readable .tar.gz archive ({exc})") from None


def verify(path, rerun: int = 0, verdict: Verdict | None = None) -> Verdict:
    """Check an archive against its manifest; rerun ``rerun`` cells and compare."""
    path = Path(path)
    verdict = verdict or Verdict()
    members = _read_members(path)
    manifests = [n for n in members if n.count("/") == 1 and n.endswith("/" + MANIFEST)]
    if len(manifests) != 1:
        raise ArchiveError(f"{path}: expected one <study>/{MANIFEST}, found {len(manifests)}")
    manifest = json.loads(members.pop(manifests[0]))
    files = manifest["files"]
    for name in sorted(set(files) - set(members)):
        verdict.fail(f"missing: {name}")
    for name in sorted(set(members) - set(files)):
        verdict.fail(f"not in the manifest: {name}")
    bad = [
        n
        for n in sorted(set(files) & set(members))
        if _sha256(members[n]) != files[n]["sha256"] or len(members[n]) != files[n]["size"]
    ]
    for name in bad:
        verdict.fail(f"altered: {name}")
    verdict.note(f"{len(files) - len(bad)} of {len(files)} files match the manifest")
    if rerun > 0:
        _rerun(manifest, members, rerun, verdict)
    return verdict


def _rerun(manifest: dict, members: dict[str, bytes], count: int, verdict: Verdict) -> None:
    import numpy as np
    import yaml

    from .config import resolve_config
    from .evaluate import evaluate_cell
    from .sources import model_hash

    study = manifest["study"]
    prefix = f"{study}/results/"
    archived = manifest["provenance"].get("source_hash", "?")
    if archived != model_hash():
        verdict.note(
            f"the installed code (source {model_hash()}) differs from the archived "
            f"run's ({archived}): a difference below may come from that"
        )
    resolved = resolve_config(yaml.safe_load(members[prefix + "config.yaml"]))
    cells = sorted(n for n in members if n.startswith(prefix + "cells/") and n.endswith(".nc"))
    if not cells:
        verdict.fail("no cells in the archive to rerun")
        return
    # K cells spread evenly over the sorted ids: deterministic, and covering the grid
    picks = sorted({cells[int(i)] for i in np.linspace(0, len(cells) - 1, min(count, len(cells)))})
    for name in picks:
        # cells/<cell id>@<hash of its spec and code>.nc
        cell_id = name[len(prefix + "cells/") : -len(".nc")].rpartition("@")[0]
        with _open_bytes(members[name]) as old:
            new = evaluate_cell(resolved, cell_id)
            diffs = [v for v in old.data_vars if v not in new or not same_values(old[v], new[v])]
            diffs += [v for v in new.data_vars if v not in old]
        if diffs:
            verdict.fail(f"rerun {cell_id}: differs in {', '.join(sorted(set(diffs)))}")
        else:
            verdict.note(f"rerun {cell_id}: identical")


def _open_bytes(data: bytes):
    """Open netCDF bytes with the netCDF4 engine (it needs a file)."""
    import tempfile

    import xarray as xr

    tmp = tempfile.NamedTemporaryFile(suffix=".nc", delete=False)
    try:
        tmp.write(data)
        tmp.close()
        ds = xr.open_dataset(tmp.name, engine="netcdf4").load()
    finally:
        os.unlink(tmp.name)
    return ds


def same_values(a, b) -> bool:
    """Two variables hold the same values: floats bit for bit with NaN equal to NaN,
    anything else compared as strings."""
    import numpy as np

    a, b = np.asarray(a.values), np.asarray(b.values)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a.astype(str), b.astype(str)))
