"""Tie numba's on-disk cache of the simulation kernels to all the sources they use.

Numba keys a cached function by its own source file only, while a kernel here
compiles in code from other modules (``statistics.record``, the stream refills,
``distributions.sample``): after editing one of those, the cached kernel would
silently keep the old code. :func:`bind_module` adds a digest of every source
file that the kernels use to the cache key of each dispatcher of a module, so an
edit anywhere recompiles them (nothing is deleted: an old entry just stops
matching). It relies on numba's ``FunctionCache._index_key`` (numba 0.68) and
does nothing if that is missing.

An engine module calls ``bind_module(globals())`` after its definitions.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _sources() -> list[Path]:
    files = sorted(_HERE.glob("*.py"))
    files += [_HERE.parent / "distributions.py", _HERE.parent / "dependence.py"]
    return [f for f in files if f.exists()]


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """SHA-256 of the simulation package's sources and of the modules it inlines."""
    h = hashlib.sha256()
    for f in _sources():
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def bind(dispatcher) -> bool:
    """Add :func:`source_digest` to ``dispatcher``'s cache key; False if not cached."""
    cache = getattr(dispatcher, "_cache", None)
    key = getattr(cache, "_index_key", None)
    if key is None or getattr(key, "_straggler_bound", False):
        return False
    digest = source_digest()

    def index_key(sig, codegen, _key=key):
        return (_key(sig, codegen), digest)

    index_key._straggler_bound = True
    cache._index_key = index_key
    return True


def bind_module(namespace: dict) -> int:
    """Bind every numba dispatcher defined in a module (its ``globals()``)."""
    from numba.core.registry import CPUDispatcher

    name = namespace.get("__name__")
    count = 0
    for obj in list(namespace.values()):
        if isinstance(obj, CPUDispatcher) and getattr(obj.py_func, "__module__", None) == name:
            count += bind(obj)
    return count
