"""What a study produces, known from its grid before any job runs: the names of its
figures (Snakemake declares them as outputs). Light: the Snakefile's parse imports
this module, so it imports nothing heavier than the standard library; the figures
themselves are drawn by :mod:`straggler.plots`.
"""

from __future__ import annotations

import numbers

BASE_FIGURES = ("stability", "load", "cost", "latency")
"""Always written; ``stability`` is lambda_max against r_slow."""

NAMED_AXES = ("policy", "distribution", "dependence", "r_slow", "d", "N")


def numeric(values) -> bool:
    """All values are real numbers (a bool is not)."""
    return all(isinstance(v, numbers.Real) and not isinstance(v, bool)
               and type(v).__name__ != "bool_" for v in values)


def figure_names(axes: dict[str, list]) -> list[str]:
    """Names of the figures of a study whose grid has these axes."""
    extra = [
        name for name, values in axes.items()
        if name not in ("policy", "distribution", "dependence", "r_slow")
        and len(values) > 1 and numeric(values)
    ]
    thresholds = [name for name in extra if name == "tau" or name.endswith(".tau")]
    # a swept policy or distribution parameter (FJ.k, ...): cost against it
    params = [name for name in extra if name not in ("d", "N")]
    # any swept parameter axis: one line per variant (every swept axis but the case)
    variants = ["latency_by_variant", "cost_by_variant"] if any(
        name not in NAMED_AXES and len(values) > 1 for name, values in axes.items()) else []
    by_law = ["latency_by_distribution"] if len(axes.get("distribution", [])) > 1 else []
    return (list(BASE_FIGURES) + [f"stability_vs_{name}" for name in extra]
            + [f"load_ratio_vs_{name}" for name in thresholds]
            + [f"latency_vs_{name}" for name in extra]
            + [f"cost_vs_{name}" for name in params]
            + variants + by_law)
