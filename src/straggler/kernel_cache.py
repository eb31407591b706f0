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
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent

#: the sources kernels are compiled from (globs relative to the package): the
#: modules that declare kernels, and those whose functions or constants a kernel
#: reads (numba freezes a global's value into the machine code), such as the policy
#: codes of ``policies.py``; tests/test_kernel_cache.py checks that none is missing
KERNEL_SOURCES = (
    "kernel_cache.py",
    "numerics.py",
    "distributions/*.py",
    "dependence/*.py",
    "policies.py",
    "simulation/*.py",
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
