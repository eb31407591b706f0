"""The policy registry: one :class:`PolicySpec` per policy.

A policy's spec holds what the rest of the package needs to know about it: its
canonical name and aliases, its parameters and their config schema, the grid's
impossibility rules (``uses_d``, ``two_pools``, ``grid_impossible``), its config
check, the name of its analysis in :data:`straggler.analysis.cell.HANDLERS`, what
the simulation takes from the analysis, its code in the simulation kernels and
in which settings it is simulated with what an engine needs there, how it picks servers, whether its
stability verdict is monotone in the load, what blocks a server behind a job (the
heavy-tail rule), its cost in the work-unit plan, and whether it is an oracle.
Everything else reads it from here: the config schema's policy names and
per-policy parameter entries, the config checks, the grid, the model, the
engines' choice (:mod:`straggler.engines`) and encoding, the work-unit cost model, the report.

A hook is a plain function of this module (it reads a model's or a grid point's
attributes, nothing heavier), or, when it needs a higher layer's code, the *name*
of a function there (``config_errors``, ``task_law``, like ``analysis``): this
module is imported by the config at parse time and sits below the analysis, the
simulation and the config (:data:`straggler.layers.LAYERS`). No module outside
the analysis handlers, the kernels, the reference simulator and the paper claims
names a policy (tests/test_policy_literals.py).

The policy glossary (``straggler policies``, the documentation's policy page) is
written from the specs' words (:attr:`PolicySpec.title`, :attr:`PolicySpec.explanation`,
:attr:`PolicySpec.analysis_summary`, :attr:`PolicySpec.papers`) and facts
(:mod:`straggler.glossary`), so that it cannot drift from what the code does.

Adding a policy: its spec here, its kernel branch(es) in the engines that
simulate it (and in the reference simulator), its analysis handler, its tests
(docs/contributing.md, "Adding a policy").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# The policies' codes in the simulation kernels (PolicySpec.kernel_code). Plain ints,
# so that numba compiles a comparison with one as a constant.
ZRED_CODE, KT_CODE, FRED_CODE, COC_CODE, COS_CODE, RIQ_CODE, FJ_CODE, RER_CODE, REP_CODE = range(9)

# The settings an engine may simulate: (system.discipline, system.queueing).
FCFS_PER_SERVER = ("FCFS", "per_server")
PS_PER_SERVER = ("PS", "per_server")
FCFS_CENTRAL = ("FCFS", "central")

Setting = tuple[str, str]

# What an engine may need to simulate a policy in a setting (``PolicySpec.simulated_in``;
# the engines that have them: :mod:`straggler.engines`).
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
    "fork-join": "Joshi, Soljanin and Wornell, Efficient redundancy techniques for latency "
    "reduction in cloud systems (arXiv 1508.03599)",
}


def one_replica_blocks(model) -> tuple[int, int]:
    """One replica served in full blocks its server: ``(1, 1)`` (see
    :mod:`straggler.analysis.tails`)."""
    return 1, 1


def first_of_d_blocks(model) -> tuple[int, int]:
    """Cancel on the first of the job's d completions: the smallest of d."""
    return int(model.d), 1


def first_of_pools_blocks(model) -> tuple[int, int]:
    """Cancel on the first completion of one replica per pool: the smallest of 2."""
    return 2, 1


def fork_join_blocks(model) -> tuple[int, int]:
    """k of the r tasks kept: the k-th smallest of r (one task served in full when
    the kept tasks are chosen before their sizes are known)."""
    params = model.params
    k = int(params.get("k", 1))
    keep = params.get("keep", "d")
    if params.get("early") or keep == k:
        return 1, 1
    if keep in ("d", "opt"):  # opt keeps some r in k..d: the largest r is the lightest
        return int(model.d), k
    return int(keep), k


