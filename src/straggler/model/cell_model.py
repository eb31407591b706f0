"""The model of one grid cell, from which analysis and simulation both start.

A :class:`CellModel` holds what a cell's evaluation needs, so that analysis and
simulation describe the same system: sizes, replica dependence, pools, types,
speeds, what the dispatcher knows, the policy and its parameters, and the loads to
sweep. It is built from a config by :func:`straggler.study.cell_build.build_model` (which
needs the grid, above both).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import dependence as dependence_mod
from . import distributions
from .dependence import mean_min_replicas
from .two_pools import TwoPoolSystem


@dataclass(frozen=True)
class CellModel:
    """What one cell's evaluation needs: policy and parameters, job sizes and replica
    dependence, servers and pools, discipline, queueing, and the loads to sweep."""

    policy: str
    params: dict
    size: distributions.Distribution
    dependence: dependence_mod.Dependence
    N: int
    d: int | None
    r_slow: float
    system: TwoPoolSystem | None
    """The two-pool system; None when the policy picks among all N servers of a
    homogeneous system with odd N."""
    discipline: str
    queueing: str
    loads: np.ndarray
    unit_mean: float | None = None
    """The load unit E[X] when it is not the replica mean: FJ with ``split: shift``
    keeps the unsplit job's mean, so that one load is one arrival rate for every k."""
    cancel_delay: float = 0.0
    """Time a cancelled copy in service keeps its server (``system.cancel_delay``; 0:
    instant cancellation, the papers' assumption)."""
    load_basis: str = "nominal"
    """What ``loads`` mean: ``nominal`` (docs/background/model.md: lambda E[X_i] / N) or ``redundancy``
    (the PS paper's rho~ = lambda d E[min(X_1..X_d)] / N, CoC only; see :attr:`load_factor`)."""

    @property
    def replica_mean(self) -> float:
        """E[X] of one replica under the cell's dependence."""
        return self.dependence.replica_mean(self.size)

    @property
    def load_mean(self) -> float:
        """E[X] of the nominal load unit (load = lambda E[X] / N): the replica mean,
        or the unsplit job's mean for FJ with ``split: shift``."""
        return self.replica_mean if self.unit_mean is None else self.unit_mean

    @property
    def load_factor(self) -> float:
        """``rho~ / nominal load = d E[min(X_1..X_d)] / E[X_i]`` under the redundancy
        basis (PS paper, section 3.4-3.5: rho~ is the load at which its stability
        condition ``lambda d E[X_min] / N < 1`` is tight), 1 under the nominal one.

        Identical replicas give ``d``, i.i.d. exponential ones 1, and ``d = 1`` always 1,
        so a cell without redundancy has rho~ = nominal load.
        """
        if self.load_basis == "nominal":
            return 1.0
        d = self._replicas()
        return d * mean_min_replicas(self.size, self.dependence, d) / self.replica_mean

    @property
    def nominal_loads(self) -> np.ndarray:
        """The swept loads in the nominal units (docs/background/model.md), whatever the basis."""
        if self.load_basis == "nominal":
            return self.loads
        return self.loads / self.load_factor

    def rates(self) -> np.ndarray:
        """Job arrival rates for the swept loads: ``load N / E[X]`` under the nominal
        basis; ``rho~ N / (d E[min(X_1..X_d)])`` under the redundancy basis."""
        if self.load_basis == "nominal":
            # kept as written before the basis existed, so nominal rates are bit for bit
            return self.loads * self.N / self.load_mean
        d = self._replicas()
        return self.loads * self.N / (d * mean_min_replicas(self.size, self.dependence, d))

    def _replicas(self) -> int:
        """``d``, which the redundancy basis needs (the config allows the basis only for
        policies that place d replicas)."""
        if self.d is None:
            raise ValueError(f"load_basis {self.load_basis}: policy {self.policy} places no d replicas")
        return int(self.d)

    def to_load(self, rate: float) -> float:
        """An arrival rate in the units of ``loads`` (the inverse of :meth:`rates`)."""
        return rate * self.load_mean * self.load_factor / self.N
