# Work units (straggler.study.workunits): batches of cheap cells, and shards of an expensive
# cell's replications followed by the cell's own evaluation. A unit's manifest
# (units/<batch>~<todo>.json, Plan.unit_target) records that its job ran; the cells'
# files are what counts, and a batch that loses a cell since is a new target. (Not
# `temp()`: Snakemake would skip a unit whose temporary output is missing when the
# dataset looks up to date, and a new cell would go unevaluated.)
rule evaluate:
    """Analysis, simulation and verdicts of a batch of cells (a sharded cell alone,
    reading its shards' replications back); finished cells are skipped."""
    input:
        shards=shard_inputs,
    output:
        f"{RESULTS}/units/{{batch}}~{{todo}}.json",
    log:
        f"{RESULTS}/logs/evaluate/{{batch}}~{{todo}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/evaluate/{{batch}}~{{todo}}.tsv"
    # the longest estimated jobs first (longest processing time first): a long job
    # started last leaves the other cores idle at the end of the run
    priority: lambda wc: PLAN.batches[wc.batch].seconds
    resources:
        runtime=lambda wc, attempt: runtime_minutes(PLAN.batches[wc.batch].seconds, attempt),
        mem_mb=lambda wc, attempt: MEM_MB * attempt,
    params:
        resolved=RESOLVED_YAML,
        cells=lambda wc: list(PLAN.batches[wc.batch].cells),
        cell_keys=lambda wc: list(PLAN.batches[wc.batch].keys),
    script:
        "../scripts/evaluate.py"


rule simulate_shard:
    """Replications first .. stop - 1 of one cell, into the cell's store."""
    output:
        f"{RESULTS}/units/shards/{{cellkey}}/r{{first}}-{{stop}}.json",
    log:
        f"{RESULTS}/logs/shards/{{cellkey}}/r{{first}}-{{stop}}.log",
    priority: lambda wc: PLAN.costs[wc.cellkey.rpartition("@")[0]].replication * (int(wc.stop) - int(wc.first))
    resources:
        runtime=lambda wc, attempt: runtime_minutes(
            PLAN.costs[wc.cellkey.rpartition("@")[0]].replication * (int(wc.stop) - int(wc.first)), attempt
        ),
        mem_mb=lambda wc, attempt: MEM_MB * attempt,
    params:
        resolved=RESOLVED_YAML,
        cell=lambda wc: wc.cellkey.rpartition("@")[0],
    script:
        "../scripts/shard.py"
