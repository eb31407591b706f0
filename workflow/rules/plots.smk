rule figures:
    """Seaborn figures of the study dataset (PNG and SVG)."""
    input:
        f"{RESULTS}/{STUDY}.nc",
    output:
        png=[
            report(
                f"{RESULTS}/figures/{name}.png",
                caption=f"../report/{name}.rst",
                category="Figures",
            )
            for name in FIGURES
        ],
        svg=[f"{RESULTS}/figures/{name}.svg" for name in FIGURES],
    params:
        code=SOURCE_HASH,
    log:
        f"{RESULTS}/logs/figures.log",
    script:
        "../scripts/figures.py"
