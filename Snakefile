# A parameter study of redundancy policies. The DAG is the plan; the package
# `straggler` does the work. Run: snakemake --cores all [--configfile config/studies/X.yaml]
from snakemake.utils import min_version

min_version("9.0")


include: "workflow/rules/common.smk"


# `rule all` must stay in this file: a default target in an included file is ignored.
rule all:
    input:
        study_outputs(),
        # pending work units are targets themselves: a cell without a result is evaluated
        # even where the dataset looks up to date (Snakemake reruns no job for a missing
        # intermediate file when its consumers are newer, e.g. without .snakemake metadata)
        pending_units(),
    default_target: True


include: "workflow/rules/evaluate.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/plots.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/frontiers.smk"
include: "workflow/rules/archive.smk"


# Before the first job: whether the kernels are compiled first, the plan's estimate of
# the run, and the time left as jobs finish (common.smk, start_run).
onstart:
    start_run()


# After the last job: where the report is.
onsuccess:
    end_run()


# A failed or killed evaluate job leaves its cell without a result and, with
# --keep-going (the cluster profiles), the other cells finish: name the cells that a
# rerun will compute, so that a long log need not be searched for them.
onerror:
    if restore_previous(f"{RESULTS}/{STUDY}.nc"):
        logger.warning(
            f"{RESULTS}/{STUDY}.nc: the new dataset was not built; the previous one is back "
            "(with its figures and report), and the next run builds it again"
        )
    _missing = [cid for cid in GRID.cells if not Path(cell_path(cid)).exists()]
    if _missing:
        logger.error(
            f"{len(_missing)} of {len(GRID.cells)} cells of study '{STUDY}' have no result "
            "(their job failed, was killed or did not run); a rerun computes only these:\n"
            + "\n".join(f"  {cid}" for cid in _missing[:50])
            + (f"\n  ... and {len(_missing) - 50} more" if len(_missing) > 50 else "")
        )
