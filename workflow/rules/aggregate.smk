rule aggregate:
    """The study dataset: every cell on the full grid, with provenance."""
    input:
        cells=all_cell_paths,
    output:
        dataset=report(
            f"{RESULTS}/{STUDY}.nc",
            caption="../report/dataset.rst",
            category="Dataset",
        ),
        config=f"{RESULTS}/config.yaml",
    params:
        resolved=RESOLVED_YAML,
        code=MODEL_HASH,
    log:
        f"{RESULTS}/logs/aggregate.log",
    script:
        "../scripts/aggregate.py"
