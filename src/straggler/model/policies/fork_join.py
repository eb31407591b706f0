"""k-of-d fork-join with cancellation, and the (n, r_f, r, k) strategy of the fork-join
paper's section 8. Its analysis: :mod:`straggler.engines.analysis.fork_join_handlers`; its config
check (``fork_join_errors``) and task law (``fork_join_tasks``) are named below and live
with the config and the cell's build."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .spec import D_OF_N, PLACEMENT, PolicySpec, Tunable, swept

# its code in the simulation kernels (PolicySpec.kernel_code)
FJ_CODE = 6


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
    if isinstance(keep, int) and keep < k:  # a config error, unless one of them is tuned
        return f"keep = {keep} < k = {k}"
    return None


PARAMETER_SCHEMA: dict[str, dict] = {
    "k": swept(
        {"type": "integer", "minimum": 1, "maximum": 10000},
        "Tasks that must finish, an integer in [1, 10000] (default 1) or a list of them; cells with k > d are "
        "left NaN.",
    ),
    "early": {
        "$ref": "#/$defs/flag",
        "description": "true cancels the remaining tasks once k have started (fork-early-cancel; default "
        "false); an alias of keep = k (giving both with keep other than k is an error).",
    },
    "keep": swept(
        {"$ref": "#/$defs/keep_value"},
        "r of the generalised (n, r_f, r, k) fork-join (fork-join paper, section 8.1), with r_f = d: the "
        "first keep tasks to start service are kept, the other d - keep are cancelled before they start, and "
        "the job is done when k of the kept tasks finish (the rest are then cancelled). An integer with k <= "
        "keep <= d (cells with keep > d are left NaN); d (default: plain fork-join, nothing cancelled on "
        "start); opt: the analysis chooses keep at each load by the general strategy of section 8.2 (least "
        "estimated latency subject to the estimated cost <= cost_limit), the simulation uses that choice and "
        "the dataset stores it as keep_opt; or a list of those (a dataset dimension).",
    ),
    "split": swept(
        {"enum": ["none", "shift"]},
        "How a job becomes k tasks (fork-join paper, section 7.2, the diversity-parallelism trade-off). none "
        "(default): each task is a full copy of the job-size law. shift: the job is split into k tasks of law "
        "ShiftedExp(shift / k, mean - shift), the shift (Delta) divided by k and the exponential part "
        "unchanged; only for shifted_exponential laws. With shift, the load unit stays the unsplit law (load "
        "= lambda mean / N), so one load is one arrival rate for every k.",
    ),
    "cost_limit": {
        "description": "With keep = opt: the limit on the estimated expected server time per job (C_hat(r) "
        "of section 8.2, in the time units of the job sizes), a number > 0 or .inf (default: no limit). When "
        "no keep meets it, the cheapest keep is used and a note says so.",
        "type": "number",
        "exclusiveMinimum": 0,
    },
}

SPECS: tuple[PolicySpec, ...] = (
    PolicySpec(
        "FJ",
        "k-of-d fork-join with cancellation",
        server_help="the job cut into k coded pieces that the servers hold (erasure-coded storage)",
        title="k-of-d fork-join",
        explanation="A job is forked into d tasks on d servers chosen at random and is "
        "done when k of them finish; the remaining tasks are then cancelled. keep r < d "
        "cancels all but the first r tasks to start service (early: true keeps k, the "
        "fork-early-cancel policy); split: shift divides a job of size Delta into k "
        "shifted-exponential tasks; keep: opt lets the analysis choose r at each load "
        "within cost_limit.",
        analysis_summary="The fork-join paper's results: exact for d = 1 and for the (n, 1) "
        "fork-join (d = N, k = 1); for d = N and k > 1, upper and lower bounds on the mean "
        "response time and bounds on the cost, with exponential tasks in closed form (the "
        "lower bound of Joshi, Liu and Soljanin, split-merge, H_n / (mu - lambda) for k = n) "
        "and exact for the (2, 2) fork-join (Flatto and Hahn); for d < N, its estimate for "
        "the group-based system (latency_group, not the simulated system's latency) and cost "
        "bounds; elsewhere the bounds that hold for every policy.",
        papers=("fork-join",),
        uses_d=True,
        two_pools=False,
        parameters={"k": 1, "early": False, "keep": "d", "split": "none", "cost_limit": float("inf")},
        parameter_schema=PARAMETER_SCHEMA,
        chosen_by_analysis=("keep",),
        chosen_per_load=("keep",),
        tunable={
            "k": Tunable(integer=True, minimum=1, maximum=10000),
            "keep": Tunable(integer=True, minimum=1, maximum=10000),
            "cost_limit": Tunable(minimum=0, exclusive=True),
        },
        grid_impossible=fork_join_impossible,
        config_errors="fork_join_errors",
        task_law="fork_join_tasks",
        blocking_order=fork_join_blocks,
        analysis="fork_join",
        kernel_code=FJ_CODE,
        cancels=True,
        simulated_in=D_OF_N,
        monotone=PLACEMENT,
    ),
)
