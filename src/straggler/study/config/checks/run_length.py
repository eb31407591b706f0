"""The simulation's run length: warm-up and job budgets."""

from __future__ import annotations

from ..errors import Err, not_allowed
from ..nodes import section
from .values import is_int


def _warmup_errors(sim: dict) -> list[Err]:
    """The warm-up is discarded before the ``jobs`` measured (it is extra to them): one
    longer than the measured run spends most of each replication on jobs thrown away,
    and measures a few jobs of a system that has long forgotten its start."""
    jobs, warmup = sim.get("jobs"), sim.get("warmup")
    if not (is_int(jobs) and is_int(warmup)) or warmup <= jobs or jobs < 1:
        return []  # (jobs < 1 is the schema's error)
    return [
        not_allowed(
            ("simulation", "warmup"),
            warmup,
            f"an integer in [0, simulation.jobs = {jobs}] (the jobs discarded before the {jobs} measured ones "
            f"of each replication; a warm-up longer than the measured run is meaningless)",
        )
    ]


def check_run_length(cfg: dict) -> list[Err]:
    """``simulation.max_jobs`` caps the sequential stopping of ``simulation.precision``:
    it means nothing without it, and must leave room for the first round; the warm-up
    must not be longer than the measured run."""
    sim = section(cfg, "simulation")
    errs = _warmup_errors(sim)
    return errs + _max_jobs_errors(sim)


def _max_jobs_errors(sim: dict) -> list[Err]:
    cap = sim.get("max_jobs")
    if cap is None or not isinstance(cap, int) or isinstance(cap, bool):
        return []
    if sim.get("precision") is None:
        return [
            not_allowed(
                ("simulation", "max_jobs"),
                cap,
                "no value without simulation.precision (it caps the jobs that "
                "sequential stopping may add); remove it or set simulation.precision",
            )
        ]
    jobs, reps = sim.get("jobs"), sim.get("replications")
    if isinstance(jobs, int) and isinstance(reps, int) and cap < jobs * reps:
        return [
            not_allowed(
                ("simulation", "max_jobs"),
                cap,
                f"an integer >= simulation.jobs x simulation.replications = "
                f"{jobs} x {reps} = {jobs * reps} (the first round)",
            )
        ]
    return []
