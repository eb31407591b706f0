# Config resolution, the grid, the work units and input functions. Everything here runs
# at parse time, before any job, and again in every cluster job: it imports no numpy,
# xarray, pandas or numba (the resolved config is cached under .snakemake/straggler/).
# A bad config stops the run here and writes nothing.
from pathlib import Path

from snakemake.exceptions import WorkflowError

from straggler.decide.break_even import delay_settings
from straggler.outputs.catalog import figure_names, figure_parts
from straggler.study.config import ConfigError, dump_config, read_study_files, resolve_config_cached
from straggler.common.files import restore_previous
from straggler.study.grid import build_grid, setting_key
from straggler.study.grid import settings as grid_settings
from straggler.common.sources import figures_hash, model_hash, presentation_hash
from straggler.study.workunits import cache_law_facts
from straggler.study.workunits import plan, result_config, runtime_minutes, search_hash, search_seconds

# The project's folder: the one that holds workflow/ (where the main Snakefile is) and config/.
# A run elsewhere (snakemake --snakefile .../workflow/Snakefile --directory X) still takes
# the default study and archives the code from here.
PROJECT = Path(workflow.basedir).parent

# One reading of a study file: the files given with --configfile are read again by the
# package's loader, as `straggler check-config` reads them, and Snakemake's reading is
# dropped (it keeps the last of a repeated key, expands YAML aliases and reads 1e-3 as a
# string). --config is merged over them, its text read as a study file reads it (and an
# error about it says it came from --config). Without --configfile the default study runs. A
# study file is complete by itself: it is not merged into config/config.yaml
# (Snakemake's `configfile:` would merge); `--config scale=paper` alone applies to the
# default study.
try:
    _RAW = read_study_files(
        workflow.configfiles,
        workflow.config_settings.config,
        default=PROJECT / "config" / "config.yaml",
    )
    RESOLVED = resolve_config_cached(_RAW, ".snakemake/straggler", overrides=workflow.config_settings.config)
    cache_law_facts(RESOLVED, ".snakemake/straggler")
except ConfigError as err:
    raise WorkflowError(f"invalid configuration:\n{err}") from None
config.clear()
config.update(_RAW)

STUDY = RESOLVED.study
RESULTS = f"results/{STUDY}"
GRID = build_grid(RESOLVED)
RESOLVED_YAML = dump_config(RESOLVED)
# what the dataset records: the config without the keys that never change a number
RESULT_YAML = dump_config(result_config(RESOLVED))
# Snakemake cannot see into the package: the cells' file names carry a hash of the code
# their numbers depend on, and the figures and reports take a hash of theirs, so a change
# of the model reruns the cells and a change of the figures only the figures (and the
# report, which embeds them).
MODEL_HASH = model_hash()
PLOTS_HASH = figures_hash()
REPORT_HASH = presentation_hash()
FIGURE_NAMES = figure_names(GRID.axes, "simulation" in RESOLVED.evaluate, RESOLVED.decision is not None)
FIGURE_PARTS = figure_parts(FIGURE_NAMES)
PLAN = plan(RESOLVED, GRID, MODEL_HASH)
# A cell file that does not match its checksum (truncated, changed, written by a killed
# job) is not a result: its batch is pending and its job replaces the file. Checked by
# the main process only (a cluster job is given its target; hashing every cell file in
# every job would cost more than the job). Nothing is deleted here.
DAMAGED = PLAN.damaged(RESULTS) if workflow.is_main_process else {}
for _path, _why in DAMAGED.items():
    logger.warning(f"{_path}: {_why}; its cell is computed again")
