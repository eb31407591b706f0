"""The policy registry: one :class:`PolicySpec` per policy.

A policy's spec holds what the rest of the package needs to know about it: its
canonical name and aliases, its parameters and their config schema, the grid's
impossibility rules (``uses_d``, ``two_pools``, ``grid_impossible``), its config
check, the name of its analysis in :data:`straggler.engines.analysis.cell.HANDLERS`, what
the simulation takes from the analysis, its code in the simulation kernels and
in which settings it is simulated with what an engine needs there, how it picks servers, whether its
stability verdict is monotone in the load, what blocks a server behind a job (the
heavy-tail rule), its cost in the work-unit plan, and whether it is an oracle.
Everything else reads it from here: the config schema's policy names and
per-policy parameter entries, the config checks, the grid, the model, the
engines' choice (:mod:`straggler.engines.registry`) and encoding, the work-unit cost model, the report.

A hook is a plain function of this module (it reads a model's or a grid point's
attributes, nothing heavier), or, when it needs a higher layer's code, the *name*
of a function there (``config_errors``, ``task_law``, like ``analysis``): this
module is imported by the config at parse time and sits below the analysis, the
simulation and the config (:data:`straggler.common.layers.LAYERS`). No module outside
the analysis handlers, the kernels, the reference simulator and the paper claims
names a policy (tests/model/policies/test_policy_literals.py).

The policy glossary (``straggler policies``, the documentation's policy page) is
written from the specs' words (:attr:`PolicySpec.title`, :attr:`PolicySpec.explanation`,
:attr:`PolicySpec.analysis_summary`, :attr:`PolicySpec.papers`) and facts
(:mod:`straggler.outputs.glossary`), so that it cannot drift from what the code does.

The specs live by family, one module each: :mod:`.two_pools` (the threshold paper's two
pools), :mod:`.d_of_n` (copies on d of the N servers), :mod:`.fork_join`, :mod:`.hedging`
(hedged requests); what a spec says
and the words they share, :mod:`.spec`. Here the registry is assembled, in the order the
families and their policies are listed (the order of legends, tables and the schema).

Adding a policy: its spec in its family's module, its kernel branch(es) in the engines that
simulate it (and in the reference simulator), its analysis handler, its tests
(docs/contributing.md, "Adding a policy").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import d_of_n, fork_join, hedging, two_pools
from .d_of_n import COC_CODE, COS_CODE, RIQ_CODE, first_of_d_blocks
from .fork_join import FJ_CODE, fork_join_blocks, fork_join_impossible
from .hedging import HEDGE_CODE, delay_quantile
from .spec import (
    ANY,
    D_OF_N,
    EVENT_LIST,
    EVERYWHERE,
    FCFS_CENTRAL,
    FCFS_PER_SERVER,
    FIXED_WORK,
    MEAN_OBJECTIVE,
    OBJECTIVES,
    PAPERS,
    PLACEMENT,
    PS_BOUND,
    PS_PER_SERVER,
    TUNE,
    WORKLOAD_RECURSION,
    PolicySpec,
    Setting,
    Tunable,
    is_tuned,
    one_replica_blocks,
    swept,
    tunable_schema,
    tuned_objective,
    tuned_parameters,
    tuned_range,
)
from .two_pools import FRED_CODE, KT_CODE, REP_CODE, RER_CODE, ZRED_CODE, first_of_pools_blocks

__all__ = [
    "ALIASES",
    "ANY",
    "COC_CODE",
    "COS_CODE",
    "D_OF_N",
    "EVENT_LIST",
    "EVERYWHERE",
    "FCFS_CENTRAL",
    "FCFS_PER_SERVER",
    "FIXED_WORK",
    "FJ_CODE",
    "HEDGE_CODE",
    "FRED_CODE",
    "KT_CODE",
    "ORACLES",
    "PAPERS",
    "PLACEMENT",
    "POLICIES",
    "PS_BOUND",
    "PS_PER_SERVER",
    "REP_CODE",
    "RER_CODE",
    "RIQ_CODE",
    "Setting",
    "MEAN_OBJECTIVE",
    "OBJECTIVES",
    "TUNE",
    "Tunable",
    "WORKLOAD_RECURSION",
    "ZRED_CODE",
    "PolicySpec",
    "all_policy_names",
    "canonical_policy",
    "delay_quantile",
    "first_of_d_blocks",
    "first_of_pools_blocks",
    "fork_join_blocks",
    "fork_join_impossible",
    "impossible_reason",
    "is_tuned",
    "names_using_d",
    "one_replica_blocks",
    "ps_bound_policies",
    "redundancy_kind",
    "schema_definitions",
    "schema_entries",
    "schema_name",
    "stability_monotone",
    "swept",
    "tunable_names",
    "tunable_schema",
    "tuned_parameters",
    "tuned_objective",
    "tuned_range",
    "tuned_values",
    "value_name",
]

POLICIES: dict[str, PolicySpec] = {
    spec.name: spec for spec in (*two_pools.SPECS, *d_of_n.SPECS, *fork_join.SPECS, *hedging.SPECS)
}
"""Every policy by its canonical name, in the order of the families and their modules."""

ALIASES: dict[str, str] = {alias: spec.name for spec in POLICIES.values() for alias in spec.aliases}

ORACLES: tuple[str, ...] = tuple(name for name, spec in POLICIES.items() if spec.oracle)
"""Policies that know each job's type (KT) or size (KS): benchmarks, not options."""


def canonical_policy(name: str) -> str:
    """Map a policy name or alias to its canonical name; raise KeyError if unknown."""
    if name in POLICIES:
        return name
    if name in ALIASES:
        return ALIASES[name]
    raise KeyError(name)


