"""Imports run one way (layers.LAYERS), form no cycle, and reach no private name.

Read from the source, as sources.py reads import closures: every ``import`` of a
``straggler`` module, at module level or inside a function, counts.
"""

from __future__ import annotations

import ast
from pathlib import Path

from straggler import layers, sources

REPO = Path(__file__).resolve().parents[1]
MODULES = {
    sources.module_name(path): path for path in sorted(sources.ROOT.rglob("*.py")) if "__pycache__" not in path.parts
}


def _packages_of(name: str) -> set[str]:
    """The packages whose ``__init__`` runs before module ``name`` (the root's aside)."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def _edges() -> dict[str, set[str]]:
    """module -> the modules it imports, and the packages of those (importing
    ``config.axes`` runs ``config/__init__`` first, and whatever that imports: a circle
    through a package's ``__init__`` is a circle), without itself and its own packages."""
    out = {}
    for name, path in MODULES.items():
        own = _packages_of(name) | {"", name}
        targets = set(sources.imports_of(path))
        targets |= {p for t in targets for p in _packages_of(t)}
        out[name] = targets - own
    return out


def test_every_module_has_a_layer():
    assert [name for name in MODULES if layers.layer_of(name) is None] == []


def test_no_import_runs_upward_or_across():
    wrong = []
    for name, targets in _edges().items():
        rank, group = layers.layer_of(name)
        for target in sorted(targets):
            t_rank, t_group = layers.layer_of(target)
            if t_rank > rank or (t_rank == rank and t_group != group):
                wrong.append(f"{name} imports {target}")
    assert wrong == []


def test_no_import_cycle():
    edges = _edges()
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_of(importer: Path, module: str | None, level: int) -> str | None:
    """The ``straggler`` module (relative name) that ``from <module> import`` names,
    or None when it is outside the package."""
    if level == 0:
        if module is None or not (module == "straggler" or module.startswith("straggler.")):
            return None
        return module.removeprefix("straggler").lstrip(".")
    here = sources.module_name(importer).split(".")
    package = here if importer.name == "__init__.py" else here[:-1]
    base = package[: len(package) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def private_uses(path: Path) -> list[str]:
    """``from straggler.x import _y`` and ``x._y`` for a module ``x`` of the package,
    where the user is not ``x`` itself."""
    in_package = sources.ROOT in path.parents
    tree = ast.parse(path.read_text())
    own = sources.module_name(path) if in_package else None
    aliases: dict[str, str] = {}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("straggler.") and a.asname:
                    aliases[a.asname] = a.name.removeprefix("straggler.")
        elif isinstance(node, ast.ImportFrom):
            if node.level and not in_package:
                continue
            base = _module_of(path, node.module, node.level)
            if base is None:
                continue
            for a in node.names:
                sub = f"{base}.{a.name}" if base else a.name
                if sources.module_file(sub) is not None:
                    aliases[a.asname or a.name] = sub
                elif _private(a.name) and base != own:
                    found.append(f"{path.name}:{node.lineno} imports {a.name} from straggler.{base}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and _private(node.attr)
            and aliases[node.value.id] != own
        ):
            found.append(f"{path.name}:{node.lineno} uses {node.value.id}.{node.attr}")
    return found


def test_no_private_name_crosses_a_module():
    files = list(MODULES.values()) + sorted((REPO / "tests").rglob("*.py")) + sorted((REPO / "benchmarks").glob("*.py"))
    assert [use for path in files for use in private_uses(path)] == []


def test_the_checks_see_what_they_forbid(tmp_path):
    """The private-name scan finds both spellings."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from straggler.dependence import _atomic_law\nfrom straggler import distributions as D\nD._fmt(1)\n"
    )
    assert len(private_uses(probe)) == 2
