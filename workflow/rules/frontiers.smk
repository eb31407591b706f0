# Answers between the grid's loads (decision.resolution, straggler.frontier): one job
# per setting searches its contenders' stability and SLO frontiers and the loads where
# its winners change, by probes simulated into the cells' stores (a rerun, or a search
# killed midway, reads them back); `locate` gathers the settings into capacity.csv,
# crossovers.csv and the capacity figure. A setting, not a cell, is the unit: its
# crossovers compare its contenders on the workload's common random numbers.
rule search:
    """The frontiers and crossovers of one setting, probed between the grid's loads."""
    input:
        f"{RESULTS}/{STUDY}.nc",
    output:
        f"{RESULTS}/search/{{setting}}~{SEARCH_HASH}.json",
    params:
        resolved=RESOLVED_YAML,
        setting=lambda wc: SETTINGS[wc.setting],
    log:
        f"{RESULTS}/logs/search/{{setting}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/search/{{setting}}.tsv"
    resources:
        mem_mb=MEM_MB,
    script:
        "../scripts/search.py"


rule locate:
    """capacity.csv, crossovers.csv and the capacity figure from every setting's search."""
    input:
        [search_path(key) for key in SETTINGS],
    output:
        capacity=f"{RESULTS}/capacity.csv",
        crossovers=f"{RESULTS}/crossovers.csv",
        figure=multiext(f"{RESULTS}/figures/capacity", ".png", ".svg"),
    params:
        code=PLOTS_HASH,
    log:
        f"{RESULTS}/logs/locate.log",
    script:
        "../scripts/locate.py"
