"""Extra grid axes: dotted paths of a system, policy, distribution or (a mixture's ``identical``) dependence
parameter swept under ``grid``."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from ...model.distributions import FAMILIES
from ...model.policies import ALIASES, POLICIES, canonical_policy
from .errors import did_you_mean, one_of
from .keys import MISSING, SYSTEM_AXES
from .nodes import section
from .resolved import ResolvedConfig
from .schema import family_parameters


@dataclass(frozen=True)
class Axis:
    """An extra grid axis: a dotted key and the config path its values set."""

    key: str
    """The key as written under grid."""
    canonical: str
    """The key with a policy alias replaced by the canonical name (the dimension name)."""
    target: tuple[str, ...]
    """The config path that a value sets."""
    transform: Callable[[Any], Any] | None = None


def _complement(value):
    """``1 - value`` computed on the decimal literal (1 - 0.7 is 0.3, not 0.30000000000000004)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("expected a number in [0, 1]")
    if isinstance(value, int):
        return 1 - value
    if not math.isfinite(value):
        raise ValueError("expected a number in [0, 1]")
    return float(Decimal(1) - Decimal(repr(value)))


def _p1_to_p(value):
    return [value, _complement(value)]


def axis_of(key: str, cfg: dict) -> Axis:
    """Resolve a dotted grid key; raise ValueError saying what is allowed."""
    head, _, rest = key.partition(".")
    dists = section(cfg, "distributions")
    deps = section(cfg, "dependences")
    kinds = []
    if head in POLICIES or head in ALIASES:
        kinds.append("policy")
    if key in SYSTEM_AXES or head in ("types", "system"):
        kinds.append("system")
    if head in dists:
        kinds.append("distribution")
    if head in deps:
        kinds.append("dependence")
    if len(kinds) > 1:
        raise ValueError(f"{head!r} is ambiguous: it names a {' and a '.join(kinds)}; rename the distribution {head!r}")
    if not kinds:
        heads = sorted(POLICIES) + sorted(ALIASES) + sorted(dists) + sorted(deps) + ["types", "system"]
        raise ValueError(
            f"{head!r} is not a policy, a distribution defined under distributions, a dependence defined "
            f"under dependences, types or system; expected <policy>.<parameter>, <distribution>.<parameter>, "
            f"<mixture dependence>.identical, or one of "
            f"{one_of(SYSTEM_AXES)}{did_you_mean(head, heads)}"
        )
    kind = kinds[0]
    if kind == "policy":
        policy = canonical_policy(head)
        params = list(POLICIES[policy].parameters)
        if not params:
            raise ValueError(
                f"policy {policy} has no parameters; expected <policy>.<parameter> for a policy "
                f"with parameters ({one_of(p for p in POLICIES if POLICIES[p].parameters)})"
            )
        if rest not in params:
            raise ValueError(
                f"{rest!r} is not a parameter of policy {policy}; expected one of "
                f"{one_of(params)}{did_you_mean(rest, params)}"
            )
        return Axis(key, f"{policy}.{rest}", ("policies", policy, rest))
    if kind == "system":
        if key not in SYSTEM_AXES:
            raise ValueError(
                f"{key!r} is not a system parameter that can be swept; expected one of "
                f"{one_of(SYSTEM_AXES)}{did_you_mean(key, SYSTEM_AXES)}"
            )
        return Axis(key, key, SYSTEM_AXES[key], _p1_to_p if key == "types.p1" else None)
    if kind == "dependence":
        dep = deps[head]
        dep_kind = dep.get("kind") if isinstance(dep, dict) else None
        if dep_kind != "mixture" or rest != "identical":
            raise ValueError(
                f"{key!r}: only a mixture dependence's identical (the probability c that a job's copies "
                f"are one draw) can be swept; {head!r} is {dep_kind!r}"
                + ("" if dep_kind == "mixture" else "; write it as {kind: mixture, identical: c}")
            )
        return Axis(key, key, ("dependences", head, rest))
    spec = dists[head]
    family = spec.get("family") if isinstance(spec, dict) else None
    known = () if family is None else family_parameters().get(family, ())
    fixed = getattr(FAMILIES.get(family or ""), "unswept", ())
    if rest == "resample" and isinstance(spec, dict) and spec.get("bootstrap"):  # the axis that bootstrap: B makes
        return Axis(key, key, ("distributions", head, rest))
    if rest in fixed:
        raise ValueError(
            f"{rest!r} of distribution {head} (family {family}) cannot be swept on the grid"
            + ("; write bootstrap: B on the law (its axis of resamples)" if rest == "resample" else "")
        )
    params = list(known) + ["scale_to_mean"]
    if rest not in params:
        raise ValueError(
            f"{rest!r} is not a parameter of distribution {head} (family {family}); "
            f"expected one of {one_of(params)}{did_you_mean(rest, params)}"
        )
    return Axis(key, key, ("distributions", head, rest))


