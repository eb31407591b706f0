"""What a policy's spec says (:class:`PolicySpec`), and the words and settings the
families' specs share: the settings an engine may simulate, what it may need there, the
papers, and the hooks most policies take.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...common.quantiles import QUANTILES

# The settings an engine may simulate: (system.discipline, system.queueing).
FCFS_PER_SERVER = ("FCFS", "per_server")
PS_PER_SERVER = ("PS", "per_server")
FCFS_CENTRAL = ("FCFS", "central")

Setting = tuple[str, str]

# What an engine may need to simulate a policy in a setting (``PolicySpec.simulated_in``;
# the engines that have them: :mod:`straggler.engines.registry`).
WORKLOAD_RECURSION = "workload recursion"
"""Each replica's start and end are known when its job arrives (the per-server free-time
recursion of FCFS queues): the fast path's model."""
EVENT_LIST = "event list"
"""The state changes between arrivals (idle queues, timers, a central queue, PS):
an event-driven engine."""
PS_BOUND = "PS bound systems"
"""The PS paper's lower and upper bound systems of a policy with a ``ps_bound``."""

#: The papers the models come from, by the short name the code cites them with.
PAPERS: dict[str, str] = {
    "threshold": "Raaijmakers, Borst and Boxma, Threshold-based rerouting and replication for "
    "resolving job-server affinity relations (INFOCOM 2021; arXiv 2005.13353)",
    "speculation": "Anselmi and Walton, Stability and optimization of speculative queueing networks (arXiv 2104.10426)",
    "PS": "Raaijmakers, Borst and Boxma, Stability of redundancy systems with processor "
    "sharing (ValueTools 2020; arXiv 1912.00681)",
    "tail at scale": "Dean and Barroso, The tail at scale (Communications of the ACM 56(2), 2013): hedged "
    "and tied requests, as production systems run them",
    "fork-join": "Joshi, Soljanin and Wornell, Efficient redundancy techniques for latency "
    "reduction in cloud systems (arXiv 1508.03599)",
}


ONE_REQUEST = "one request"
"""A client-side form (:attr:`PolicySpec.client_form`): one request, no redundancy."""
AT_ONCE = "at once"
"""A client-side form: d copies sent together, the first answer taken, the rest cancelled."""
HEDGED = "hedged"
"""A client-side form: one copy, then another every ``delay`` without an answer, up to d,
within a budget of ``max_extra_load`` hedges per job."""


def one_replica_blocks(model) -> tuple[int, int]:
    """One replica served in full blocks its server: ``(1, 1)`` (see
    :mod:`straggler.engines.analysis.tails`)."""
    return 1, 1


TUNE = "tune"
"""The key of a tuned knob: ``{tune: [lo, hi]}`` in place of a parameter's value
(docs/guide/tuning.md; the search: :mod:`straggler.study.tuning`)."""

OBJECTIVE = "objective"
"""A tuned knob's optional second key: what the search minimises, ``mean`` (E[T], the
default) or a latency quantile the simulation estimates, ``p99``
(:data:`OBJECTIVES`)."""

MEAN_OBJECTIVE = "mean"

OBJECTIVES: dict[str, float | None] = {
    MEAN_OBJECTIVE: None,
    **{f"p{100 * q:g}": q for q in QUANTILES},
}
"""Objective name -> the latency quantile it minimises (None: the mean)."""

HEDGES_OBJECTIVE = re.compile(r"^hedges=((?:0|[1-9][0-9]*)(?:\.[0-9]+)?)$")
"""``hedges=b``: the objective of a hedging delay set by Finagle's rule, the delay at which
the extra copies per job are b (the response-time percentile 1 - b of a job's first copy,
in the steady state: a copy is sent when the first has not answered by then). The search
minimises |copies_mean - 1 - b|."""


def hedges_target(objective: str) -> float | None:
    """The b of an objective ``hedges=b`` (None for another objective)."""
    match = HEDGES_OBJECTIVE.match(str(objective))
    return float(match.group(1)) if match else None


