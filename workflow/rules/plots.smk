rule figures:
    """Seaborn figures of the study dataset (PNG and SVG)."""
    input:
        f"{RESULTS}/{STUDY}.nc",
    output:
        png=[
            report(
                f"{RESULTS}/figures/{name}.png",
                caption=figure_caption(name),
                category="Figures",
                labels={"figure": name},
            )
            for name in FIGURE_NAMES
        ],
        svg=[f"{RESULTS}/figures/{name}.svg" for name in FIGURE_NAMES],
    params:
        names=FIGURE_NAMES,
        code=PLOTS_HASH,
    log:
        f"{RESULTS}/logs/figures.log",
    script:
        "../scripts/figures.py"