def get_path(cfg, path):
    """The value at ``path`` of ``cfg``, or :data:`MISSING`."""
    node = cfg
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return MISSING
        node = node[part]
    return node


def _set(cfg: dict, path, value) -> None:
    node = cfg
    for part in path[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[path[-1]] = value


def applied(cfg: dict, axis: Axis, value) -> dict:
    """A copy of the config dict ``cfg`` with one value of ``axis`` set (a policy that
    ``cfg`` does not list gets its registry defaults first)."""
    out = copy.deepcopy(cfg)
    new = axis.transform(value) if axis.transform else copy.deepcopy(value)
    if axis.target[0] == "policies" and isinstance(out.get("policies"), dict):
        policy = axis.target[1]
        if out["policies"].get(policy) is None:
            out["policies"][policy] = copy.deepcopy(POLICIES[policy].parameters)
    _set(out, axis.target, new)
    return out


def apply_override(resolved: ResolvedConfig, path: str, value) -> ResolvedConfig:
    """A new resolved config with the dotted ``path`` set to ``value``.

    ``types.p1`` sets ``system.types.p = [v, 1 - v]``; ``types.belief`` and
    ``types.knowledge`` set ``system.types.*``; ``system.discipline`` and
    ``system.queueing`` set ``system.*``; ``<Policy>.<param>`` (canonical name or
    alias) sets ``policies[Policy][param]``; ``<dist>.<param>`` sets
    ``distributions[dist][param]``. The input is not modified. An unknown path is a
    ValueError.
    """
    # typed, one section replaced: the config is not turned into a dict and back (a
    # grid override of every cell of a study runs this)
    axis = axis_of(path, {"distributions": resolved.distributions, "dependences": resolved.dependences})
    new = axis.transform(value) if axis.transform else copy.deepcopy(value)
    top, *rest = axis.target
    if top == "system":
        system, types = resolved.system, resolved.system.types
        if rest == ["types", "p"]:
            types = replace(types, p=tuple(new))
        elif rest == ["types", "belief"]:
            types = replace(types, belief=new)
        elif rest == ["types", "knowledge"]:
            types = replace(types, knowledge=new)
        elif rest == ["discipline"]:
            system = replace(system, discipline=new)
        elif rest == ["queueing"]:
            system = replace(system, queueing=new)
        elif rest == ["cancel_delay"]:
            system = replace(system, cancel_delay=new)
        else:
            raise ValueError(f"{path!r}: no typed override for system path {'.'.join(rest)}")
        return replace(resolved, system=replace(system, types=types))
    name, key = rest
    entries = dict(getattr(resolved, top))
    entry = entries.get(name)
    if entry is None and top == "policies":
        entry = POLICIES[name].parameters  # a policy the config does not list: its defaults
    entries[name] = {**copy.deepcopy(entry or {}), key: new}
    if top == "policies":
        return replace(resolved, policies=entries)
    if top == "dependences":
        return replace(resolved, dependences=entries)
    return replace(resolved, distributions=entries)


def literal(value) -> str:
    """The text of a config value as the user wrote it (YAML scalars round-trip via repr)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return str(value).replace("/", "_")


def _policy_list_axes(resolved: ResolvedConfig) -> dict[str, list]:
    """Policy parameters given as lists become dimensions named by the parameter."""
    axes: dict[str, list] = {}
    for policy in resolved.grid.policy:
        for param, value in resolved.policies.get(policy, {}).items():
            if isinstance(value, list):
                values = axes.setdefault(param, [])
                values.extend(v for v in value if v not in values)
    return axes


def _resample_axes(resolved: ResolvedConfig) -> dict[str, list]:
    """A trace with ``bootstrap: B`` that the grid uses becomes the axis
    ``<law>.resample`` = 0 (the trace itself), 1, ..., B (its resamples)."""
    used = set(resolved.grid.distribution)
    for name in resolved.grid.dependence:
        dep = resolved.dependences.get(name)
        if isinstance(dep, dict) and isinstance(dep.get("slowdown"), str):
            used.add(dep["slowdown"])
    return {
        f"{name}.resample": list(range(int(spec["bootstrap"]) + 1))
        for name, spec in resolved.distributions.items()
        if name in used and isinstance(spec, dict) and spec.get("bootstrap")
    }


def axes_of(resolved: ResolvedConfig) -> dict[str, list]:
    """The grid's axes, named and extra (dotted) ones, with the policies' list-valued
    parameters and the traces' resamples as axes of their own."""
    axes = resolved.grid.axes()
    for name, values in _policy_list_axes(resolved).items():
        if name in axes:
            raise ValueError(f"grid axis {name!r} is defined twice (grid and policies)")
        axes[name] = values
    for name, values in _resample_axes(resolved).items():
        if name in axes:
            raise ValueError(
                f"grid axis {name!r} is defined twice (grid and the law's bootstrap); drop it from the grid"
            )
        axes[name] = values
    return axes
