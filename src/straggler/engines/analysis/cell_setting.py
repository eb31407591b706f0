"""What an analysis reads off a cell model: its setting (identical servers, two pools, d), its rates."""

from __future__ import annotations

import numpy as np

from ...model.cell_model import CellModel
from ...model.two_pools import TwoPoolSystem


def homogeneous(model: CellModel) -> bool:
    """All servers run every job at speed 1: the model of the speculation,
    PS-redundancy and fork-join papers."""
    if model.system is None:
        return True
    return all(r == 1.0 for row in model.system.speeds for r in row)


def per_load(model: CellModel, fn) -> np.ndarray:
    """``fn(lam)`` at the arrival rate of each of the model's loads, as an array."""
    return np.array([fn(lam) for lam in model.rates()], dtype=float)


def pools_of(model: CellModel) -> TwoPoolSystem:
    """The cell's two pools, for an analysis that needs them (the threshold paper's)."""
    if model.system is None:
        raise ValueError(f"{model.policy}: this analysis needs two pools, the cell has none")
    return model.system


def copies(model: CellModel) -> int:
    """d, the number of servers a job's copies go to, for an analysis that needs it."""
    if model.d is None:
        raise ValueError(f"{model.policy}: this analysis needs d, the cell has none")
    return model.d
