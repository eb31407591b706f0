"""The package's architecture: its layers, and which module sits in which.

tests/common/test_layers.py reads the source's imports (:func:`straggler.common.sources.imports_of`)
and checks them against :data:`LAYERS`: imports run one way, downwards, and form no
cycle. Light: the standard library only.
"""

from __future__ import annotations

#: The package's layers, bottom up. A module may import the modules of lower layers
#: and of its own group (without a cycle), never those of a higher layer, nor those
#: of another group of its own layer (analysis and simulation do not import each
#: other). A group lists module names, relative to the package; a package's name covers
#: its modules, the longest name that matches wins; ``""`` is the package's face. The
#: layers follow the rooms (``common``, ``model``, ``engines``, ``study``, ``decide``,
#: ``outputs``, ``run``, then the command), whose docstrings say which rooms each may
#: import; tests/common/test_layers.py checks the source against both.
LAYERS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("", "common", "model", "engines", "study", "decide", "outputs", "run"),),
    (("model.distributions",),),
    (("model.dependence",),),
    (("model.two_pools", "model.cell_model"),),
    (("model.policies",),),
    (("engines.registry",),),
    (("engines.mean_field",),),
    (("engines.analysis",), ("engines.simulation",)),
    (("engines.bench",),),
    (("study.config",),),
    (
        (
            "study.grid",
            "study.cell_build",
            "study.fleet",
            "study.workunits",
            "study.progress",
            "study.tuning",
            "study.verdict",
        ),
    ),
    (("study.variables", "study.provenance", "study.dataset", "study.evaluate", "study.pilot"),),
    (
        (
            "decide.claims",
            "decide.bound_checks",
            "decide.intervals",
            "decide.disagreements",
            "decide.winners",
            "decide.decision",
            "decide.assumption",
            "decide.question_additions",
            "decide.deploy",
            "decide.frontier",
            "decide.break_even",
            "decide.question",
            "decide.question_answer",
        ),
    ),
    (
        (
            "outputs.catalog",
            "outputs.glossary",
            "outputs.headline",
            "outputs.figures",
            "outputs.report",
            "outputs.archive",
        ),
    ),
    (("run.pipeline", "run.margin_rounds"),),
    (("cli", "__main__"),),
)

#: The rooms, bottom up: the package's subpackages below its face and the command. A
#: room's docstring ends with the rooms it may import (``May import: ...``), the ones
#: below it that its modules use.
ROOMS: tuple[str, ...] = ("common", "model", "engines", "study", "decide", "outputs", "run")


def layer_of(name: str) -> tuple[int, int] | None:
    """``(layer, group)`` of module ``straggler.<name>`` in :data:`LAYERS`, or None."""
    best: tuple[int, int, int] | None = None
    for rank, groups in enumerate(LAYERS):
        for group, prefixes in enumerate(groups):
            for prefix in prefixes:
                if name == prefix or (prefix and name.startswith(prefix + ".")):
                    if best is None or len(prefix) > best[2]:
                        best = (rank, group, len(prefix))
    return None if best is None else best[:2]