# A job's memory: measured at 200-350 MB (max RSS: the imports, one cell at a time, a
# replication's monitor history); a job that ran out gets more on its next attempt.
MEM_MB = 1000
PENDING = PLAN.pending(RESULTS, DAMAGED)
# Answers between the grid's loads (decision.resolution): a search job per setting
# (straggler.decide.frontier), named by the setting and by what its answers depend on beyond the
# dataset (the decision section and the code), so a new SLO or resolution searches again.
SEARCHED = (
    RESOLVED.decision is not None and RESOLVED.decision.resolution is not None and "simulation" in RESOLVED.evaluate
)
SETTINGS = {setting_key(s): s for s in grid_settings(GRID)} if SEARCHED else {}
SEARCH_HASH = search_hash(RESOLVED, MODEL_HASH) if SEARCHED else ""
# Break-even cancellation delays (a grid that sweeps cancel_delay and holds ZRed,
# straggler.decide.break_even): a job per setting without the delay, named like a search.
BREAK_EVEN_SETTINGS = {setting_key(s): s for s in delay_settings(GRID)} if "simulation" in RESOLVED.evaluate else {}
BREAK_EVEN_HASH = search_hash(RESOLVED, MODEL_HASH) if BREAK_EVEN_SETTINGS else ""


# one caption per kind of figure (workflow/report/figures/<family>.rst; the family is
# the kind's, in catalog.FIGURE_KINDS)
def figure_caption(name):
    from straggler.outputs.catalog import figure_family

    return f"../report/figures/{figure_family(name)}.rst"


if not GRID.cells:
    raise WorkflowError(
        "invalid configuration: the grid has no possible cell:\n"
        + "\n".join(f"  {dict(zip(GRID.axes, p))}: {r}" for p, r in GRID.impossible.items())
    )
for _point, _reason in GRID.impossible.items():
    logger.info(f"left NaN: {dict(zip(GRID.axes, _point))}: {_reason}")


wildcard_constraints:
    study=r"[^/]+",
    batch=r"b\d+-[0-9a-f]+",
    todo=r"[0-9a-f]+",
    cellkey=r"[^/]+@[0-9a-f]+",
    first=r"\d+",
    stop=r"\d+",
    setting=r"[0-9a-f]{16}",


def cell_path(cell_id):
    return PLAN.cell_path(RESULTS, cell_id)


def all_cell_paths(wildcards=None):
    return [cell_path(cid) for cid in GRID.cells]


def pending_units(wildcards=None):
    return [PLAN.unit_target(RESULTS, b, DAMAGED) for b in PENDING]


def aggregate_inputs(wildcards=None):
    """The pending batches' manifests, and the cells that already have a result."""
    return pending_units() + [p for p in all_cell_paths() if Path(p).exists() and p not in DAMAGED]


def shard_inputs(wildcards):
    return [f"{RESULTS}/units/shards/{s.name}.json" for s in PLAN.batches[wildcards.batch].shards]


def study_outputs():
    figures = [f"{RESULTS}/figures/{n}.{ext}" for n in FIGURE_NAMES for ext in ("png", "svg")]
    summary = [f"{RESULTS}/report.md", f"{RESULTS}/winners.csv", f"{RESULTS}/report.html", f"{RESULTS}/claims.csv"]
    return [
        f"{RESULTS}/{STUDY}.nc",
        f"{RESULTS}/config.yaml",
        *figures,
        *summary,
        *located_outputs(),
        *break_even_outputs(),
    ]


def search_path(key):
    return f"{RESULTS}/search/{key}~{SEARCH_HASH}.json"


def break_even_path(key):
    return f"{RESULTS}/break_even/{key}~{BREAK_EVEN_HASH}.json"


def break_even_outputs(wildcards=None):
    """break_even.csv (a study that sweeps cancel_delay against ZRed)."""
    return [f"{RESULTS}/break_even.csv"] if BREAK_EVEN_SETTINGS else []


def located_outputs(wildcards=None):
    """capacity.csv, crossovers.csv and the capacity figure (a study with a resolution)."""
    if not SEARCHED:
        return []
    return [
        f"{RESULTS}/capacity.csv",
        f"{RESULTS}/crossovers.csv",
        f"{RESULTS}/figures/capacity.png",
        f"{RESULTS}/figures/capacity.svg",
    ]