@dataclass(frozen=True)
class Tunable:
    """What ``{tune: [lo, hi]}`` may search for a numeric parameter: integers or
    numbers, and the smallest value the parameter takes (the schema's)."""

    integer: bool = False
    minimum: float = 0.0
    exclusive: bool = False
    """The minimum itself is not allowed (``cost_limit > 0``)."""
    maximum: float | None = None

    def schema(self) -> dict:
        """The JSON schema of ``{tune: [lo, hi]}`` for this parameter (``lo < hi`` and
        finiteness are the config checks', :mod:`straggler.study.config.checks.policies`)."""
        bound = {"exclusiveMinimum" if self.exclusive else "minimum": self.minimum}
        if self.maximum is not None:
            bound["maximum"] = self.maximum
        item = {"type": "integer" if self.integer else "number", **bound}
        return {
            "type": "object",
            "additionalProperties": False,
            "required": [TUNE],
            "properties": {
                TUNE: {
                    "description": "[lo, hi], lo < hi: the range the study searches by simulation, per setting "
                    "and per load" + (" (integers)" if self.integer else "") + ".",
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 2,
                    "items": item,
                },
                OBJECTIVE: {
                    "description": "What the search minimises: mean (E[T], the default), a latency quantile "
                    "the simulation estimates (p99: the 99th percentile), or hedges=b: the distance of the "
                    "extra copies per job from b (a hedging delay by Finagle's rule: the delay that sends b "
                    "hedges per job).",
                    "anyOf": [{"enum": list(OBJECTIVES)}, {"type": "string", "pattern": HEDGES_OBJECTIVE.pattern}],
                },
            },
        }


TUNE_TEXT = (
    "Or {tune: [lo, hi]}: the study searches the range by simulation, per setting and per load, for the "
    "least mean response time, or the least quantile {tune: [lo, hi], objective: p99} names "
    "(docs/guide/tuning.md)."
)


def tunable_schema(schema: dict, tunable: Tunable) -> dict:
    """A parameter's schema that also takes ``{tune: [lo, hi]}``: its own values, or the
    tuned range (:meth:`Tunable.schema`)."""
    own = {k: v for k, v in schema.items() if k != "description"}
    text = schema.get("description", "")
    return {"description": f"{text} {TUNE_TEXT}".strip(), "anyOf": [own, tunable.schema()]}


def tuned_range(value) -> tuple[float, float] | None:
    """``(lo, hi)`` of a tuned value ``{tune: [lo, hi]}``, or None for any other value
    (or a malformed one, which the config's checks name)."""
    if not isinstance(value, Mapping) or TUNE not in value or not set(value) <= {TUNE, OBJECTIVE}:
        return None
    pair = value[TUNE]
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        return None
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in pair):
        return None
    return pair[0], pair[1]


def tuned_objective(value) -> str:
    """The objective of a tuned value (:data:`OBJECTIVES`; ``mean`` when it names none)."""
    return str(value.get(OBJECTIVE, MEAN_OBJECTIVE)) if isinstance(value, Mapping) else MEAN_OBJECTIVE


def is_tuned(value) -> bool:
    """Is ``value`` a tuned knob, ``{tune: ...}`` (well formed or not)?"""
    return isinstance(value, Mapping) and TUNE in value


def tuned_parameters(params: Mapping | None) -> list[str]:
    """The names of ``params`` whose value is ``{tune: ...}``, in order."""
    return [name for name, value in (params or {}).items() if is_tuned(value)]


