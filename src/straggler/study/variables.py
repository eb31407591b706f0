"""The dataset's variables (docs/background/contracts.md, "The dataset"): names, dimensions,
CF attributes ``long_name`` and ``units``, and those of the coordinates."""

from __future__ import annotations

from dataclasses import dataclass

# the dataset's quantile coordinate is what the simulation estimates: one definition,
# re-exported (dataset.py imports it from here)
from ..common.quantiles import QUANTILES as QUANTILES


@dataclass(frozen=True)
class Variable:
    """One variable of the dataset contract: its name, extra dimensions, CF attributes
    and type."""

    name: str
    dims: tuple[str, ...]
    """Dimensions beyond the grid's (``load``, ``quantile``, ``replication``)."""
    long_name: str
    units: str
    kind: str = "float"  # float | str


VARIABLES: tuple[Variable, ...] = (
    Variable("lambda_max", (), "analytic stability bound", "load (lambda E[X] / N)"),
    Variable("lambda_max_kind", (), "kind of stability bound", "1", "str"),
    Variable(
        "lambda_sufficient",
        (),
        "load below which stability is proven (sufficient condition; lambda_max when that is exact)",
        "load (lambda E[X] / N)",
    ),
    Variable("tau_opt", (), "threshold chosen by the analysis (pool 1)", "time"),
    Variable("tau_opt_pool2", (), "threshold chosen by the analysis for pool 2", "time"),
    Variable("q_opt", (), "fraction of jobs first assigned to pool 1 by the analysis", "1"),
    Variable(
        "keep_opt", ("load",), "FJ tasks kept (r of (n, r_f, r, k)) chosen by the section 8.2 strategy (keep: opt)", "1"
    ),
    Variable("rho", ("load",), "analytic effective load of the most loaded server", "1"),
    Variable("cost", (), "analytic expected server time per job", "time"),
    Variable("cost_kind", (), "kind of analytic cost", "1", "str"),
    Variable("cost_lower", (), "analytic lower bound on the expected server time per job", "time"),
    Variable("cost_upper", (), "analytic upper bound on the expected server time per job", "time"),
    Variable(
        "size_mean",
        (),
        "mean job size E[X] of the cell's size law: one copy of the job at speed 1 (by_type: the mixture "
        "over the job types; sx: the job's X, not a replica's X S; FJ with split: shift: the unsplit job's)",
        "time",
    ),
    Variable(
        "copy_mean",
        (),
        "mean time of one copy of the job at speed 1, the unit of the load and of the extra load "
        "E[C] / copy_mean - 1 (sx: a copy is X S, so E[X] E[S]; else E[X], size_mean)",
        "time",
    ),
    Variable("latency_approx", ("load",), "analytic mean response time", "time"),
    Variable("latency_approx_kind", (), "kind of analytic mean response time", "1", "str"),
    Variable(
        "latency_approx_quantile",
        ("load", "quantile"),
        "analytic response-time quantile of the system latency_approx describes (mean-field, or exact)",
        "time",
    ),
    Variable("latency_approx_quantile_kind", (), "kind of latency_approx_quantile", "1", "str"),
    Variable("cost_approx", ("load",), "mean-field limit of the server time per job (N -> infinity), by load", "time"),
    Variable("latency_lower", ("load",), "analytic lower bound on the mean response time", "time"),
    Variable(
        "latency_group",
        ("load",),
        "fork-join paper section 8.2 estimate T_hat(r): mean "
        "response time of group-based random (n, r, k), not of the simulated system",
        "time",
    ),
    Variable("latency_group_kind", (), "kind of latency_group for the group-based system", "1", "str"),
    Variable("latency_mean", ("load",), "simulated mean response time", "time"),
    Variable("latency_mean_ci", ("load",), "confidence-interval half-width of latency_mean", "time"),
    Variable("latency_quantile", ("load", "quantile"), "simulated response-time quantile", "time"),
    Variable(
        "latency_quantile_ci",
        ("load", "quantile"),
        "confidence-interval half-width of latency_quantile (Student t over the replications' own quantiles)",
        "time",
    ),
    Variable("cost_mean", ("load",), "simulated server time per job", "time"),
    Variable("cost_mean_ci", ("load",), "confidence-interval half-width of cost_mean", "time"),
    Variable(
        "copies_mean",
        ("load",),
        "simulated copies a job launched (sent to a server, whether it ran or was cancelled first)",
        "1",
    ),
    Variable("copies_mean_ci", ("load",), "confidence-interval half-width of copies_mean", "1"),
    Variable("stable", ("load",), "stability verdict (1 stable, 0 unstable, NaN undetermined; see verdict)", "1"),
    Variable("jobs", ("load",), "jobs measured by the simulation", "1"),
    Variable(
        "verdict",
        ("load",),
        "stability verdict: stable, unstable or undetermined (simulation and analysis reconciled)",
        "1",
        "str",
    ),
    Variable("verdict_source", ("load",), "where the verdict comes from: simulation, analysis or both", "1", "str"),
    Variable(
        "verdict_evidence",
        ("load",),
        "what decided the verdict: exact, necessary or sufficient bound, monitor, idle, monotone, capacity or cost",
        "1",
        "str",
    ),
    Variable(
        "idle_fraction",
        ("load",),
        "fraction of the time the busiest pool's servers were idle, as the measured arrivals found them "
        "(the smallest over replications)",
        "1",
    ),
    Variable(
        "latency_mean_kind",
        ("load",),
        "what latency_mean is: estimate, ci_undercovers (infinite variance) or infinite",
        "1",
        "str",
    ),
    Variable(
        "ci_reliable",
        ("load",),
        "1 where the simulation's CI of E[T] can be trusted (the response time has a finite variance under "
        "the size law, and no replication was still drifting by MSER), 0 where not (why: ci_reliable_reason), "
        "NaN where the load is not stable",
        "1",
    ),
    Variable(
        "ci_reliable_reason",
        ("load",),
        "why ci_reliable is 0: infinite variance or infinite mean (a heavy tail), or not settled (MSER)",
        "1",
        "str",
    ),
    Variable(
        "cost_ci_reliable",
        ("load",),
        "1 where the simulation's CI of E[C] can be trusted (the server time per job has a finite variance "
        "under the size law), 0 where not (why: cost_ci_reliable_reason), NaN where the load is not stable",
        "1",
    ),
    Variable(
        "cost_ci_reliable_reason",
        ("load",),
        "why cost_ci_reliable is 0: infinite variance (a heavy tail)",
        "1",
        "str",
    ),
    Variable(
        "latency_sample_mean",
        ("load",),
        "sample mean response time of the measured "
        "jobs, whatever the verdict (not an estimate unless the load is stable)",
        "time",
    ),
    Variable(
        "cost_sample_mean",
        ("load",),
        "sample mean server time per job of the measured jobs, whatever the verdict",
        "time",
    ),
    Variable("replications", ("load",), "replications simulated", "1"),
    Variable(
        "jobs_to_verdict",
        ("load",),
        "measured jobs per replication that would decide an undetermined verdict (estimate)",
        "1",
    ),
    Variable(
        "precision_achieved", ("load",), "relative CI half-width of latency_mean (latency_mean_ci / latency_mean)", "1"
    ),
    Variable(
        "latency_replication_mean",
        ("load", "replication"),
        "mean response time of each replication (stable loads; for paired comparisons)",
        "time",
    ),
    Variable(
        "cost_replication_mean",
        ("load", "replication"),
        "server time per job of each replication (stable loads; for paired comparisons)",
        "time",
    ),
    Variable(
        "copies_replication_mean",
        ("load", "replication"),
        "copies a job launched in each replication (stable loads; for paired comparisons: a hedging delay "
        "tuned to a budget of hedges)",
        "1",
    ),
    Variable(
        "latency_replication_quantile",
        ("load", "quantile", "replication"),
        "response-time quantile of each replication (stable loads; for paired comparisons; "
        "latency_quantile_ci is their Student t spread)",
        "time",
    ),
    Variable(
        "tuned_value",
        ("load",),
        "value of the tuned policy parameter ({tune: [lo, hi]}) with the least simulated mean response "
        "time, or the least quantile its objective names (p99), among the stable ones (NaN: not tuned, "
        "or none stable)",
        "the tuned parameter's (time for tau, 1 for k and keep)",
    ),
    Variable(
        "tuned_low",
        ("load",),
        "least value tried whose paired CI of the objective's difference to tuned_value contains 0",
        "the tuned parameter's",
    ),
    Variable(
        "tuned_high",
        ("load",),
        "largest value tried whose paired CI of the objective's difference to tuned_value contains 0",
        "the tuned parameter's",
    ),
    Variable(
        "tuned_analysis",
        ("load",),
        "the analysis's optimum of the tuned parameter (tau_opt, keep_opt; NaN where it has none, and "
        "when the search minimises a quantile: the analyses' optima minimise the mean)",
        "the tuned parameter's",
    ),
)

VARIABLE_BY_NAME = {v.name: v for v in VARIABLES}

COORD_ATTRS = {
    "policy": ("redundancy policy", "1"),
    "distribution": ("job-size distribution (name under distributions)", "1"),
    "dependence": ("replica dependence (name under dependences)", "1"),
    "r_slow": ("speed of a job in its slow pool", "1"),
    "d": ("number of replicas", "1"),
    "N": ("number of servers", "1"),
    "load": ("nominal load per server, lambda E[X] / N", "1"),
    "quantile": ("response-time quantile level", "1"),
    "replication": ("index of a simulation replication", "1"),
}


LOAD_BASIS_ATTRS = {
    # load_basis: (load coordinate long_name, lambda_max units); the default (nominal) first
    "nominal": (COORD_ATTRS["load"][0], VARIABLE_BY_NAME["lambda_max"].units),
    "redundancy": (
        "redundancy load per server rho~ = lambda d E[min(X_1..X_d)] / N (PS paper, section 3.5)",
        "load (rho~ = lambda d E[X_min] / N)",
    ),
}
