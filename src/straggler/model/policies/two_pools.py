"""The policies of the threshold paper's two pools with job-server affinity: zero and full
redundancy, rerouting and replication after a timeout, and the two oracles (known types,
known sizes). Their analyses: :mod:`straggler.engines.analysis.two_pool_handlers`."""

from __future__ import annotations

from .spec import EVENT_LIST, EVERYWHERE, FIXED_WORK, ONE_REQUEST, PolicySpec, Tunable

# their codes in the simulation kernels (PolicySpec.kernel_code; plain ints, so that numba
# compiles a comparison with one as a constant)
ZRED_CODE, KT_CODE, FRED_CODE, RER_CODE, REP_CODE = 0, 1, 2, 7, 8


def first_of_pools_blocks(model) -> tuple[int, int]:
    """Cancel on the first completion of one replica per pool: the smallest of 2."""
    return 2, 1


#: Rer's and Rep's threshold (the schema's ``$defs/tau``: a number, opt, or a list)
TAU = {
    "$ref": "#/$defs/tau",
    "description": "Threshold (time of processing after which the job is rerouted or replicated): a number "
    "in [0, .inf] as in the threshold paper, opt (the default: the analysis chooses it) or a list of those "
    "(a dataset dimension).",
}
#: the threshold searched by simulation (``{tune: [lo, hi]}``): any time >= 0
TAU_TUNE = {"tau": Tunable(minimum=0)}

SPECS: tuple[PolicySpec, ...] = (
    PolicySpec(
        "ZRed",
        "one copy, dispatched at random",
        client_form=ONE_REQUEST,
        client_side="one request to a server the client's load balancer picks, no hedging configured",
        title="zero redundancy",
        explanation="Each job gets one copy, sent to one server and never moved or copied. "
        "With two pools the job goes to pool 1 with probability alpha and to pool 2 otherwise "
        "(alpha chosen by the analysis to maximise the stability bound with what the "
        "dispatcher knows of the job types), then to a server of that pool at random; "
        "on identical servers it is random dispatch over all N.",
        analysis_summary="Exact: the stability bound (the threshold paper's eq. 5, a linear "
        "programme over the assignment) and the cost (the job's size at its server's speed). "
        "The mean response time is exact on per-server queues (every server an M/G/1 queue) "
        "and on central queues where every pool's queue is M/M/c (exponential sizes, one "
        "speed for every type the pool serves: Erlang C) or has one server (M/G/1); "
        "another central queue is M/G/c, whose mean the Lee-Longton (Allen-Cunneen) "
        "approximation gives (kind approximation; NaN without a finite second moment).",
        papers=("threshold",),
        aliases=("RND",),
        two_pools=False,
        picks_pool=True,
        analysis="zero_redundancy",
        sizes_by_type=True,
        kernel_code=ZRED_CODE,
        single_copy=True,
        simulated_in=EVERYWHERE,
        monotone="random dispatch with fixed probabilities: every server (or pool "
        "queue) is an M/G/1 (M/G/c) queue whose load grows with lambda",
        one_copy_served=True,
    ),
    PolicySpec(
        "FRed",
        "a copy in every pool at arrival, cancel on complete",
        server_help="two server pools with job-server affinity, a copy in each",
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
        sizes_by_type=True,
        kernel_code=FRED_CODE,
        cancels=True,
        simulated_in=EVERYWHERE,
        monotone=FIXED_WORK,
    ),
    PolicySpec(
        "Rer",
        "after tau of processing, kill and restart in the other pool",
        server_help="two server pools with job-server affinity, and the copy's processing time (not its wait) measured by its server",
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
        parameter_schema={
            "tau": TAU,
            "resume": {
                "$ref": "#/$defs/flag",
                "description": "false (default): the rerouted job restarts from scratch; true: it resumes "
                "the work already done.",
            },
        },
        picks_pool=True,
        chosen_by_analysis=("tau",),
        tunable=TAU_TUNE,
        analysis_seconds=0.03,
        analysis="rerouting",
        sizes_by_type=True,
        kernel_code=RER_CODE,
        cancels=True,
        simulated_in=EVERYWHERE,
        monotone=FIXED_WORK,
    ),
    PolicySpec(
        "Rep",
        "after tau of processing, replicate in the other pool",
        server_help="two server pools with job-server affinity, and the copy's processing time (not its wait) measured by its server",
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
        parameter_schema={"tau": TAU},
        picks_pool=True,
        chosen_by_analysis=("tau",),
        tunable=TAU_TUNE,
        concurrent_replicas=2,
        blocking_order=first_of_pools_blocks,
        analysis_seconds=0.03,
        quadrature_seconds=0.4,
        analysis="replication",
        sizes_by_type=True,
        kernel_code=REP_CODE,
        cancels=True,
        simulated_in={setting: frozenset({EVENT_LIST}) for setting in EVERYWHERE},
        monotone=FIXED_WORK,
    ),
    PolicySpec(
        "KT",
        "type-aware optimal assignment, no redundancy",
        server_help="an oracle: knows each job's type before it runs",
        title="known types (an oracle)",
        explanation="The dispatcher knows each job's type and sends it, by the assignment "
        "that maximises the stability bound, to a server of a pool; no copies. A "
        "benchmark of what knowing the types is worth, not an option a real system has.",
        analysis_summary="As for zero redundancy: the stability bound and the cost exact; the "
        "mean response time exact on per-server queues, and on central queues where every "
        "pool's queue is M/M/c (exponential sizes, each pool serving its types at one "
        "speed: Erlang C) or has one server; the Lee-Longton (Allen-Cunneen) approximation "
        "on other central queues (NaN without a finite second moment).",
        papers=("threshold",),
        picks_pool=True,
        type_aware_alpha=True,
        analysis="known_types",
        sizes_by_type=True,
        kernel_code=KT_CODE,
        single_copy=True,
        simulated_in=EVERYWHERE,
        oracle=True,
        monotone="a fixed assignment: every server is an M/G/1 queue whose load grows with lambda",
        one_copy_served=True,
    ),
    PolicySpec(
        "KS",
        "size-aware thresholds",
        server_help="an oracle: knows each job's size before it runs",
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
)
