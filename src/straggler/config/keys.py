"""The config's keys: named axes, top-level order, scales, built-in dependences, system axes."""

from __future__ import annotations

NAMED_AXES: tuple[str, ...] = ("policy", "distribution", "dependence", "r_slow", "d", "N")
"""The six named grid axes, in dataset dimension order."""

TOP_LEVEL_ORDER: tuple[str, ...] = (
    "study",
    "seed",
    "grid",
    "load",
    "policies",
    "distributions",
    "dependences",
    "system",
    "evaluate",
    "simulation",
    "execution",
)

KEY_ORDER: tuple[str, ...] = (
    ("study", "scale") + TOP_LEVEL_ORDER[1:4] + ("load_basis",) + TOP_LEVEL_ORDER[4:] + ("scales",)
)
"""Every top-level key, in dump order: ``load_basis`` is in a resolved config only when
it is not the default (``nominal``), and ``scale`` only when the study defines scales,
so TOP_LEVEL_ORDER (always present) leaves them out; ``scales`` is applied and dropped."""

SCALES: tuple[str, ...] = ("quick", "paper")
"""Run scales a study file may define under ``scales`` and select with ``scale``."""

BUILTIN_DEPENDENCES: dict[str, dict] = {"identical": {"kind": "identical"}, "iid": {"kind": "iid"}}

SYSTEM_AXES: dict[str, tuple[str, ...]] = {
    "types.p1": ("system", "types", "p"),
    "types.belief": ("system", "types", "belief"),
    "types.knowledge": ("system", "types", "knowledge"),
    "system.discipline": ("system", "discipline"),
    "system.queueing": ("system", "queueing"),
}
"""Dotted system paths that may be swept under ``grid`` -> the key they set.
``types.p1: v`` sets ``system.types.p = [v, 1 - v]``."""

PROBABILITY_TOLERANCE = 1e-9

SCHEMA_RESOURCE = "schemas/config.schema.yaml"
MISSING = object()
