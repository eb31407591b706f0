# Config resolution, the grid, and input functions. Everything here runs at parse
# time, before any job: a bad config stops the run here and writes nothing.
import json
from pathlib import Path

from snakemake.exceptions import WorkflowError

from straggler.config import ConfigError, dump_config, load_config, resolve_config
from straggler.dataset import PRESENTATION_MODULES, source_hash
from straggler.grid import build_grid, cell_spec
from straggler.plots import figure_names

# Without --configfile the default study runs. A study file is complete by itself:
# it is not merged into config/config.yaml (Snakemake's `configfile:` would merge).
# `--config scale=paper` alone applies to the default study.
if "grid" not in config:
    _given = dict(config)
    config.clear()
    config.update(load_config(Path(workflow.basedir) / "config" / "config.yaml"))
    config.update(_given)

try:
    RESOLVED = resolve_config(config)
except ConfigError as err:
    raise WorkflowError(f"invalid configuration:\n{err}") from None

STUDY = RESOLVED["study"]
RESULTS = f"results/{STUDY}"
GRID = build_grid(RESOLVED)
RESOLVED_YAML = dump_config(RESOLVED)
# Snakemake cannot see into the package: pass hashes of its source as params, so a
# change of the model code reruns the cells and a change of the figures only the figures.
MODEL_HASH = source_hash(exclude=PRESENTATION_MODULES)
PLOTS_HASH = source_hash(only=("plots.py",))
REPORT_HASH = source_hash(only=("plots.py", "report.py", "claims.py", "templates/report.html.j2"))
FIGURE_NAMES = figure_names(GRID.axes, "simulation" in RESOLVED["evaluate"])
# one caption per kind of figure (workflow/report/figures/<family>.rst)
_FAMILIES = ("stability_vs_", "load_ratio_vs_", "latency_vs_", "cost_vs_", "winners_")


def figure_caption(name):
    family = next((f.rstrip("_") for f in _FAMILIES if name.startswith(f)), name)
    return f"../report/figures/{family}.rst"

if not GRID.cells:
    raise WorkflowError(
        "invalid configuration: the grid has no possible cell:\n"
        + "\n".join(f"  {dict(zip(GRID.axes, p))}: {r}" for p, r in GRID.impossible.items())
    )
for _point, _reason in GRID.impossible.items():
    logger.info(f"left NaN: {dict(zip(GRID.axes, _point))}: {_reason}")


wildcard_constraints:
    study=r"[^/]+",
    cell=r"[^/]+",


def cell_path(cell_id):
    return f"{RESULTS}/cells/{cell_id}.nc"


def all_cell_paths(wildcards=None):
    return [cell_path(cid) for cid in GRID.cells]


def cell_params(wildcards):
    """The cell's self-contained config, as JSON: a change reruns exactly this cell."""
    return json.dumps(cell_spec(RESOLVED, GRID.cells[wildcards.cell]), sort_keys=True)


def study_outputs():
    figures = [f"{RESULTS}/figures/{n}.{ext}" for n in FIGURE_NAMES for ext in ("png", "svg")]
    summary = [f"{RESULTS}/report.md", f"{RESULTS}/winners.csv", f"{RESULTS}/report.html",
               f"{RESULTS}/claims.csv"]
    return [f"{RESULTS}/{STUDY}.nc", f"{RESULTS}/config.yaml", *figures, *summary]
