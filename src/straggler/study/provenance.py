"""Global attributes that make a result set reproducible: the config and its hash,
the seed, the versions of the package and its dependencies, the hash of the code
the numbers depend on, the git commit, the creation time."""

from __future__ import annotations

import hashlib
import platform
import subprocess
from collections.abc import Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import numpy as np
import xarray as xr

from .. import __version__
from ..common.sources import model_hash
from ..model.distributions.units import study_unit
from .config.resolved import ResolvedConfig


def provenance(resolved: ResolvedConfig, config_text: str, traces: Mapping[str, Path] | None = None) -> dict:
    """Global attributes that make a result set reproducible (``traces``: law name -> where
    its data file is read from, when not at its path: an archive's copy)."""
    # the installed versions from their metadata: importing numba, scipy and snakemake
    # only to read their __version__ would be most of the aggregate job's start-up
    numba_version, scipy_version, snakemake_version = (_installed(name) for name in ("numba", "scipy", "snakemake"))
    return {
        "study": resolved.study,
        "config": config_text,
        "config_sha256": hashlib.sha256(config_text.encode()).hexdigest(),
        "seed": int(resolved.seed),
        # the cells of one workload share its random streams (straggler.study.grid.workload_id):
        # the per-replication means of two policies are paired
        "common_random_numbers": "true",
        "load_basis": resolved.basis,
        # the unit of every time in the dataset, as the laws state it ("": unit-free)
        "time_unit": study_unit(resolved.distributions),
        # the measured samples the size laws are read from, by their content
        "data_files": data_files(resolved, traces),
        "straggler_version": __version__,
        # the code the numbers depend on (straggler.common.sources.model_hash)
        "source_hash": model_hash(),
        "git_commit": git_commit(),
        "python_version": platform.python_version(),
        "numpy_version": np.__version__,
        "scipy_version": scipy_version,
        "numba_version": numba_version,
        "xarray_version": xr.__version__,
        "snakemake_version": snakemake_version,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "Conventions": "CF-1.10",
    }


def data_file_entries(resolved: ResolvedConfig) -> list[tuple[str, str, str, str | int | None]]:
    """``(law name, path, digest, column)`` of every data file the study's laws are read
    from (an inline slowdown law of a dependence named ``<dependence>.slowdown``, a type's
    law within a law per job type ``<law>.laws.<j>``)."""
    from ..model.distributions import FAMILIES, laws_within

    laws = dict(resolved.distributions)
    for name, dep in resolved.dependences.items():
        if isinstance(dep.get("slowdown"), dict):  # an inline slowdown law
            laws[f"{name}.slowdown"] = dep["slowdown"]
    found = []
    for label, law in (inner for name, spec in laws.items() for inner in laws_within(name, spec)):
        key = FAMILIES[law["family"]].data_file if law.get("family") in FAMILIES else None
        if key and "digest" in law:
            found.append((label, law[key], law["digest"], law.get("column")))
    return found


def data_files(resolved: ResolvedConfig, traces: Mapping[str, Path] | None = None) -> str:
    """The data files the study's laws are read from, ``name: path (digest, n values)``
    separated by ``; `` ("" when every law is parametric): what, beside the config, its
    numbers come from (``traces``: as for :func:`provenance`)."""
    from ..model.distributions.data_files import read_sample

    where = traces or {}
    return "; ".join(
        f"{name}: {path} ({digest}, {read_sample(str(where.get(name, path)), column).size} values)"
        for name, path, digest, column in data_file_entries(resolved)
    )


def _installed(distribution: str) -> str:
    """The installed version of ``distribution`` (its ``__version__``), or "not installed"."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:  # pragma: no cover - all are dependencies
        return "not installed"


def git_commit() -> str:
    """The commit of the checkout the package runs from, '-dirty' if modified; else of the
    working directory (a package installed from a wheel into a study's own repository).

    The package's checkout first: a study run with ``snakemake --directory`` elsewhere (as
    CI runs the tiny study) still names the code that made it."""
    for where in (Path(__file__).resolve().parent, None):
        commit = _git_commit(where)
        if commit != "unknown":
            return commit
    return "unknown"


def _git_commit(where: Path | None) -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=where,
        )
        commit = out.stdout.strip() if out.returncode == 0 else "unknown"
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=where,
        )
        if commit != "unknown" and dirty.stdout.strip():
            commit += "-dirty"
        return commit
    except (OSError, subprocess.SubprocessError):
        return "unknown"
