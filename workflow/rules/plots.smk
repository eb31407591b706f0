# The figures are drawn in jobs side by side (catalog.figure_parts): matplotlib takes
# most of a simulated study's time after its cells.
for _part, _names in enumerate(FIGURE_PARTS):

    rule:
        name:
            f"figures_{_part}"
        input:
            f"{RESULTS}/{STUDY}.nc",
            # with decision.resolution: the winners map's stability column is located
            located=located_outputs()[:1],
        output:
            png=[
                report(
                    f"{RESULTS}/figures/{name}.png",
                    caption=figure_caption(name),
                    category="Figures",
                    labels={"figure": name},
                )
                for name in _names
            ],
            svg=[f"{RESULTS}/figures/{name}.svg" for name in _names],
        log:
            f"{RESULTS}/logs/figures_{_part}.log",
        # before the searches and the break-even bisections that wait beside them: the
        # time left (straggler.study.progress.Progress) schedules them first, as they run
        priority: 1
        params:
            names=_names,
            code=PLOTS_HASH,
        script:
            "../scripts/figures.py"
