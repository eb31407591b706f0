"""The model of one grid cell, built from its resolved config.

Analysis and simulation both start from a :class:`CellModel`, so that they
describe the same system: sizes, replica dependence, pools, types, speeds, what
the dispatcher knows, the policy and its parameters, and the loads to sweep.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import dependence as dependence_mod
from . import distributions
from .analysis.threshold import TwoPoolSystem
from .grid import Cell, cell_config


@dataclass(frozen=True)
class CellModel:
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
    load_basis: str = "nominal"
    """What ``loads`` mean: ``nominal`` (DESIGN.md: lambda E[X_i] / N) or ``redundancy``
    (the PS paper's rho~ = lambda d E[min(X_1..X_d)] / N, CoC only; see :attr:`load_factor`)."""

    @property
    def replica_mean(self) -> float:
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
        from .analysis.redundancy_ps import mean_min_replicas

        return int(self.d) * mean_min_replicas(self.size, self.dependence, int(self.d)) / self.replica_mean

    @property
    def nominal_loads(self) -> np.ndarray:
        """The swept loads in the nominal units of DESIGN.md, whatever the basis."""
        if self.load_basis == "nominal":
            return self.loads
        return self.loads / self.load_factor

    def rates(self) -> np.ndarray:
        """Job arrival rates for the swept loads: ``load N / E[X]`` under the nominal
        basis; ``rho~ N / (d E[min(X_1..X_d)])`` under the redundancy basis."""
        if self.load_basis == "nominal":
            # kept as written before the basis existed, so nominal rates are bit for bit
            return self.loads * self.N / self.load_mean
        from .analysis.redundancy_ps import mean_min_replicas

        d = int(self.d)
        return self.loads * self.N / (d * mean_min_replicas(self.size, self.dependence, d))

    def to_load(self, rate: float) -> float:
        """An arrival rate in the units of ``loads`` (the inverse of :meth:`rates`)."""
        return rate * self.load_mean * self.load_factor / self.N


def named_distributions(cfg: dict) -> dict[str, distributions.Distribution]:
    return {name: distributions.from_spec(spec) for name, spec in cfg["distributions"].items()}


def build_model(resolved: dict, cell: Cell) -> CellModel:
    cfg = cell_config(resolved, cell)
    named = named_distributions(cfg)
    size = named[cell["distribution"]]
    dep_name = cell["dependence"]
    dep = dependence_mod.from_spec(cfg["dependences"][dep_name], named)
    system_cfg = cfg["system"]
    types = system_cfg["types"]
    N = int(cell["N"])
    r_slow = float(cell["r_slow"])
    pools = system_cfg.get("pools")
    if pools is None and N % 2 == 1:
        system = None  # homogeneous system, odd N: single-pool policies only (grid ensures)
    else:
        system = TwoPoolSystem.affinity(
            N, r_slow, p=types["p"], knowledge=types["knowledge"], belief=types["belief"],
            pools=pools, speeds=system_cfg.get("speeds"),
        )
    params = dict(cfg["policies"].get(cell.policy, {}))
    unit_mean = None
    if cell.policy == "FJ" and params.get("split", "none") == "shift":
        unit_mean = dep.replica_mean(size)
        size = split_shift(size, int(params.get("k", 1)))
    return CellModel(
        policy=cell.policy,
        params=params,
        size=size,
        dependence=dep,
        N=N,
        d=int(cell["d"]) if cell.get("d") is not None else None,
        r_slow=r_slow,
        system=system,
        discipline=system_cfg["discipline"],
        queueing=system_cfg["queueing"],
        loads=np.asarray(cfg["load"], dtype=float),
        unit_mean=unit_mean,
        load_basis=cfg.get("load_basis", "nominal"),
    )


def split_shift(size: distributions.Distribution, k: int) -> distributions.ShiftedExponential:
    """The task law of a job split into ``k`` tasks: ``ShiftedExp(Delta / k, mu)``.

    Fork-join paper, section 7.2 (diversity-parallelism trade-off): ``Delta_k =
    Delta / k``, the exponential part unchanged: a larger k makes the tasks
    smaller (parallelism) but leaves fewer redundant tasks (diversity).
    """
    if not isinstance(size, distributions.ShiftedExponential):
        raise ValueError(f"FJ split: shift needs a shifted_exponential law, got {size.family}")
    if k < 1:
        raise ValueError(f"FJ split: shift needs k >= 1, got {k}")
    return distributions.ShiftedExponential(shift=size.shift / k, tail_mean=size.tail_mean)
