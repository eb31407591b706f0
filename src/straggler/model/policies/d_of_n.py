"""The policies that place copies of a job on d of the N servers at arrival: cancel on
complete (redundancy-d), cancel on start and redundant to idle queues. Their analyses:
:mod:`straggler.engines.analysis.d_of_n_handlers`."""

from __future__ import annotations

from .spec import ANY, AT_ONCE, D_OF_N, FCFS_PER_SERVER, PLACEMENT, PS_PER_SERVER, PolicySpec, swept

# their codes in the simulation kernels (PolicySpec.kernel_code)
COC_CODE, COS_CODE, RIQ_CODE = 3, 4, 5


def first_of_d_blocks(model) -> tuple[int, int]:
    """Cancel on the first of the job's d completions: the smallest of d."""
    return int(model.d), 1


SPECS: tuple[PolicySpec, ...] = (
    PolicySpec(
        "CoC",
        "d copies, cancel the rest on first completion",
        client_form=AT_ONCE,
        client_side="d copies sent at once, the first answer taken and the others cancelled (gRPC's hedgingPolicy with hedgingDelay 0s)",
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
        parameter_schema={
            "ps_bound": swept(
                {"enum": [None, "none", "lower", "upper"]},
                "With PS servers: null (the default; or none, which a grid axis can hold) simulates the "
                "redundancy-d system itself; lower or upper use the bound systems of the PS paper (service "
                "rate by the min or the max of the d queue lengths).",
            )
        },
        redundancy_load=True,
        blocking_order=first_of_d_blocks,
        analysis="cancel_on_complete",
        kernel_code=COC_CODE,
        cancels=True,
        simulated_in={FCFS_PER_SERVER: ANY, PS_PER_SERVER: ANY},
        monotone=PLACEMENT,
    ),
    PolicySpec(
        "CoS",
        "d copies, cancel the rest when the first starts",
        server_help="the servers cancel the other copies when one starts (a client sees a copy start only through them)",
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
        cancels=True,
        simulated_in=D_OF_N,
        monotone=PLACEMENT,
        one_copy_served=True,
    ),
    PolicySpec(
        "RIQ",
        "copies to the idle servers among d sampled",
        server_help="the servers say which of the d sampled queues are idle",
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
        cancels=True,
        simulated_in=D_OF_N,
        monotone=PLACEMENT,
    ),
)
