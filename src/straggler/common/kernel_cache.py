"""Numba's on-disk cache of the kernels, one directory per digest of their sources.

Numba keys a cached function by its own source file only, while a kernel here
compiles in code from other modules (``distributions.sample``, the stream refills,
``statistics.record``): after an edit of one of those, a cached kernel would
silently keep the old code. So the cache lives in a directory named by the
SHA-256 of every source file that kernels are compiled from
(:data:`KERNEL_SOURCES`), set through numba's public setting
``numba.config.CACHE_DIR`` before the first kernel is decorated (numba picks a
function's cache directory when it decorates it). An edit anywhere in those
sources starts a fresh directory; unchanged sources reuse it.

The directories sit under ``$NUMBA_CACHE_DIR`` when that is set, else in the
package's ``__pycache__`` (else ``$XDG_CACHE_HOME/straggler``). Old digests are
not pruned: delete the ``numba-kernels`` folder to reclaim the space.

Every kernel is declared with :func:`kernel` instead of ``numba.njit(cache=True)``.

Numba compiles a kernel on its first call in a process, so a cold cache shows as a
first cell of a minute or more. A job that compiled records its kinds of cell in a
marker beside numba's files, ``compiled.json`` (:func:`record_compiled`), and
:func:`missing_kinds` says which of a study's kinds are not compiled yet: the
workflow says so before its first job.
The marker names the numba and Python versions and the kernel sources' sizes and
modification times (numba's own test of a cached function's freshness), and counts
numba's index and data files: an upgrade, a checkout that touched the sources, or a
cache emptied by hand makes it stale. How long the last compile took on this machine
is kept beside the digest folders (:func:`last_compile_seconds`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parents[1]

#: the sources kernels are compiled from (globs relative to the package): the
#: modules that declare kernels, and those whose functions or constants a kernel
#: reads (numba freezes a global's value into the machine code), such as the policy
#: codes of ``policies/``; tests/common/test_kernel_cache.py checks that none is missing
KERNEL_SOURCES = (
    "common/kernel_cache.py",
    "common/numerics.py",
    "model/distributions/*.py",
    "model/dependence/*.py",
    "model/policies/*.py",
    "engines/simulation/*.py",
    "engines/mean_field/*.py",
)

_DIGEST_FOLDER = re.compile(r"kernels-[0-9a-f]{16}")


def kernel_source_files() -> list[Path]:
    """The files of :data:`KERNEL_SOURCES`, sorted."""
    return sorted({path for pattern in KERNEL_SOURCES for path in PACKAGE.glob(pattern)})


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """SHA-256 of the kernel sources (:data:`KERNEL_SOURCES`), names and contents."""
    digest = hashlib.sha256()
    for path in kernel_source_files():
        digest.update(path.relative_to(PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _base_folder() -> Path:
    configured = os.environ.get("NUMBA_CACHE_DIR", "")
    if configured:
        base = Path(configured)
        # a process started by one that already chose a digest folder (it inherits the
        # setting when an outer tool exported it): keep the same base, not a nested one
        return base.parent if _DIGEST_FOLDER.fullmatch(base.name) else base
    in_tree = PACKAGE / "__pycache__"
    if os.access(in_tree if in_tree.exists() else PACKAGE, os.W_OK):
        return in_tree / "numba-kernels"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "straggler" / "numba-kernels"


@functools.lru_cache(maxsize=1)
def cache_folder() -> Path:
    """Where numba caches the kernels of these sources."""
    return _base_folder() / f"kernels-{source_digest()[:16]}"


def kernel(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(cache=True, **options)`` with the cache in :func:`cache_folder`."""
    import numba

    # read by numba when it decorates, so every kernel gets this folder
    numba.config.CACHE_DIR = str(cache_folder())  # type: ignore[attr-defined]
    return numba.njit(cache=True, **options)


MARKER = "compiled.json"
"""In a digest folder: what :func:`record_compiled` saw compiled there."""
TIMING = "last-compile.json"
"""Beside the digest folders: how long the last compile took (:func:`last_compile_seconds`)."""


def _numba_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("numba")
    except PackageNotFoundError:  # pragma: no cover - numba is a dependency
        return ""


def cache_stamp() -> dict[str, Any]:
    """What numba's cached code depends on besides its folder: numba's and Python's
    versions and each kernel source's size and modification time."""
    sources = {}
    for path in kernel_source_files():
        st = path.stat()
        sources[path.relative_to(PACKAGE).as_posix()] = [st.st_mtime_ns, st.st_size]
    return {"numba": _numba_version(), "python": list(sys.version_info[:2]), "sources": sources}


def _cache_files(folder: Path) -> int:
    """numba's index and data files in ``folder`` (one index per function, one data
    file per compiled signature)."""
    return sum(1 for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc"))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data: Any) -> None:
    """Atomically (a temporary file renamed): two runs may write the same marker."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


def compiled_kinds(folder: Path | None = None) -> set[str]:
    """The kinds of cell whose kernels the marker in ``folder`` (default
    :func:`cache_folder`) records as compiled: empty when there is no marker, or it is
    stale (other numba or Python, sources touched since, numba's files gone)."""
    folder = cache_folder() if folder is None else Path(folder)
    marker = _read_json(folder / MARKER)
    if not isinstance(marker, dict) or marker.get("stamp") != cache_stamp():
        return set()
    if _cache_files(folder) < int(marker.get("files", 0)) or not marker.get("files"):
        return set()
    return set(marker.get("kinds", ()))


def missing_kinds(kinds: Iterable[str], folder: Path | None = None) -> list[str]:
    """Those of ``kinds`` (:func:`straggler.study.workunits.kernel_kind`) that the cache has
    not compiled (:func:`compiled_kinds`), in order, without repeats."""
    have = compiled_kinds(folder)
    return [k for k in dict.fromkeys(kinds) if k not in have]


def record_compiled(kinds: Iterable[str], seconds: float | None = None, folder: Path | None = None) -> None:
    """Record that the kernels of ``kinds`` are compiled in ``folder`` (default
    :func:`cache_folder`), and, given, that it took ``seconds``. (Two jobs recording at
    once may lose one's kinds: the next run then compiles them again, from the cache.)"""
    folder = cache_folder() if folder is None else Path(folder)
    have = compiled_kinds(folder)
    marker = {"stamp": cache_stamp(), "files": _cache_files(folder), "kinds": sorted(have | set(kinds))}
    _write_json(folder / MARKER, marker)
    if seconds is not None:
        # the longest of a digest's compiles (a job that compiled a variant only, after
        # another had compiled the kernels, would say seconds)
        timing = _read_json(folder.parent / TIMING)
        if isinstance(timing, dict) and timing.get("folder") == folder.name:
            seconds = max(float(seconds), float(timing.get("seconds", 0.0)))
        _write_json(folder.parent / TIMING, {"folder": folder.name, "seconds": round(float(seconds), 1)})


def last_compile_seconds(folder: Path | None = None) -> float | None:
    """How long the last recorded compile took on this machine, or None."""
    folder = cache_folder() if folder is None else Path(folder)
    data = _read_json(folder.parent / TIMING)
    try:
        return float(data["seconds"])
    except (TypeError, KeyError, ValueError):
        return None
