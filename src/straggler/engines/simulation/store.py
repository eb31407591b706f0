"""Replications of one load: the record the summaries and verdicts are computed from,
and the store that keeps them between jobs.

A replication is a pure function of its seed (the cell's stream, the load, the
replication's index) and its run length, so its result can be kept and reused:
shards of a cell's replications (different jobs, even machines) write their part,
the cell's evaluation reads them all back, and a cell evaluated again after a
change that does not touch the simulation (the analysis, a new load, the figures)
simulates only what is new. The record is the same whether the replications ran in
one call or in shards, so the results are bitwise the same however the work was cut.

Layout: ``<root>/<key>/<load>/r<first>-<stop>.npz`` (fixed run length: the
replications ``first .. stop - 1``), ``.../precision.npz`` (sequential stopping:
the final replications of the load) or ``.../extended-<jobs>.npz`` (the fixed
replications run longer until the load's verdict is decided). ``key`` is a hash of everything a replication
depends on (the cell's settings but its load list, the simulation's sources, the
analysis's choices it uses); ``load`` is the load's value (and FJ's kept tasks when
they are chosen per load).
"""

from __future__ import annotations

import logging
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...common.files import atomic_write
from . import statistics as S
from .start import LEVELS, workload_table

log = logging.getLogger(__name__)


@dataclass
class Replications:
    """Per-replication results of one load, in replication order."""

    index: np.ndarray
    """replication indices (int64, increasing)"""
    acc: np.ndarray
    """(R, ACC_SIZE): each replication's running sums and state (statistics.A_*)"""
    batches: np.ndarray
    """(R, N_BATCHES, B_COLUMNS): each replication's batch sums (CI of a single replication)"""
    hist: np.ndarray
    """the latency histogram of all replications together (int64)"""
    jobs: int
    """measured jobs each replication was asked for"""
    quantiles: np.ndarray | None = None
    """(R, len(QUANTILES)): each replication's latency quantiles (their spread gives
    the quantiles' confidence interval); None: computed from nothing (an old file)"""
    workloads: np.ndarray | None = None
    """(R, start.LEVELS): each replication's end state, the quantile table of its servers'
    work at the last arrival (a larger system may start from it, :mod:`.start`); None: not
    kept (an old file)"""

    def __len__(self) -> int:
        return len(self.index)

    @classmethod
    def of(cls, indices, accumulators, jobs: int) -> Replications:
        """Replications ``indices`` from their accumulators, each run for ``jobs``
        measured jobs (with their latency quantiles)."""
        accs = list(accumulators)
        if not accs:
            return cls.empty(jobs)
        return cls(
            np.asarray(list(indices), dtype=np.int64),
            np.stack([a.acc for a in accs]),
            np.stack([a.batches for a in accs]),
            np.sum([a.hist for a in accs], axis=0).astype(np.int64),
            int(jobs),
            np.stack([S.hist_quantiles(a.hist) for a in accs]),
            np.stack([_end_table(a) for a in accs]),
        )

    @classmethod
    def empty(cls, jobs: int = 0) -> Replications:
        """No replications (of run length ``jobs``)."""
        return cls(
            np.zeros(0, dtype=np.int64),
            np.zeros((0, S.ACC_SIZE)),
            np.zeros((0, S.N_BATCHES, S.B_COLUMNS)),
            np.zeros(S.HIST_BINS, dtype=np.int64),
            int(jobs),
            np.zeros((0, len(S.QUANTILES))),
            np.zeros((0, LEVELS)),
        )

    @classmethod
    def join(cls, parts) -> Replications:
        """Replications of disjoint index sets, merged in index order."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        index = np.concatenate([p.index for p in parts])
        order = np.argsort(index, kind="stable")
        if len(np.unique(index)) != len(index):
            raise ValueError("replications given twice")
        jobs = {p.jobs for p in parts}
        if len(jobs) != 1:
            raise ValueError(f"replications of different run lengths {sorted(jobs)}")
        return cls(
            index[order],
            np.concatenate([p.acc for p in parts])[order],
            np.concatenate([p.batches for p in parts])[order],
            np.sum([p.hist for p in parts], axis=0).astype(np.int64),
            jobs.pop(),
            np.concatenate([p.quantiles for p in parts])[order]
            if all(p.quantiles is not None for p in parts)
            else None,
            np.concatenate([p.workloads for p in parts])[order]
            if all(p.workloads is not None for p in parts)
            else None,
        )

    def fired(self) -> bool:
        """The monitor fired (or a buffer overflowed) in some replication."""
        return bool(len(self) and np.any(self.acc[:, S.A_STABLE] != 1.0))


def _end_table(acc) -> np.ndarray:
    """A replication's end state as its quantile table (NaN: the kernel kept none)."""
    if getattr(acc, "workloads", None) is None:
        return np.full(LEVELS, np.nan)
    return workload_table(acc.workloads)


def _load_dir(load: float, keep=None) -> str:
    """``load=<value>``, then what else names the load (:attr:`.load.Load.folder`: a
    string; an int is FJ's kept tasks, as it was named before starts had names)."""
    name = f"load={float(load)!r}"
    if keep is None:
        return name
    return f"{name}__keep={int(keep)}" if isinstance(keep, (int, np.integer)) else f"{name}__{keep}"


