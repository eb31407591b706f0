"""The grid: names it lists that are defined, policies listed once, dotted axes."""

from __future__ import annotations

from ....model.policies import ALIASES, POLICIES, canonical_policy
from ..axes import Axis, axis_of
from ..errors import Err, did_you_mean, fmt_path, format_value, not_allowed, one_of
from ..keys import SYSTEM_AXES
from ..nodes import section


def grid_name_errors(grid: dict, dists: dict, deps: dict) -> list[Err]:
    """Grid values naming a distribution or a dependence that is not defined."""
    errs: list[Err] = []
    for axis, defined, where in (("distribution", dists, "distributions"), ("dependence", deps, "dependences")):
        values = grid.get(axis)
        if isinstance(values, list):
            for i, name in enumerate(values):
                if isinstance(name, str) and name not in defined:
                    errs.append(
                        not_allowed(
                            ("grid", axis, i),
                            name,
                            f"a name defined under {where}: {one_of(defined)}{did_you_mean(name, defined)}",
                        )
                    )
    return errs


def duplicate_policy_errors(cfg: dict) -> list[Err]:
    """A policy given twice under policies."""
    errs: list[Err] = []
    policies = section(cfg, "policies")
    seen: dict[str, str] = {}
    for key in policies:
        if key in POLICIES or key in ALIASES:
            canon = canonical_policy(key)
            if canon in seen:
                errs.append(
                    Err(
                        ("policies", key),
                        f"policies.{key}: policy {canon} is given twice "
                        f"(as {seen[canon]} and {key}); expected one entry",
                    )
                )
            seen.setdefault(canon, key)
    return errs


def extra_axes(cfg: dict) -> tuple[list[tuple[Axis, list]], list[Err]]:
    """The dotted grid axes of ``cfg`` with their values, and the errors of those refused."""
    grid = cfg.get("grid")
    if not isinstance(grid, dict):
        return [], []
    axes: list[tuple[Axis, list]] = []
    errs: list[Err] = []
    by_name: dict[str, str] = {}
    policies = section(cfg, "policies")
    for key, values in grid.items():
        if not isinstance(key, str) or ("." not in key and key not in SYSTEM_AXES):
            continue
        try:
            axis = axis_of(key, cfg)
        except ValueError as exc:
            errs.append(
                Err(("grid", key), f"{fmt_path(('grid', key))}: key {format_value(key, 60)} is not allowed: {exc}")
            )
            continue
        if axis.target[0] == "distributions" and axis.target[-1] == "resample":
            errs.append(
                Err(
                    ("grid", key),
                    f"grid.{key}: key {key!r} is not allowed: the law's bootstrap makes the axis of its "
                    "resamples; drop it from the grid",
                )
            )
            continue
        if axis.canonical in by_name:
            errs.append(
                Err(
                    ("grid", key),
                    f"grid.{key}: key {key!r} is not allowed: it is the same axis as "
                    f"grid.{by_name[axis.canonical]}; expected each axis once",
                )
            )
            continue
        by_name[axis.canonical] = key
        if axis.target[0] == "policies":
            own = None
            for name, params in policies.items():
                if (name in POLICIES or name in ALIASES) and canonical_policy(name) == axis.target[1]:
                    own = params.get(axis.target[2]) if isinstance(params, dict) else None
            if isinstance(own, list):
                errs.append(
                    Err(
                        ("grid", key),
                        f"grid.{key}: key {key!r} is not allowed: "
                        f"policies.{axis.target[1]}.{axis.target[2]} is a list too; expected the "
                        f"values in one place",
                    )
                )
                continue
        if isinstance(values, list) and values:
            axes.append((axis, values))
    return axes, errs
