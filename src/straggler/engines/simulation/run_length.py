"""How long a load runs: replications, jobs, warm-up, and the budgets that lengthen runs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunLength:
    """How long each load runs: ``replications`` of ``jobs`` measured jobs after
    ``warmup``; with ``precision`` (a relative CI half-width of the mean latency),
    replications are lengthened or added until the verdict is determined and the
    target met, up to ``max_jobs`` measured jobs per load (see :func:`.driver.simulate`)."""

    jobs: int
    warmup: int
    replications: int
    confidence: float = 0.95
    precision: float | None = None
    max_jobs: int | None = None

    def __post_init__(self):
        if not 0.0 < float(self.confidence) < 1.0:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence!r}")
        if int(self.jobs) < 1 or int(self.warmup) < 0 or int(self.replications) < 1:
            raise ValueError(
                f"need jobs >= 1, warmup >= 0, replications >= 1; got {self.jobs}, {self.warmup}, {self.replications}"
            )
        if self.precision is not None and not float(self.precision) > 0:
            raise ValueError(f"precision must be > 0, got {self.precision!r}")

    @property
    def budget(self) -> int:
        """Measured jobs a load may use (precision mode)."""
        if self.max_jobs is None:
            return 100 * int(self.jobs) * int(self.replications)
        return int(self.max_jobs)

    @property
    def verdict_budget(self) -> int:
        """Measured jobs a load may use to decide its verdict at the fixed length:
        ``max_jobs``, by default :data:`VERDICT_FACTOR` times the fixed budget."""
        if self.max_jobs is None:
            return VERDICT_FACTOR * int(self.jobs) * int(self.replications)
        return int(self.max_jobs)


@dataclass(frozen=True)
class KnownStability:
    """What the analysis knows of a cell's stability, which spares the simulation runs
    (see :func:`.driver.simulate`)."""

    monotone: bool = True
    """The stable loads form an interval (:func:`straggler.model.policies.stability_monotone`):
    the loads above an unstable one are not run."""
    unstable_from: float | None = None
    """The smallest load the analysis proves unstable (simulated; those above it are not)."""
    stable_below: float | None = None
    """The analysis proves the loads below it stable (``lambda_sufficient``): precision
    mode does not lengthen their runs for a verdict."""


NOTHING_KNOWN = KnownStability()
"""The default: stable loads form an interval, nothing proven (the loads above the first
one found unstable are not run)."""

MAX_ROUNDS = 12
"""Precision mode: at most this many rounds of lengthening or adding replications."""

VERDICT_FACTOR = 10
"""A fixed-length load still undetermined is run longer, up to this many times its
fixed budget of measured jobs (``simulation.max_jobs`` sets the cap)."""

MAX_SETTLE_ROUNDS = 3
"""A stable load still drifting at the end of its run (MSER) runs again with the run so
far as its warm-up at most this many times (each at least doubles what it simulates)."""
