rule report:
    """Which policy wins where, on what evidence: report.html (every figure embedded),
    its summary report.md, the winners per setting and the paper's claims checked."""
    input:
        dataset=f"{RESULTS}/{STUDY}.nc",
        figures=[f"{RESULTS}/figures/{name}.png" for name in FIGURE_NAMES],
        # with decision.resolution: the located frontiers and their figure
        located=located_outputs(),
        # with cancel_delay swept against ZRed: the break-even delays
        break_even=break_even_outputs(),
    output:
        html=report(f"{RESULTS}/report.html", caption="../report/report_html.rst", category="Report"),
        markdown=report(f"{RESULTS}/report.md", caption="../report/report.rst", category="Report"),
        table=f"{RESULTS}/winners.csv",
        claims=report(f"{RESULTS}/claims.csv", caption="../report/claims.rst", category="Report"),
    log:
        f"{RESULTS}/logs/report.log",
    params:
        code=REPORT_HASH,
    script:
        "../scripts/report.py"
