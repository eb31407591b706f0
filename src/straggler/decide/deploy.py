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


def stack_table(ds: xr.Dataset, stack: str) -> PointTable | None:
    """The decision table of the contenders ``stack`` can run (its client forms, at most its
    copies: :data:`~straggler.model.policies.stacks.RUNS`), or None without any."""
    from ..model.policies import POLICIES
    from ..model.policies.stacks import RUNS
    from .decision import constraints, decision_table

    forms, most, _ = RUNS[stack]
    keep = [p for p in ds["policy"].values if POLICIES[str(p)].client_form in forms]
    if not keep:
        return None
    sub = ds.sel(policy=keep)
    if most is not None and "d" in sub.dims:
        ds_d = [v for v in sub["d"].values if int(v) <= most]
        if not ds_d:
            return None
        sub = sub.sel(d=ds_d)
    return decision_table(sub, constraints(ds))


def _estimate(table: PointTable, crit: str, at: tuple, name: str) -> float:
    """The estimate of ``name``'s ``crit`` at ``at`` (NaN where it has none)."""
    for c in table.candidates(crit, at):
        if c.name == name:
            return float(c.estimate) if np.isfinite(c.estimate) else 0.5 * (c.low + c.high)
    return math.nan


def _same_point(runs: PointTable, table: PointTable, index: tuple) -> tuple | None:
    """The setting index of ``runs`` at ``table``'s setting ``index`` (a subset's table may
    hold an axis of one value as a setting, d = 2 for brpc, that the whole one chooses over)."""
    want = table.setting(index)
    for at, _ in runs.points():
        have = runs.setting(at)
        if all(have[k] == v for k, v in want.items() if k in have):
            return at
    return None


def _limit_line(stack: str, table: PointTable, at: tuple, runs: PointTable, at_runs: tuple, row: dict) -> str:
    """``Envoy runs ...: among what it runs the answer is ...; against the answer ..., the
    limit costs ...``: the stack's answer (``row``, of ``runs``) beside the unconstrained one
    (of ``table``)."""
    from ..model.policies.stacks import RUNS, STACKS

    stack_name, limit = STACKS[stack], RUNS[stack][2]
    tied = [n for n in str(row["recommended"]).split(", ") if n]
    mine = tied[0]  # the one whose setting is written (a tie's first)
    from ..model.distributions.units import with_unit

    unit_name = str(table.constraints.unit)  # type: ignore[attr-defined]
    line = (
        f"{stack_name} runs {limit}: among what it runs the answer is {', '.join(tied)} "
        f"(P99 {with_unit(str(row.get('tail', '')), unit_name)}, extra load {row.get('extra load', '')})"
    )
    best = table_answer_name(table, at)
    if best:
        dt = _estimate(runs, "tail", at_runs, mine) - _estimate(table, "tail", at, best)
        de = _estimate(runs, "extra_load", at_runs, mine) - _estimate(table, "extra_load", at, best)
        if np.isfinite(dt) and np.isfinite(de):
            unit = f" {unit_name}" if unit_name else ""
            which = f" ({mine})" if len(tied) > 1 else ""
            line += (
                f"; against the answer {best}, {stack_name}'s limit costs{which} {dt:+.3g}{unit} at P99 and "
                f"{de:+.3g} extra load"
            )
    return line


def table_answer_name(table: PointTable, at: tuple) -> str:
    """The single recommended contender at ``at`` ("" for a tie or none)."""
    from .decision import answer

    names = [n for n in str(answer(table, at[:-1], at[-1])["recommended"]).split(", ") if n]
    return names[0] if len(names) == 1 else ""


def setting_lines(ds: xr.Dataset, stack: str) -> list[str]:
    """The block ``recommend --emit STACK`` prints after the answer: per load (loads with
    the same contender together), the answer among what the stack can run (beside the
    answer when that needs more: copies at once on Envoy, more than one backup on brpc or
    Finagle, the servers' help), with what the stack's limit costs in P99 and extra load;
    then that contender's setting in the stack's format and its notes (``# ``). Last, what
    the answer assumes of a request's copies and how far that may move
    (:func:`straggler.decide.assumption.assumption_lines`)."""
    from ..model.policies.stacks import STACKS, describe, setting_text, stack_runs
    from .assumption import assumption_lines, at_assumed
    from .decision import answer, constraints, decision_table
    from .question_additions import hedged_policies

    assumed = assumption_lines(ds)
    ds = at_assumed(ds)  # the answer's c, as answer_lines reads it
    c = constraints(ds)
    table = decision_table(ds, c)
    runs = stack_table(ds, stack)
    chosen: dict[str, list] = {}
    out: list[str] = []
    for index, li in table.points():
        if li is None:
            continue
        row = answer(table, index, li)
        names = [n for n in str(row["recommended"]).split(", ") if n]
        load = f"{float(table.ds['load'].values[li]):g}"
        source = table
        if not (len(names) == 1 and _runs(stack, table, index, li, names[0], stack_runs)):
            at = _same_point(runs, table, index) if runs is not None else None
            row = answer(runs, at, li) if runs is not None and at is not None else {"recommended": ""}
            names = [n for n in str(row["recommended"]).split(", ") if n]
            if names and runs is not None and at is not None:
                out.append(f"load {load}: " + _limit_line(stack, table, (*index, li), runs, (*at, li), row))
                index = at
            source = runs if runs is not None else table
        if not names:
            hedged = ", ".join(hedged_policies())
            out.append(
                f"load {load}: no contender {STACKS[stack]} can run qualifies: nothing to set (a hedged "
                f"contender with other delays may: parameters: {{{hedged}: {{delay: [p50, p75, p90, p99]}}}})"
            )
            continue
        chosen.setdefault(names[0], []).append((index, li, load, source))
    for name, where in chosen.items():
        index, li, _, source = where[-1]
        dep = deployment(source, index, li, name)
        loads = ", ".join(w[2] for w in where)
        text, notes = setting_text(stack, dep)
        out.append(f"{STACKS[stack]} setting for {describe(dep)}, the answer at load {loads}:")
        out += text.rstrip("\n").splitlines()
        out += [f"# {n}" for n in notes]
    if out and assumed:  # a setting is only as good as the answer's assumption
        out.append("# every setting above rests on what the answer assumes of a request's copies:")
        out += [f"#   {line}" for line in assumed]
    return out


def _runs(stack: str, table: PointTable, index: tuple, li: int, name: str, stack_runs) -> bool:
    """Whether ``stack`` runs the contender ``name`` as the answer has it."""
    if not is_deployable(name.split(" ")[0]):
        return False
    dep = deployment(table, index, li, name)
    return stack_runs(stack, dep.form, dep.copies)
