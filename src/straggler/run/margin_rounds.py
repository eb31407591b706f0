"""The rounds of a question's margin in ``c``, run in this process's own workers.

``straggler recommend`` locates how far its answer holds by bisection in ``c``
(:func:`straggler.decide.assumption.probes_needed`): each round adds one or two values of ``c``
to the study's sweep, and only the cells at those values are new. Run by Snakemake, a
round pays Snakemake's start, a job's start (the imports, the kernels read from numba's
cache) per batch, and the aggregation into the dataset file: 7 to 9 s of a round's 16 to
20 s on the heavy-tailed question of ``benchmarks/heavy_question.py``. Here a pool of
``cores`` worker processes, started once for every round, evaluates the new cells, the
longest first (the plan's estimates), each into its file of ``results/<study>/cells/``
exactly as a batch job writes it (:func:`straggler.study.evaluate.evaluate_cell`,
:func:`straggler.study.dataset.write_cell`: the same numbers whatever ran them), and the
dataset the next round reads is combined in memory. The final Snakemake run then finds
every cell done and only aggregates, draws and reports.

With a cluster profile the rounds stay Snakemake's (their cells go to the cluster).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import xarray as xr

    from ..study.config.resolved import ResolvedConfig


class RoundPool:
    """Worker processes for the rounds (started on first use, ``spawn``ed: a forked
    numba or netCDF4 state is not safe), and how to run a round with them."""

    def __init__(self, cores: int):
        self.cores = max(1, int(cores))
        self._pool: ProcessPoolExecutor | None = None
        self.folder = "."

    def __enter__(self) -> RoundPool:
        return self

    def __exit__(self, *exc) -> None:
        if self._pool is not None:
            # on an interrupt the running cells stop with their workers: a cell file is
            # written atomically, so none is left half-written, and a rerun resumes
            self._pool.shutdown(wait=exc[0] is None, cancel_futures=True)

    def run(self, study_path: Path, folder: Path) -> xr.Dataset:
        """Evaluate the cells of the study in ``study_path`` that have no result yet, from
        ``folder`` (the study's folder: relative data files are read from there, as its
        jobs read them); the study's dataset, in memory."""
        from ..common.sources import model_hash
        from ..study.config import dump_config
        from ..study.grid import build_grid, result_config
        from ..study.workunits import plan
        from .pipeline import combined

        self.folder = str(folder.absolute())
        study_path = study_path.absolute()
        with contextlib.chdir(folder):
            resolved = resolved_study(study_path)
            grid = build_grid(resolved)
            the_plan = plan(resolved, grid, model_hash())
            results = Path("results") / resolved.study
            paths = {cid: Path(the_plan.cell_path(str(results), cid)) for cid in grid.cells}
            todo = sorted((c for c, p in paths.items() if not p.exists()), key=lambda c: -the_plan.costs[c].total)
            text = dump_config(resolved)
            if todo:
                self._evaluate(text, [(cid, the_plan.keys[cid]) for cid in todo], results)
            return combined(text, [str(p) for p in paths.values()], dump_config(result_config(resolved)))

    def _evaluate(self, resolved_yaml: str, cells: list[tuple[str, str]], results: Path) -> None:
        if self._pool is None:
            # the workers run from the study's folder, as its jobs do (relative data files)
            self._pool = ProcessPoolExecutor(
                max_workers=self.cores, mp_context=get_context("spawn"), initializer=os.chdir, initargs=(self.folder,)
            )
        pending: dict[Future, str] = {
            self._pool.submit(evaluate_into, resolved_yaml, cell, key, str(results)): cell for cell, key in cells
        }
        done = 0
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                cell = pending.pop(future)
                jobs, loads, seconds = future.result()  # a cell's error stops the round, as a job's would
                done += 1
                print(
                    f"[{done}/{len(cells)}] {cell}: {loads} loads, {jobs:,} jobs simulated, {seconds:.2f} s",
                    file=sys.stderr,
                    flush=True,
                )


def resolved_study(study_path: Path) -> ResolvedConfig:
    """The study file resolved as the workflow resolves it, run from the study's folder
    (the current one), in the same cache."""
    from ..study.config import read_study_files, resolve_config_cached

    return resolve_config_cached(read_study_files([study_path]), Path(".snakemake") / "straggler")


@functools.lru_cache(maxsize=4)
def _resolved(text: str) -> ResolvedConfig:
    from ..study.config.resolved import ResolvedConfig

    return ResolvedConfig.from_yaml(text)


def evaluate_into(resolved_yaml: str, cell: str, key: str, results: str) -> tuple[int, int, float]:
    """In a worker: evaluate ``cell`` into ``results/cells/<key>.nc`` (its replications
    in ``results/sim``, as a batch job keeps them); the jobs it simulated, its loads and
    its seconds."""
    from ..study.dataset import write_cell
    from ..study.evaluate import evaluate_cell

    start = time.perf_counter()
    stats: dict = {}
    ds = evaluate_cell(_resolved(resolved_yaml), cell, store_root=Path(results) / "sim", stats=stats)
    write_cell(ds, os.path.join(results, "cells", f"{key}.nc"))
    return int(stats.get("simulated_jobs", 0)), int(ds.sizes["load"]), time.perf_counter() - start
