"""A finished question's answer in words (``straggler recommend``): :func:`answer_lines`,
at most :data:`MAX_ANSWER_LINES` lines.

What was asked, then per load the policy to run with its E[T], tail and extra-load intervals
and its runner-up, and what would change the answer (the constraint that rules out a faster
contender), from :func:`straggler.decide.decision.answer`; where the answer needs the
servers' help, what a client alone can run (:mod:`straggler.decide.deploy`). The question,
and the study it becomes, are :mod:`.question`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..model.distributions.units import with_unit

if TYPE_CHECKING:
    import xarray as xr

    from .winners import PointTable

MAX_ANSWER_LINES = 10
"""The answer :func:`answer_lines` prints is at most this many lines."""


def run_words(name: str, setting: Mapping[str, Any]) -> str:
    """``Run CoC with d = 3`` from the contender ``CoC d=3`` (a d the setting fixes is
    added for a policy that places d copies)."""
    from ..model.policies import POLICIES
    from .decision import candidate_parts

    policy, values = candidate_parts(name)
    spec = POLICIES.get(policy)
    if "d" not in values and spec is not None and spec.uses_d and "d" in setting:
        values = {"d": str(setting["d"]), **values}
    if not values:
        return f"Run {policy}"
    return f"Run {policy} with " + ", ".join(f"{k} = {v}" for k, v in values.items())


BINDS = {"slo": "the SLO binds", "budget": "the budget binds", "both": "both bind"}
"""The words of :func:`straggler.decide.decision.answer`'s ``binding``."""


def _what_would_change(row: dict) -> str:
    """The second line of a load's answer: the constraint that binds and what it rules
    out (:func:`straggler.decide.decision.answer`'s ``what would change it``), or that none binds."""
    text = str(row.get("what would change it") or "")
    if row["binding"]:
        return f"  {BINDS.get(str(row['binding']), str(row['binding']))}: {text}".rstrip(": ")
    if text:
        return f"  {text}"
    if row["recommended"]:
        return "  no constraint binds: no faster contender is ruled out"
    return "  no contender has a result at this load"


def _answer_line(table: PointTable, at: tuple, row: dict, label: str, tail_label: str, deciding: str) -> str:
    """One load's answer: the policy to run with its E[T], tail (``tail_label``) and
    extra-load intervals, and its runner-up on the ``deciding`` metric."""
    chosen = [n for n in str(row["recommended"]).split(", ") if n]
    if not chosen:
        return f"{label}: no policy qualifies ({row['basis']})"
    if "(E[T] undecidable: " in str(row["basis"]):  # decided on the tail quantile instead
        deciding = tail_label
        label += f" (on {tail_label}, E[T] undecidable: {str(row['basis']).split('E[T] undecidable: ', 1)[1]}"
    if len(chosen) > 1:
        head = f"a tie, run any of {', '.join(chosen)} (a longer run may separate them)"
    else:
        head = run_words(chosen[0], table.setting(at[:-1]))
        if row["undetermined"]:
            unsure = str(row["undetermined"]).split(", ")
            who = ", ".join(unsure) if len(unsure) <= 3 else f"{len(unsure)} contenders"
            head += f" (not sure: {who} may or may not meet the constraints; a longer run may tell)"
        elif "narrowed by E[C]" in str(row["basis"]):
            others = [n for n in str(row["tied"]).split(", ") if n and n not in chosen]
            head += f" (tied on {deciding} with {', '.join(others) or 'others'}; the cheaper on E[C])"
        elif not row["decided"]:
            head += " (not decided: the intervals overlap)"
    unit = table.constraints.unit  # type: ignore[attr-defined]
    line = (
        f"{label}: {head}: E[T] {with_unit(row['E[T]'] or 'unknown', unit)}, "
        f"{tail_label} {with_unit(row['tail'] or 'unknown', unit)}, extra load {row['extra load'] or 'unknown'}"
    )
    if row.get("hedges") and row["hedges"] != "0":  # a contender that sends copies: what a stack's budget counts
        line += f", hedges per job {row['hedges']}"
    if row["runner_up"]:
        margin = float(row["margin"])
        behind = f"{deciding} at least {with_unit(f'{margin:.3g}', unit)} higher" if margin > 0 else "not surely slower"
        line += f"; runner-up {row['runner_up']} ({behind})"
    return line


