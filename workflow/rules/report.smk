rule report:
    """Which policy wins where: analytic stability and cost winners per setting,
    simulated latency winners, provenance."""
    input:
        f"{RESULTS}/{STUDY}.nc",
    output:
        markdown=report(f"{RESULTS}/report.md", caption="../report/report.rst", category="Report"),
        table=f"{RESULTS}/winners.csv",
    params:
        code=REPORT_HASH,
    log:
        f"{RESULTS}/logs/report.log",
    script:
        "../scripts/report.py"