def fork_join_impossible(param: Callable[[str, Any], Any], d: int) -> str | None:
    """Why a fork-join grid point cannot be evaluated (k or keep above d), or None;
    ``param(name, default)`` is the policy's parameter at the point."""
    k = param("k", 1)
    if k > d:
        return f"k = {k} > d = {d}"
    keep = param("keep", "d")
    if isinstance(keep, int) and keep > d:
        return f"keep = {keep} > d = {d}"
    return None


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
    schema: str = "no_parameters"
    """The entry of the config schema's ``$defs`` that checks ``policies.<name>``."""
    analysis: str = ""
    """The name of its analysis in :data:`straggler.analysis.cell.HANDLERS` ("": none)."""
    kernel_code: int | None = None
    """Its code in the simulation kernels (None: not simulated)."""
    simulated_in: dict[Setting, frozenset[str]] = field(default_factory=dict)
    """Setting ``(discipline, queueing)`` -> what an engine needs to simulate the policy
    there (:data:`WORKLOAD_RECURSION`, :data:`EVENT_LIST`; empty: any engine of that
    setting); the settings it is simulated in are the keys. Which engine runs a cell is
    :func:`straggler.engines.choose`'s."""
    oracle: bool = False
    """Knows each job's type or size: a benchmark, not an option (the report also
    names the best policy without the oracles)."""
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
    (:mod:`straggler.simulation.streams`)."""
    redundancy_load: bool = False
    """The PS paper's load rho~ = lambda d E[min(X_1..X_d)] / N (``load_basis:
    redundancy``, section 3.5) is defined for it: d replicas, cancelled on completion."""

    picks_pool: bool = False
    """True if the simulation sends a job first to a pool drawn with ``alpha`` (one
    uniform), then to a server of it (:mod:`straggler.simulation.encode`); FRed takes
    one server per pool, the policies with ``uses_d`` choose among all N."""
    type_aware_alpha: bool = False
    """True if, without an assignment from the analysis, the simulation computes the
    type-aware optimal one (not random dispatch over all N servers)."""
    chosen_by_analysis: tuple[str, ...] = ()
    """Parameters whose value ``opt`` the analysis chooses and the simulation then
    takes from it (:mod:`straggler.evaluate`)."""
    chosen_per_load: tuple[str, ...] = ()
    """Those of :attr:`chosen_by_analysis` chosen at each load: with ``opt`` the
    system changes with the load, so its verdict is not known to be monotone."""
    grid_impossible: Callable[[Callable[[str, Any], Any], int], str | None] | None = None
    """Why a grid point with its parameters cannot be evaluated, or None (besides
    ``uses_d`` and ``two_pools``): ``hook(param, d)`` with ``param(name, default)``
    the parameter's value at the point (:mod:`straggler.grid`)."""
    config_errors: str = ""
    """The name of its parameters' check against the rest of the config in
    :data:`straggler.config.checks.policies.POLICY_CHECKS` ("": none)."""
    task_law: str = ""
    """The name of the function in :data:`straggler.cell_build.TASK_LAWS` that turns the
    job-size law into the law of the tasks the policy runs (and the load unit), ""
    when a replica's size is the job's (:mod:`straggler.cell_build`)."""
    blocking_order: Callable[[Any], tuple[int, int]] = one_replica_blocks
    """``(r, k)``: a server is blocked behind a job for the k-th smallest of r of its
    replica sizes (the heavy-tail rule of :mod:`straggler.analysis.tails`)."""
    concurrent_replicas: int = 1
    """Replicas of a job in service at once besides the ``d`` of a policy with
    ``uses_d``: the work-unit cost model's units per job (:mod:`straggler.workunits`)."""
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


_FIXED_WORK = (
    "the work a job brings to each pool does not depend on the arrival rate (the "
    "threshold and assignment are chosen once per cell), so the load condition "
    "lambda E[B_i] / n_i < 1 (threshold paper, Props. 1-2) holds on an interval of "
    "loads"
)
_PLACEMENT = (
    "placement and cancellation do not depend on the arrival rate, and the stability "
    "conditions the papers give or conjecture are lambda < lambda* (PS paper, "
    "fork-join paper, speculation paper)"
)

