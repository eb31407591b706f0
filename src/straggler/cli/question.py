"""``straggler recommend``: an operator's question answered: written as a study file,
run by Snakemake (resumed after an interruption, its locks explained), then the margin in
c located by rounds of bisection, and the answer printed.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from ..model.policies.stacks import STACKS
from .errors import DATASET_EXPECTED, QUESTION_EXPECTED, Failure, Usage, os_reason, positive_int, readable, writable
from .study import print_estimate


def _repository() -> Path:
    """The folder of the package's checkout that holds ``workflow/Snakefile``
    (``src/straggler``'s grandparent): where a study runs by default."""
    import straggler

    return Path(straggler.__file__).resolve().parents[2]


def _run_folder(results: str | None) -> Path:
    """The folder Snakemake runs in: the repository's, or the parent of ``--results``
    (Snakemake writes ``results/<study>`` under the folder it runs in, so the option
    names a folder called ``results``)."""
    if results is None:
        return _repository()
    folder = Path(results)
    if folder.name != "results":
        raise Usage(
            f"--results {results}: a folder named {folder.name!r} is not allowed; expected a folder named "
            f"results (the study runs in its parent folder and writes results/<name>/ there), e.g. /scratch/results"
        )
    if folder.exists() and not folder.is_dir():
        raise Failure(f"--results {results} is not a directory; expected a folder for the results")
    return folder.absolute().parent


def _snakemake(
    snakefile: Path,
    folder: Path,
    study: Path,
    cores: str,
    profile: str | None,
    targets: list[str] | None = None,
    log: Path | None = None,
) -> int:
    """Run Snakemake on ``study`` in ``folder`` with this interpreter (for ``targets``,
    paths from ``folder``; default: the whole study), its output going to the terminal
    (or to the file ``log``); its exit status. An interrupt (Ctrl-C reaches both
    processes) waits for Snakemake to stop its jobs and remove its lock, so that a rerun
    resumes."""
    import subprocess

    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(snakefile),
        "--directory",
        str(folder),
        "--configfile",
        str(study.absolute()),
        "--cores",
        cores,
        # the project's own lines (the plan's estimate, the time left, each cell done), the
        # progress and the errors stay; each job's block of inputs and outputs goes
        "--quiet",
        "rules",
        "host",
    ]
    if profile is not None:
        # a profile given by its path is found from the caller's folder, not the run's
        command += ["--profile", str(Path(profile).absolute()) if Path(profile).exists() else profile]
    command[3:3] = list(targets or [])  # before the options (--quiet takes a list)
    sys.stdout.flush()  # what was printed comes before Snakemake's output
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") if log is not None else contextlib.nullcontext() as out:
        process = subprocess.Popen(command, cwd=folder, stdout=out, stderr=subprocess.STDOUT if out else None)
    try:
        return process.wait()
    except KeyboardInterrupt:
        while process.poll() is None:  # a second Ctrl-C reaches Snakemake too: keep waiting
            try:
                process.wait()
            except KeyboardInterrupt:
                continue
        raise Failure(
            "interrupted; run the same command again to resume (only the cells without a result are computed)"
        ) from None


def _shown(path: Path) -> Path:
    """``path`` as the user sees it: from the current folder when under it."""
    absolute = Path(os.path.abspath(path))
    return absolute.relative_to(Path.cwd()) if absolute.is_relative_to(Path.cwd()) else absolute


def _locks_of(folder: Path, study: str) -> list[Path]:
    """The Snakemake lock files in ``folder`` that hold ``results/<study>/``. Snakemake
    removes its own when it stops, so after a run those left are another run's or a
    killed run's. (Runs of other studies lock other files: Snakemake lets runs with
    disjoint outputs share a folder.)"""
    locks = folder / ".snakemake" / "locks"
    prefix = f"results/{study}/"
    found = []
    for lock in sorted(locks.glob("*.lock")) if locks.is_dir() else []:
        try:
            if any(line.startswith(prefix) for line in lock.read_text().splitlines()):
                found.append(lock)
        except OSError:
            continue  # removed meanwhile: its run has stopped
    return found