def redundancy_kind(policy: str) -> str:
    """What a policy does with copies, in the words of an operator's choice: ``one copy``
    (it cancels nothing), ``hedge`` (copies after a delay: :mod:`.hedging`) or
    ``replicate`` (copies at arrival, or after a timeout in the other pool)."""
    spec = POLICIES[policy]
    if not spec.cancels:
        return "one copy"
    return "hedge" if spec in hedging.SPECS else "replicate"


def stability_monotone(policy: str, params: dict | None = None) -> str:
    """Why the verdict of ``policy`` with ``params`` is monotone in the load, or ""
    when it is not known to be: a parameter the analysis chooses at each load
    (:attr:`PolicySpec.chosen_per_load`, FJ's ``keep: opt``) runs a different system
    at each load (the strategy's kept tasks depend on the arrival rate)."""
    params = params or {}
    spec = POLICIES[policy]
    if any(params.get(name) == "opt" for name in spec.chosen_per_load):
        return ""
    if tuned_parameters(params):  # the search picks a value per load: another system at each
        return ""
    return spec.monotone


def tunable_names() -> str:
    """Every parameter that ``{tune: [lo, hi]}`` may search, for messages: "Rer.tau, ..."."""
    return ", ".join(f"{name}.{param}" for name, spec in POLICIES.items() for param in spec.tunable)


def tuned_values(spec: PolicySpec, name: str, lo: float, hi: float, limit: int = 10001) -> list:
    """Every value of a tuned integer parameter's range (at most ``limit``), or ``[lo]``
    for a number: what :func:`impossible_reason` tries."""
    if not spec.tunable[name].integer:
        return [lo]
    first = int(-(-lo // 1))
    return list(range(first, min(int(hi // 1), first + limit - 1) + 1))


def impossible_reason(policy: str, params: Mapping[str, Any], d: int) -> str | None:
    """Why a grid point of ``policy`` cannot be evaluated by its spec's
    ``grid_impossible`` (``params``: its parameters at the point, a missing one at its
    default), or None. A tuned parameter is possible when one value of its range is (the
    search tries only those: :mod:`straggler.study.tuning`). The caller gives the values, not a
    function to ask for them: a callback into the grid would run the grid's code from
    this lower layer."""
    spec = POLICIES[policy]
    if spec.grid_impossible is None:
        return None
    param = params.get
    tuned = [n for n in spec.parameters if is_tuned(param(n, spec.parameters[n]))]
    pair = tuned_range(param(tuned[0], None)) if tuned and tuned[0] in spec.tunable else None
    if pair is None:
        return spec.grid_impossible(param, d)
    name = tuned[0]
    reasons = []
    for value in tuned_values(spec, name, *pair):
        reason = spec.grid_impossible(lambda n, default: value if n == name else param(n, default), d)
        if reason is None:
            return None
        reasons.append(reason)
    return f"no value of the tuned {name} in {list(pair)} is possible ({reasons[0]}, ...)"


def value_name(axis: str, value) -> str:
    """What the value of a policy-parameter axis (``CoC.ps_bound``) makes of the
    system, in words (:attr:`PolicySpec.value_names`); "" when the policy names none."""
    policy, _, parameter = str(axis).partition(".")
    spec = POLICIES.get(policy)
    if spec is None or not parameter:
        return ""
    return spec.value_names.get(parameter, {}).get(str(value), "")


def ps_bound_policies() -> tuple[str, ...]:
    """The policies with PS bound systems (a ``ps_bound`` parameter): their analytic
    upper bound under PS is the system in which every replica is served in full."""
    return tuple(name for name, spec in POLICIES.items() if "ps_bound" in spec.parameters)


def all_policy_names() -> list[str]:
    """Canonical names and aliases, for error messages and the schema."""
    return sorted(POLICIES) + sorted(ALIASES)


def names_using_d() -> str:
    """The policies that place d replicas, for messages: "CoC, CoS, ..."."""
    return ", ".join(name for name, spec in POLICIES.items() if spec.uses_d)


def schema_name(spec: PolicySpec) -> str:
    """The config schema's ``$defs`` entry that checks ``policies.<name>``."""
    return f"{spec.name.lower()}_parameters" if spec.parameters else "no_parameters"


def schema_definitions() -> dict[str, dict]:
    """The ``$defs`` entries of the policies' parameters, built from their specs (each
    parameter's :attr:`PolicySpec.parameter_schema`, its default from
    :attr:`PolicySpec.parameters`)."""
    return {
        schema_name(spec): {
            "description": f"Parameters of {spec.name}.",
            "type": "object",
            "additionalProperties": False,
            "properties": {
                name: {**_parameter_schema(spec, name), "default": default} for name, default in spec.parameters.items()
            },
        }
        for spec in POLICIES.values()
        if spec.parameters
    }


def _parameter_schema(spec: PolicySpec, name: str) -> dict:
    """A parameter's schema: its own, with ``{tune: [lo, hi]}`` where it is tunable."""
    own = spec.parameter_schema[name]
    return tunable_schema(own, spec.tunable[name]) if name in spec.tunable else own


def schema_entries() -> dict[str, dict]:
    """``policies.<name>`` entries of the config schema, one per name and alias."""
    entries = {}
    for name, spec in POLICIES.items():
        ref = {"$ref": f"#/$defs/{schema_name(spec)}"}
        text = spec.description[0].upper() + spec.description[1:]
        if spec.aliases:
            text += f" (alias{'es' if len(spec.aliases) > 1 else ''} {', '.join(spec.aliases)})"
        if not spec.parameters:
            text += ". No parameters" + (" besides the grid axis d" if spec.uses_d else "")
        entries[name] = {**ref, "description": text + "."}
        for alias in spec.aliases:
            entries[alias] = {**ref, "description": f"Alias of {name}."}
    return entries
