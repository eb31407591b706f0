rule aggregate:
    """The study dataset: every cell on the full grid, with provenance."""
    input:
        aggregate_inputs,
    output:
        dataset=report(
            f"{RESULTS}/{STUDY}.nc",
            caption="../report/dataset.rst",
            category="Dataset",
        ),
        config=f"{RESULTS}/config.yaml",
    log:
        f"{RESULTS}/logs/aggregate.log",
    params:
        resolved=RESOLVED_YAML,
        recorded=RESULT_YAML,
        cells=all_cell_paths,
    script:
        "../scripts/aggregate.py"