def _client_line(row: dict, client, index: tuple, li: int, tail_label: str) -> list[str]:
    """Where the answer needs the servers' help, a line saying what it needs and the best
    contender a client alone can run (:mod:`straggler.decide.deploy`), with its numbers."""
    from .decision import candidate_parts
    from .deploy import deployable_answer, server_help

    needs = {p: server_help(p) for p in (candidate_parts(n)[0] for n in str(row["recommended"]).split(", ") if n)}
    needs = {p: why for p, why in needs.items() if why}
    if not needs:
        return []
    said = "; ".join(f"{p} needs {why}" for p, why in needs.items())
    best = deployable_answer(client, index, li)
    if best is None or not best["recommended"]:
        return [f"  {said}; no contender a client alone can run qualifies"]
    unit = client.constraints.unit
    numbers = f"{tail_label} {with_unit(best['tail'] or 'unknown', unit)}, extra load {best['extra load'] or 'unknown'}"
    if best.get("hedges") and best["hedges"] != "0":
        numbers += f", hedges per job {best['hedges']}"
    names = str(best["recommended"]).split(", ")
    what = (
        run_words(names[0], client.setting(index)).replace("Run ", "run ", 1)
        if len(names) == 1
        else f"run any of {', '.join(names)}"
    )
    return [f"  {said}; a client alone can {what} ({numbers})"]


def _fit(head: list[str], blocks: list[list[str]], tail: list[str], more: str, spare: list[str]) -> list[str]:
    """``head``, the blocks (a load's answer line first), ``tail``, in at most
    :data:`MAX_ANSWER_LINES` lines: whole blocks when they fit, else each block's first
    line, else as many first lines as fit and a line (``more``, given how many were
    left out) saying so; then the ``spare`` lines that still fit, before ``tail``."""
    room = MAX_ANSWER_LINES - len(head) - len(tail)
    if sum(len(b) for b in blocks) <= room:
        body = [line for b in blocks for line in b]
    elif len(blocks) <= room:
        body = [b[0] for b in blocks]
    else:
        shown = max(room - 1, 0)
        body = [b[0] for b in blocks[:shown]] + [more.format(n=len(blocks) - shown)]
    body += spare[: max(room - len(body), 0)]
    return head + body + tail


def _policy_words(names) -> list[str]:
    """What each policy named does, a line each: ``CoC: cancel on complete ...``."""
    from ..model.policies import POLICIES
    from .decision import candidate_parts

    policies = dict.fromkeys(candidate_parts(n)[0] for n in names)
    return [f"{p}: {POLICIES[p].title}: {POLICIES[p].description}." for p in policies if p in POLICIES]


def _located_line(table, named: list[str], c) -> list[str]:
    """With ``resolution`` (capacity.csv attached, :func:`straggler.decide.frontier.attach`): up
    to what load each recommended contender keeps the SLO (or stays stable), located."""
    from .intervals import fmt_interval

    ds = table.ds
    # one setting (a question's usual one): with several, capacity.csv has every row
    if "located_stability_low" not in ds or not named or any(ds.sizes[d] > 1 for d in table.dims):
        return []
    what = "slo" if c.target is not None else "stability"
    low = table.flat(ds[f"located_{what}_low"], table.dims)
    high = table.flat(ds[f"located_{what}_high"], table.dims)
    parts = []
    for k, name in enumerate(table.policies):
        if name in named:
            at = (*(0 for _ in table.dims), k)
            parts.append(f"{name} {fmt_interval(float(low[at]), float(high[at])) or 'unknown'}")
    label = f"{c.slo_words()} holds" if c.target is not None else "stable"
    return [f"Located ({label} at the low end, not at the high one): " + "; ".join(parts) + "."]


def fleet_words(ds: xr.Dataset, answers: list[tuple[float, list[str]]], level: float | None, unit: str) -> str:
    """Where the question's fleet has more than 100 servers, what its answer rests on (a
    sentence, "" otherwise): the simulation (on how many servers, from what start) and, for
    each load's answer (``answers``: (load, recommended contenders)), its mean-field limit at
    the tail ``level`` (P99), or of the mean, where the tier solves it."""
    import numpy as np

    from ..study import fleet
    from .decision import candidate_parts

    if "N" not in ds.coords or ds.sizes.get("N", 1) != 1:
        return ""
    N = int(ds["N"].values.ravel()[0])
    if N <= fleet.REFERENCE_N:
        return ""
    simulated = (
        "" if N <= fleet.SIMULATED_N else f" on {fleet.SIMULATED_N:,} (beyond, a fleet is its limit within O(1/N))"
    )
    words = [
        f"On N = {N:,} servers: simulated{simulated}, each server started in equilibrium (from the mean-field "
        f"limit where the tier solves the policy, else from {fleet.REFERENCE_N} servers' end state), with the "
        f"limit's or the {fleet.REFERENCE_N} servers' stability where a run was too short"
    ]
    limits = []
    for load, names in answers:
        for name in names:
            policy, values = candidate_parts(name)
            if policy not in ds["policy"].values:
                continue
            at = ds.sel(policy=policy, load=load)
            if "d" in at.dims:
                at = at.sel(d=int(values["d"])) if "d" in values else at.isel(d=0)
            kind = at["latency_approx_quantile_kind"] if "latency_approx_quantile_kind" in at else None
            if kind is None or str(np.asarray(kind.values).ravel()[0]) != "mean-field":
                continue
            v = (
                at["latency_approx_quantile"].sel(quantile=level, method="nearest")
                if level is not None
                else at["latency_approx"]
            )
            x = float(np.asarray(v.values, dtype=float).ravel()[0])
            if np.isfinite(x):
                limits.append(f"{with_unit(f'{x:.4g}', unit)} (load {load:g}, {name})")
                break
    if limits:
        what = f"P{level * 100:g}" if level is not None else "E[T]"
        words.append(f"the limit N -> infinity puts the answer's {what} at {', '.join(limits)}")
    return "; ".join(words) + "."