# ------------------------------------------------------------------ what the console says
# The run's own messages (Snakefile's onstart and onsuccess): that the first jobs compile
# the kernels when numba's cache lacks them (a cold cache looked like a hang: a first
# cell of one to three minutes), the plan's estimate of the run's work, the time left
# as jobs finish, and where the report is. None of it reads a result or writes under
# results/: what a run computes does not depend on it.
import logging

from snakemake_interface_logger_plugins.common import LogEvent

from straggler.common import kernel_cache
from straggler.study.progress import (
    PROGRESS_MIN_SECONDS,
    Progress,
    duration,
    kind_engine,
    later_work,
    pending_work,
    wall_seconds,
    with_compiles,
)
from straggler.study.workunits import kernel_kind, study_seconds


def _parallel():
    """How many jobs run at once: the cores, or the jobs a cluster run submits."""
    try:
        return int(workflow.cores if workflow.local_exec else workflow.nodes)
    except (WorkflowError, TypeError, ValueError, KeyError):
        return 1


def pending_kinds():
    """{cell id: its kind (workunits.kernel_kind)} for the pending cells it simulates."""
    kinds = {}
    for batch in PENDING:
        todo = set(PLAN.to_compute(RESULTS, batch, DAMAGED))
        for cid, key in zip(batch.cells, batch.keys):
            kind = kernel_kind(RESOLVED, GRID.cells[cid]) if key in todo else None
            if kind is not None:
                kinds[cid] = kind
    return kinds


def kernels_to_compile(kinds):
    """{kind: a cell of that kind} for the kinds of ``kinds`` (pending_kinds) whose
    kernels numba's cache does not hold (kernel_cache.missing_kinds)."""
    cells = {}
    for cid, kind in kinds.items():
        cells.setdefault(kind, cid)
    return {kind: cells[kind] for kind in kernel_cache.missing_kinds(cells)}


def announce_compile(kinds):
    """Say, once and before the first job, that the first jobs compile the kernels: with
    a cold cache a first cell takes a minute or more, which looked like a hang. (They
    are not compiled up front: on two cores that made a cold run of the default study
    about 40 s longer, the cores waiting for one compile while the jobs overlap theirs
    with work; numba writes its cache atomically, so jobs compiling at once are safe.)"""
    engines = {kind_engine(kind) for kind in kinds}
    cached = {kind_engine(kind) for kind in kernel_cache.compiled_kinds()}
    last = kernel_cache.last_compile_seconds()
    if engines <= cached:  # new kinds of cell of engines compiled before: their variants
        about = f"{len(kinds)} new kind{'s' if len(kinds) != 1 else ''} of cell, seconds"
    else:
        about = "once per change of their sources; " + (
            f"about {duration(last)} last time on this machine" if last else "a minute or more"
        )
    logger.info(f"straggler: the first jobs compile the simulation kernels ({about}) ...")


class QuietJobBlocks(logging.Filter):
    """Drop Snakemake's per-job blocks (rule, input, output, log, reason, wildcards,
    resources: some twenty lines a job, five hundred in the default study), which buried
    the progress lines, and the "Shell command: None" of a job that runs a script.
    Errors keep their blocks, and the step counts stay."""

    BLOCKS = (LogEvent.JOB_INFO, LogEvent.GROUP_INFO)

    def filter(self, record):
        event = getattr(record, "event", None)
        if event == LogEvent.SHELLCMD:
            return bool(getattr(record, "shellcmd", None))
        return event not in self.BLOCKS


def quiet_job_blocks():
    """Install :class:`QuietJobBlocks` for a local run, but not for a dry run (the blocks
    are its answer), nor with --verbose or the profile's `verbose: true`, which bring them
    back, nor on a cluster, where a job's block says what was submitted with which
    resources (a retry's larger runtime)."""
    settings = getattr(workflow, "output_settings", None)
    if workflow.dryrun or getattr(settings, "verbose", False) or not workflow.local_exec:
        return
    logger.addFilter(QuietJobBlocks())


PROGRESS = None


