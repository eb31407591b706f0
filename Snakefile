# A parameter study of redundancy policies. The DAG is the plan; the package
# `straggler` does the work. Run: snakemake --cores all [--configfile config/studies/X.yaml]
from snakemake.utils import min_version

min_version("9.0")


include: "workflow/rules/common.smk"


# `rule all` must stay in this file: a default target in an included file is ignored.
rule all:
    input:
        study_outputs(),
    default_target: True


include: "workflow/rules/evaluate.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/plots.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/archive.smk"
