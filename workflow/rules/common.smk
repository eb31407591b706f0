# Config resolution, the grid, the work units and input functions. Everything here runs
# at parse time, before any job, and again in every cluster job: it imports no numpy,
# xarray, pandas or numba (the resolved config is cached under .snakemake/straggler/).
# A bad config stops the run here and writes nothing.
from pathlib import Path

from snakemake.exceptions import WorkflowError

from straggler.catalog import figure_names, figure_parts
from straggler.config import ConfigError, dump_config, read_study_files, resolve_config_cached
from straggler.files import restore_previous
from straggler.grid import build_grid
from straggler.sources import figures_hash, model_hash, presentation_hash
from straggler.workunits import plan, result_config, runtime_minutes

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
        default=Path(workflow.basedir) / "config" / "config.yaml",
    )
    RESOLVED = resolve_config_cached(_RAW, ".snakemake/straggler", overrides=workflow.config_settings.config)
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
FIGURE_NAMES = figure_names(GRID.axes, "simulation" in RESOLVED.evaluate)
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
# one caption per kind of figure (workflow/report/figures/<family>.rst; the family is
# the kind's, in catalog.FIGURE_KINDS)
def figure_caption(name):
    from straggler.catalog import figure_family

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
    summary = [f"{RESULTS}/report.md", f"{RESULTS}/winners.csv", f"{RESULTS}/report.html",
               f"{RESULTS}/claims.csv"]
    return [f"{RESULTS}/{STUDY}.nc", f"{RESULTS}/config.yaml", *figures, *summary]