def start_run():
    """onstart: say whether the kernels are compiled first and what the run will cost and,
    for a run of more than a minute, start the progress lines."""
    global PROGRESS
    if not workflow.is_main_process:
        return
    quiet_job_blocks()  # here, not at parse time: the executor (local or a cluster) is known now
    cell_kinds = pending_kinds()
    kinds = kernels_to_compile(cell_kinds)
    if kinds:
        announce_compile(kinds)
    parallel = _parallel()
    bare = pending_work(PLAN, RESULTS, PENDING, DAMAGED, cell_kinds)
    if not bare:
        return
    units = with_compiles(bare, parallel, kinds)
    compiling = sum(u.seconds for u in units) - sum(u.seconds for u in bare)
    # the jobs after the cells (their files: what the progress lines watch)
    later = later_work(
        study_seconds(RESOLVED, GRID, PLAN, list(BREAK_EVEN_SETTINGS.values())),
        {
            "report": [f"{RESULTS}/report.html"],
            "figures": [f"{RESULTS}/figures/{names[0]}.png" for names in FIGURE_PARTS if names],
            "searches": [search_path(key) for key in SETTINGS],
            "break-even": [break_even_path(key) for key in BREAK_EVEN_SETTINGS],
        },
    )
    jobs = len(units)
    try:  # the files this run's jobs write (a run of some targets only makes no report)
        writing = {str(f) for job in workflow.dag.needrun_jobs() for f in job.output}
    except (AttributeError, TypeError, WorkflowError):
        writing = set()
    units += [u for u in later if u.path in writing]
    cpu = sum(u.seconds for u in units)
    wall = wall_seconds(units, parallel)
    cells = sum(len(PLAN.to_compute(RESULTS, b, DAMAGED)) for b in PENDING)
    watched = cpu > PROGRESS_MIN_SECONDS
    # what runs after the cells (Snakemake's linter reads "rule" and a colon as a rule)
    then = sorted(
        {{"figures": "report"}.get(getattr(u, "rule"), getattr(u, "rule")) for u in units[jobs:]},
        key=["report", "searches", "break-even"].index,
    )
    logger.info(
        f"straggler: this run evaluates {cells} cells in {jobs} "
        f"job{'s' if jobs != 1 else ''}{', then its ' + ', '.join(then) if then else ''}: about {duration(cpu)} "
        "of CPU time"
        + (f" ({duration(compiling)} of it compiling)" if compiling >= 1 else "")
        + f", {duration(wall)} on {parallel} "
        + (("core" if parallel == 1 else "cores") if workflow.local_exec else "jobs at once")
        + f" (the plan's estimate{'; the time left is measured as jobs finish' if watched else ''})"
    )
    if watched:
        PROGRESS = Progress(units, parallel)
        PROGRESS.watch(logger.info)


def end_run():
    """onsuccess: stop the progress lines, and say where the report is."""
    if PROGRESS is not None:
        PROGRESS.stop()
        last = PROGRESS.poll()  # the report, written after the last poll
        if last is not None:
            logger.info(last)
    if not workflow.is_main_process:
        return
    dataset = Path(f"{RESULTS}/{STUDY}.nc")
    since = dataset.stat().st_mtime if dataset.exists() else 0.0
    # the report of this dataset (a run of another target may leave an older one)
    fresh = {
        p.suffix: p
        for p in (Path(f"{RESULTS}/report.md"), Path(f"{RESULTS}/report.html"))
        if p.exists() and p.stat().st_mtime >= since
    }
    # relative to the project (`make run`), else in full (snakemake --directory elsewhere)
    here = Path.cwd().resolve() == PROJECT.resolve()
    shown = {k: str(p if here else p.resolve()) for k, p in fresh.items()}
    if ".md" in shown:
        logger.info(f"the report: {shown['.md']}" + (f" (HTML: {shown['.html']})" if ".html" in shown else ""))
    elif ".html" in shown:
        logger.info(f"the report: {shown['.html']}")
