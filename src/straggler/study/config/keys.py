"""The config's names: named axes, scales, built-in dependences, system axes (the keys
themselves, their order and their defaults are the typed config's: :mod:`.resolved`)."""

from __future__ import annotations

NAMED_AXES: tuple[str, ...] = ("policy", "distribution", "dependence", "r_slow", "d", "N")
"""The six named grid axes, in dataset dimension order."""

SCALES: tuple[str, ...] = ("quick", "paper")
"""Run scales a study file may define under ``scales`` and select with ``scale``."""

BUILTIN_DEPENDENCES: dict[str, dict] = {"identical": {"kind": "identical"}, "iid": {"kind": "iid"}}

CANCEL_DELAY = "cancel_delay"
"""The grid axis of ``system.cancel_delay`` (no dot: the issue's and the docs' spelling)."""

SYSTEM_AXES: dict[str, tuple[str, ...]] = {
    "types.p1": ("system", "types", "p"),
    "types.belief": ("system", "types", "belief"),
    "types.knowledge": ("system", "types", "knowledge"),
    "system.discipline": ("system", "discipline"),
    "system.queueing": ("system", "queueing"),
    CANCEL_DELAY: ("system", "cancel_delay"),
}
"""Dotted system paths that may be swept under ``grid`` -> the key they set.
``types.p1: v`` sets ``system.types.p = [v, 1 - v]``."""

PROBABILITY_TOLERANCE = 1e-9

MISSING = object()
