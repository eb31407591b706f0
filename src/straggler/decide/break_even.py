"""Break-even cancellation delays: how slow cancelling may be before redundancy stops paying.

A study that sweeps ``cancel_delay`` on its grid asks, per setting (the grid's point
without the load, the policy's axes and the delay), load and contender that cancels
copies (:attr:`straggler.model.policies.PolicySpec.cancels`): up to which cancellation delay
does it still beat single-copy dispatch (ZRed, which the grid must hold)?

- on the mean response time E[T];
- on the SLO's metric, when ``decision.slo`` names a quantile (its level's response
  time: does the P99 stay below single copy's?).

The answer is located by bisection (:func:`straggler.decide.frontier.locate`) on a judge that
compares the contender at a delay with single copy at the same load, on the workload's
common random numbers (the streams do not depend on the delay:
:func:`straggler.study.grid.workload_id`): the paired Student-t CI of the difference of their
replications' values says *faster* (the break-even lies above the delay), *slower*
(below) or cannot tell. The grid's own delays start the bracket; probes are on the
lattice ``resolution * E[X]`` (``decision.resolution``, 0.01 without one) and each is the
contender's cell at that delay and load, evaluated into its store like any cell (a rerun
reads it back, so the answer is the same on any number of cores and however the work
is cut). A delay whose paired CI contains 0 is run longer, the contender and single
copy together on more replications (:class:`straggler.decide.frontier.Longer`, capped by
``decision.max_jobs``), before it counts as a tie. A contender not faster even at the
smallest delay of the grid never breaks even: its row says so.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np
import xarray as xr

from ..engines.simulation.statistics import paired_ci
from ..model.policies import POLICIES, ZRED_CODE
from ..study.config.keys import CANCEL_DELAY
from ..study.grid import Grid, cell_id, setting_key
from .frontier import ABOVE, BELOW, UNKNOWN, Contender, Located, SettingSearch, locate
from .winners import plain

SINGLE_COPY = next(name for name, spec in POLICIES.items() if spec.kernel_code == ZRED_CODE)
"""The policy that dispatches one copy at random and never cancels: what redundancy must beat."""

TOP = 10.0
"""Where a search with no delay found too slow stops looking for one: 10 mean jobs."""

COLUMNS = (
    "load",
    "policy",
    "criterion",
    "break_even_low",
    "break_even_high",
    "evidence",
    "probes",
)
"""``break_even.csv``'s columns after the setting's axes and before the policy's own:
``break_even_low`` the largest delay at which the contender is proven faster (NaN: at
none), ``break_even_high`` the smallest at which it is proven not faster (inf: none
found up to :data:`TOP` mean jobs)."""


def delay_settings(grid: Grid) -> list[dict]:
    """The settings of a grid that sweeps ``cancel_delay`` and holds single copy: its points
    without the policy's axes and the delay, in grid order (none otherwise)."""
    from ..study.grid import settings

    if CANCEL_DELAY not in grid.axes or SINGLE_COPY not in grid.axes.get("policy", []):
        return []
    out, seen = [], set()
    for setting in settings(grid):
        own = {a: v for a, v in setting.items() if a != CANCEL_DELAY}
        if setting_key(own) not in seen:
            seen.add(setting_key(own))
            out.append(own)
    return out


