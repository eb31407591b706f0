"""Which contenders a client alone can run, and the answer as a stack's setting.

A contender is *deployable* when its policy's spec says how a client-side RPC stack runs
it (:attr:`straggler.model.policies.PolicySpec.client_form`: one request, d copies at once,
hedged requests); the others need the servers' help (cancel on start, idle queues, two
pools), which the spec names (:attr:`~straggler.model.policies.PolicySpec.server_help`).

Where the answer needs the servers, :func:`deployable_answer` is the answer among the
deployable contenders alone, on the same constraints, so that the operator sees what
their stack can do beside what the servers could. :func:`deployment` turns a contender
into what :mod:`straggler.model.policies.stacks` writes (its copies, its delay as a number in
the workload's unit, its budget and the hedges per job it sent), and
:func:`setting_lines` is the block ``straggler recommend --emit STACK`` prints.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import xarray as xr

    from ..model.policies.stacks import Deployment
    from .winners import PointTable

DELAY = "delay"
"""The parameter of a hedged policy (client form ``hedged``) that sets its delay."""
BUDGET = "max_extra_load"
"""The parameter of a hedged policy that caps its hedges per job."""


def is_deployable(policy: str) -> bool:
    """A client alone can run ``policy`` (its spec has a client-side form)."""
    from ..model.policies import POLICIES

    spec = POLICIES.get(policy)
    return spec is not None and bool(spec.client_form)


def server_help(policy: str) -> str:
    """What ``policy`` needs from the servers ("" for a deployable one)."""
    from ..model.policies import POLICIES

    spec = POLICIES.get(policy)
    return "" if spec is None or spec.client_form else spec.server_help


def deployable_table(ds: xr.Dataset) -> PointTable | None:
    """The decision table of ``ds``'s deployable policies alone (None: it has none)."""
    from .decision import constraints, decision_table

    keep = [p for p in ds["policy"].values if is_deployable(str(p))]
    if not keep:
        return None
    return decision_table(ds.sel(policy=keep), constraints(ds))


def deployable_answer(table: PointTable | None, index: tuple, li: int) -> dict | None:
    """The answer at a setting and load among the deployable contenders
    (:func:`deployable_table`), or None without any."""
    from .decision import answer

    return None if table is None else answer(table, index, li)


def _parameters(ds: xr.Dataset, policy: str) -> dict:
    """The study's parameters of ``policy`` (its config's ``policies.<policy>``)."""
    import yaml

    try:
        return dict((yaml.safe_load(ds.attrs["config"]).get("policies") or {}).get(policy) or {})
    except (KeyError, TypeError, ValueError, AttributeError, yaml.YAMLError):
        return {}


def _law(ds: xr.Dataset, name: str):
    """The size law ``name`` of the study that made ``ds``."""
    import yaml

    from ..model.distributions import from_spec

    spec = (yaml.safe_load(ds.attrs["config"]).get("distributions") or {})[name]
    return from_spec(spec)


def _dependence(ds: xr.Dataset, name: str):
    """The dependence ``name`` of the study that made ``ds``."""
    import yaml

    from ..model.dependence import from_spec as dependence_from_spec
    from ..model.distributions import from_spec

    config = yaml.safe_load(ds.attrs["config"])
    named = {k: from_spec(v) for k, v in (config.get("distributions") or {}).items()}
    spec = (config.get("dependences") or {}).get(name, name)
    return dependence_from_spec(spec, named)


def delay_value(ds: xr.Dataset, delay, law: str, dependence: str | None = None) -> tuple[float, str]:
    """(the delay as a number in the workload's unit, the words it was given in): a
    number stays one; ``p95`` or ``{quantile: 0.95}`` is that quantile of one copy's
    duration, the size law ``law`` under the dependence ``dependence`` (as the study's
    cells made it: :func:`~straggler.model.policies.hedging.hedge_delay`)."""
    from ..model.policies import delay_quantile

    q = delay_quantile(delay)
    if q is None:
        value = float(delay)
        return value, f"{value:g}"
    words = delay if isinstance(delay, str) else f"p{100 * q:g}"
    size = _law(ds, law)
    if dependence is None:
        return float(size.quantile(q)), str(words)
    return float(_dependence(ds, dependence).replica_quantile(size, q)), str(words)


