"""The package's architecture: its layers, and which module sits in which.

tests/test_layers.py reads the source's imports (:func:`straggler.sources.imports_of`)
and checks them against :data:`LAYERS`: imports run one way, downwards, and form no
cycle. Light: the standard library only.
"""

from __future__ import annotations

#: The package's layers, bottom up. A module may import the modules of lower layers
#: and of its own group (without a cycle), never those of a higher layer, nor those
#: of another group of its own layer (analysis and simulation do not import each
#: other). A group lists module names; a package's name covers its modules; ``""``
#: is the package's ``__init__``. tests/test_layers.py checks the source against it.
LAYERS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("", "kernel_cache", "numerics", "sources", "layers", "catalog", "files", "cdf5", "quantiles"),),
    (("distributions",),),
    (("dependence",),),
    (("two_pools", "cell_model"),),
    (("policies", "engines"),),
    (("analysis",), ("simulation",)),
    (("config",),),
    (("grid", "cell_build", "workunits", "tuning", "bound_checks", "verdict", "claims", "glossary"),),
    (("variables", "provenance", "dataset", "evaluate", "archive", "bench", "pilot"),),
    (
        (
            "intervals",
            "disagreements",
            "winners",
            "decision",
            "assumption",
            "deploy",
            "frontier",
            "break_even",
            "figures",
            "headline",
            "report",
        ),
    ),
    (("pipeline", "cli", "question", "margin_rounds"),),
)


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