class BreakEvenSearch:
    """The break-even delays of one setting (see the module docstring)."""

    def __init__(self, resolved, grid: Grid, setting: dict, store_root, attrs: dict):
        self.resolved = resolved
        self.setting = dict(setting)
        self.delays = sorted(float(v) for v in grid.axes[CANCEL_DELAY])
        self.literals = {float(v): v for v in grid.axes[CANCEL_DELAY]}
        # the contenders at the smallest delay of the grid: their cells name the others
        first = {**setting, CANCEL_DELAY: self.literals[self.delays[0]]}
        self.search = SettingSearch(resolved, grid, first, store_root, attrs)
        self.store_root = store_root
        self.level = float(resolved.simulation.confidence)
        decision = resolved.decision.to_dict() if resolved.decision is not None else {}
        self.resolution = float(decision.get("resolution") or 0.01)
        slo = decision.get("slo") or {}
        self.quantile = slo.get("quantile") if isinstance(slo, dict) else None
        self.unit = 1.0
        self._cells: dict[tuple, xr.Dataset] = {}

    # -------------------------------------------------------------- probes

    def _at(self, c: Contender, delay: float, load: float, replications: int | None = None) -> xr.Dataset:
        """The contender's cell at ``delay`` and ``load`` (on ``replications``, the study's
        by default): the grid's own cell at a delay of the grid, else a cell of a grid
        whose delay axis holds only ``delay``."""
        from ..study.evaluate import evaluate_cell

        if replications == self.search.longer.base:
            replications = None
        literal = self.literals.get(delay, delay)
        cell = self.search.grid.cells[c.cell]
        key = (c.cell, literal, load, replications)
        if key not in self._cells:
            grid = self.resolved.grid
            extra = tuple((a, (literal,) if a == CANCEL_DELAY else v) for a, v in grid.extra)
            resolved = replace(self.resolved, grid=replace(grid, extra=extra), load=(load,))
            cid = cell_id((a, literal if a == CANCEL_DELAY else v) for a, v in cell.coords)
            stats: dict = {}
            self._cells[key] = evaluate_cell(resolved, cid, self.store_root, stats, replications)
            self.search.simulated_jobs += int(stats.get("simulated_jobs", 0))
            self.search.evaluations += 1
        return self._cells[key]

    def _values(self, ds: xr.Dataset, load: float, criterion: str) -> np.ndarray:
        """The replications' values of ``criterion`` at ``load``: their mean response times,
        or their response-time quantiles at the SLO's level."""
        at = ds.sel(load=load)
        if criterion == "latency":
            values = np.asarray(at["latency_replication_mean"].values, dtype=float).ravel()
            if "ci_reliable" in at and (np.ravel(at["ci_reliable"].values) == 0.0).any():
                return values * np.nan  # a CI that cannot be trusted pairs nothing: the judge says unknown
            return values
        q = at["latency_replication_quantile"].sel(quantile=float(self.quantile), method="nearest")
        return np.asarray(q.values, dtype=float).ravel()

    def judge(self, c: Contender, single: Contender, load: float, criterion: str):
        """The judge of one search: at a delay, is the contender faster than single copy
        (BELOW: the break-even lies above), proven not faster (ABOVE), or a tie? A tie is
        run longer (:meth:`straggler.decide.frontier.SettingSearch.run_longer`)."""

        def measure(delay: float, replications: int | None) -> tuple[str, float, float, float]:
            base = self._values(self.search.evaluate(single.cell, [load], replications), load, criterion)
            ci = paired_ci(self._values(self._at(c, delay, load, replications), load, criterion), base, self.level)
            if ci is None:
                return UNKNOWN, math.nan, math.nan, 0.0
            verdict = BELOW if ci[1] < 0.0 else ABOVE if ci[0] >= 0.0 else UNKNOWN
            return verdict, 0.5 * (ci[0] + ci[1]), 0.5 * (ci[1] - ci[0]), 0.0

        def at(delay: float) -> str:
            key = (self._what(c, load, criterion), delay)
            return self.search.run_longer(key, measure(delay, None)[0], lambda r: measure(delay, r))

        return at

    def _what(self, c: Contender, load: float, criterion: str) -> str:
        """The key of one search's probes run longer (:attr:`SettingSearch.stops`)."""
        return f"break-even {c.name} {load!r} {criterion}"

    def locate(self, c: Contender, single: Contender, load: float, criterion: str) -> Located:
        """The break-even delay of one contender at one load: the grid's delays first,
        then bisection between the last faster one and the first not faster."""
        judge = self.judge(c, single, load, criterion)
        seen = {delay: judge(delay) for delay in self.delays}
        faster = [d for d, v in seen.items() if v == BELOW]
        if not faster or seen[self.delays[0]] != BELOW:
            what = "not faster than single copy" if seen[self.delays[0]] == ABOVE else "a tie with single copy"
            return Located(math.nan, self.delays[0], f"{what} at a delay of {self.delays[0]:g}", list(seen))
        lo = max(faster)
        slower = [d for d, v in seen.items() if v == ABOVE and d > lo]
        hi = min(slower) if slower else math.inf
        step = self.resolution * self.unit
        found = locate(lo, hi, judge, step, top=TOP * self.unit)
        found = self.search.stopped(self._what(c, load, criterion), found, step)
        return replace(found, probes=list(seen) + found.probes)

    # -------------------------------------------------------------- the setting

    def contenders(self) -> tuple[Contender | None, list[Contender]]:
        """(single copy, the contenders that cancel copies)."""
        single = next((c for c in self.search.contenders if c.axes["policy"] == SINGLE_COPY), None)
        cancel = [c for c in self.search.contenders if POLICIES[c.axes["policy"]].cancels]
        return single, cancel

    def run(self) -> dict:
        """Every break-even delay of the setting, and what they cost."""
        start = time.process_time()
        single, cancel = self.contenders()
        rows = []
        criteria = ["latency"] + (["slo"] if self.quantile is not None else [])
        if single is not None:
            from ..study.cell_build import build_model

            self.unit = float(build_model(self.resolved, self.search.grid.cells[single.cell]).load_mean)
            for load in self.search.grid_loads:
                for c in cancel:
                    for criterion in criteria:
                        found = self.locate(c, single, load, criterion)
                        rows.append(self._row(c, load, criterion, found))
        return {
            "setting": {a: plain(v) for a, v in self.setting.items()},
            "break_even": rows,
            "evaluations": self.search.evaluations,
            "simulated_jobs": self.search.simulated_jobs,
            "cpu_seconds": time.process_time() - start,
        }

    def _row(self, c: Contender, load: float, criterion: str, found: Located) -> dict:
        return {
            **{a: plain(v) for a, v in self.setting.items()},
            "load": load,
            "contender": c.name,
            **{a: plain(v) for a, v in c.axes.items()},
            "criterion": criterion if criterion == "latency" else f"P{100 * float(self.quantile):g}",
            "break_even_low": found.low,
            "break_even_high": found.high,
            "evidence": found.evidence,
            "probes": len(found.probes),
        }