def _above_one_line(table, at: tuple, load) -> list[str]:
    """At a load of 1 or more, which contenders carry it: more server time than the servers
    have with one copy a job, which only a policy whose copies save work can serve."""
    if not isinstance(load, (int, float)) or load < 1.0 or "latency" not in table.arrays:
        return []
    stable = [c.name for c in table.candidates("latency", at) if c.verdict == "stable"]
    carried = (
        f"stable there: {', '.join(stable)} (the others are not, or not surely)"
        if stable
        else "no contender is surely stable there"
    )
    return [f"  load {load:g} is above 1 (one copy a job would need more than every server's time): {carried}"]


def answer_lines(ds: xr.Dataset, report: str | None = None) -> list[str]:
    """The answer of a finished question's dataset in at most :data:`MAX_ANSWER_LINES`
    lines: what was asked; per (setting and) load the policy to run, its E[T], tail and
    extra-load intervals and its runner-up, then what would change the answer; last,
    where the ``report`` is (its path, when given). With more loads than fit, one line
    per load and, past that, a line saying how many are in the report only."""
    from .assumption import assumption_lines, at_assumed
    from .decision import answer, constraints, decision_table, metric_name
    from .deploy import deployable_table
    from .intervals import one_copy_words

    assumed = assumption_lines(ds)
    ds = at_assumed(ds)  # the answer is the assumed c's
    c = constraints(ds)
    table = decision_table(ds, c)
    tail_label = metric_name(c.tail_level)
    # the answer is the fastest on the SLO's quantile, on E[T] for a mean SLO or none
    metric = c.slo_criterion
    deciding = metric_name(c.level) if metric == "tail" else "E[T]"
    asked = " and ".join(w for w in (c.slo_words(), c.budget_words()) if w) or "the smallest E[T]"
    times = "" if c.unit else "; times in the workload's unit, which it does not state"
    unit_words = one_copy_words(ds)
    sx = " (one copy of a request takes its work X times the server's slowdown S)" if unit_words == "E[X S]" else ""
    head = [
        f"Asked: {asked} (extra load: server time per job E[C] / {unit_words} - 1, against one copy at full "
        f"speed{sx}{times})."
    ]
    several = any(ds.sizes[d] > 1 for d in table.dims)
    client = deployable_table(ds)
    blocks, named = [], []
    answers: list[tuple[float, list[str]]] = []
    for index, li in table.points():
        if li is None:
            continue
        row = answer(table, index, li)
        named += [n for n in str(row["recommended"]).split(", ") if n]
        answers.append((float(row["load"]), [n for n in str(row["recommended"]).split(", ") if n]))
        load = row["load"]
        label = f"load {load:g}" if isinstance(load, float) else f"load {load}"
        if several:
            label = ", ".join(f"{k} = {v}" for k, v in table.setting(index).items()) + f", {label}"
        block = [_answer_line(table, (*index, li), row, label, tail_label, deciding)]
        block += _above_one_line(table, (*index, li), row["load"])
        if c.any:
            block.append(_what_would_change(row))
        block += _client_line(row, client, index, li, tail_label)
        blocks.append(block)
    fleet_sentence = fleet_words(ds, answers, c.level if metric == "tail" else None, c.unit)
    if fleet_sentence and assumed:
        assumed = [f"{assumed[0]} {fleet_sentence}", *assumed[1:]]
    where = report or "the study's report"
    tail = [f"Every contender at every load, with the evidence: {where}"] if report else []
    tail = assumed + _located_line(table, named, c) + tail
    more = "... and {n} more loads: see " + where
    return _fit(head, blocks, tail, more, _policy_words(named))
