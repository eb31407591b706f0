"""The setting of a cell that decides which paper applies: identical servers or not."""

from __future__ import annotations

import numpy as np

from ..system import CellModel


def homogeneous(model: CellModel) -> bool:
    """All servers run every job at speed 1: the model of the speculation,
    PS-redundancy and fork-join papers."""
    if model.system is None:
        return True
    return all(r == 1.0 for row in model.system.speeds for r in row)


def per_load(model: CellModel, fn) -> np.ndarray:
    return np.array([fn(lam) for lam in model.rates()], dtype=float)
