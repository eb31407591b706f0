"""Imports run one way (layers.LAYERS), form no cycle, and reach no private name.

Read from the source, as sources.py reads import closures: every ``import`` of a
``straggler`` module, at module level or inside a function, counts.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from straggler.common import layers, sources

REPO = Path(__file__).resolve().parents[2]
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
        "from straggler.model.dependence import _atomic_law\nfrom straggler.model import distributions as D\nD._fmt(1)\n"
    )
    assert len(private_uses(probe)) == 2


# ----------------------------------------------------------------- calls at run time


INTEGRATORS = "common.numerics"
"""The module of the adaptive quadratures (QUADPACK through scipy), which evaluate the
integrand they are given, a function of a number: the one kind of call up allowed."""


def calls_up(run) -> list[str]:
    """Every call made while ``run()`` runs from a module of the package to one of a
    higher layer, or of another group of its layer, but an integrand's evaluation by
    :data:`INTEGRATORS`: a callback (a function handed down and called from below) is the
    only way for one, since imports run downwards."""
    import sys
    from collections import Counter

    found: Counter = Counter()
    upward: dict[tuple, bool] = {}  # (caller's module, callee's) -> a call up?

    def up(pair: tuple) -> bool:
        caller, callee = (n.removeprefix("straggler.") if n.startswith("straggler.") else None for n in pair)
        if callee is None or caller in (None, INTEGRATORS, callee):
            return False
        (rank, group), (c_rank, c_group) = layers.layer_of(caller), layers.layer_of(callee)
        return c_rank > rank or (c_rank == rank and c_group != group)

    def trace(frame, event, arg):  # "call" events only: None traces no line within
        back = frame.f_back
        if back is None or back.f_globals is frame.f_globals:
            return None
        pair = (back.f_globals.get("__name__", ""), frame.f_globals.get("__name__", ""))
        if pair not in upward:
            upward[pair] = up(pair)
        if upward[pair]:
            found[
                f"{pair[0].removeprefix('straggler.')}.{back.f_code.co_name} calls "
                f"{pair[1].removeprefix('straggler.')}.{frame.f_code.co_name}"
            ] += 1
        return None

    sys.settrace(trace)
    try:
        run()
    finally:
        sys.settrace(None)
    return sorted(found)


def test_evaluating_a_cell_never_calls_up_the_layers(tmp_path):
    """The config and what is made of it go down the layers while a cell is evaluated,
    never back up through a callback: the default study's cells (analysis), a trace-backed
    law's, and tuned cells, whose search asks its caller for each value's outcome rather
    than calling it (ask and tell); and the cell files written, atomically, by a context
    rather than a writer handed to the files module."""
    from straggler.study.config import load_config, resolve_config
    from straggler.study.dataset import write_cell
    from straggler.study.evaluate import evaluate_cell
    from straggler.study.grid import build_grid

    studies = []
    for path in ("config/config.yaml", "config/studies/measured.yaml"):
        raw = resolve_config(load_config(REPO / path)).to_dict()
        studies.append(resolve_config({**raw, "evaluate": ["analytic"]}))
    studies.append(
        resolve_config(
            {
                "study": "tuned",
                "seed": 7,
                "grid": {
                    "policy": ["Rer", "FJ"],
                    "distribution": ["two"],
                    "dependence": ["iid"],
                    "r_slow": [1.0],
                    "N": [4],
                    "d": [2],
                },
                "load": [0.5],
                "policies": {"Rer": {"tau": {"tune": [0.5, 20]}}, "FJ": {"k": {"tune": [1, 3]}}},
                "distributions": {"two": {"family": "discrete", "values": [1, 20], "p": [0.9, 0.1]}},
                "simulation": {"jobs": 2000, "warmup": 200, "replications": 3},
            }
        )
    )

    def run():
        for study in studies:
            # a cell of each policy, law and dependence: the code paths, not every load unit
            kinds = {(c.policy, c["distribution"], c["dependence"]): c.id for c in build_grid(study).cells.values()}
            for cid in kinds.values():
                write_cell(evaluate_cell(study, cid), tmp_path / "cell.nc")

    assert calls_up(run) == []


def test_the_run_time_check_sees_a_call_up():
    """A function of a high layer's module called from a low layer's is found."""
    from straggler.common import sources
    from straggler.study import evaluate

    exec("def handed_down():\n    return 1\n", vars(evaluate) | {}, high := {})
    exec("def calls_back(f):\n    return f()\n", vars(sources) | {}, low := {})
    # the functions run with their module's globals, as if defined there
    handed_down = type(high["handed_down"])(high["handed_down"].__code__, vars(evaluate))
    calls_back = type(low["calls_back"])(low["calls_back"].__code__, vars(sources))
    assert calls_up(lambda: calls_back(handed_down)) == ["common.sources.calls_back calls study.evaluate.handed_down"]


def _room_of(name: str) -> str | None:
    head = name.split(".")[0]
    return head if head in layers.ROOMS else None


def _declared(room: str) -> set[str]:
    """The rooms that ``room``'s docstring says it may import."""
    doc = ast.get_docstring(ast.parse(sources.module_file(room).read_text())) or ""
    line = next((ln for ln in doc.splitlines() if ln.startswith("May import:")), None)
    assert line is not None, f"straggler.{room}'s docstring has no 'May import:' line"
    return set(re.findall(r"``(\w+)``", line))


def test_each_room_imports_only_what_its_docstring_allows():
    """A room's docstring says which rooms below it its modules may import; none imports
    another, nor a room above it; and the package root holds the face and the command."""
    order = {room: rank for rank, room in enumerate(layers.ROOMS)}
    wrong = []
    for room in layers.ROOMS:
        allowed = _declared(room)
        wrong += [f"{room} may import {r}, a room above it" for r in allowed if order[r] >= order[room]]
        for name, targets in _edges().items():
            if _room_of(name) != room:
                continue
            used = {_room_of(t) for t in targets} - {None, room}
            wrong += [f"{name} imports the room {r}" for r in sorted(used - allowed)]
    assert wrong == []
    root = sorted(p.name for p in sources.ROOT.iterdir() if p.suffix == ".py")
    assert root == ["__init__.py", "__main__.py"]
    rooms = sorted(p.name for p in sources.ROOT.iterdir() if (p / "__init__.py").exists())
    assert rooms == sorted([*layers.ROOMS, "cli"])


def test_a_long_module_is_one_idea_and_says_why():
    """No module over 1,000 lines; one over 800 says in its docstring why it is one idea
    ("One idea, ...": what keeps it together), since a long module usually holds two."""
    long = {}
    for name, path in MODULES.items():
        lines = len(path.read_text().splitlines())
        if lines > 800:
            long[name] = (lines, ast.get_docstring(ast.parse(path.read_text())) or "")
    assert [name for name, (lines, _) in long.items() if lines > 1000] == []
    assert [name for name, (_, doc) in long.items() if "One idea" not in doc] == []
