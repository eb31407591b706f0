"""A policy is named in its spec only: no other module spells a policy's name.

A policy's facts live in its :class:`straggler.model.policies.PolicySpec` (docs/contributing.md, "Adding
a policy"); a module that tests ``policy == "FJ"`` or keys a table by ``"Rep"``
holds a fact the registry does not, and a new policy silently misses it. So every
string constant of ``src/straggler`` (f-string parts and dict keys included;
docstrings and comments are prose and are not read) that contains a canonical
name or an alias as a word fails this test, outside the modules of
:data:`ALLOWED`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from straggler.model.policies import ALIASES, POLICIES

SRC = Path(__file__).resolve().parents[3] / "src" / "straggler"

ALL = None
"""Every policy name is allowed in the entry's module."""

#: path under src/straggler ("x/" covers a package) -> (the names it may spell, or
#: ALL; why). One line each: edit here when a module is split or a literal removed.
ALLOWED: dict[str, tuple[frozenset[str] | None, str]] = {
    "model/policies/": (ALL, "the registry: where each policy is declared, by family"),
    "engines/analysis/two_pool_handlers.py": (
        ALL,
        "analysis handlers (HANDLERS): each implements one policy's analysis",
    ),
    "engines/analysis/d_of_n_handlers.py": (ALL, "analysis handlers (HANDLERS): each implements one policy's analysis"),
    "engines/analysis/fork_join_handlers.py": (
        ALL,
        "analysis handlers (HANDLERS): each implements one policy's analysis",
    ),
    "engines/analysis/hedging_handlers.py": (
        ALL,
        "analysis handlers (HANDLERS): each implements one policy's analysis",
    ),
    "engines/simulation/fast.py": (ALL, "numba kernel: a branch per policy"),
    "engines/simulation/events.py": (ALL, "numba kernel: a branch per policy"),
    "engines/simulation/reference.py": (ALL, "the reference simulator: a branch per policy"),
    "decide/claims/": (ALL, "paper claims: a claim quotes the policies its paper compares"),
    "outputs/catalog.py": (
        frozenset({"FJ", "KS", "KT"}),
        "user-visible figure captions: FJ.k is the example of a swept axis; the oracles named",
    ),
    "study/config/schema.py": (frozenset({"Rer"}), "user-visible help: Rer.tau is the example of a dotted grid axis"),
    "study/config/resolved.py": (
        frozenset({"Rer", "CoC"}),
        "the keys' descriptions: Rer.tau is the example of a dotted grid axis; load_basis redundancy is CoC's",
    ),
    "study/config/definitions.py": (frozenset({"Rep", "FRed"}), "the threshold's description: Rep with tau 0 is FRed"),
    "study/variables.py": (frozenset({"FJ"}), "user-visible description of keep_opt, FJ's chosen tasks"),
}

NAMES = sorted(set(POLICIES) | set(ALIASES), key=len, reverse=True)
WORD = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, NAMES)) + r")(?![\w-])")


def policy_literals(source: str) -> list[tuple[int, str]]:
    """``(line, name)`` of every policy name in a string constant of ``source``
    that is not a docstring (a string standing alone as a statement)."""
    tree = ast.parse(source)
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }
    line_of = {}  # an f-string's parts carry its line
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for part in ast.walk(node):
                line_of.setdefault(id(part), node.lineno)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            found += [(line_of.get(id(node), node.lineno), m.group(1)) for m in WORD.finditer(node.value)]
    return sorted(found)


def _allowance(relative: str) -> tuple[frozenset[str] | None, str] | None:
    for key, entry in ALLOWED.items():
        if relative == key or (key.endswith("/") and relative.startswith(key)):
            return entry
    return None


def _sources() -> dict[str, str]:
    return {
        path.relative_to(SRC).as_posix(): path.read_text()
        for path in sorted(SRC.rglob("*.py"))
        if "__pycache__" not in path.parts
    }


def test_no_policy_name_outside_its_spec():
    wrong = []
    for relative, source in _sources().items():
        names, _ = _allowance(relative) or (frozenset(), "")
        if names is ALL:
            continue
        wrong += [
            f"src/straggler/{relative}:{line}: {name!r}" for line, name in policy_literals(source) if name not in names
        ]
    assert not wrong, "policy names outside their spec (docs/contributing.md, 'Adding a policy'):\n" + "\n".join(wrong)


def test_every_restricted_allowance_is_still_needed():
    """An entry that allows some names lists only names its module still spells."""
    sources = _sources()
    stale = []
    for key, (names, _) in ALLOWED.items():
        if names is ALL or key not in sources:
            continue
        spelt = {name for _, name in policy_literals(sources[key])}
        stale += [f"{key}: {name}" for name in sorted(names - spelt)]
    assert not stale, "ALLOWED lists names its module no longer spells:\n" + "\n".join(stale)


def test_the_scan_finds_constants_fstrings_and_keys_not_prose():
    source = '''
"""Module docstring: FJ and CoC are prose."""
# a comment: Rep
X = "FJ"
COSTS = {"Rep": 0.03}
def f(policy, name):
    """Function docstring: Rer."""
    if policy in ("Red",):
        return f"policies.KT.{name}: no"
    return f"{policy} needs two pools"  # not a name: built from the spec
class C:
    y: int = 0
    """Attribute docstring: ZRed."""
OK = ["FRedux", "redundancy-dd", "ks", "FJx"]
'''
    assert policy_literals(source) == [(4, "FJ"), (5, "Rep"), (8, "Red"), (9, "KT")]
