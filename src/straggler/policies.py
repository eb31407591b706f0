"""The policy registry: one :class:`PolicySpec` per policy (DESIGN.md, "Policies").

A policy's spec holds what the rest of the package needs to know about it: its
canonical name and aliases, its parameters and their config schema, the grid's
impossibility rules (``uses_d``, ``two_pools``), the name of its analysis in
:data:`straggler.analysis.cell.HANDLERS`, its code in the simulation kernels and
which engines simulate it in which settings, whether its stability verdict is
monotone in the load, and whether it is an oracle. Everything else reads it from
here: the config schema's policy names and per-policy parameter entries, the
grid, the engines' ``supports``, the work-unit cost model, the report.

Adding a policy: its spec here, its kernel branch(es) in the engines that
simulate it (and in the reference simulator), its analysis handler, its tests
(README, "Adding a policy").
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The policies' codes in the simulation kernels (PolicySpec.kernel_code). Plain ints,
# so that numba compiles a comparison with one as a constant.
ZRED_CODE, KT_CODE, FRED_CODE, COC_CODE, COS_CODE, RIQ_CODE, FJ_CODE, RER_CODE, REP_CODE = range(9)

# The settings an engine may simulate: (system.discipline, system.queueing).
FCFS_PER_SERVER = ("FCFS", "per_server")
PS_PER_SERVER = ("PS", "per_server")
FCFS_CENTRAL = ("FCFS", "central")

Setting = tuple[str, str]


@dataclass(frozen=True)
class PolicySpec:
    name: str
    description: str
    """One line: what happens to a job (the schema's description of the policy)."""
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
    engines: dict[str, tuple[Setting, ...]] = field(default_factory=dict)
    """Engine name -> the (discipline, queueing) settings it simulates the policy in;
    engines try in the order of :data:`straggler.simulation.ENGINES`."""
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

    @property
    def analytic_only(self) -> bool:
        return self.kernel_code is None

    def simulated_by(self, engine: str, discipline: str, queueing: str) -> bool:
        return (discipline, queueing) in self.engines.get(engine, ())


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

_EVERYWHERE: dict[str, tuple[Setting, ...]] = {
    "fast": (FCFS_PER_SERVER,),
    "events": (FCFS_PER_SERVER, PS_PER_SERVER, FCFS_CENTRAL),
}
_D_OF_N: dict[str, tuple[Setting, ...]] = {"fast": (FCFS_PER_SERVER,), "events": (PS_PER_SERVER,)}

POLICIES: dict[str, PolicySpec] = {
    p.name: p
    for p in [
        PolicySpec(
            "ZRed",
            "one copy, dispatched at random",
            aliases=("RND",),
            two_pools=False,
            analysis="zero_redundancy",
            kernel_code=ZRED_CODE,
            engines=_EVERYWHERE,
            monotone="random dispatch with fixed probabilities: every server (or pool "
            "queue) is an M/G/1 (M/G/c) queue whose load grows with lambda",
        ),
        PolicySpec(
            "FRed",
            "a copy in every pool at arrival, cancel on complete",
            replicas=2,
            analysis="full_redundancy",
            kernel_code=FRED_CODE,
            engines=_EVERYWHERE,
            monotone=_FIXED_WORK,
        ),
        PolicySpec(
            "Rer",
            "after tau of processing, kill and restart in the other pool",
            replicas=2,
            aliases=("SLB",),
            parameters={"tau": "opt", "resume": False},
            schema="rer_parameters",
            analysis="rerouting",
            kernel_code=RER_CODE,
            engines=_EVERYWHERE,
            monotone=_FIXED_WORK,
        ),
        PolicySpec(
            "Rep",
            "after tau of processing, replicate in the other pool",
            replicas=2,
            parameters={"tau": "opt"},
            schema="rep_parameters",
            analysis="replication",
            kernel_code=REP_CODE,
            engines={"events": (FCFS_PER_SERVER, PS_PER_SERVER, FCFS_CENTRAL)},
            monotone=_FIXED_WORK,
        ),
        PolicySpec(
            "KT",
            "type-aware optimal assignment, no redundancy",
            analysis="known_types",
            kernel_code=KT_CODE,
            engines=_EVERYWHERE,
            oracle=True,
            monotone="a fixed assignment: every server is an M/G/1 queue whose load grows with lambda",
        ),
        PolicySpec("KS", "size-aware thresholds", analysis="known_sizes", oracle=True),
        PolicySpec(
            "CoC",
            "d copies, cancel the rest on first completion",
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
            analysis="cancel_on_complete",
            kernel_code=COC_CODE,
            engines={"fast": (FCFS_PER_SERVER,), "events": (FCFS_PER_SERVER, PS_PER_SERVER)},
            monotone=_PLACEMENT,
        ),
        PolicySpec(
            "CoS",
            "d copies, cancel the rest when the first starts",
            aliases=("LLW",),
            uses_d=True,
            two_pools=False,
            analysis="cancel_on_start",
            kernel_code=COS_CODE,
            engines=_D_OF_N,
            monotone=_PLACEMENT,
        ),
        PolicySpec(
            "RIQ",
            "copies to the idle servers among d sampled",
            uses_d=True,
            two_pools=False,
            analysis="redundant_to_idle",
            kernel_code=RIQ_CODE,
            engines=_D_OF_N,
            monotone=_PLACEMENT,
        ),
        PolicySpec(
            "FJ",
            "k-of-d fork-join with cancellation",
            uses_d=True,
            two_pools=False,
            parameters={"k": 1, "early": False, "keep": "d", "split": "none", "cost_limit": float("inf")},
            schema="fj_parameters",
            analysis="fork_join",
            kernel_code=FJ_CODE,
            engines=_D_OF_N,
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
    when it is not known to be: FJ with ``keep: opt`` runs a different system at
    each load (the strategy's kept tasks depend on the arrival rate)."""
    params = params or {}
    if policy == "FJ" and params.get("keep") == "opt":
        return ""
    return POLICIES[policy].monotone


def value_name(axis: str, value) -> str:
    """What the value of a policy-parameter axis (``CoC.ps_bound``) makes of the
    system, in words (:attr:`PolicySpec.value_names`); "" when the policy names none."""
    policy, _, parameter = str(axis).partition(".")
    spec = POLICIES.get(policy)
    if spec is None or not parameter:
        return ""
    return spec.value_names.get(parameter, {}).get(str(value), "")


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