_ANY: frozenset[str] = frozenset()
_EVERYWHERE: dict[Setting, frozenset[str]] = {FCFS_PER_SERVER: _ANY, PS_PER_SERVER: _ANY, FCFS_CENTRAL: _ANY}
# the d-of-N policies' FCFS per-server dynamics are the workload recursion's (the event
# engine has no FCFS branch for them)
_D_OF_N: dict[Setting, frozenset[str]] = {FCFS_PER_SERVER: frozenset({WORKLOAD_RECURSION}), PS_PER_SERVER: _ANY}

POLICIES: dict[str, PolicySpec] = {
    p.name: p
    for p in [
        PolicySpec(
            "ZRed",
            "one copy, dispatched at random",
            title="zero redundancy",
            explanation="Each job gets one copy, sent to one server and never moved or copied. "
            "With two pools the job goes to pool 1 with probability alpha and to pool 2 otherwise "
            "(alpha chosen by the analysis to maximise the stability bound with what the "
            "dispatcher knows of the job types), then to a server of that pool at random; "
            "on identical servers it is random dispatch over all N.",
            analysis_summary="Exact: the stability bound (the threshold paper's eq. 5, a linear "
            "programme over the assignment), the cost (the job's size at its server's speed) "
            "and the mean response time, since every server is an M/G/1 queue (M/G/c for a "
            "central pool queue).",
            papers=("threshold",),
            aliases=("RND",),
            two_pools=False,
            picks_pool=True,
            analysis="zero_redundancy",
            kernel_code=ZRED_CODE,
            simulated_in=_EVERYWHERE,
            monotone="random dispatch with fixed probabilities: every server (or pool "
            "queue) is an M/G/1 (M/G/c) queue whose load grows with lambda",
        ),
        PolicySpec(
            "FRed",
            "a copy in every pool at arrival, cancel on complete",
            title="full redundancy",
            explanation="On arrival a job gets one copy in each of the two pools (a server of "
            "each, at random); the first copy to finish completes the job and the other is "
            "cancelled at once.",
            analysis_summary="The load condition of the threshold paper's eq. 6, proven "
            "necessary and conjectured sufficient (kind necessary), exact with one server per "
            "pool (a single queue); the cost is exact in the paper's model; the mean response "
            "time is exact with one server per pool and an approximation otherwise.",
            papers=("threshold",),
            replicas=2,
            concurrent_replicas=2,
            blocking_order=first_of_pools_blocks,
            analysis="full_redundancy",
            kernel_code=FRED_CODE,
            simulated_in=_EVERYWHERE,
            monotone=_FIXED_WORK,
        ),
        PolicySpec(
            "Rer",
            "after tau of processing, kill and restart in the other pool",
            title="rerouting after a timeout (speculative load balancing)",
            explanation="A job is sent to one pool; if it has not finished after tau units of "
            "processing there, it is killed and restarted in the other pool (from scratch, or "
            "with resume: true from where it stopped). With tau: opt the analysis chooses the "
            "threshold that maximises the stability bound. On identical servers this is the "
            "speculation paper's SLB, with a timeout.",
            analysis_summary="The stability bound of the threshold paper's Prop. 1 (the load "
            "condition, necessary) and, on identical servers, the speculation paper's "
            "stability region and optimal timeout; the cost is exact; the mean response time "
            "is a Pollaczek-Khinchine approximation (exact without a timeout).",
            papers=("threshold", "speculation"),
            replicas=2,
            aliases=("SLB",),
            parameters={"tau": "opt", "resume": False},
            schema="rer_parameters",
            picks_pool=True,
            chosen_by_analysis=("tau",),
            analysis_seconds=0.03,
            analysis="rerouting",
            kernel_code=RER_CODE,
            simulated_in=_EVERYWHERE,
            monotone=_FIXED_WORK,
        ),
        PolicySpec(
            "Rep",
            "after tau of processing, replicate in the other pool",
            title="replication after a timeout",
            explanation="A job is sent to one pool; if it has not finished after tau units of "
            "processing there, a copy starts in the other pool as well, and the first copy to "
            "finish completes the job (the other is cancelled). tau 0 is full redundancy "
            "(FRed); tau: opt lets the analysis choose it.",
            analysis_summary="The stability bound of the threshold paper's Prop. 2 (necessary; "
            "an approximation where copies of one job overlap in a pool of several servers), "
            "its cost and a Pollaczek-Khinchine approximation of the mean response time. "
            "Simulated by the event engine only.",
            papers=("threshold",),
            replicas=2,
            parameters={"tau": "opt"},
            schema="rep_parameters",
            picks_pool=True,
            chosen_by_analysis=("tau",),
            concurrent_replicas=2,
            blocking_order=first_of_pools_blocks,
            analysis_seconds=0.03,
            quadrature_seconds=0.4,
            analysis="replication",
            kernel_code=REP_CODE,
            simulated_in={setting: frozenset({EVENT_LIST}) for setting in _EVERYWHERE},
            monotone=_FIXED_WORK,
        ),
        PolicySpec(
            "KT",
            "type-aware optimal assignment, no redundancy",
            title="known types (an oracle)",
            explanation="The dispatcher knows each job's type and sends it, by the assignment "
            "that maximises the stability bound, to a server of a pool; no copies. A "
            "benchmark of what knowing the types is worth, not an option a real system has.",
            analysis_summary="Exact, as for zero redundancy: stability bound, cost and mean response time.",
            papers=("threshold",),
            picks_pool=True,
            type_aware_alpha=True,
            analysis="known_types",
            kernel_code=KT_CODE,
            simulated_in=_EVERYWHERE,
            oracle=True,
            monotone="a fixed assignment: every server is an M/G/1 queue whose load grows with lambda",
        ),
        PolicySpec(
            "KS",
            "size-aware thresholds",
            title="known sizes (an oracle)",
            explanation="The dispatcher knows each job's size and uses size-aware thresholds "
            "to decide where it runs and whether it is rerouted or replicated. A benchmark of "
            "what knowing the sizes is worth; analysed, not simulated.",
            analysis_summary="The stability bound of the threshold paper's Props. 3-4 (the "
            "larger of size-aware rerouting and replication, necessary), computed exactly "
            "through linear-programme duality over the thresholds; its cost.",
            papers=("threshold",),
            analysis="known_sizes",
            oracle=True,
        ),
        PolicySpec(
            "CoC",
            "d copies, cancel the rest on first completion",
            title="cancel on complete (redundancy-d)",
            explanation="On arrival a job gets d copies on d servers chosen at random among "
            "the N; the first copy to finish completes the job and the other copies are "
            "cancelled, wherever they are (in service or waiting). With PS servers, "
            "ps_bound: lower or upper simulates the PS paper's bound systems instead.",
            analysis_summary="With PS servers, the PS paper's stability condition "
            "lambda d E[min(X_1..X_d)] / N < 1 (conjectured necessary and sufficient) and the "
            "sufficient lambda d E[X] / N < 1. With FCFS servers: exact for d = N (the (N, 1) "
            "fork-join queue), the mean-field approximation for i.i.d. exponential copies, and "
            "the fork-join paper's cost bounds for 1 < d < N; elsewhere, bounds that hold for "
            "every policy that serves at least one copy in full.",
            papers=("PS", "fork-join"),
            aliases=("Red", "redundancy-d"),
            uses_d=True,
            two_pools=False,
            parameters={"ps_bound": None},
            value_names={
                "ps_bound": {
                    "none": "original system",
                    "lower": "lower-bound system, 1/min (simulated)",
                    "upper": "upper-bound system, 1/max (simulated)",
                }
            },
            schema="coc_parameters",
            redundancy_load=True,
            blocking_order=first_of_d_blocks,
            analysis="cancel_on_complete",
            kernel_code=COC_CODE,
            simulated_in={FCFS_PER_SERVER: _ANY, PS_PER_SERVER: _ANY},
            monotone=_PLACEMENT,
        ),
        PolicySpec(
            "CoS",
            "d copies, cancel the rest when the first starts",
            title="cancel on start (join the least work of d)",
            explanation="On arrival a job gets d copies on d servers chosen at random; when the "
            "first copy starts service the others are cancelled, so exactly one copy is "
            "served. With FCFS servers this is joining the server with the least work "
            "among the d (LLW-d).",
            analysis_summary="On identical servers stability is that of load balancing (one "
            "copy is served in full; the speculation paper's remark on CoS-d = LLW-d) and the "
            "cost is exact; the mean response time is known for d = N on FCFS servers only "
            "(the M/G/N queue, fork-join paper); with job-server affinity, the bounds that "
            "hold for every policy.",
            papers=("speculation", "fork-join"),
            aliases=("LLW",),
            uses_d=True,
            two_pools=False,
            analysis="cancel_on_start",
            kernel_code=COS_CODE,
            simulated_in=_D_OF_N,
            monotone=_PLACEMENT,
        ),
        PolicySpec(
            "RIQ",
            "copies to the idle servers among d sampled",
            title="redundant to idle queues",
            explanation="On arrival d servers are sampled at random; the job gets a copy on "
            "each of them that is idle, or one copy on the first sampled if none is; the first "
            "copy to finish completes the job and the others are cancelled.",
            analysis_summary="The papers simulate it but give no analysis. At least one copy "
            "is served in full, so the bounds for such policies apply; on identical FCFS "
            "servers with i.i.d. copies the cost lies between E[X] and d E[X_{1:d}].",
            papers=("speculation",),
            uses_d=True,
            two_pools=False,
            analysis="redundant_to_idle",
            kernel_code=RIQ_CODE,
            simulated_in=_D_OF_N,
            monotone=_PLACEMENT,
        ),
        PolicySpec(
            "FJ",
            "k-of-d fork-join with cancellation",
            title="k-of-d fork-join",
            explanation="A job is forked into d tasks on d servers chosen at random and is "
            "done when k of them finish; the remaining tasks are then cancelled. keep r < d "
            "cancels all but the first r tasks to start service (early: true keeps k, the "
            "fork-early-cancel policy); split: shift divides a job of size Delta into k "
            "shifted-exponential tasks; keep: opt lets the analysis choose r at each load "
            "within cost_limit.",
            analysis_summary="The fork-join paper's results: exact for d = 1 and for the (n, 1) "
            "fork-join (d = N, k = 1); for d = N and k > 1, upper and lower bounds on the mean "
            "response time and bounds on the cost; for d < N, its estimate for the group-based "
            "system (latency_group, not the simulated system's latency) and cost bounds; "
            "elsewhere the bounds that hold for every policy.",
            papers=("fork-join",),
            uses_d=True,
            two_pools=False,
            parameters={"k": 1, "early": False, "keep": "d", "split": "none", "cost_limit": float("inf")},
            schema="fj_parameters",
            chosen_by_analysis=("keep",),
            chosen_per_load=("keep",),
            grid_impossible=fork_join_impossible,
            config_errors="fork_join_errors",
            task_law="fork_join_tasks",
            blocking_order=fork_join_blocks,
            analysis="fork_join",
            kernel_code=FJ_CODE,
            simulated_in=_D_OF_N,
            monotone=_PLACEMENT,
        ),
    ]
}

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


def stability_monotone(policy: str, params: dict | None = None) -> str:
    """Why the verdict of ``policy`` with ``params`` is monotone in the load, or ""
    when it is not known to be: a parameter the analysis chooses at each load
    (:attr:`PolicySpec.chosen_per_load`, FJ's ``keep: opt``) runs a different system
    at each load (the strategy's kept tasks depend on the arrival rate)."""
    params = params or {}
    spec = POLICIES[policy]
    if any(params.get(name) == "opt" for name in spec.chosen_per_load):
        return ""
    return spec.monotone


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


def schema_entries() -> dict[str, dict]:
    """``policies.<name>`` entries of the config schema, one per name and alias."""
    entries = {}
    for name, spec in POLICIES.items():
        ref = {"$ref": f"#/$defs/{spec.schema}"}
        text = spec.description[0].upper() + spec.description[1:]
        if spec.aliases:
            text += f" (alias{'es' if len(spec.aliases) > 1 else ''} {', '.join(spec.aliases)})"
        if not spec.parameters:
            text += ". No parameters" + (" besides the grid axis d" if spec.uses_d else "")
        entries[name] = {**ref, "description": text + "."}
        for alias in spec.aliases:
            entries[alias] = {**ref, "description": f"Alias of {name}."}
    return entries