@dataclass(frozen=True)
class PolicySpec:
    """Everything the package knows about one policy, outside its analysis handler and
    kernel branches (docs/contributing.md, "Adding a policy")."""

    name: str
    description: str
    """One line: what happens to a job (the schema's description of the policy)."""
    title: str = ""
    """The policy's name in words (``cancel on complete``)."""
    explanation: str = ""
    """What happens to a job, for a reader who has not read the papers (the glossary)."""
    analysis_summary: str = ""
    """What the analysis knows about the policy: which results are exact, which are
    bounds or approximations, and where they come from (the glossary)."""
    papers: tuple[str, ...] = ()
    """The papers behind the policy: keys of :data:`PAPERS`."""
    aliases: tuple[str, ...] = ()
    uses_d: bool = False
    """True if the policy replicates to ``d`` servers (the grid axis ``d`` matters;
    cells with d > N are impossible, and so is central queueing: it picks d of N)."""
    two_pools: bool = True
    """True if the policy chooses a pool first (needs two pools)."""
    parameters: dict = field(default_factory=dict)
    """Parameter name -> default value."""
    parameter_schema: dict[str, dict] = field(default_factory=dict)
    """Parameter name -> its JSON schema (a description, the values allowed; the default is
    :attr:`parameters`'): the config schema's ``policies.<name>`` entry is built from it."""
    kernel_parameters: tuple[str, ...] = ()
    """Numeric parameters the kernels read, in order, from the encoded model's policy slots
    (``flts[F_POLICY + i]``, :mod:`straggler.engines.simulation.encode`): a new parametrised policy
    needs no encoding code of its own."""
    analysis: str = ""
    """The name of its analysis in :data:`straggler.engines.analysis.cell.HANDLERS` ("": none)."""
    kernel_code: int | None = None
    """Its code in the simulation kernels (None: not simulated)."""
    simulated_in: dict[Setting, frozenset[str]] = field(default_factory=dict)
    """Setting ``(discipline, queueing)`` -> what an engine needs to simulate the policy
    there (:data:`WORKLOAD_RECURSION`, :data:`EVENT_LIST`; empty: any engine of that
    setting); the settings it is simulated in are the keys. Which engine runs a cell is
    :func:`straggler.engines.registry.choose`'s."""
    oracle: bool = False
    """Knows each job's type or size: a benchmark, not an option (the report also
    names the best policy without the oracles)."""
    client_form: str = ""
    """What it is to a client-side RPC stack: :data:`ONE_REQUEST`, :data:`AT_ONCE` (d
    copies sent together) or :data:`HEDGED` (a copy every ``delay``); "" when a client
    alone cannot run it."""
    client_side: str = ""
    """How a client alone runs it, in an RPC stack's words ("": it needs the servers'
    help, :attr:`server_help`): the contenders a question with ``policies: deployable``
    compares, and those ``straggler recommend --emit`` writes a stack's setting for
    (:mod:`straggler.model.policies.stacks`)."""
    server_help: str = ""
    """What it needs from the servers that a client-side stack cannot give (cancel a
    copy when another starts, say which queues are idle, two pools with affinity)."""
    monotone: str = ""
    """Why the set of stable loads is an interval (0, lambda*): the verdict is then
    monotone in the load, and the loads above an unstable one are not simulated
    (:func:`stability_monotone`). Empty: not known to be monotone."""
    value_names: dict[str, dict[str, str]] = field(default_factory=dict)
    """Parameter name -> {value: what the value makes of the system}: the words a
    figure's legend and the report use for a variant (``CoC.ps_bound = upper`` is the
    simulated upper-bound system, not an analytic bound)."""
    replicas: int = 1
    """Replicas a job may get besides the ``d`` of a policy with ``uses_d``: every
    job takes that many replica sizes from the random streams, whichever run, so
    that policies compared on one workload see the same sizes
    (:mod:`straggler.engines.simulation.streams`)."""
    one_copy_served: bool = False
    """True if it serves one copy of each job, of the first replica's size (ZRed, KT,
    CoS): how the copies' sizes relate (a mixture's ``identical``) changes nothing, so
    that axis is computed once for it and repeated (:mod:`straggler.study.grid`)."""
    redundancy_load: bool = False
    """The PS paper's load rho~ = lambda d E[min(X_1..X_d)] / N (``load_basis:
    redundancy``, section 3.5) is defined for it: d replicas, cancelled on completion."""

    picks_pool: bool = False
    """True if the simulation sends a job first to a pool drawn with ``alpha`` (one
    uniform), then to a server of it (:mod:`straggler.engines.simulation.encode`); FRed takes
    one server per pool, the policies with ``uses_d`` choose among all N."""
    sizes_by_type: bool = False
    """True if its analysis sums over the job types with each type's own size law (the
    threshold paper's eqs. 4-6: a ``by_type`` law is analysed exactly); otherwise a cell
    with a law per type is simulated only."""
    type_aware_alpha: bool = False
    """True if, without an assignment from the analysis, the simulation computes the
    type-aware optimal one (not random dispatch over all N servers)."""
    chosen_by_analysis: tuple[str, ...] = ()
    """Parameters whose value ``opt`` the analysis chooses and the simulation then
    takes from it (:mod:`straggler.study.evaluate`)."""
    chosen_per_load: tuple[str, ...] = ()
    """Those of :attr:`chosen_by_analysis` chosen at each load: with ``opt`` the
    system changes with the load, so its verdict is not known to be monotone."""
    tunable: dict[str, Tunable] = field(default_factory=dict)
    """The numeric parameters a config may give as ``{tune: [lo, hi]}`` (searched by
    simulation per setting and per load, :mod:`straggler.study.tuning`); their schema takes
    the tuned range besides their own values (:func:`tunable_schema`)."""
    grid_impossible: Callable[[Callable[[str, Any], Any], int], str | None] | None = None
    """Why a grid point with its parameters cannot be evaluated, or None (besides
    ``uses_d`` and ``two_pools``): ``hook(param, d)`` with ``param(name, default)``
    the parameter's value at the point (:mod:`straggler.study.grid`)."""
    config_errors: str = ""
    """The name of its parameters' check against the rest of the config in
    :data:`straggler.study.config.checks.policies.POLICY_CHECKS` ("": none)."""
    task_law: str = ""
    """The name of the function in :data:`straggler.study.cell_build.TASK_LAWS` that turns the
    job-size law into the law of the tasks the policy runs (and the load unit), ""
    when a replica's size is the job's (:mod:`straggler.study.cell_build`)."""
    parameter_values: Callable[[Any, dict, Any], dict] | None = None
    """Hook ``(size law, params, dependence) -> params``: the parameters given relative to the
    cell's job-size law (and its dependence, which may make a copy's duration differ) made the numbers the analysis and the kernels read (Hedge's ``delay:
    p95``); None when they are numbers already. The model's build and the encoding apply
    it, defaults included."""
    cancels: bool = False
    """It cancels copies (of a job that completed, started, or timed out): a copy in
    service when it is cancelled holds its server ``system.cancel_delay`` longer, so the
    ``cancel_delay`` axis applies to it (docs/guide/hedging.md)."""
    blocking_order: Callable[[Any], tuple[int, int]] = one_replica_blocks
    """``(r, k)``: a server is blocked behind a job for the k-th smallest of r of its
    replica sizes (the heavy-tail rule of :mod:`straggler.engines.analysis.tails`)."""
    single_copy: bool = False
    """Each job is one copy, sent to a pool with fixed probabilities (``alpha``) and never
    moved, copied or cancelled: on central queues every pool is then an M/G/c queue whose
    offered load is ``lambda E[B_i]`` (the threshold paper's eq. 5), which the heavy-tail
    rule of central queues needs (:mod:`straggler.engines.analysis.tails`). False: that load has
    no closed form there, and no claim is made."""
    concurrent_replicas: int = 1
    """Replicas of a job in service at once besides the ``d`` of a policy with
    ``uses_d``: the work-unit cost model's units per job (:mod:`straggler.study.workunits`)."""
    analysis_seconds: float | None = None
    """A cell's analysis, measured on threshold_r_slow (None: the work-unit plan's
    ``OTHER_ANALYSIS_SECONDS``, 5-12 ms)."""
    quadrature_seconds: float | None = None
    """A cell's analysis when its replicas are not identical copies of a law that is
    not exponential (a quadrature in every threshold trial; None: as otherwise)."""

    @property
    def analytic_only(self) -> bool:
        """True if no engine simulates the policy (no kernel code)."""
        return self.kernel_code is None

    def analysis_value(self, name: str, lo: float, hi: float):
        """The value the analysis of a cell takes for its tuned parameter ``name``:
        ``opt`` where the analysis chooses it (:attr:`chosen_by_analysis`: its optimum,
        which the search also tries), else ``lo`` for an integer (the smallest is
        feasible whenever one is: k of FJ) and the midpoint for a number."""
        if name in self.chosen_by_analysis:
            return "opt"
        if self.tunable[name].integer:
            return int(lo)
        return lo + (hi - lo) / 2

    def analysis_value_words(self, name: str) -> str:
        """What :meth:`analysis_value` takes, in words (a cell's note)."""
        if name in self.chosen_by_analysis:
            return f"{name}: opt (the analysis's optimum)"
        return f"{name} = lo, the smallest of the range" if self.tunable[name].integer else f"{name} = (lo + hi) / 2"


