"""Archived result sets: ``straggler archive STUDY`` and ``straggler verify ARCHIVE``.

An archive is one ``.tar.gz`` holding a study's results (the dataset, the
resolved config, the report, the figures and every cell), the code and
environment files that produced them, and ``MANIFEST.json``: the sha256 and size
of every member, the dataset's provenance (config hash, seed, source hash, git
commit, versions) and the installed packages. It is byte-for-byte reproducible
from the same files: members are sorted (the manifest first), owners and times zeroed.

A result set is *whole* when its cells are exactly the files of its config's grid
(every cell, under the name its spec and code give it) and its dataset is what the
pipeline's aggregation of those cells writes, bit for bit. ``archive`` refuses a
result set that is not whole, and any symbolic link under ``results/<study>``.

``verify`` reads the archive once, front to back. It refuses (one line, exit 1) an
archive it cannot read safely: a manifest that is not the first member or is malformed,
a member named twice or that is not a plain file. A member whose size the manifest
does not bound (not listed, or larger by its tar header than listed) fails unread, and
reading stops there: a gzip bomb's member inflates to gigabytes. The others are hashed
a chunk at a time (nothing missing, nothing altered). Then it proves the archived
result set whole and, with ``--rerun K``, evaluates K cells again from the archived
config with the installed code and compares every variable bit for bit with the
archived cell (the simulation is bitwise reproducible, so any difference is a change
of code, of a dependency, or of the data).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import tarfile
import tempfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import yaml

from ..common.files import atomic_write
from ..study.config.errors import ConfigError
from ..study.config.resolved import ResolvedConfig

MANIFEST = "MANIFEST.json"
FORMAT = 1

#: project files archived beside the results (those present), so a result set can be rerun
PROJECT_FILES = ("pyproject.toml", "constraints.txt", "environment.yml", "Makefile", "README.md")
PROJECT_DIRS = ("src/straggler", "workflow", "config", "profiles")
_SKIP_PARTS = {"__pycache__", ".snakemake"}
_SKIP_RESULTS = ("logs", "sim", "units", "benchmarks")
"""Under results/<study>/: logs, the replication store (a cache of the cells), the work
units' temporary manifests and Snakemake's timings are not part of a result set."""

_CHUNK = 1 << 20
"""Members are hashed a chunk at a time: a member's size is bounded only by its
manifest entry, and a forged manifest may list gigabytes."""
_MANIFEST_LIMIT = 64 << 20
"""The largest manifest read (a manifest of 10^5 cells is about 15 MB)."""
_PLAIN = (tarfile.REGTYPE, tarfile.AREGTYPE)
_KINDS = {
    tarfile.SYMTYPE: "a symbolic link",
    tarfile.LNKTYPE: "a hard link",
    tarfile.DIRTYPE: "a directory",
    tarfile.CHRTYPE: "a character device",
    tarfile.BLKTYPE: "a block device",
    tarfile.FIFOTYPE: "a FIFO",
    tarfile.CONTTYPE: "a contiguous file",
    tarfile.GNUTYPE_SPARSE: "a sparse file",
}

MACHINE_ATTRS = frozenset(
    {
        "created",
        "git_commit",
        "straggler_version",
        "source_hash",
        "python_version",
        "numpy_version",
        "scipy_version",
        "numba_version",
        "xarray_version",
        "snakemake_version",
    }
)
"""Global attributes of the dataset (:func:`straggler.study.provenance.provenance`) left out
when it is compared with its rebuild: they say when, in which checkout and with which
versions the aggregation ran, not what the cells hold, and a rebuild runs later and
maybe elsewhere. The code the numbers depend on is still checked: every cell file is
named after ``source_hash`` (:func:`_cell_files`), and ``--rerun`` evaluates with the
installed code. Every other attribute (the config text and its hash, the seed, the
cells' notes, the impossible points, ...) follows from the config and the cells and
must match."""

_READ_ERRORS: tuple[type[Exception], ...] = (
    OSError,
    ValueError,
    KeyError,
    IndexError,
    TypeError,
    AttributeError,
    RuntimeError,
    yaml.YAMLError,
    ConfigError,
)
"""What reading a forged file can raise (netCDF4, YAML, the config checks, the
aggregation): each is a refusal naming the file, never a traceback."""


class ArchiveError(Exception):
    """Refused before anything was written; the message says why."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _result_files(results: Path) -> list[Path]:
    """The files of a result set. A symbolic link is refused, not followed: the archive
    would hold its target, any file of the machine, as if it were a result.
    ``results`` itself may be a link (results kept on another file system)."""
    files = []
    for p in sorted(results.rglob("*")):
        if p.name.startswith(".") or p.relative_to(results).parts[0] in _SKIP_RESULTS or _SKIP_PARTS & set(p.parts):
            continue
        if p.is_symlink():
            raise ArchiveError(
                f"{p} is a symbolic link (to {os.readlink(p)}): an archive holds results, not links; "
                "replace it by the file it points to, or remove it"
            )
        if p.is_file():
            files.append(p)
    return files


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


def _rerun_hint(study: str) -> str:
    """The command that runs ``study``: its shipped study file when there is one, else
    the study file the user wrote (the default study has none of its own)."""
    shipped = Path("config/studies") / f"{study}.yaml"
    if shipped.is_file():
        return f"snakemake --cores all --configfile {shipped}"
    return "snakemake --cores all --configfile YOUR_STUDY.yaml, or plain snakemake --cores all for config/config.yaml"


def create(
    study: str,
    results_root: Path = Path("results"),
    project_root: Path = Path("."),
    output: Path | None = None,
    force: bool = False,
) -> Path:
    """Write the archive of ``results/<study>`` atomically and return its path; refuse
    (:class:`ArchiveError`) a result set that is not whole."""
    results = Path(results_root) / study
    for path in (results / f"{study}.nc", results / "config.yaml"):
        if not path.is_file():
            raise ArchiveError(f"study {study!r}: {path} is missing; run the study first ({_rerun_hint(study)})")
    output = Path(output) if output else default_output(study)
    if output.exists() and not force:
        raise ArchiveError(f"{output} exists; pass --force to replace it or --output to choose another path")
    files = {p.relative_to(results).as_posix(): p for p in _result_files(results)}
    try:
        prove_result_set(study, files)
    except ArchiveError as err:
        raise ArchiveError(
            f"{results} is not a whole result set: {err}; rerun the study ({_rerun_hint(study)})"
        ) from None
    members = {f"{study}/results/{rel}": path.read_bytes() for rel, path in files.items()}
    root = Path(project_root)
    members.update({f"{study}/project/{p.relative_to(root).as_posix()}": p.read_bytes() for p in _project_files(root)})
    traces = _trace_members(study, results / "config.yaml", root)
    members.update({member: data for member, (_, data) in traces.items()})
    manifest = {
        "format": FORMAT,
        "study": study,
        "provenance": _global_attributes(files[f"{study}.nc"]),
        "packages": _installed_packages(),
        "files": {name: {"sha256": _sha256(data), "size": len(data)} for name, data in sorted(members.items())},
        "data_files": {entry["law"]: {**entry, "member": member} for member, (entry, _) in sorted(traces.items())},
    }
    members[f"{study}/{MANIFEST}"] = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    _write_tar(output, members)
    return output


def _trace_members(study: str, config: Path, root: Path) -> dict[str, tuple[dict, bytes]]:
    """The data files the study's laws were read from (a measured trace), as archive
    members ``<study>/data/<law>/<file name>`` -> (what the manifest says of it, its
    bytes); refused when a file is gone or its content is not the one the study ran with."""
    from ..model.distributions.data_files import DIGEST_PREFIX
    from ..study.provenance import data_file_entries

    out = {}
    for law, path, digest, _ in data_file_entries(ResolvedConfig.from_yaml(config.read_text())):
        where = Path(path) if Path(path).is_absolute() else root / path
        if not where.is_file():
            raise ArchiveError(
                f"the data file of law {law!r}, {path}, is missing: the archive would not hold its trace"
            )
        data = where.read_bytes()
        if DIGEST_PREFIX + _sha256(data) != digest:
            raise ArchiveError(
                f"the data file of law {law!r}, {path}, has changed since the study ran (its content is not "
                f"{digest}); rerun the study ({_rerun_hint(study)})"
            )
        out[f"{study}/data/{law}/{Path(path).name}"] = ({"law": law, "path": path, "digest": digest}, data)
    return out


def _write_tar(output: Path, members: dict[str, bytes]) -> None:
    """Sorted members (``<study>/MANIFEST.json`` sorts before ``project/`` and
    ``results/``: verify needs it first), zeroed owners and times, atomically."""
    with (
        atomic_write(output) as tmp,
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


# ------------------------------------------------------------------ a whole result set


def _is_cell(rel: str) -> bool:
    return rel.startswith("cells/") and rel.count("/") == 1 and rel.endswith(".nc")


def _cell_id(rel: str) -> str:
    """cells/<cell id>@<hash of its spec and code>.nc"""
    return rel[len("cells/") : -len(".nc")].rpartition("@")[0]


def _reading(label: str, read, *args):
    """``read(*args)``, a failure refused as ``label: why`` (:data:`_READ_ERRORS`)."""
    try:
        return read(*args)
    except _READ_ERRORS as exc:
        raise ArchiveError(f"{label}: {_why(exc)}") from None


def _why(exc: Exception) -> str:
    """An error in one line: an OSError's strerror (its text names the file, a temporary
    copy), a YAML error's problem and line, else the first line of its text."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        return f"not YAML: {exc.problem} (line {exc.problem_mark.line + 1})"
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [type(exc).__name__]
    return lines[0] + (f" (and {len(lines) - 1} more)" if len(lines) > 1 else "")


def _few(names: list[str], count: int = 3) -> str:
    return ", ".join(names[:count]) + (f" and {len(names) - count} more" if len(names) > count else "")


def prove_result_set(study: str, files: Mapping[str, Path]) -> str:
    """Prove ``files`` (result-relative name -> local path) a whole result set: its
    cells are the files of its config's grid, and aggregating them as the pipeline does
    (:func:`straggler.run.pipeline.aggregate`) gives its dataset bit for bit. Returns what
    was proven; raises :class:`ArchiveError` naming the first thing that is not so."""
    from ..study.grid import build_grid

    for name in ("config.yaml", f"{study}.nc"):
        if name not in files:
            raise ArchiveError(f"the result set has no {name}")
    resolved = _archived_config(files["config.yaml"], _trace_copies(files))
    grid = _reading("config.yaml", build_grid, resolved)
    with tempfile.TemporaryDirectory(prefix="straggler-rebuild-") as tmp:
        # a private copy: netCDF4 crashes (HDF5 shares the open file) reading strings
        # from a file that another handle of the process holds open, e.g. a caller's
        dataset = Path(shutil.copyfile(files[f"{study}.nc"], Path(tmp) / "archived.nc"))
        code = str(_reading(f"{study}.nc", _global_attributes, dataset).get("source_hash", "?"))
        cells = _cell_files(files, resolved, grid, code)
        rebuilt = _rebuild(resolved, grid, cells, Path(tmp) / "rebuilt.nc", _trace_copies(files))
        diffs = _reading(f"{study}.nc", _differences, dataset, rebuilt)
    if diffs:
        raise ArchiveError(f"{study}.nc is not the aggregate of its cells: it differs in {_few(diffs, 5)}")
    return f"{study}.nc is the aggregate of its {len(cells)} cells, rebuilt and compared bit for bit"


def _trace_copies(files: Mapping[str, Path]) -> dict[str, Path]:
    """Law name -> the local copy of the trace it is read from (``data/<law>/<file>``)."""
    return {rel.split("/")[1]: path for rel, path in files.items() if rel.startswith("data/")}


def _on_copies(resolved: ResolvedConfig, traces: Mapping[str, Path]) -> ResolvedConfig:
    """``resolved`` with each law read from a data file read from the archive's copy (the
    same content: its digest is checked when the law is built)."""
    from dataclasses import replace

    if not traces:
        return resolved
    laws, deps = _laws_on_copies(resolved.distributions, resolved.dependences, traces)
    return replace(resolved, distributions=laws, dependences=deps)


def _laws_on_copies(distributions: Mapping, dependences: Mapping, traces: Mapping[str, Path]) -> tuple[dict, dict]:
    """The named laws and the dependences with each data file at its copy in ``traces``
    (keyed as :func:`straggler.study.provenance.data_file_entries` names the laws: an inline
    slowdown law ``<dependence>.slowdown``)."""
    from ..model.distributions import FAMILIES, replace_within

    def moved_one(name: str, spec):
        key = FAMILIES[spec["family"]].data_file if isinstance(spec, dict) and spec.get("family") in FAMILIES else None
        return dict(spec, **{key: str(traces[name])}) if key and name in traces else spec

    def moved(name: str, spec):  # the law, and each law inside it (a law per job type's)
        return replace_within(name, spec, moved_one)

    laws = {name: moved(name, spec) for name, spec in distributions.items()}
    deps = {
        name: dict(dep, slowdown=moved(f"{name}.slowdown", dep["slowdown"]))
        if isinstance(dep, dict) and "slowdown" in dep
        else dep
        for name, dep in dependences.items()
    }
    return laws, deps


def _archived_config(path: Path, traces: Mapping[str, Path] | None = None) -> ResolvedConfig:
    """The resolved config as the pipeline used it (it is not resolved again: that would
    rename a paper-scale study), after checking that it is one; a law read from a file is
    checked on the archive's copy of it (``traces``: law -> copy), wherever the original is."""
    from ..study.config import resolve_config

    resolved = _reading("config.yaml", lambda: yaml.safe_load(path.read_text()))
    # a resolved config says which scale it was resolved at, but holds no scales any more:
    # it is checked as the config of its own (only) scale
    checked = {k: v for k, v in resolved.items() if k != "scale"} if isinstance(resolved, dict) else resolved
    if traces and isinstance(checked, dict):
        laws, deps = _laws_on_copies(checked.get("distributions") or {}, checked.get("dependences") or {}, traces)
        checked = dict(checked, distributions=laws, dependences=deps)
    _reading("config.yaml is not a valid config", resolve_config, checked)
    return _reading("config.yaml", ResolvedConfig.from_dict, resolved)


def _cell_files(files: Mapping[str, Path], resolved: ResolvedConfig, grid, code: str) -> dict[str, tuple[str, Path]]:
    """Cell id -> (name, path) of every cell of the grid: each has exactly the file its
    spec and the dataset's code hash name (:func:`straggler.study.workunits.cell_key`), and
    there are no others."""
    from ..study.workunits import cell_key

    present = sorted(rel for rel in files if _is_cell(rel))
    missing = sorted(set(grid.cells) - {_cell_id(rel) for rel in present})
    if missing:
        raise ArchiveError(
            f"{len(missing)} of the {len(grid.cells)} cells of the config's grid have no file: {_few(missing)}"
        )
    expected = {f"cells/{cell_key(resolved, cell, code)}.nc": cid for cid, cell in grid.cells.items()}
    for rel in present:
        if _cell_id(rel) not in grid.cells:
            raise ArchiveError(f"{rel} is not a cell of the config's grid")
        if rel not in expected:
            raise ArchiveError(f"{rel} is not the file of its cell for this config and the code {code}")
    return {cid: (rel, files[rel]) for rel, cid in expected.items()}


def _rebuild(
    resolved: ResolvedConfig, grid, cells: dict[str, tuple[str, Path]], out: Path, traces: Mapping[str, Path]
) -> Path:
    """The study dataset from ``cells``, as :func:`straggler.run.pipeline.aggregate`
    makes and writes it (cells keyed by the id they hold, the config recorded without
    the keys that never change a number), written to ``out`` (``traces``: the archive's
    copies of the laws' data files)."""
    from ..study.config import dump_config
    from ..study.dataset import aggregate, read_cell, write_netcdf
    from ..study.grid import result_config
    from ..study.provenance import provenance

    records = {}
    for cid, (rel, path) in cells.items():
        record = _reading(rel, read_cell, path)
        if record.attrs.get("cell_id") != cid:
            raise ArchiveError(f"{rel} holds the cell {record.attrs.get('cell_id')!r}, not {cid!r}")
        records[cid] = record
    recorded = dump_config(result_config(resolved))
    attrs = provenance(ResolvedConfig.from_yaml(recorded), recorded, traces)
    study = _reading("the cells", aggregate, grid, records, attrs)
    write_netcdf(study, out)
    return out


def _differences(archived: Path, rebuilt: Path) -> list[str]:
    """The dimensions, variables (coordinates included) and global attributes
    (but :data:`MACHINE_ATTRS`) in which two netCDF files differ, read as stored."""
    import netCDF4

    with netCDF4.Dataset(archived) as old, netCDF4.Dataset(rebuilt) as new:
        old.set_auto_maskandscale(False)
        new.set_auto_maskandscale(False)
        sizes = [{k: len(d) for k, d in nc.dimensions.items()} for nc in (old, new)]
        diffs = [] if sizes[0] == sizes[1] else ["dimensions"]
        names = sorted(set(old.variables) | set(new.variables))
        diffs += [n for n in names if not _same_variable(old.variables.get(n), new.variables.get(n))]
        keys = sorted((set(old.ncattrs()) | set(new.ncattrs())) - MACHINE_ATTRS)
        diffs += [f"attribute {k}" for k in keys if not _same_attribute(old, new, k)]
    return diffs


def _same_variable(a, b) -> bool:
    if a is None or b is None or a.dimensions != b.dimensions or a.dtype != b.dtype:
        return False
    if set(a.ncattrs()) != set(b.ncattrs()) or not all(_same_attribute(a, b, k) for k in a.ncattrs()):
        return False
    return _same_array(a[...], b[...])


def _same_attribute(a, b, key: str) -> bool:
    if key not in a.ncattrs() or key not in b.ncattrs():
        return False
    return _same_array(a.getncattr(key), b.getncattr(key))


def _same_array(a, b) -> bool:
    """Same shape, type and bits, NaN equal to NaN whatever its payload."""
    import numpy as np

    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        bits = f"u{a.dtype.itemsize}"
        return bool(np.all((a.view(bits) == b.view(bits)) | (np.isnan(a) & np.isnan(b))))
    return bool(np.array_equal(a, b))


# ---------------------------------------------------------------------------- verify


@dataclass
class Verdict:
    ok: bool = True
    lines: list[str] = field(default_factory=list)

    def fail(self, line: str) -> None:
        self.ok = False
        self.lines.append(f"FAIL {line}")

    def note(self, line: str) -> None:
        self.lines.append(line)


def verify(path, rerun: int = 0, verdict: Verdict | None = None) -> Verdict:
    """Check an archive against its manifest, prove its result set whole, rerun
    ``rerun`` cells and compare. Raises :class:`ArchiveError` for an archive it
    refuses to read (see the module docstring). Writes nothing but temporary files."""
    path = Path(path)
    verdict = verdict or Verdict()
    with tempfile.TemporaryDirectory(prefix="straggler-verify-") as tmp:
        manifest, results = _check_members(path, Path(tmp), verdict)
        if not verdict.ok:
            verdict.note("the result set is not rebuilt: the archive does not match its manifest")
            return verdict
        _check_traces(manifest, results, verdict)
        if not verdict.ok:
            verdict.note("the result set is not rebuilt: its laws' data files are not the ones it ran with")
            return verdict
        try:
            verdict.note(prove_result_set(manifest["study"], results))
        except ArchiveError as err:
            verdict.fail(str(err))
            return verdict
        if rerun > 0:
            _rerun(manifest, results, rerun, verdict)
    return verdict


def _check_members(path: Path, workdir: Path, verdict: Verdict) -> tuple[dict, dict[str, Path]]:
    """Read the archive once: the manifest, then every member (:func:`_check_each`).
    Returns the manifest and the copies of the files a result-set proof reads."""
    try:
        # not the stream mode "r|gz": it inflates 10 kB reads whole, up to 10 MB from a
        # bomb's zeros; gzip.GzipFile inflates no more than the chunk asked for
        with tarfile.open(path, "r:gz") as tar:
            manifest = _read_manifest(tar)
            return manifest, _check_each(tar, manifest, workdir, verdict)
    except ArchiveError as err:
        raise ArchiveError(f"{path}: {err}") from None
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise ArchiveError(f"{path}: not a readable .tar.gz archive ({exc})") from None


def _check_each(tar: tarfile.TarFile, manifest: dict, workdir: Path, verdict: Verdict) -> dict[str, Path]:
    """Check every member against the manifest before reading it, hash it in chunks,
    and copy into ``workdir`` those a result-set proof reads (result-relative name ->
    copy). A member whose size the manifest does not bound is not read, nor any after it."""
    study, files = manifest["study"], manifest["files"]
    seen, altered = {f"{study}/{MANIFEST}"}, 0
    copies: dict[str, Path] = {}
    while (info := tar.next()) is not None:
        entry = _admit(info, files, seen)
        unread = _unread(info, entry)
        if unread is not None:
            verdict.fail(unread[0])
            verdict.note(unread[1])
            return copies
        rel = _needed(info.name, study)
        # the copy keeps the member's file name: a trace's reader goes by its suffix (.csv, .gz)
        copy = workdir / f"{len(copies)}-{Path(info.name).name}" if rel is not None else None
        if (entry["sha256"], entry["size"]) != _hash(tar.extractfile(info), copy):
            verdict.fail(f"altered: {info.name}")
            altered += 1
        if rel is not None and copy is not None:
            copies[rel] = copy
    for name in sorted(set(files) - seen):
        verdict.fail(f"missing: {name}")
    verdict.note(f"{len(seen & set(files)) - altered} of {len(files)} files match the manifest")
    return copies


def _admit(info: tarfile.TarInfo, files: dict, seen: set[str]) -> dict | None:
    """The manifest entry of a member (None if it has none), refused unless it is the
    first of its name (a reader keeping the last copy would see another file than the
    check) and a plain file."""
    name = info.name
    if name in seen:
        raise ArchiveError(f"member {name!r} appears twice")
    seen.add(name)
    if info.type not in _PLAIN:
        kind = _KINDS.get(info.type, f"of tar type {info.type!r}")
        link = f" to {info.linkname!r}" if info.issym() or info.islnk() else ""
        raise ArchiveError(f"member {name!r} is {kind}{link}, not a plain file")
    return files.get(name)


def _unread(info: tarfile.TarInfo, entry: dict | None) -> tuple[str, str] | None:
    """The FAIL line and a note for a member whose size the manifest does not bound
    (a gzip bomb's member inflates to gigabytes), else None."""
    rest = "and the members after it are not read"
    if entry is None:
        return f"not in the manifest: {info.name}", f"{info.name} {rest}"
    if info.size > entry["size"]:
        size = f"{info.size} bytes by its header, more than the {entry['size']} of the manifest"
        return f"altered: {info.name}", f"{info.name} ({size}) {rest}"
    return None


def _needed(name: str, study: str) -> str | None:
    """The result-relative name of a member a result-set proof reads (the config, the
    dataset, a cell), or ``data/<law>/<file>`` for a trace a law is read from, else None."""
    if name.startswith(f"{study}/data/") and name.count("/") == 3:
        return name[len(study) + 1 :]
    prefix = f"{study}/results/"
    rel = name[len(prefix) :] if name.startswith(prefix) else ""
    return rel if rel in ("config.yaml", f"{study}.nc") or _is_cell(rel) else None


def _hash(src, copy: Path | None) -> tuple[str, int]:
    """The sha256 and size of a member read a chunk at a time, copied to ``copy``."""
    digest, size = hashlib.sha256(), 0
    with open(copy, "wb") if copy is not None else contextlib.nullcontext() as out:
        while chunk := src.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
            if out is not None:
                out.write(chunk)
    return digest.hexdigest(), size


def _read_manifest(tar: tarfile.TarFile) -> dict:
    """The first member, ``<study>/MANIFEST.json``, parsed and checked."""
    info = tar.next()
    if info is None:
        raise ArchiveError("the archive is empty")
    if info.name.count("/") != 1 or not info.name.endswith("/" + MANIFEST):
        raise ArchiveError(
            f"its first member is {info.name!r}, not <study>/{MANIFEST} "
            "(the manifest comes first, so that every member is checked against it before it is read)"
        )
    if info.type not in _PLAIN or info.size > _MANIFEST_LIMIT:
        raise ArchiveError(f"{info.name} is not a plain file of at most {_MANIFEST_LIMIT} bytes")
    study = info.name.partition("/")[0]
    try:
        return _parsed_manifest(tar.extractfile(info).read(), study)
    except ArchiveError as err:
        raise ArchiveError(f"malformed {info.name}: {err}") from None


def _check_traces(manifest: dict, results: Mapping[str, Path], verdict: Verdict) -> None:
    """Every data file the archived config's laws were read from is in the archive, with
    the content digest the study ran with (its member matched the manifest already)."""
    from ..study.provenance import data_file_entries

    if "config.yaml" not in results:
        return  # the result-set proof says so
    packed = manifest.get("data_files", {})
    if not isinstance(packed, dict):
        verdict.fail("'data_files' of the manifest is not a mapping")
        return
    used = data_file_entries(ResolvedConfig.from_yaml(results["config.yaml"].read_text()))
    for law, path, digest, _ in used:
        entry = packed.get(law)
        member = entry.get("member") if isinstance(entry, dict) else None
        listed = manifest["files"].get(member) if isinstance(member, str) else None
        if listed is None:
            verdict.fail(f"the data file of law {law!r} ({path}) is not in the archive")
        elif entry.get("digest") != digest or "sha256:" + listed["sha256"] != digest:
            verdict.fail(f"the data file of law {law!r} ({member}) is not the content the study ran with ({digest})")
    if used:
        verdict.note(f"{len(used)} data file(s) of the study's laws, each the content it ran with")


def _parsed_manifest(data: bytes, study: str) -> dict:
    try:
        manifest = json.loads(data, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError) as exc:
        raise ArchiveError(f"not JSON ({exc})") from None
    if not isinstance(manifest, dict):
        raise ArchiveError(f"a JSON {type(manifest).__name__}, not an object")
    if manifest.get("format") != FORMAT:
        raise ArchiveError(f"format {manifest.get('format')!r}, this version reads format {FORMAT}")
    if manifest.get("study") != study:
        raise ArchiveError(f"study {manifest.get('study')!r}, but its folder is {study!r}")
    if not isinstance(manifest.get("provenance", {}), dict):
        raise ArchiveError("'provenance' is not a mapping")
    files = manifest.get("files")
    if not isinstance(files, dict):
        raise ArchiveError("'files' is missing or not a mapping of member names to their sha256 and size")
    for name, entry in files.items():
        _check_entry(name, entry, study)
    return manifest


def _unique_keys(pairs: list[tuple]) -> dict:
    keys = [k for k, _ in pairs]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise ArchiveError(f"the key {twice[0]!r} appears twice")
    return dict(pairs)


def _check_entry(name: str, entry, study: str) -> None:
    parts = name.split("/")
    if parts[0] != study or len(parts) < 2 or any(p in ("", ".", "..") for p in parts) or name == f"{study}/{MANIFEST}":
        raise ArchiveError(f"the file name {name!r} is not a path under {study}/")
    ok = (
        isinstance(entry, dict)
        and isinstance(entry.get("sha256"), str)
        and re.fullmatch("[0-9a-f]{64}", entry["sha256"]) is not None
        and type(entry.get("size")) is int
        and entry["size"] >= 0
    )
    if not ok:
        raise ArchiveError(f"the entry of {name!r} is {entry!r}, not {{'sha256': 64 hex digits, 'size': bytes}}")


def _rerun(manifest: dict, results: dict[str, Path], count: int, verdict: Verdict) -> None:
    import numpy as np

    from ..common.sources import model_hash
    from ..study.evaluate import evaluate_cell

    archived = manifest.get("provenance", {}).get("source_hash", "?")
    if archived != model_hash():
        verdict.note(
            f"the installed code (source {model_hash()}) differs from the archived "
            f"run's ({archived}): a difference below may come from that"
        )
    # the config as the pipeline evaluated it (straggler.run.pipeline.evaluate_batch)
    resolved = _on_copies(ResolvedConfig.from_yaml(results["config.yaml"].read_text()), _trace_copies(results))
    cells = sorted(rel for rel in results if _is_cell(rel))
    # K cells spread evenly over the sorted ids: deterministic, and covering the grid
    picks = sorted({cells[int(i)] for i in np.linspace(0, len(cells) - 1, min(count, len(cells)))})
    for rel in picks:
        cell_id = _cell_id(rel)
        with _open(results[rel]) as old:
            new = evaluate_cell(resolved, cell_id)
            diffs = [v for v in old.data_vars if v not in new or not same_values(old[v], new[v])]
            diffs += [v for v in new.data_vars if v not in old]
        if diffs:
            verdict.fail(f"rerun {cell_id}: differs in {', '.join(sorted(set(diffs)))}")
        else:
            verdict.note(f"rerun {cell_id}: identical")


def _open(path: Path):
    """A cell file loaded into memory (a private copy: no other handle shares it)."""
    import xarray as xr

    with xr.open_dataset(path, engine="netcdf4") as ds:
        return ds.load()


def same_values(a, b) -> bool:
    """Two variables hold the same values: floats bit for bit with NaN equal to NaN,
    anything else compared as strings."""
    import numpy as np

    a, b = np.asarray(a.values), np.asarray(b.values)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return _same_array(a, b)
    return bool(np.array_equal(a.astype(str), b.astype(str)))