def deployment(table: PointTable, index: tuple, li: int, name: str) -> Deployment:
    """What the contender ``name`` asks a client to run at a setting and load."""
    from ..model.policies import POLICIES, is_tuned, tuned_objective
    from ..model.policies.stacks import Deployment
    from .decision import candidate_parts

    ds = table.ds
    policy, own = candidate_parts(name)
    spec = POLICIES[policy]
    setting = table.setting(index)
    params = {**spec.parameters, **_parameters(ds, policy), **own}
    d = int(float(own.get("d", setting.get("d", 1))))
    law = str(setting.get("distribution", ds["distribution"].values[0]))
    delay, words = (math.inf, "")
    if DELAY in params and is_tuned(params[DELAY]):  # searched per load: the value it chose here
        tuned = table.flat(ds["tuned_value"], [*table.dims, "load"])[(*index, li, table.policies.index(name))]
        delay, words = float(tuned), f"tuned for {tuned_objective(params[DELAY])}"
    elif DELAY in params:
        dependence = str(setting.get("dependence", ds["dependence"].values[0]))
        delay, words = delay_value(ds, params[DELAY], law, dependence)
    hedges = [x for x in table.candidates("hedges", (*index, li)) if x.name == name]
    estimate = hedges[0].estimate if hedges else math.nan
    return Deployment(
        name=name,
        form=spec.client_form,
        d=d,
        delay=delay,
        delay_words=words,
        budget=float(params.get(BUDGET, math.inf)),
        hedges=float(estimate) if np.isfinite(estimate) else math.nan,
        unit=table.constraints.unit,  # type: ignore[attr-defined]
    )


def setting_lines(ds: xr.Dataset, stack: str) -> list[str]:
    """The block ``recommend --emit STACK`` prints after the answer: per load (loads with
    the same contender together), the recommended deployable contender's setting in the
    stack's format, then its notes (``# ``). Where the answer needs the servers, the
    best deployable contender's. Last, what the answer assumes of a request's copies
    and how far that may move (:func:`straggler.decide.assumption.assumption_lines`)."""
    from ..model.policies.stacks import STACKS, describe, setting_text
    from .assumption import assumption_lines, at_assumed
    from .decision import answer, constraints, decision_table

    assumed = assumption_lines(ds)
    ds = at_assumed(ds)  # the answer's c, as answer_lines reads it
    c = constraints(ds)
    table = decision_table(ds, c)
    client = deployable_table(ds)
    chosen: dict[str, list] = {}
    out: list[str] = []
    for index, li in table.points():
        if li is None:
            continue
        row = answer(table, index, li)
        names = [n for n in str(row["recommended"]).split(", ") if n]
        load = f"{float(table.ds['load'].values[li]):g}"
        if not (len(names) == 1 and is_deployable(names[0].split(" ")[0])):
            row = deployable_answer(client, index, li) or {"recommended": ""}
            names = [n for n in str(row["recommended"]).split(", ") if n]
        if not names:
            out.append(f"load {load}: no contender a client alone can run qualifies: nothing to set")
            continue
        key = names[0]
        chosen.setdefault(key, []).append((index, li, load))
    for name, where in chosen.items():
        index, li, _ = where[-1]
        dep = deployment(client if client is not None else table, index, li, name)
        loads = ", ".join(w[2] for w in where)
        text, notes = setting_text(stack, dep)
        out.append(f"{STACKS[stack]} setting for {describe(dep)}, the answer at load {loads}:")
        out += text.rstrip("\n").splitlines()
        out += [f"# {n}" for n in notes]
    if out and assumed:  # a setting is only as good as the answer's assumption
        out.append("# every setting above rests on what the answer assumes of a request's copies:")
        out += [f"#   {line}" for line in assumed]
    return out
