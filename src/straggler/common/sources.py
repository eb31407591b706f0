"""Which source files a result depends on, as hashes.

Snakemake cannot see into an imported package, so the rules pass hashes of the
sources that a step depends on, and the cell store names its files by them:

- :func:`model_hash`: everything a cell's numbers depend on (the import closure of
  :mod:`straggler.study.evaluate` and :mod:`straggler.study.dataset`, and the config schema):
  a change reruns the cells, not the figures;
- :func:`simulation_hash`: what a simulated replication depends on (the closure of
  :mod:`straggler.engines.simulation`, :mod:`straggler.study.cell_build` and :mod:`straggler.study.grid`):
  a change of the analysis alone reuses the stored simulations (the analysis's
  choices that the simulation uses are part of the store's key instead);
- :func:`figures_hash`: what the figures depend on (the closure of
  :mod:`straggler.outputs.figures`);
- :func:`presentation_hash`: what the figures and reports depend on (the closure of
  :mod:`straggler.outputs.figures` and :mod:`straggler.outputs.report`, with their templates).

The closures are read from the source (every ``import`` of a ``straggler`` module,
at module level or inside a function), so a new module is covered
as soon as something imports it, and editing ``archive.py`` or ``figures/`` reruns
no cell. Light: the Snakefile's parse imports this module, so it imports nothing
heavier than the standard library.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The package's directory."""

DATA_SUFFIXES = (".yaml",)
"""Package data that changes results (the config schema and its defaults)."""
TEMPLATE_SUFFIXES = (".html", ".j2", ".css")
"""Package data that changes only the presentation (report templates)."""


def module_file(name: str) -> Path | None:
    """The file of module ``straggler.<name>`` (dotted, relative), or None."""
    parts = name.split(".") if name else []
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def module_name(path: Path) -> str:
    """The dotted name, relative to the package, of the module in ``path`` (``""`` for
    the package's ``__init__``)."""
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<base>\.+[\w.]*|straggler(?:\.[\w.]+)?)[ \t]+import[ \t]+"
    r"(?P<names>\([^)]*\)|[^\n#]*)|import[ \t]+(?P<plain>straggler(?:\.[\w.]+)?))",
    re.MULTILINE,
)


@functools.cache
def imports_of(path: Path) -> tuple[str, ...]:
    """The ``straggler`` modules that the file at ``path`` imports (relative names):
    every ``import`` statement at the start of a line, at module level or inside a
    function (a regular expression, not a parse: ten times faster, and an import in a
    string can only add a file, never miss one)."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: set[str] = set()
    for m in _IMPORT.finditer(path.read_text()):
        if m.group("plain"):
            found.add(m.group("plain").removeprefix("straggler").lstrip("."))
            continue
        base = m.group("base")
        if base.startswith("."):
            level = len(base) - len(base.lstrip("."))
            parts = package.split(".") if package else []
            up = parts[: len(parts) - (level - 1)] if level > 1 else parts
            rest = base.lstrip(".")
            base = ".".join(up + ([rest] if rest else []))
        else:
            base = base.removeprefix("straggler").lstrip(".")
        found.add(base)
        for name in m.group("names").strip("() \t").replace("\n", " ").split(","):
            name = name.strip().split(" as ")[0].strip()
            if name and name.isidentifier():  # `from . import fast` imports a module
                found.add(f"{base}.{name}" if base else name)
    return tuple(sorted(name for name in found if module_file(name) is not None))


def import_closure(*modules: str) -> list[Path]:
    """The source files of ``modules`` (relative names such as ``"evaluate"`` or
    ``"simulation"``) and of every ``straggler`` module they import, transitively;
    a submodule's package ``__init__`` is included (importing it runs it)."""
    seen: dict[str, Path] = {}
    todo = list(modules)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = module_file(name)
        if path is None:
            raise ValueError(f"no module straggler.{name} in {ROOT}")
        seen[name] = path
        todo.extend(imports_of(path))
        if "." in name:
            todo.append(name.rpartition(".")[0])
    return sorted(seen.values())


def _digest(paths) -> str:
    h = hashlib.sha256()
    for path in sorted(set(paths)):
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _data(suffixes) -> list[Path]:
    return [p for p in ROOT.rglob("*") if p.suffix in suffixes and "__pycache__" not in p.parts]


def model_hash() -> str:
    """Hash of the sources a cell's values depend on."""
    return _digest(import_closure("study.evaluate", "study.dataset") + _data(DATA_SUFFIXES))


@functools.cache
def simulation_hash() -> str:
    """Hash of the sources a simulated replication depends on (read once a process: every
    cell's store key takes it, and a search evaluates cells by the hundred)."""
    return _digest(import_closure("engines.simulation", "study.cell_build", "study.grid") + _data(DATA_SUFFIXES))


def figures_hash() -> str:
    """Hash of the sources the figures depend on."""
    return _digest(import_closure("outputs.figures"))


def presentation_hash() -> str:
    """Hash of the sources the figures and reports depend on."""
    return _digest(import_closure("outputs.figures", "outputs.report") + _data(TEMPLATE_SUFFIXES))


def source_hash() -> str:
    """Hash of every source file of the package (provenance: the whole code)."""
    return _digest(
        [p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts] + _data(DATA_SUFFIXES + TEMPLATE_SUFFIXES)
    )