def _recommend(args) -> int:
    import xarray as xr

    from ..common.files import write_text
    from ..decide.deploy import setting_lines
    from ..decide.question import question_unit, read_question, study_text
    from ..decide.question_answer import answer_lines
    from ..study.config import ConfigError

    readable(args.question, QUESTION_EXPECTED)
    folder = _run_folder(args.results)
    try:
        question = read_question(args.question, folder)
    except ConfigError as err:
        raise Usage(*(f"{args.question}: {line}" for line in err.errors)) from None
    if args.emit and not question_unit(question):
        raise Usage(
            f"{args.question}: workload: --emit {args.emit} writes times in the stack's units, and the workload "
            "states none; expected its unit, e.g. workload: {..., unit: ms} (one of s, ms, us)"
        )
    text = study_text(question)
    results = _shown(folder / "results" / question.name)
    if args.dry_run:
        print(text, end="")
        print(f"# the plan (nothing run; the results would go to {results}):")
        print_estimate(question.resolved, "checking the answer's margin in c", _margin_seconds(question.resolved))
        return 0
    snakefile = _repository() / "workflow" / "Snakefile"
    if not snakefile.is_file():
        raise Failure(
            f"cannot find the workflow: {snakefile} does not exist; expected straggler installed from its "
            "repository (pip install -e .), which holds workflow/Snakefile"
        )
    try:
        question.study_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise Failure(f"cannot write {question.study_path} ({os_reason(err)}); expected a writable folder") from None
    writable(str(question.study_path), "study file")
    try:
        write_text(question.study_path, text)
    except OSError as err:
        raise Failure(f"cannot write {question.study_path} ({os_reason(err)}); expected a writable folder") from None
    print(f"study file: {_shown(question.study_path)}; results: {results}")
    dataset = results / f"{question.name}.nc"
    # the margin in c located by bisection: each round adds the midpoints it needs to the
    # study's sweep of c and runs it (only the new cells are computed); the rounds build
    # the dataset alone, the figures and the report are made once, at the end
    only_dataset = [f"results/{question.name}/{question.name}.nc"]  # from the run's folder (the Snakefile's RESULTS)
    status = _snakemake(snakefile, folder, question.study_path, args.cores, args.profile, only_dataset)
    if status != 0:
        _snakemake_failed(status, folder, question.name, results)
    question, study = _margin_rounds(question, args, snakefile, folder, dataset)
    report = str(results / "report.html")
    decision = question.resolved.decision
    if study is not None and (decision is None or decision.resolution is None):
        # every number of the answer is in the dataset the rounds combined (no located
        # frontier to wait for): the answer first, then the figures and the report,
        # Snakemake's output in a log (shown if it fails)
        log = results / "logs" / "recommend-report.log"
        print(f"the answer; its report follows (Snakemake's output: {log})", file=sys.stderr, flush=True)
        print("\n".join(answer_lines(study, report=report)), flush=True)
        if args.emit:
            print("\n".join(setting_lines(study, args.emit)), flush=True)
        status = _snakemake(snakefile, folder, question.study_path, args.cores, args.profile, log=log)
        if status != 0:
            print(_tail(log), file=sys.stderr)
            _snakemake_failed(status, folder, question.name, results)
        return 0
    status = _snakemake(snakefile, folder, question.study_path, args.cores, args.profile)
    if status != 0:
        _snakemake_failed(status, folder, question.name, results)
    try:
        with xr.open_dataset(dataset, engine="netcdf4") as ds:
            study = ds.load()
        from ..decide.frontier import with_located

        study = with_located(study, results / "capacity.csv")
        lines = answer_lines(study, report=report)
        if args.emit:
            lines += setting_lines(study, args.emit)
    except (OSError, ValueError) as err:
        raise Failure(f"cannot read {dataset} ({err}); {DATASET_EXPECTED}") from None
    print("\n".join(lines))
    return 0


def _tail(log: Path, lines: int = 40) -> str:
    """The last ``lines`` of a log (empty when it cannot be read)."""
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def _snakemake_failed(status: int, folder: Path, name: str, results: Path) -> NoReturn:
    """Why a run of a question's study stopped, and how to resume it."""
    locks = _locks_of(folder, name)
    if locks:
        raise Failure(
            f"{results} is locked: another run is writing it (this question, or one of the same name), or a "
            f"run killed without warning left its lock; when no such run is going, remove the lock "
            f"(rm {' '.join(str(p) for p in locks)}) and run the same command again: it resumes"
        )
    raise Failure(
        f"snakemake stopped with exit status {status} (its messages above say why); once that is "
        "fixed, the same command resumes: only the cells without a result are computed"
    )


