"""Style: one colour and marker per policy, a line style per kind of value, the verdict marks."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import xarray as xr

from ...model.policies import ps_bound_policies

MARKERS = ("o", "s", "^", "D", "v", "P", "p", "<", ">", "h", "*", "8")
"""Markers in the order of the policy registry, repeated past the twelfth policy (its
colour still tells it apart). No cross among them: an ``x`` marks what no policy is
(unstable, no policy stable: :data:`VERDICT_MARKS`, the winners map)."""


def policy_style() -> dict[str, dict]:
    """One fixed colour and marker per canonical policy (in the order of the policy
    registry), the same in every figure of every study: ``{policy: {"colour",
    "marker"}}``."""
    return {p: dict(s) for p, s in _policy_style().items()}


@functools.lru_cache(maxsize=1)
def _policy_style() -> dict[str, dict]:
    # built once: seaborn's palettes take a millisecond, and a figure asks per series
    from ...model.policies import POLICIES

    return styles_for(tuple(POLICIES))


def styles_for(names: tuple[str, ...]) -> dict[str, dict]:
    """A colour and a marker for each of ``names``, in order: every name gets one, and
    no two of the first 36 (the colours and markers cycle at 18 and 12) share both."""
    import seaborn as sns

    colours = list(sns.color_palette("tab10", n_colors=10))
    colours[7] = (0.224, 0.231, 0.475)  # tab10's grey is kept for "no winner" in the maps
    colours += list(sns.color_palette("Dark2", n_colors=8))
    return {
        name: {"colour": tuple(colours[i % len(colours)]), "marker": MARKERS[i % len(MARKERS)]}
        for i, name in enumerate(names)
    }


def policy_colours() -> dict:
    """One fixed colour per canonical policy, the same in every figure of every study."""
    return {p: s["colour"] for p, s in policy_style().items()}


def policy_markers() -> dict:
    """One fixed marker per canonical policy, the same in every figure of every study."""
    return {p: s["marker"] for p, s in policy_style().items()}


def style_of(policy) -> dict:
    return dict(_policy_style().get(str(policy), {"colour": (0.3, 0.3, 0.3), "marker": "o"}))


def policy_title(policy) -> str:
    """A policy's name in words (``FRed`` -> ``full redundancy``), the registry's
    :attr:`straggler.model.policies.PolicySpec.title` that the glossary also shows; "" for a
    name the registry does not know."""
    from ...model.policies import POLICIES

    spec = POLICIES.get(str(policy))
    return spec.title if spec is not None else ""


def shades_of(colour, n: int) -> list:
    """``n`` shades of ``colour`` from light to dark (series of one policy)."""
    if n <= 1:
        return [tuple(colour)]
    c = np.asarray(colour, dtype=float)
    out = []
    for t in np.linspace(0.0, 1.0, n):
        if t < 0.5:  # lighter: towards white
            mix = 0.55 * (1 - 2 * t)
            out.append(tuple(c + (1 - c) * mix))
        else:  # darker: towards black
            mix = 0.45 * (2 * t - 1)
            out.append(tuple(c * (1 - mix)))
    return out


KIND_STYLE: dict[str, dict[str, Any]] = {
    "exact": {"ls": "-", "label": "exact"},
    "approximation": {"ls": "--", "label": "approximation"},
    "upper bound": {"ls": ":", "label": "upper bound"},
    "lower bound": {"ls": (0, (4, 1.5, 1, 1.5, 1, 1.5)), "label": "lower bound"},
    "conjecture": {"ls": (0, (7, 2)), "label": "conjecture"},
    "mean-field limit": {"ls": (0, (3, 1, 1, 1)), "label": "mean-field limit (N -> infinity)"},
}
"""Line style of an analytic value by what it is (simulation: filled markers with CI)."""


BOUNDS = ("upper bound", "lower bound")


_KIND_NAMES = {
    "exact": "exact",
    "approximation": "approximation",
    "approximate": "approximation",
    "upper_bound": "upper bound",
    "lower_bound": "lower bound",
    "conjectured": "conjecture",
    "mean-field": "mean-field limit",
    # lambda_max: a necessary condition caps the stable loads (an upper bound on the
    # capacity), a sufficient one guarantees them (a lower bound)
    "necessary": "upper bound",
    "sufficient": "lower bound",
    "necessary (simulation)": "upper bound",
}


_INVERSE = {"upper bound": "lower bound", "lower bound": "upper bound"}


def kind_label(kind, inverse: bool = False) -> str:
    """The legend word for a ``*_kind`` value (``inverse``: of a quantity that falls
    as the bound rises, e.g. rho = load / lambda_max)."""
    kind = str(kind)
    name = _KIND_NAMES.get(kind, kind.replace("_", " ") if kind else "")
    return _INVERSE.get(name, name) if inverse else name


def kind_ls(label: str):
    return KIND_STYLE.get(label, {"ls": "-."})["ls"]


VERDICT_MARKS = {"unstable": "x", "undetermined": "$?$"}
"""How a simulated load without an estimate is drawn: a mark in the strip under the
panel (x: unstable, ?: undetermined), never a point on the curve."""


VERDICT_NOTE = "strip under each panel: x unstable, ? undetermined (no estimate), ∞ infinite mean; a row per policy"


PS_UPPER_BOUND = "upper bound: all replicas served"
"""The legend name of the analytic upper bound of CoC with PS servers (the PS paper's
Section 3.5 system: each server an M/X/1/PS queue), which is not the simulated
upper-bound system of ``CoC.ps_bound = upper``."""


def kind_names(ds: xr.Dataset | None) -> dict[str, str]:
    """Legend names of analytic kinds that a study makes more specific."""
    import yaml

    if ds is None or not set(ps_bound_policies()) & {str(p) for p in ds["policy"].values}:
        return {}
    try:
        discipline = yaml.safe_load(ds.attrs["config"])["system"]["discipline"]
    except (KeyError, TypeError, ValueError, yaml.YAMLError):
        return {}
    return {"upper bound": PS_UPPER_BOUND} if discipline == "PS" else {}
