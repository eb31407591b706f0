# Run by `rule evaluate`; the work is in straggler.pipeline.evaluate_batch.
import logging

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.pipeline import evaluate_batch

evaluate_batch(
    snakemake.params.resolved,
    list(snakemake.params.cells),
    list(snakemake.params.cell_keys),
    snakemake.params.results,
    snakemake.output[0],
)