#: why the stable loads of a policy with a fixed work per pool form an interval
FIXED_WORK = (
    "the work a job brings to each pool does not depend on the arrival rate (the "
    "threshold and assignment are chosen once per cell), so the load condition "
    "lambda E[B_i] / n_i < 1 (threshold paper, Props. 1-2) holds on an interval of "
    "loads"
)
#: why those of a policy that places and cancels independently of the load do
PLACEMENT = (
    "placement and cancellation do not depend on the arrival rate, and the stability "
    "conditions the papers give or conjecture are lambda < lambda* (PS paper, "
    "fork-join paper, speculation paper)"
)

ANY: frozenset[str] = frozenset()
EVERYWHERE: dict[Setting, frozenset[str]] = {FCFS_PER_SERVER: ANY, PS_PER_SERVER: ANY, FCFS_CENTRAL: ANY}
# the d-of-N policies' FCFS per-server dynamics are the workload recursion's (the event
# engine has no FCFS branch for them)
D_OF_N: dict[Setting, frozenset[str]] = {FCFS_PER_SERVER: frozenset({WORKLOAD_RECURSION}), PS_PER_SERVER: ANY}


def swept(item: dict, description: str) -> dict:
    """The schema of a parameter that takes ``item``, or a list of such values (a dataset
    dimension)."""
    return {
        "description": description,
        "anyOf": [item, {"type": "array", "minItems": 1, "uniqueItems": True, "items": item}],
    }
