# Answers between the grid's loads (decision.resolution, straggler.decide.frontier): one job
# per setting searches its contenders' stability and SLO frontiers and the loads where
# its winners change, by probes simulated into the cells' stores (a rerun, or a search
# killed midway, reads them back); `locate` gathers the settings into capacity.csv,
# crossovers.csv and the capacity figure. A setting, not a cell, is the unit: its
# crossovers compare its contenders on the workload's common random numbers.
# A cluster job's time: the plan's estimate of the costliest setting's search.
SEARCH_SECONDS = search_seconds(PLAN, GRID, list(SETTINGS.values()))


rule search:
    """The frontiers and crossovers of one setting, probed between the grid's loads."""
    input:
        f"{RESULTS}/{STUDY}.nc",
    output:
        f"{RESULTS}/search/{{setting}}~{SEARCH_HASH}.json",
    log:
        f"{RESULTS}/logs/search/{{setting}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/search/{{setting}}.tsv"
    resources:
        # a search probes a few loads per contender: minutes, not hours, on the default
        # study's run lengths; a cluster job that ran out gets twice the time on its retry
        runtime=lambda wc, attempt: runtime_minutes(SEARCH_SECONDS, attempt),
        mem_mb=lambda wc, attempt: MEM_MB * attempt,
    params:
        resolved=RESOLVED_YAML,
        setting=lambda wc: SETTINGS[wc.setting],
    script:
        "../scripts/search.py"


rule locate:
    """capacity.csv, crossovers.csv and the capacity figure from every setting's search."""
    input:
        [search_path(key) for key in SETTINGS],
    output:
        capacity=f"{RESULTS}/capacity.csv",
        crossovers=f"{RESULTS}/crossovers.csv",
        png=report(
            f"{RESULTS}/figures/capacity.png",
            caption="../report/figures/capacity.rst",
            category="Figures",
            labels={"figure": "capacity"},
        ),
        svg=f"{RESULTS}/figures/capacity.svg",
    log:
        f"{RESULTS}/logs/locate.log",
    params:
        code=PLOTS_HASH,
    script:
        "../scripts/locate.py"


# Break-even cancellation delays (straggler.decide.break_even): per setting without the delay,
# each contender that cancels copies against ZRed, located by bisection on the workload's
# common random numbers; `break_even_table` gathers them into break_even.csv.
rule break_even:
    """The break-even cancellation delays of one setting."""
    input:
        f"{RESULTS}/{STUDY}.nc",
    output:
        f"{RESULTS}/break_even/{{delay_setting}}~{BREAK_EVEN_HASH}.json",
    log:
        f"{RESULTS}/logs/break_even/{{delay_setting}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/break_even/{{delay_setting}}.tsv"
    resources:
        runtime=lambda wc, attempt: runtime_minutes(SEARCH_SECONDS, attempt),
        mem_mb=lambda wc, attempt: MEM_MB * attempt,
    params:
        resolved=RESOLVED_YAML,
        setting=lambda wc: BREAK_EVEN_SETTINGS[wc.delay_setting],
    script:
        "../scripts/break_even.py"


rule break_even_table:
    """break_even.csv from every setting's break-even search."""
    input:
        [break_even_path(key) for key in BREAK_EVEN_SETTINGS],
    output:
        f"{RESULTS}/break_even.csv",
    log:
        f"{RESULTS}/logs/break_even_table.log",
    script:
        "../scripts/break_even_table.py"
