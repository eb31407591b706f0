"""The latency quantiles the simulation estimates, which the dataset's ``quantile``
coordinate holds: one definition, in a module of its own so that the dataset's
modules read it without importing the simulation package (and numba, ~1.3 s a job)."""

QUANTILES = (0.5, 0.9, 0.95, 0.99, 0.999)
