"""One copy of each job on a random one of N identical servers: N M/G/1 queues."""

from __future__ import annotations

import numpy as np

from ..cell_model import CellModel
from . import queues
from .result import AnalyticResult


def homogeneous_single_copy(model: CellModel) -> AnalyticResult:
    """One copy on a random one of N identical servers: N M/G/1 queues."""
    m1, m2 = model.dependence.replica_marginal_moments(model.size)
    rates = model.rates()
    result = AnalyticResult(
        model.loads, lambda_max=1.0, lambda_max_kind="exact", rho=rates * m1 / model.N, cost=m1, cost_kind="exact"
    )
    if model.queueing == "per_server":
        result.latency_approx = np.array(
            [queues.mg1_response(lam / model.N, m1, m2, m1, model.discipline) for lam in rates]
        )
        result.latency_approx_kind = "exact"
    return result
