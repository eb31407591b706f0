rule evaluate:
    """Analysis (and simulation) of one distinct cell at every load."""
    output:
        f"{RESULTS}/cells/{{cell}}.nc",
    params:
        spec=cell_params,
        code=MODEL_HASH,
    log:
        f"{RESULTS}/logs/evaluate/{{cell}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/evaluate/{{cell}}.tsv"
    resources:
        runtime=lambda wc, attempt: 30 * attempt,
        mem_mb=2000,
    script:
        "../scripts/evaluate.py"