def _margin_rounds(question, args, snakefile: Path, folder: Path, dataset: Path):
    """The bisection of the margin in c after the first run: each round adds the values
    of c it needs to the study's sweep and computes their cells. With a cluster profile a
    round is a Snakemake run of the dataset (its cells go to the cluster); otherwise the
    rounds' cells run in workers of this process (:mod:`straggler.run.margin_rounds`). The
    question with every value of c the rounds added, and (without a profile) the study's
    dataset with them all, combined in memory (None with a profile)."""
    from ..common.files import write_text
    from ..decide.assumption import probes_needed
    from ..decide.question import add_probes, study_text
    from ..run.margin_rounds import RoundPool

    def round_of(probes: list[float]) -> None:
        nonlocal question
        question = add_probes(question, probes)
        write_text(question.study_path, study_text(question))
        print("checking the answer at c = " + ", ".join(f"{c:g}" for c in probes), file=sys.stderr)

    if args.profile is not None:
        only_dataset = [f"results/{question.name}/{question.name}.nc"]
        while probes := _probes(dataset, probes_needed):
            round_of(probes)
            status = _snakemake(snakefile, folder, question.study_path, args.cores, args.profile, only_dataset)
            if status != 0:
                _snakemake_failed(status, folder, question.name, dataset.parent)
        return question, None
    import xarray as xr

    try:
        with xr.open_dataset(dataset, engine="netcdf4") as ds:
            study = ds.load()
    except (OSError, ValueError) as err:
        raise Failure(f"cannot read {dataset} ({err}); {DATASET_EXPECTED}") from None
    probes = probes_needed(study)
    cores = (os.cpu_count() or 1) if args.cores == "all" else int(args.cores)
    with RoundPool(cores) as pool:
        while probes:
            round_of(probes)
            try:
                study = pool.run(question.study_path, folder)
            except KeyboardInterrupt:
                raise Failure("interrupted; run the same command again to resume (the cells done are kept)") from None
            probes = probes_needed(study)
    return question, study


MARGIN_ROUND_SECONDS = 2.0
"""One round of the margin's bisection besides its cells, in the command's own workers
(:mod:`straggler.run.margin_rounds`): the dataset combined, the next values of c found, the
workers' start-up shared by the rounds (measured on benchmarks/heavy_question.py: 1-2 s a
round; by Snakemake, with a cluster profile, 7-9 s)."""


def _margin_seconds(resolved) -> float:
    """The estimated CPU seconds of the bisection of the margin in c (:func:`_recommend`):
    as many rounds as halve the narrowest gap of the sweep of c down to the assumption's
    resolution, each the cells of one value of c and :data:`MARGIN_ROUND_SECONDS`."""
    from ..common.sources import model_hash
    from ..decide.assumption import RESOLUTION
    from ..study.grid import build_grid
    from ..study.workunits import plan

    grid = build_grid(resolved)
    axis = next((a for a in grid.axes if a.endswith(".identical")), None)
    values = sorted(float(v) for v in grid.axes.get(axis, [])) if axis else []
    if len(values) < 2:
        return 0.0
    gap = min(b - a for a, b in zip(values, values[1:]))
    rounds = max(0, math.ceil(math.log2(gap / RESOLUTION))) if gap > RESOLUTION else 0
    costs = plan(resolved, grid, model_hash()).costs
    per_value = sum(c.total for cid, c in costs.items() if f"{axis}=" in cid) / len(values)
    return rounds * (per_value + MARGIN_ROUND_SECONDS)


def _probes(dataset: Path, needed) -> list[float]:
    """The values of c the margin's bisection needs next, read from the finished dataset
    (none when it cannot be read: the answer's own reading then says why)."""
    import xarray as xr

    try:
        with xr.open_dataset(dataset, engine="netcdf4") as ds:
            return needed(ds.load())
    except (OSError, ValueError):
        return []


def _cores(text: str) -> str:
    """``--cores``: ``all`` or a whole number >= 1."""
    return text if text == "all" else str(positive_int(text))


def add_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """The command on an operator's question: recommend."""
    p = command(
        "recommend",
        "answer an operator's question (a system, a workload, loads, an SLO and a budget): write it as a "
        "study file beside it, run the study and print which policy to run, in at most ten lines",
        "straggler recommend config/questions/example.yaml --dry-run",
        "straggler recommend config/questions/example.yaml --cores 2",
        "(--dry-run prints the study file and the plan's estimate and runs nothing; without it the",
        " example runs in a few minutes on two cores, and a rerun after an interruption resumes)",
    )
    p.add_argument("question", help="a question file, e.g. config/questions/example.yaml")
    p.add_argument("--cores", type=_cores, default="all", metavar="N", help="cores Snakemake uses (default: all)")
    p.add_argument(
        "--profile", metavar="DIR", help="a Snakemake profile (a folder with config.yaml, e.g. profiles/slurm)"
    )
    p.add_argument(
        "--dry-run", action="store_true", help="print the study file and the plan's estimate; write and run nothing"
    )
    p.add_argument(
        "--results",
        metavar="DIR",
        help="the results folder, named results (default: results/ of the repository): the study runs in its "
        "parent and writes DIR/<name>/",
    )
    p.add_argument(
        "--emit",
        choices=list(STACKS),
        metavar="STACK",
        help="after the answer, print the recommended contender a client alone can run as the setting of an RPC "
        f"stack, in its format and units: {', '.join(STACKS)} (the workload needs its unit, e.g. unit: ms)",
    )
    p.set_defaults(func=_recommend)
