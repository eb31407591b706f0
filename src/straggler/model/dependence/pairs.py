"""Measured pairs replayed: ``{kind: pairs, file: F, columns: [A, B]}``.

A request's two copies take the two durations of one measured pair (the same request timed
on two servers, both run to the end: the file ``straggler fit --pairs`` reads), drawn
uniformly from the file's pairs, in either order with probability one half (the two
servers are exchangeable); a request that sends one copy takes either of its pair's
durations. So every copy's law is the pairs' marginal, their two columns pooled, and the
joint law of two copies is the pairs' own: nothing is fitted, and the answer of any policy
that sends at most two copies is the measured dependence's, exactly, up to the sample.
It is the nonparametric answer a fitted family (the mixture, S&X) must agree with.

Three copies or more take no measured triple: refused (where a fitted S&X gives any number
of copies). The cell's size law must be the pairs' marginal, ``{family: empirical, file: F,
column: [A, B]}`` (the study's check says so, :func:`marginal_spec`), so that the load, the
size and every analysis of one copy read the law the replay draws from.

What the kernels read (:func:`straggler.model.dependence.sampler_args`): the dependence's
code, a uniform draw per job from the sizes stream (the pair and the order: ``k =
int(u 2n)``, pair ``k // 2``, swapped when ``k`` is odd) and the pairs as ``s_params``
(``[n, a_0, b_0, a_1, b_1, ...]``); the second copy's draw from the second stream is read and
dropped, as under i.i.d., so a job reads the streams as an i.i.d. job does.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..distributions import Distribution
from .base import PAIRS_CODE, Dependence

MAX_COPIES = 2
"""The most copies a request may send under replayed pairs (a pair is two durations)."""


@functools.lru_cache(maxsize=16)
def _table(file: str, columns: tuple | None) -> np.ndarray:
    from .measured import PairsError, read_pairs

    try:
        pairs = read_pairs(file, columns)
    except PairsError as err:
        raise ValueError(str(err)) from None
    return np.ascontiguousarray(pairs.values, dtype=np.float64)


@dataclass(frozen=True)
class MeasuredPairs(Dependence):
    """A job's two copies: one measured pair of ``file`` (``columns`` the two read, as
    ``straggler fit --pairs --columns`` reads them; None: the file's two)."""

    file: str
    columns: tuple | None = None
    kind: ClassVar[str] = "pairs"
    code: ClassVar[int] = PAIRS_CODE

    def __post_init__(self):
        if self.columns is not None:
            cols = tuple(self.columns)
            if len(cols) != 2 or cols[0] == cols[1]:
                raise ValueError(f"columns: expected two different columns, got {list(cols)!r}")
            object.__setattr__(self, "columns", cols)

    @property
    def values(self) -> np.ndarray:
        """The pairs, shape (n, 2) (read once a process; :class:`ValueError` naming the file,
        the line and what is allowed when it is refused)."""
        return _table(self.file, self.columns)

    def replica_marginal_moments(self, X: Distribution) -> tuple[float, float]:
        # every copy's law is the pooled columns' (X, the cell's law, is that marginal)
        v = self.values
        return float(v.mean()), float((v * v).mean())

    def order_tail_index(self, X: Distribution, r: int = 1, k: int = 1) -> float:
        # a finite sample: every moment is finite
        return math.inf

    def sampler_table(self) -> np.ndarray:
        """``[n, a_0, b_0, a_1, b_1, ...]``: what the kernels read (module docstring)."""
        v = self.values
        return np.concatenate([[float(len(v))], v.ravel()]).astype(np.float64)

    def min_max(self) -> tuple[np.ndarray, np.ndarray]:
        """The faster and the slower copy of each pair."""
        v = self.values
        return v.min(axis=1), v.max(axis=1)

    def to_spec(self) -> dict:
        spec: dict = {"kind": self.kind, "file": self.file}
        if self.columns is not None:
            spec["columns"] = list(self.columns)
        return spec


def marginal_spec(dep: MeasuredPairs) -> dict:
    """The size law of a cell under ``dep``: the pairs' two columns pooled, as an empirical
    law of the same file (its column names as ``straggler fit --pairs`` reads them)."""
    from .measured import read_pairs

    names = read_pairs(dep.file, dep.columns).names
    column = list(dep.columns) if dep.columns is not None else [_as_column(n, i) for i, n in enumerate(names)]
    return {"family": "empirical", "file": dep.file, "column": column}


def _as_column(name: str, index: int):
    """A column as the empirical law names it: the header, or its index where the file has none."""
    return index if name == f"column {index}" else name
