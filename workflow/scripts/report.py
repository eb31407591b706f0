# Run by `rule report`; the work is in straggler.run.pipeline.report.
import logging

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.run.pipeline import report

report(
    snakemake.input.dataset,
    snakemake.output.markdown,
    snakemake.output.table,
    snakemake.output.html,
    snakemake.output.claims,
    [*snakemake.input.figures, *[p for p in snakemake.input.located if p.endswith(".png")]],
    capacity_csv=next((p for p in snakemake.input.located if p.endswith("capacity.csv")), None),
    break_even_csv=snakemake.input.break_even[0] if snakemake.input.break_even else None,
)
