"""What a study produces, known from its grid before any job runs: the names of its
figures (Snakemake declares them as outputs). Light: the Snakefile's parse imports
this module, so it imports nothing heavier than the standard library; the figures
themselves are drawn by :mod:`straggler.plots`.
"""

from __future__ import annotations

import numbers

BASE_FIGURES = ("stability", "load", "cost", "latency", "tradeoff")
"""Always written; ``stability`` is lambda_max against r_slow, ``tradeoff`` is the
mean latency against the server time per job at each load."""
SIMULATED_FIGURES = ("tail", "theory_vs_simulation")
"""Written when the study simulates."""

NAMED_AXES = ("policy", "distribution", "dependence", "r_slow", "d", "N")
CASE_DIMS = ("distribution", "dependence")
"""The axes that make a figure's rows (a case: a job-size law and a dependence)."""


def numeric(values) -> bool:
    """All values are real numbers (a bool is not)."""
    return all(isinstance(v, numbers.Real) and not isinstance(v, bool) and type(v).__name__ != "bool_" for v in values)


def figure_names(axes: dict[str, list], simulated: bool = True) -> list[str]:
    """Names of the figures of a study whose grid has these axes. ``simulated``: the
    study's ``evaluate`` includes the simulation (adds :data:`SIMULATED_FIGURES`)."""
    extra = [
        name
        for name, values in axes.items()
        if name not in ("policy", "distribution", "dependence", "r_slow") and len(values) > 1 and numeric(values)
    ]
    thresholds = [name for name in extra if name == "tau" or name.endswith(".tau")]
    # a swept policy or distribution parameter (FJ.k, ...): cost against it
    params = [name for name in extra if name not in ("d", "N")]
    # any swept parameter axis: one line per variant (every swept axis but the case)
    # (against the load: for studies that simulate, whose loads are many; an analytic
    # study has the same values against the swept parameter itself, cost_vs_<param>)
    variants = (
        ["latency_by_variant", "cost_by_variant"]
        if simulated and any(name not in NAMED_AXES and len(values) > 1 for name, values in axes.items())
        else []
    )
    # simulated latencies per law: only when the study simulates
    by_law = ["latency_by_distribution"] if simulated and len(axes.get("distribution", [])) > 1 else []
    maps = [f"winners_{name}" for name in map_axes(axes)]
    return (
        list(BASE_FIGURES)
        + [f"stability_vs_{name}" for name in extra]
        + [f"load_ratio_vs_{name}" for name in thresholds]
        + [f"latency_vs_{name}" for name in extra]
        + [f"cost_vs_{name}" for name in params]
        + variants
        + by_law
        + (list(SIMULATED_FIGURES) if simulated else [])
        + maps
    )


def map_axes(axes: dict[str, list]) -> list[str]:
    """The axes that get a winner map (``winners_<axis>``: that axis against the
    load): every swept axis but the policy and the case, or, when there is none, the
    swept case axis; none with a single policy (nothing to compare)."""
    if len(axes.get("policy", [])) < 2:
        return []
    swept = [n for n, v in axes.items() if n != "policy" and len(v) > 1]
    main = [n for n in swept if n not in CASE_DIMS]
    return main or [n for n in CASE_DIMS if n in swept][:1]


def figure_parts(names: list[str]) -> list[list[str]]:
    """The figures cut into the jobs that draw them side by side (every second figure
    to the second job), once there are enough to share: a job's start-up, matplotlib's
    imports and the dataset, is about 1.5 s, and drawing takes most of a simulated
    study's time after its cells."""
    jobs = 2 if len(names) > 3 else 1
    return [list(names[i::jobs]) for i in range(jobs)]
