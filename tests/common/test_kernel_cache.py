"""Numba's cache of the kernels follows their sources (straggler.common.kernel_cache).

Each check runs in a fresh interpreter on a copy of the package, with its own
NUMBA_CACHE_DIR, so that it sees what a new job would: an unchanged source reuses
the cached machine code, an edit of any kernel source (here ``simulation/streams.py``,
which ``distributions.sample`` does not even call) compiles afresh.
"""

from __future__ import annotations

import ast
import functools
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
from straggler.common import kernel_cache
from straggler.model import distributions
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

    streams = package_copy / "straggler" / "engines" / "simulation" / "streams.py"
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
    from straggler.common import kernel_cache

    sources = set(kernel_cache.kernel_source_files())
    declaring = {path for path in PACKAGE.rglob("*.py") if "@kernel(" in path.read_text()}
    assert declaring and declaring <= sources
    assert not [p for p in PACKAGE.rglob("*.py") if "njit(cache=True" in p.read_text() and p.name != "kernel_cache.py"]


def _module_of(path: Path) -> str:
    from straggler.common import sources

    return sources.module_name(path)


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    """The ``straggler`` module (relative name) that ``node`` imports from, or None."""
    if node.level == 0:
        base = node.module or ""
        if base != "straggler" and not base.startswith("straggler."):
            return None
        return base.removeprefix("straggler").lstrip(".")
    parts = module.split(".") if module else []
    package = parts if is_package else parts[:-1]
    up = package[: len(package) - (node.level - 1)]
    return ".".join(up + ([node.module] if node.module else []))


@functools.cache
def _parsed(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once (the scan asks for a module's tree at every
    name a kernel reads: parsing each time made the test take minutes)."""
    return ast.parse(path.read_text())


def _definition(module: str, name: str, depth: int = 0) -> tuple[Path, ast.AST | None] | None:
    """Where ``straggler.<module>.<name>`` is defined: its file and its top-level node
    (None for a submodule), following re-exports; None outside the package."""
    from straggler.common import sources

    path = sources.module_file(module)
    if path is None or depth > 10:
        return None
    tree = _parsed(path)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return path, node
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for target in targets:
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            if any(isinstance(t, ast.Name) and t.id == name for t in names):
                return path, node
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            base = _absolute(module, path.name == "__init__.py", node)
            for alias in node.names:
                if base is not None and (alias.asname or alias.name) == name:
                    sub = f"{base}.{alias.name}" if base else alias.name
                    if sources.module_file(sub) is not None:
                        return sources.module_file(sub), None
                    return _definition(base, alias.name, depth + 1)
    return None


def _is_kernel(node: ast.AST | None) -> bool:
    return isinstance(node, ast.FunctionDef) and any(
        isinstance(d, ast.Call) and getattr(d.func, "id", getattr(d.func, "attr", "")) == "kernel"
        for d in node.decorator_list
    )


def _compiled_from(path: Path, function: ast.FunctionDef, seen: set) -> set[Path]:
    """The files a kernel compiles code or constants from: its own, and those defining
    every package name it reads (``NAME`` or ``module.NAME``), through the kernels it calls."""
    module = _module_of(path)
    found = {path}
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            where = _definition(module, node.value.id)
            if where is not None and where[1] is None:  # ``alias.NAME`` of an imported module
                where = _definition(_module_of(where[0]), node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            where = _definition(module, node.id)
        else:
            continue
        if where is None or where[1] is None:
            continue
        found.add(where[0])
        if _is_kernel(where[1]) and (where[0], where[1].name) not in seen:
            seen.add((where[0], where[1].name))
            found |= _compiled_from(where[0], where[1], seen)
    return found


def _kernel_inputs() -> set[Path]:
    """Every file that some kernel of the package compiles from."""
    found: set[Path] = set()
    for path in PACKAGE.rglob("*.py"):
        if "@kernel(" not in path.read_text():
            continue
        for node in ast.parse(path.read_text()).body:
            if _is_kernel(node):
                found |= _compiled_from(path, node, set())
    return found


def test_every_source_a_kernel_compiles_from_keys_the_cache(monkeypatch):
    """The constants and functions a kernel reads from other modules (family and
    dependence codes, the policies' codes, the samplers it calls) are frozen into its
    machine code: an edit of any of their files must change the cache folder."""
    from straggler.common import kernel_cache

    inputs = _kernel_inputs()
    names = {path.relative_to(PACKAGE).as_posix() for path in inputs}
    # the ones that matter most, so that the scan itself is seen to follow imports
    assert {
        "model/distributions/sampling.py",
        "model/dependence/sampling.py",
        "model/dependence/base.py",
        "model/policies/d_of_n.py",
    } <= names
    assert sorted(names - {p.relative_to(PACKAGE).as_posix() for p in kernel_cache.kernel_source_files()}) == []

    # and it fails when a source is left out (the old "dependence.py" alone)
    monkeypatch.setattr(
        kernel_cache, "KERNEL_SOURCES", tuple(p for p in kernel_cache.KERNEL_SOURCES if p != "model/dependence/*.py")
    )
    missed = inputs - set(kernel_cache.kernel_source_files())
    assert {"model/dependence/base.py", "model/dependence/sampling.py"} <= {
        p.relative_to(PACKAGE).as_posix() for p in missed
    }
