"""The analytic result of one grid cell: its values, their kinds and its notes."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...common.quantiles import QUANTILES
from .notes import NOMINAL, LoadUnit, Note, note


@dataclass
class AnalyticResult:
    """The analytic values of one cell at its loads, with their kinds and notes (arrays
    left None are filled with NaN, one per load)."""

    loads: np.ndarray
    lambda_max: float = math.nan
    lambda_max_kind: str = ""
    lambda_sufficient: float = math.nan
    """A load below which stability is proven (a sufficient condition); equal to
    lambda_max when that is exact, NaN when no sufficient condition is known."""
    tau_opt: float = math.nan
    q_opt: float = math.nan
    rho: np.ndarray | None = None
    cost: float = math.nan
    cost_kind: str = ""
    latency_approx: np.ndarray | None = None
    latency_approx_kind: str = ""
    tau_opt_pool2: float = math.nan
    keep_opt: np.ndarray | None = None
    """FJ ``keep: opt``: the tasks kept (r of section 8.1) that the strategy of
    section 8.2 chose at each load (the simulation uses the same)."""
    latency_lower: np.ndarray | None = None
    """An analytic lower bound on the mean latency, where one is known besides
    ``latency_approx`` (FJ: Theorem 4's lower bound)."""
    cost_lower: float = math.nan
    cost_upper: float = math.nan
    latency_group: np.ndarray | None = None
    """FJ with r_f < n: the fork-join paper's section 8.2 estimate ``T_hat(r)``, the
    latency of *group-based* random (n, r, k) (r tasks starting together on one of
    n / r fixed groups). The simulation runs another system (a random r_f of the n
    servers), so this is not its latency and not ``latency_approx``."""
    latency_group_kind: str = ""
    """What ``latency_group`` is for the group-based system: ``exact`` (k = 1) or
    ``upper_bound`` (k > 1, Theorem 4's split-merge bound for a group) when r
    divides n; ``approximation`` otherwise (no such system of n / r groups exists,
    the estimate is section 8.2's as the paper uses it)."""
    alpha: np.ndarray | None = None
    """alpha[i, j]: fraction of type-j jobs first sent to pool i, as chosen by the
    analysis (the simulation uses the same assignment)."""
    latency_approx_quantile: np.ndarray | None = None
    """(loads, len(QUANTILES)): the response time's quantiles of the system ``latency_approx``
    describes, where one is solved (the mean-field tier, :mod:`.mean_field_tier`)."""
    latency_approx_quantile_kind: str = ""
    cost_approx: np.ndarray | None = None
    """Per load, the mean-field limit's server time per job (:mod:`.mean_field_tier`)."""
    mean_field: tuple | None = None
    """Per load, the mean-field tier's equilibrium (:class:`straggler.engines.mean_field.Equilibrium`)
    where it solves the cell, else None: its latency fills ``latency_approx`` (kind
    ``mean-field``), and a fleet may start from its workload
    (:mod:`straggler.study.fleet`)."""
    note_items: list[Note] = field(default_factory=list)
    """The notes as data (:class:`.notes.Note`), loads in nominal units."""
    load_unit: LoadUnit = NOMINAL
    """The load basis the notes are rendered in (set by :func:`.cell.analyze`)."""
    holds_with_cancel_delay: set[str] = field(default_factory=set)
    """The values (:data:`.cancel_delay.VALUES`) the handler vouches for in a cell whose
    policy cancels copies and whose ``cancel_delay`` is > 0: carried (the delay counted
    where the paper's argument allows) or not affected by it. The dispatcher sets the
    others NaN, with a note (:func:`.cancel_delay.restrict`)."""

    def __post_init__(self):
        nan = np.full(len(self.loads), math.nan)
        if self.rho is None:
            self.rho = nan.copy()
        if self.latency_approx is None:
            self.latency_approx = nan.copy()
        if self.keep_opt is None:
            self.keep_opt = nan.copy()
        if self.latency_lower is None:
            self.latency_lower = nan.copy()
        if self.latency_group is None:
            self.latency_group = nan.copy()
        if self.latency_approx_quantile is None:
            self.latency_approx_quantile = np.full((len(self.loads), len(QUANTILES)), math.nan)
        if self.cost_approx is None:
            self.cost_approx = nan.copy()

    @property
    def notes(self) -> list[str]:
        """The notes as the dataset stores them (``cell_notes``), in the result's
        load basis."""
        return [item.render(self.load_unit) for item in self.note_items]

    def add_note(self, text: str, about=(), **fields) -> None:
        """Append a :class:`.notes.Note` (``text`` a template over ``fields``)."""
        self.note_items.append(note(text, about, **fields))

    def explains(self, variable: str) -> bool:
        """Does a note say something about ``variable`` (why it is NaN, +inf, a bound)?"""
        return any(variable in item.about for item in self.note_items)
