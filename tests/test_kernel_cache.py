"""Numba's cache of the kernels follows their sources (straggler.kernel_cache).

Each check runs in a fresh interpreter on a copy of the package, with its own
NUMBA_CACHE_DIR, so that it sees what a new job would: an unchanged source reuses
the cached machine code, an edit of any kernel source (here ``simulation/streams.py``,
which ``distributions.sample`` does not even call) compiles afresh.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import straggler

PACKAGE = Path(straggler.__file__).resolve().parent

PROBE = """
import json, numpy as np
from straggler import distributions, kernel_cache
X, rng = distributions.Exponential(1.0), np.random.default_rng(1)
x = [distributions.sample(X.code, X.sampler_params(), rng) for _ in range(5)]
stats = distributions.sample.stats
print(json.dumps({"folder": str(kernel_cache.cache_folder()), "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()), "x": x}))
"""


def _probe(src: Path, cache: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture()
def package_copy(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "straggler", ignore=shutil.ignore_patterns("__pycache__"))
    return src


def test_unchanged_sources_reuse_the_cache_and_an_edit_compiles_afresh(package_copy, tmp_path):
    cache = tmp_path / "numba"
    first = _probe(package_copy, cache)
    assert first["misses"] == 1 and first["hits"] == 0
    assert Path(first["folder"]).parent == cache

    again = _probe(package_copy, cache)
    assert again["hits"] == 1 and again["misses"] == 0
    assert again["folder"] == first["folder"] and again["x"] == first["x"]

    streams = package_copy / "straggler" / "simulation" / "streams.py"
    streams.write_text(streams.read_text() + "\n# an edit\n")
    edited = _probe(package_copy, cache)
    assert edited["misses"] == 1 and edited["hits"] == 0
    assert edited["folder"] != first["folder"] and edited["x"] == first["x"]


def test_an_inherited_digest_folder_is_not_nested(package_copy, tmp_path):
    """A job started with NUMBA_CACHE_DIR pointing at a digest folder (exported by an
    outer process) caches beside it, not inside it."""
    cache = tmp_path / "numba"
    first = _probe(package_copy, cache)
    inner = _probe(package_copy, Path(first["folder"]))
    assert inner["folder"] == first["folder"] and inner["hits"] == 1


def test_every_kernel_module_is_a_kernel_source():
    from straggler import kernel_cache

    sources = set(kernel_cache.kernel_source_files())
    declaring = {path for path in PACKAGE.rglob("*.py") if "@kernel(" in path.read_text()}
    assert declaring and declaring <= sources
    assert not [p for p in PACKAGE.rglob("*.py") if "njit(cache=True" in p.read_text() and p.name != "kernel_cache.py"]