class Store:
    """The replications of one cell's simulation, kept under ``root/key``."""

    def __init__(self, root, key: str):
        self.dir = Path(root) / key

    def _path(self, load: float, keep, name: str) -> Path:
        return self.dir / _load_dir(load, keep) / name

    def read(self, load: float, keep, first: int, stop: int, jobs: int) -> Replications | None:
        """Replications ``first .. stop - 1`` of a load from files that together hold
        exactly them (one file, or consecutive files), or None."""
        folder = self.dir / _load_dir(load, keep)
        if not folder.is_dir():
            return None
        ranges: dict[int, list[tuple[int, Path]]] = {}
        for path in folder.glob("r*-*.npz"):
            a, _, b = path.stem[1:].partition("-")
            if a.isdigit() and b.isdigit():
                ranges.setdefault(int(a), []).append((int(b), path))
        parts, at = [], first
        while at < stop:
            options = sorted((end, p) for end, p in ranges.get(at, []) if end <= stop)
            if not options:
                return None
            end, path = options[-1]  # the longest file that fits
            rec = _read(path)
            if rec is None or rec.jobs != jobs:
                return None
            parts.append(rec)
            at = end
        return Replications.join(parts)

    def read_prefix(self, load: float, keep, first: int, stop: int, jobs: int) -> Replications:
        """The longest run of replications ``first .. k - 1`` (``k <= stop``) that the
        store holds in files, possibly none: what a load run on more replications than
        before reuses (a replication is a function of its own seed, not of how many run)."""
        folder = self.dir / _load_dir(load, keep)
        ends = set()
        if folder.is_dir():
            for path in folder.glob("r*-*.npz"):
                a, _, b = path.stem[1:].partition("-")
                if a.isdigit() and b.isdigit() and int(a) >= first and int(b) <= stop:
                    ends.add(int(b))
        for end in sorted(ends, reverse=True):
            kept = self.read(load, keep, first, end, jobs)
            if kept is not None:
                return kept
        return Replications.empty(jobs)

    def write(self, load: float, keep, rec: Replications) -> None:
        """Keep consecutive replications ``rec`` of a load in one file (nothing when
        empty); ValueError when their indices are not consecutive."""
        if not len(rec):
            return
        first, stop = int(rec.index[0]), int(rec.index[-1]) + 1
        if not np.array_equal(rec.index, np.arange(first, stop)):
            raise ValueError("only consecutive replications are stored together")
        _write(self._path(load, keep, f"r{first}-{stop}.npz"), rec)

    def read_named(self, load: float, keep, name: str) -> Replications | None:
        """The replications kept as ``name`` (``precision``, or ``extended-<jobs>``:
        the fixed replications run longer for a verdict), or None."""
        path = self._path(load, keep, f"{name}.npz")
        return _read(path) if path.is_file() else None

    def write_named(self, load: float, keep, name: str, rec: Replications) -> None:
        """Keep ``rec`` as ``name`` (see :meth:`read_named`), replacing what it held."""
        _write(self._path(load, keep, f"{name}.npz"), rec)

    def read_precision(self, load: float, keep) -> Replications | None:
        """A load's replications of precision mode, or None."""
        return self.read_named(load, keep, "precision")

    def write_precision(self, load: float, keep, rec: Replications) -> None:
        """Keep a load's replications of precision mode."""
        self.write_named(load, keep, "precision", rec)


def _write(path: Path, rec: Replications) -> None:
    """Atomically (:func:`straggler.common.files.atomic_write`): a killed job leaves no partial file."""
    quantiles = rec.quantiles if rec.quantiles is not None else np.full((len(rec), len(S.QUANTILES)), np.nan)

    with atomic_write(path) as tmp, open(tmp, "wb") as f:
        np.savez_compressed(
            f,
            index=rec.index,
            acc=rec.acc,
            batches=rec.batches,
            hist=rec.hist,
            jobs=np.int64(rec.jobs),
            quantiles=quantiles,
            workloads=rec.workloads if rec.workloads is not None else np.full((len(rec), LEVELS), np.nan),
        )


def _read(path: Path) -> Replications | None:
    try:
        with np.load(path) as z:
            rec = Replications(
                z["index"].astype(np.int64),
                z["acc"],
                z["batches"],
                z["hist"].astype(np.int64),
                int(z["jobs"]),
                z["quantiles"],
                z["workloads"] if "workloads" in z.files else None,
            )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        # a truncated or damaged file (the zip's CRC-32 catches a changed byte): recomputed
        log.warning("replications %s are unreadable (%s: %s): simulated again", path, type(err).__name__, err)
        return None
    if rec.quantiles is not None and np.shape(rec.quantiles) != (len(rec), len(S.QUANTILES)):
        # kept by code that estimated other quantile levels (a store key covers the
        # levels, straggler.common.sources.simulation_hash, so only a store shared by hand
        # holds one): its columns are not these levels
        log.warning(
            "replications %s hold quantiles of shape %s, not (%d, %d) (levels %s): simulated again",
            path,
            np.shape(rec.quantiles),
            len(rec),
            len(S.QUANTILES),
            S.QUANTILES,
        )
        return None
    return rec
