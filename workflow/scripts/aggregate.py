# Run by `rule aggregate`; the work is in straggler.pipeline.aggregate.
import logging

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)

from straggler.pipeline import aggregate

aggregate(
    snakemake.params.resolved,
    list(snakemake.params.cells),
    snakemake.output.dataset,
    snakemake.output.config,
    recorded_yaml=snakemake.params.recorded,
)