def break_even_table(found: list[dict]):
    """``break_even.csv``: a row per setting, load, contender and criterion."""
    import pandas as pd

    rows = [row for f in found for row in f["break_even"]]
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=["contender", *COLUMNS])
    lead = [c for c in frame.columns if c not in COLUMNS and c != "contender"]
    setting = list(found[0]["setting"]) if found else []
    own = [c for c in lead if c not in setting]
    return frame.reindex(columns=[*setting, "contender", *COLUMNS[:2], *own, *COLUMNS[2:]])


WORDS = (
    "The cancellation delay (in the time units of the job sizes) up to which each contender that "
    f"cancels copies still beats one copy a job ({SINGLE_COPY}) at the same load, on E[T] and on the SLO's "
    "quantile, located by bisection on common random numbers (break_even.csv). `break-even` is an "
    "interval: faster than one copy at its low end, proven not faster at its high end; `-` where it "
    "is not faster even at the grid's smallest delay; `> x` where it is still faster at x and no "
    "upper end was found or told apart."
)


def report_frame(ds):
    """The break-even table as the report shows it (a dataset with ``break_even.csv``
    attached as its attribute ``break_even``; empty otherwise)."""
    import io

    import pandas as pd

    text = ds.attrs.get("break_even", "")
    if not text:
        return pd.DataFrame()
    frame = pd.read_csv(io.StringIO(text))
    if frame.empty:
        return frame
    lead = list(frame.columns[: list(frame.columns).index("contender")])
    shown = [c for c in lead if frame[c].nunique() > 1]
    out = frame[[*shown, "load", "contender", "criterion"]].copy()
    out["break-even"] = [_interval(lo, hi) for lo, hi in zip(frame["break_even_low"], frame["break_even_high"])]
    out["evidence"] = frame["evidence"]
    return out


def _interval(low: float, high: float) -> str:
    if not np.isfinite(low):
        return "-"
    if not np.isfinite(high):
        return f"> {low:.3g}"
    return f"[{low:.3g}, {high:.3g}]"


def sentences(ds) -> list[str]:
    """The break-even delays in words, for the report's first lines: per criterion and
    policy, the least and the largest break-even over its settings, variants and loads."""
    import io

    import pandas as pd

    text = ds.attrs.get("break_even", "")
    raw = pd.read_csv(io.StringIO(text)) if text else pd.DataFrame()
    if raw.empty:
        return []
    out = []
    for criterion, rows in raw.groupby("criterion", sort=False):
        parts = [_policy_range(str(policy), own) for policy, own in rows.groupby("policy", sort=False)]
        out.append(
            f"Break-even cancellation delay on {'E[T]' if criterion == 'latency' else criterion}, the delay up to "
            f"which a policy still beats one copy a job (least to largest over its settings and loads): "
            + "; ".join(parts)
            + " (break_even.csv)."
        )
    return out


def _policy_range(policy: str, rows) -> str:
    """``CoC 1.39 to 3.37``: one policy's break-evens (low ends: proven faster up to
    there); "or more" where a search found no delay too slow (it stops at TOP mean
    jobs), and how many of its (variant, load) rows never beat one copy."""
    low = rows["break_even_low"].astype(float)
    finite = low[np.isfinite(low)]
    never = len(low) - len(finite)
    if not len(finite):
        return f"{policy} never beats it"
    open_top = rows["evidence"].astype(str).str.startswith("the low side's answer holds").any()
    span = f"{finite.min():.3g}" if finite.min() == finite.max() else f"{finite.min():.3g} to {finite.max():.3g}"
    return f"{policy} {span}" + (" or more" if open_top else "") + (f" ({never} of {len(low)} never)" if never else "")
